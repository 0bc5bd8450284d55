package kb

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kbmem/kb/agents"
	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/index"
	"github.com/kbmem/kb/internal/lock"
	"github.com/kbmem/kb/traces"
)

// Check is one finding of `kb doctor`.
type Check struct {
	Problem
	Severity string `json:"severity"`        // error | warning
	Fixable  bool   `json:"fixable"`         // --fix can repair it safely
	Fixed    bool   `json:"fixed,omitempty"` // --fix repaired it
}

// DoctorReport is what `kb doctor` found and repaired.
type DoctorReport struct {
	Files    int     `json:"files"`
	Sessions int     `json:"sessions"`
	Checks   []Check `json:"checks"`
	Lock     string  `json:"lock"` // free | held by ...
	Index    string  `json:"index"`
}

// Errors counts the findings of severity error that were not fixed.
func (r *DoctorReport) Errors() int {
	n := 0
	for _, c := range r.Checks {
		if c.Severity == "error" && !c.Fixed {
			n++
		}
	}
	return n
}

// Doctor checks the whole KB: every document parses (lint), trace files are
// well-formed with increasing sequence numbers, observation sources point at
// existing sessions, the index agrees with the files, the lock is sane, no
// temporary file was left behind by a crash (in the KB or in the places of
// the project kb writes) and no symlink leads out of the KB or the project. With fix, it repairs what is safe: orphan temp files,
// escaping links in kb's derived data (the links, never their targets), a
// stale lock holder note, an interrupted extraction run (finished from its
// journal), torn trace lines (dropped, and the records re-imported from
// their transcripts), an out-of-date or corrupt index. It takes the write
// lock only when fixing.
func (k *KB) Doctor(ctx context.Context, fix bool) (*DoctorReport, error) {
	d := &doctor{k: k, fix: fix, rep: &DoctorReport{Lock: "free"}, sessions: map[string]bool{}}
	// Symlinks out of the KB in kb's own files come first: the lock itself
	// lives in .state/.
	d.links()
	release, err := d.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	steps := []func(context.Context) error{d.documents, d.temps, d.journal, d.traces, d.sources, d.team, d.hooks}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return nil, err
		}
	}
	rep := d.rep
	rep.Index = k.checkIndex(ctx, fix, d.add)
	sort.SliceStable(rep.Checks, func(i, j int) bool {
		if rep.Checks[i].Path != rep.Checks[j].Path {
			return rep.Checks[i].Path < rep.Checks[j].Path
		}
		return rep.Checks[i].Line < rep.Checks[j].Line
	})
	if rep.Checks == nil {
		rep.Checks = []Check{}
	}
	return rep, nil
}

// doctor is one kb doctor run: its findings so far, and the sessions the
// trace files hold.
type doctor struct {
	k        *KB
	fix      bool
	rep      *DoctorReport
	sessions map[string]bool
}

// hooks warns about kb hooks installed in the agents' settings (the
// project's and the user's) whose kb binary can no longer run.
func (d *doctor) hooks(context.Context) error {
	for _, f := range agents.CheckAll(d.k.ProjectRoot) {
		d.add("warning", false, Problem{Path: f[0], Msg: f[1], Rule: "hook-binary"})
	}
	return nil
}

func (d *doctor) add(sev string, fixable bool, p Problem) *Check {
	d.rep.Checks = append(d.rep.Checks, Check{Problem: p, Severity: sev, Fixable: fixable})
	return &d.rep.Checks[len(d.rep.Checks)-1]
}

// links reports symlinks out of the KB (removing those in kb's derived
// data with --fix) and out of the project where kb writes.
//
// What --fix does with an escaping symlink depends on whose it is:
//   - under .state/ or as .index (kb's own derived data, ignored by git and
//     rebuilt on demand), the link itself is removed: kb never created it,
//     nothing of the person's is lost, and the target is never touched;
//   - anywhere else (the layers, kb.yaml, AGENTS.md, .continual-learning/,
//     .claude/) it is reported and left alone: kb refuses to read or write
//     through it, and the person decides.
//
// The layers are left to lint (scan reports every link there).
func (d *doctor) links() {
	k := d.k
	var own []string
	for _, name := range []string{ConfigFile, ".gitignore", IndexDir, StateDir} {
		own = append(own, filepath.Join(k.Root, name))
	}
	escaping := k.files().EscapingLinks(own, filepath.Join(k.Root, StateDir))
	for _, f := range escaping {
		rel := k.Rel(f.Path)
		derived := rel == StateDir || strings.HasPrefix(rel, StateDir+"/") || rel == IndexDir
		switch {
		case d.fix && derived && k.files().Remove(f.Path) == nil:
			// Removed first: doctor --fix takes the lock that lives in .state/.
			c := d.add("error", true, Problem{Path: rel, Msg: f.Err.Error() + "; the link was removed (kb's derived data, rebuilt on demand; its target was not touched)", Rule: "symlink-escape"})
			c.Fixed = true
		case derived:
			d.add("error", true, Problem{Path: rel, Msg: f.Err.Error() + "; kb refuses to read or write through it (kb doctor --fix removes the link, not its target)", Rule: "symlink-escape"})
		default:
			d.add("error", false, Problem{Path: rel, Msg: f.Err.Error() + "; kb refuses to read or write through it (replace the link by the file itself)", Rule: "symlink-escape"})
		}
	}
	if k.ProjectRoot == "" || k.ProjectRoot == k.Root {
		return
	}
	// The places in the project root kb writes.
	var places []string
	for _, rel := range []string{k.learnTargetName(), "AGENTS.md", "CLAUDE.md", path.Dir(LearnIndexFile), LearnIndexFile, ".claude", ".claude/skills"} {
		places = append(places, filepath.Join(k.ProjectRoot, filepath.FromSlash(rel)))
	}
	for _, f := range k.projectFiles().EscapingLinks(places) {
		d.add("warning", false, Problem{Path: k.Rel(f.Path), Msg: f.Err.Error() + "; kb learn and kb promote refuse to write through it", Rule: "symlink-escape"})
	}
}

// lock says who holds the lock (with --fix, the doctor takes it) and
// reports a holder note a crashed process left.
func (d *doctor) lock(ctx context.Context) (release func(), err error) {
	k, rep := d.k, d.rep
	lockOK := true
	if _, err := k.files().Resolve(k.LockPath()); err != nil {
		lockOK = false
		rep.Lock = "unusable (" + err.Error() + ")"
	}
	release = func() {}
	if d.fix {
		l, err := k.Lock(ctx)
		if err != nil {
			return nil, err
		}
		release = func() { l.Release() }
	} else if lockOK && lock.Held(k.LockPath()) {
		h, _ := lock.ReadHolder(k.LockPath())
		rep.Lock = "held by " + h.String()
	}
	// A holder note without a held lock was left by a crashed process. With
	// --fix we hold the lock, so the note is ours and current.
	if !d.fix && rep.Lock == "free" {
		if _, err := os.Lstat(k.LockPath() + ".holder"); err == nil {
			d.add("warning", true, Problem{Path: StateDir + "/lock.holder", Msg: "holder note of a lock nobody holds (a crashed process)", Rule: "stale-lock"})
		}
	}
	return release, nil
}

// documents lints every document.
func (d *doctor) documents(ctx context.Context) error {
	lint, err := d.k.Lint(ctx)
	if err != nil {
		return err
	}
	d.rep.Files = lint.Files
	for _, p := range lint.Problems {
		d.add("error", false, p)
	}
	return nil
}

// temps reports (and with --fix removes) orphan temp files anywhere under
// the root (not .git or .index; TmpDir included), and in the places of the
// project root kb writes, where `git add -A` would otherwise commit them.
// kb stages those writes in TmpDir, so temp files land in the project only
// when TmpDir is on another filesystem (or from a kb older than TmpDir).
func (d *doctor) temps(context.Context) error {
	k := d.k
	temps := fsx.TempsUnder(k.Root, func(p string, e fs.DirEntry) bool {
		return e.Name() == ".git" || p == filepath.Join(k.Root, IndexDir)
	})
	if k.ProjectRoot != "" && k.ProjectRoot != k.Root {
		dirs := map[string]bool{k.ProjectRoot: true}
		if target := k.learnTargetName(); !filepath.IsAbs(target) {
			dirs[filepath.Join(k.ProjectRoot, filepath.Dir(filepath.FromSlash(target)))] = true
		}
		dirs[filepath.Join(k.ProjectRoot, filepath.FromSlash(path.Dir(LearnIndexFile)))] = true
		dirs[filepath.Join(k.ProjectRoot, ".claude")] = true
		for dir := range dirs {
			// Not outside the project (reported as a link), nor walked above.
			if _, err := k.projectFiles().Resolve(dir); err == nil && !fsx.Inside(k.Root, dir) {
				temps = append(temps, fsx.TempsIn(dir)...)
			}
		}
		// Skills: .claude/skills/<name>/SKILL.md.
		skills := filepath.Join(k.ProjectRoot, ".claude", "skills")
		if _, err := k.projectFiles().Resolve(skills); err == nil {
			temps = append(temps, fsx.TempsUnder(skills, nil)...)
		}
	}
	for _, p := range temps {
		tree := k.files()
		if !fsx.Inside(k.Root, p) {
			tree = k.projectFiles()
		}
		c := d.add("warning", true, Problem{Path: k.Rel(p), Msg: "temporary file left by an interrupted write", Rule: "orphan-temp"})
		if d.fix && tree.Remove(p) == nil {
			c.Fixed = true
		}
	}
	return nil
}

// journal reports an extraction run interrupted between its journal and
// its last write; finishing it (--fix) is what the next kb extract would
// do first.
func (d *doctor) journal(context.Context) error {
	k := d.k
	if _, err := os.Stat(k.journalPath()); err != nil {
		return nil
	}
	c := d.add("warning", true, Problem{Path: StateDir + "/" + journalFile, Msg: "an interrupted kb extract run; kb extract (or doctor --fix) finishes it", Rule: "extract-journal"})
	if !d.fix {
		return nil
	}
	written, probs, err := k.resumeExtract()
	if err != nil {
		return err
	}
	c.Fixed = true
	if len(written) > 0 {
		c.Msg += fmt.Sprintf(" (finished: %d file(s) written)", len(written))
	}
	for _, p := range probs {
		d.add("warning", false, p)
	}
	return nil
}

// traces checks every session file (traces.CheckAll); with --fix a torn
// line is dropped and the session's transcripts imported again.
func (d *doctor) traces(context.Context) error {
	var repair func() (*traces.Store, error)
	if d.fix {
		repair = func() (*traces.Store, error) {
			st, _, err := d.k.traceStore(false, nil)
			return st, err
		}
	}
	rep, err := (&traces.Store{Root: d.k.Root}).CheckAll(repair)
	if err != nil {
		return fmt.Errorf("doctor: %w", err)
	}
	d.rep.Sessions, d.sessions = rep.Files, rep.Sessions
	for _, p := range rep.Fixed {
		d.add("warning", true, p).Fixed = true
	}
	for _, pr := range rep.Problems {
		sev := "error"
		if pr.Rule == "torn-line" {
			sev = "warning"
		}
		d.add(sev, pr.Rule == "torn-line", pr)
	}
	return nil
}

// sources reports observations whose sources name no session of traces/.
func (d *doctor) sources(ctx context.Context) error {
	obs, _, err := d.k.LoadObservations(ctx)
	if err != nil {
		return nil
	}
	for _, f := range obs {
		for _, s := range f.Obs.Sources {
			if s.Session != "" && s.Session != "mcp" && !d.sessions[s.Session] && !d.sessions[traces.StripAgent(s.Session)] {
				d.add("warning", false, Problem{Path: f.Path, Line: 1, Msg: fmt.Sprintf("source session %q is not in traces/", s.Session), Rule: "dangling-source"})
				break
			}
		}
	}
	return nil
}

// checkIndex compares the index stamps with the files; with fix it syncs
// (rebuilding a corrupt index).
func (k *KB) checkIndex(ctx context.Context, fix bool, add func(string, bool, Problem) *Check) string {
	dir, err := k.indexDir()
	if err != nil {
		if !errors.Is(err, fsx.ErrOutsideRoot) { // a link out is reported above
			add("error", false, Problem{Path: IndexDir, Msg: err.Error(), Rule: "index"})
		}
		return "unusable"
	}
	if !fix {
		state, problem := index.Health(dir, k.scan)
		if problem != "" {
			add("warning", true, Problem{Path: IndexDir, Msg: problem, Rule: "index"})
		}
		return state
	}
	x, st, err := k.OpenIndex(ctx, nil)
	if err != nil {
		add("error", false, Problem{Path: IndexDir, Msg: err.Error(), Rule: "index"})
		return "broken"
	}
	x.Close()
	if st.Rebuilt && st.Reason != "missing" {
		c := add("warning", true, Problem{Path: IndexDir, Msg: "index was " + st.Reason, Rule: "index"})
		c.Fixed = true
		return "rebuilt"
	}
	if n := st.Added + st.Updated + st.Removed; n > 0 {
		c := add("warning", true, Problem{Path: IndexDir, Msg: fmt.Sprintf("%d file(s) were out of date", n), Rule: "index"})
		c.Fixed = true
	}
	return "current"
}
