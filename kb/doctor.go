package kb

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

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
// the project kb writes) and no symlink leads out of the KB or the project
// (see doctorfs.go). With fix, it repairs what is safe: orphan temp files,
// escaping links in kb's derived data (the links, never their targets), a
// stale lock holder note, an interrupted extraction run (finished from its
// journal), torn trace lines (dropped, and the records re-imported from
// their transcripts), an out-of-date or corrupt index. It takes the write
// lock only when fixing.
func (k *KB) Doctor(ctx context.Context, fix bool) (*DoctorReport, error) {
	rep := &DoctorReport{Lock: "free"}
	add := func(sev string, fixable bool, p Problem) *Check {
		rep.Checks = append(rep.Checks, Check{Problem: p, Severity: sev, Fixable: fixable})
		return &rep.Checks[len(rep.Checks)-1]
	}
	// 0. Symlinks out of the KB in kb's own files. They come first: the
	// lock itself lives in .state/.
	var removed map[string]bool
	if fix {
		removed = map[string]bool{}
		for _, f := range k.removeDerivedLinks() {
			removed[f.rel] = true
			c := add("error", true, Problem{Path: f.rel, Msg: f.err.Error() + "; the link was removed (kb's derived data, rebuilt on demand; its target was not touched)", Rule: "symlink-escape"})
			c.Fixed = true
		}
	}
	for _, f := range k.escapingLinks() {
		if removed[f.rel] {
			continue
		}
		msg := f.err.Error() + "; kb refuses to read or write through it"
		if derivedPath(f.rel) {
			msg += " (kb doctor --fix removes the link, not its target)"
		} else {
			msg += " (replace the link by the file itself)"
		}
		add("error", derivedPath(f.rel), Problem{Path: f.rel, Msg: msg, Rule: "symlink-escape"})
	}
	for _, f := range k.projectLinks() {
		add("warning", false, Problem{Path: f.rel, Msg: f.err.Error() + "; kb learn and kb promote refuse to write through it", Rule: "symlink-escape"})
	}
	lockOK := true
	if _, err := k.files().Resolve(k.LockPath()); err != nil {
		lockOK = false
		rep.Lock = "unusable (" + err.Error() + ")"
	}
	if fix {
		l, err := k.Lock(ctx)
		if err != nil {
			return nil, err
		}
		defer l.Release()
	} else if lockOK && lock.Held(k.LockPath()) {
		h, _ := lock.ReadHolder(k.LockPath())
		rep.Lock = "held by " + h.String()
	}
	// A holder note without a held lock was left by a crashed process. With
	// --fix we hold the lock, so the note is ours and current.
	if !fix && rep.Lock == "free" {
		if _, err := os.Lstat(k.LockPath() + ".holder"); err == nil {
			add("warning", true, Problem{Path: StateDir + "/lock.holder", Msg: "holder note of a lock nobody holds (a crashed process)", Rule: "stale-lock"})
		}
	}

	// 1. Documents.
	lint, err := k.Lint(ctx)
	if err != nil {
		return nil, err
	}
	rep.Files = lint.Files
	for _, p := range lint.Problems {
		add("error", false, p)
	}

	// 2. Orphan temp files anywhere under the root (not .git), and in the
	// places of the project root kb writes.
	for _, p := range k.strayTemps() {
		tree := k.files()
		if !inKB(k.Root, p) {
			tree = k.projectFiles()
		}
		c := add("warning", true, Problem{Path: k.Rel(p), Msg: "temporary file left by an interrupted write", Rule: "orphan-temp"})
		if fix && tree.Remove(p) == nil {
			c.Fixed = true
		}
	}

	// 2b. An extraction run interrupted between its journal and its last
	// write: finishing it is what the next `kb extract` would do first.
	if _, err := os.Stat(k.journalPath()); err == nil {
		c := add("warning", true, Problem{Path: StateDir + "/" + journalFile, Msg: "an interrupted kb extract run; kb extract (or doctor --fix) finishes it", Rule: "extract-journal"})
		if fix {
			written, probs, err := k.resumeExtract()
			if err != nil {
				return nil, err
			}
			c.Fixed = true
			if len(written) > 0 {
				c.Msg += fmt.Sprintf(" (finished: %d file(s) written)", len(written))
			}
			for _, p := range probs {
				add("warning", false, p)
			}
		}
	}

	// 3. Trace files.
	sessions := map[string]bool{}
	var traceFiles []string
	tdir := filepath.Join(k.Root, LayerTraces)
	filepath.WalkDir(tdir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".jsonl" && d.Type().IsRegular() {
			traceFiles = append(traceFiles, p)
		}
		return nil
	})
	var st *traces.Store
	for _, p := range traceFiles {
		rep.Sessions++
		probs := checkTrace(k.Rel(p), p, sessions)
		var fixed []Check
		if fix && hasRule(probs, "torn-line") {
			if st == nil {
				if st, _, err = k.traceStore(false, nil); err != nil {
					return nil, err
				}
			}
			fixed, err = k.repairTorn(st, k.Rel(p))
			if err != nil {
				return nil, err
			}
			probs = checkTrace(k.Rel(p), p, sessions)
		}
		rep.Checks = append(rep.Checks, fixed...)
		for _, pr := range probs {
			sev := "error"
			if pr.Rule == "torn-line" {
				sev = "warning"
			}
			add(sev, pr.Rule == "torn-line", pr)
		}
	}

	// 4. Observation sources point at sessions that exist.
	if obs, _, err := k.LoadObservations(ctx); err == nil {
		for _, f := range obs {
			for _, s := range f.Obs.Sources {
				if s.Session != "" && s.Session != "mcp" && !sessions[s.Session] && !sessions[stripAgent(s.Session)] {
					add("warning", false, Problem{Path: f.Path, Line: 1, Msg: fmt.Sprintf("source session %q is not in traces/", s.Session), Rule: "dangling-source"})
					break
				}
			}
		}
	}

	// 5. Index consistent with the files.
	rep.Index = k.checkIndex(ctx, fix, add)
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

func stripAgent(s string) string {
	for _, a := range []string{traces.AgentClaudeCode, traces.AgentCodex, traces.AgentAider, traces.AgentGemini, traces.AgentGeneric} {
		if strings.HasPrefix(s, a+"-") {
			return strings.TrimPrefix(s, a+"-")
		}
	}
	return s
}

// checkTrace reads a session file: every line is a record, seq increases by
// one, one session per file. A torn fragment (the start of a record whose
// write was cut short, inside the file or as its unterminated last line) is
// a fixable torn-line; a last line that is a whole record without its
// newline is fine (the next append adds it).
func checkTrace(rel, abs string, sessions map[string]bool) []Problem {
	f, err := fsx.OpenNoFollow(abs) // found by a walk that never enters a symlink
	if err != nil {
		return []Problem{{Path: rel, Msg: err.Error(), Rule: "unreadable"}}
	}
	defer f.Close()
	var probs []Problem
	r := bufio.NewReaderSize(f, 1<<16)
	line, want := 0, -1
	for {
		b, err := r.ReadBytes('\n')
		if len(b) > 0 {
			line++
			last := b[len(b)-1] != '\n'
			if t := bytes.TrimSpace(b); len(t) > 0 {
				var rec traces.Record
				if jerr := json.Unmarshal(t, &rec); jerr != nil {
					switch {
					case traces.TornFragment(t) && last:
						probs = append(probs, Problem{Path: rel, Line: line, Msg: "last line is a torn record (an interrupted append, or a writer still running); the next import, or kb doctor --fix, cuts it and writes the record again", Rule: "torn-line"})
					case traces.TornFragment(t):
						probs = append(probs, Problem{Path: rel, Line: line, Msg: "torn record between whole ones (a write cut short by a full disk or a crash); kb doctor --fix drops it and re-imports the session's transcripts", Rule: "torn-line"})
					default:
						probs = append(probs, Problem{Path: rel, Line: line, Msg: "not a trace record: " + jerr.Error(), Rule: "trace-record"})
					}
				} else {
					sessions[rec.Session] = true
					if want >= 0 && rec.Seq != want {
						probs = append(probs, Problem{Path: rel, Line: line, Msg: fmt.Sprintf("seq %d where %d was expected (a lost or duplicated record)", rec.Seq, want), Rule: "trace-seq"})
					}
					want = rec.Seq + 1
				}
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				probs = append(probs, Problem{Path: rel, Line: line, Msg: err.Error(), Rule: "unreadable"})
			}
			break
		}
	}
	return probs
}

func hasRule(probs []Problem, rule string) bool {
	for _, p := range probs {
		if p.Rule == rule {
			return true
		}
	}
	return false
}

// repairTorn drops the torn fragments of a session file (rewriting it
// atomically: with kb trace redact, the only rewrites of a trace) and
// re-imports, from their start, the transcripts its records came from, so
// that a record whose only copy was torn is written whole again. It
// returns one fixed check per fragment.
func (k *KB) repairTorn(st *traces.Store, rel string) ([]Check, error) {
	rep, err := st.RepairTorn(rel)
	if err != nil {
		return nil, fmt.Errorf("doctor: repair %s: %w", rel, err)
	}
	var notes []string
	restored := 0
	for _, src := range rep.Sources {
		if fi, err := os.Stat(src); err != nil || !fi.Mode().IsRegular() {
			notes = append(notes, "transcript gone: "+src)
			continue
		}
		res, err := st.ImportAgain(src)
		restored += res.Appended
		if err != nil {
			notes = append(notes, "re-import "+src+": "+err.Error())
		}
	}
	var out []Check
	for _, d := range rep.Dropped {
		msg := fmt.Sprintf("torn record (%d bytes) dropped; %d transcript(s) re-imported, %d record(s) written again", d.Bytes, len(rep.Sources), restored)
		if len(notes) > 0 {
			msg += " (" + strings.Join(notes, "; ") + ")"
		}
		out = append(out, Check{Problem: Problem{Path: rel, Line: d.Line, Msg: msg, Rule: "torn-line"}, Severity: "warning", Fixable: true, Fixed: true})
	}
	return out, nil
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
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			return "not built yet (the next query builds it)"
		}
		ix, err := index.OpenReadOnly(dir)
		if err != nil {
			add("warning", true, Problem{Path: IndexDir, Msg: err.Error() + " (kb doctor --fix, or any query, rebuilds it)", Rule: "index"})
			return "needs rebuild"
		}
		defer ix.Close()
		files, err := k.scan()
		if err != nil {
			return "unknown"
		}
		stamps := ix.Stamps()
		stale := 0
		seen := map[string]bool{}
		for _, f := range files {
			seen[f.rel] = true
			if st, ok := stamps[f.rel]; !ok || st != f.stamp {
				stale++
			}
		}
		for p := range stamps {
			if !seen[p] {
				stale++
			}
		}
		if stale > 0 {
			add("warning", true, Problem{Path: IndexDir, Msg: fmt.Sprintf("%d file(s) changed since they were indexed (the next query re-indexes them)", stale), Rule: "index"})
			return fmt.Sprintf("%d stale", stale)
		}
		return "current"
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
