package reliability

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbmem/kb/internal/failpoint"
	"github.com/kbmem/kb/internal/gitx"
)

// The filesystem-safety suite (kb issue 12, defects 3, 4, 9 and 10): a
// cloned repository's symlinks never make kb write, append or read outside
// the KB or the project; a person's edit made while kb writes a file is
// kept; an interrupted write leaves no temp file where `git add -A` takes
// it. Every test builds its hostile layout itself: no ../shared needed.

// projKB is a KB in .kb of a git work tree, the way `kb init` sets one up
// in a project.
type projKB struct {
	*KB
	Proj string
}

func newProjectKB(t *testing.T) *projKB {
	t.Helper()
	base := t.TempDir()
	p := &projKB{KB: &KB{Home: filepath.Join(base, "home")}, Proj: filepath.Join(base, "proj")}
	p.Root = filepath.Join(p.Proj, ".kb")
	must(t, os.MkdirAll(p.Home, 0o755))
	must(t, os.MkdirAll(p.Proj, 0o755))
	must(t, gitx.Init(p.Proj))
	if r, err := runKB(p.Home, p.Proj, nil, cmdTimeout, "init", p.Root); err != nil || r.Code != 0 {
		t.Fatalf("kb init: %v\n%s", err, r)
	}
	setSources(t, p.Root)
	return p
}

// cleanSession is a session in which the person corrects the agent (npm
// -> pnpm) and states a procedure: enough, over three sessions, for
// extraction to write an observation, for learn to write AGENTS.md and
// for promote to graduate a convention.
func cleanSession(id string, day int) string {
	s := &ccSession{id: id, t: time.Date(2025, 11, day, 10, 0, 0, 0, time.UTC)}
	s.user("Install the project dependencies and run the tests.")
	s.assistant("I'll install with npm install.")
	s.tool(id+"-n", "Bash", map[string]any{"command": "npm install"}, "added 12 packages")
	s.user("No, don't use npm here: always use pnpm in this repo, never npm.")
	s.assistant("Understood, switching to pnpm.")
	s.tool(id+"-p", "Bash", map[string]any{"command": "pnpm install"}, "Done in 2.1s")
	s.user("Thanks. Remember: we always run the tests with pnpm test before committing.")
	return strings.Join(s.lines, "\n") + "\n"
}

var sessionIDs = []string{"22222222-bbbb-4bbb-8bbb-000000000001", "22222222-bbbb-4bbb-8bbb-000000000002", "22222222-bbbb-4bbb-8bbb-000000000003"}

// writeSessions writes cleanSession transcripts for ids into a new
// directory and returns it.
func writeSessions(t *testing.T, ids ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "-home-dev-app")
	must(t, os.MkdirAll(dir, 0o755))
	for i, id := range ids {
		write(t, filepath.Join(dir, id+".jsonl"), cleanSession(id, 10+i))
	}
	return dir
}

// paused is a kb process stopped at a failpoint (failpoint.PauseEnv).
type paused struct {
	cmd       *exec.Cmd
	done      chan error
	dir       string
	point     string
	out, errb bytes.Buffer
	Note      string // what the point passed: the file about to be replaced
}

// startPaused starts kb (in dir, with --kb root) armed to pause at the
// nth pass through point, and returns once it is there. It fails t when
// the process ends first.
func startPaused(t *testing.T, k *KB, point string, n int, args ...string) *paused {
	t.Helper()
	p := &paused{dir: t.TempDir(), point: point, done: make(chan error, 1)}
	full := append([]string{"--kb", k.Root}, args...)
	p.cmd = exec.Command(kbBin, full...)
	p.cmd.Env = append(kbEnv(k.Home), failpoint.Env+"="+point+"="+itoa(n), failpoint.PauseEnv+"="+p.dir)
	p.cmd.Dir = filepath.Dir(k.Root)
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.errb
	must(t, p.cmd.Start())
	go func() { p.done <- p.cmd.Wait() }()
	reached := filepath.Join(p.dir, point+".reached")
	deadline := time.Now().Add(cmdTimeout)
	for {
		select {
		case err := <-p.done:
			t.Fatalf("kb %s ended (%v) before reaching %s=%d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, point, n, p.out.String(), p.errb.String())
		default:
		}
		if b, err := os.ReadFile(reached); err == nil {
			p.Note = string(b)
			return p
		}
		if time.Now().After(deadline) {
			killNow(p.cmd)
			t.Fatalf("kb %s did not reach %s within %s", strings.Join(args, " "), point, cmdTimeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// resume lets the process go on and waits for it.
func (p *paused) resume(t *testing.T) res {
	t.Helper()
	write(t, filepath.Join(p.dir, p.point+".resume"), "")
	return p.wait(t)
}

// kill SIGKILLs the paused process (a crash at that exact point).
func (p *paused) kill(t *testing.T) {
	t.Helper()
	killNow(p.cmd)
	p.wait(t)
}

func (p *paused) wait(t *testing.T) res {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(cmdTimeout):
		killNow(p.cmd)
		t.Fatalf("kb did not finish within %s after the pause", cmdTimeout)
	}
	r := res{Args: p.cmd.Args[1:], Stdout: p.out.String(), Stderr: p.errb.String(), Code: p.cmd.ProcessState.ExitCode()}
	checkPanic(t, r)
	return r
}

// hook runs `kb hook claude-code` from the project with one event.
func (p *projKB) hook(t *testing.T, ev map[string]any) res {
	t.Helper()
	b, _ := json.Marshal(ev)
	r, err := runKB(p.Home, p.Proj, b, cmdTimeout, "hook", "claude-code")
	if err != nil {
		t.Fatalf("%v\n%s", err, r)
	}
	checkPanic(t, r)
	if r.Code != 0 {
		t.Errorf("the hook exited %d (hooks fail open)\n%s", r.Code, r)
	}
	return r
}

func readString(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// TestStateSymlinksAreNotAppendedTo is defect 3: a repository that
// commits .kb/.state/hook.log as a symlink to the user's shell rc file, and
// a kb.yaml key that is a command substitution, got the key appended to the
// rc file by the SessionStart hook; queue.jsonl and the lock's holder note
// were written the same way.
func TestStateSymlinksAreNotAppendedTo(t *testing.T) {
	t.Parallel()
	p := newProjectKB(t)
	rc, profile := filepath.Join(p.Home, ".bashrc"), filepath.Join(p.Home, ".profile")
	write(t, rc, "# rc\n")
	write(t, profile, "# profile\n")
	state := filepath.Join(p.Root, ".state")
	must(t, os.MkdirAll(state, 0o755))
	must(t, os.Symlink(rc, filepath.Join(state, "hook.log")))
	must(t, os.Symlink(profile, filepath.Join(state, "queue.jsonl")))
	cfg := filepath.Join(p.Root, "kb.yaml")
	good := readString(t, cfg)
	marker := filepath.Join(filepath.Dir(p.Proj), "pwned")
	write(t, cfg, good+"\"$(touch "+marker+")\": 1\n")

	start := map[string]any{"hook_event_name": "SessionStart", "session_id": "s1", "cwd": p.Proj}
	p.hook(t, start)
	if got := readString(t, rc); got != "# rc\n" {
		t.Errorf("the SessionStart hook wrote through .state/hook.log into the rc file:\n%s", got)
	}

	// A valid config and a SessionEnd: the queue append is refused too.
	write(t, cfg, good)
	tr := filepath.Join(writeSessions(t, sessionIDs[0]), sessionIDs[0]+".jsonl")
	end := map[string]any{"hook_event_name": "SessionEnd", "session_id": "s1", "cwd": p.Proj, "transcript_path": tr}
	p.hook(t, end)
	if got := readString(t, profile); got != "# profile\n" {
		t.Errorf("the SessionEnd hook appended through .state/queue.jsonl:\n%s", got)
	}

	// With a hook.log of its own, the refusals are logged, named, and the
	// config key comes quoted, on one line.
	must(t, os.Remove(filepath.Join(state, "hook.log")))
	p.hook(t, end)
	write(t, cfg, good+"\"$(touch "+marker+")\\n\\u001b[2J\": 1\n")
	p.hook(t, start)
	log := readString(t, filepath.Join(state, "hook.log"))
	lines := strings.Split(strings.TrimSuffix(log, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("hook.log holds %d lines, want 2:\n%s", len(lines), log)
	}
	if !strings.Contains(lines[0], ".state/queue.jsonl is a symlink") {
		t.Errorf("the refused queue append is not logged by path: %q", lines[0])
	}
	if !strings.Contains(lines[1], `unknown key "$(touch `) || !strings.Contains(lines[1], `\n\x1b[2J"`) {
		t.Errorf("the unknown key is not named, quoted: %q", lines[1])
	}
	if strings.ContainsAny(log, "\x1b\r") {
		t.Errorf("hook.log holds control characters: %q", log)
	}
	write(t, cfg, good)

	// The lock's holder note.
	must(t, os.Symlink(profile, filepath.Join(state, "lock.holder")))
	r := p.run(t, nil, "extract")
	if r.Code == 0 || !strings.Contains(r.Stderr, "lock.holder is a symlink") {
		t.Errorf("kb extract with .state/lock.holder linked out: exit %d, want a refusal naming it\n%s", r.Code, r)
	}
	if got := readString(t, profile); got != "# profile\n" {
		t.Errorf("the lock wrote through .state/lock.holder:\n%s", got)
	}

	// kb doctor names each link; --fix removes the links (kb's derived
	// data), never their targets.
	rep, _ := p.doctor(t, false)
	for _, name := range []string{".state/queue.jsonl", ".state/lock.holder"} {
		found := false
		for _, c := range rep.Checks {
			found = found || (c.Path == name && c.Rule == "symlink-escape" && c.Severity == "error")
		}
		if !found {
			t.Errorf("kb doctor does not report %s: %v", name, rep.Checks)
		}
	}
	rep, _ = p.doctor(t, true)
	rep, _ = p.doctor(t, false)
	if e := rep.errorsOf(); len(e) > 0 {
		t.Errorf("errors after kb doctor --fix: %v", e)
	}
	for _, name := range []string{"queue.jsonl", "lock.holder"} {
		if _, err := os.Lstat(filepath.Join(state, name)); err == nil {
			t.Errorf(".state/%s is still there after kb doctor --fix", name)
		}
	}
	if readString(t, rc) != "# rc\n" || readString(t, profile) != "# profile\n" {
		t.Errorf("a link target changed")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("%s exists", marker)
	}
}

// TestSymlinksOutOfTheKBAreRefused is defect 4: .continual-learning/ or
// its index.json linked out of the project made kb learn read (and write)
// there; library/ linked out of the KB was indexed and searched; a
// directory link inside library/ was skipped without a word.
func TestSymlinksOutOfTheKBAreRefused(t *testing.T) {
	t.Parallel()
	t.Run("learn", func(t *testing.T) {
		t.Parallel()
		for _, c := range []struct{ name, link, target string }{
			{"dir", ".continual-learning", "cl"},
			{"index", ".continual-learning/index.json", "cl/index.json"},
		} {
			p := newProjectKB(t)
			outside := filepath.Join(filepath.Dir(p.Proj), "outside")
			must(t, os.MkdirAll(filepath.Join(outside, "cl"), 0o755))
			write(t, filepath.Join(outside, "cl", "index.json"), `{"entries":[{"fact":"`+sentinelWord+` is how we deploy.","category":"convention"}]}`+"\n")
			before := snapshotTree(outside)
			must(t, os.MkdirAll(filepath.Dir(filepath.Join(p.Proj, c.link)), 0o755))
			must(t, os.Symlink(filepath.Join(outside, c.target), filepath.Join(p.Proj, c.link)))
			p.must(t, "import", writeSessions(t, sessionIDs...))
			r := p.run(t, nil, "learn")
			out := r.Stdout + r.Stderr
			if !strings.Contains(out, c.link+" is a symlink") {
				t.Errorf("%s: kb learn does not refuse the link by name (exit %d):\n%s", c.name, r.Code, out)
			}
			if d := diffSnapshots(before, snapshotTree(outside)); len(d) > 0 {
				t.Errorf("%s: kb learn changed files outside the project: %v", c.name, d)
			}
			if strings.Contains(readString(t, filepath.Join(p.Proj, "AGENTS.md")), sentinelWord) {
				t.Errorf("%s: an entry of the linked index.json was copied into AGENTS.md", c.name)
			}
			rep, _ := p.doctor(t, false)
			found := false
			for _, ch := range rep.Checks {
				found = found || (ch.Rule == "symlink-escape" && strings.Contains(ch.Msg, c.link))
			}
			if !found {
				t.Errorf("%s: kb doctor does not report %s: %v", c.name, c.link, rep.Checks)
			}
		}
	})
	t.Run("library", func(t *testing.T) {
		t.Parallel()
		for _, c := range []struct{ name, link string }{
			{"layer", "library"},
			{"subdir", "library/sub"},
		} {
			k := newKB(t)
			outside := filepath.Join(filepath.Dir(k.Root), "outside")
			must(t, os.MkdirAll(outside, 0o755))
			write(t, filepath.Join(outside, "secret.md"), "---\nid: secret\ntype: note\ntitle: Secret\nstatus: active\nlifecycle: knowledge\n---\n\n"+sentinelWord+"\n")
			link := filepath.Join(k.Root, filepath.FromSlash(c.link))
			if c.link == "library" {
				must(t, os.RemoveAll(link))
			}
			must(t, os.Symlink(outside, link))
			for _, args := range [][]string{{"index"}, {"search", sentinelWord}, {"lint"}, {"doctor"}} {
				r := k.run(t, nil, args...)
				out := r.Stdout + r.Stderr
				if args[0] == "search" && !strings.Contains(out, "no results") || args[0] != "search" && strings.Contains(out, sentinelWord) {
					t.Errorf("%s: kb %s read the link's target outside the KB:\n%s", c.name, args[0], out)
				}
				if args[0] != "search" && !strings.Contains(out, c.link+": a symlink to "+outside) {
					t.Errorf("%s: kb %s does not name the link %s:\n%s", c.name, args[0], c.link, out)
				}
			}
		}
	})
}

// TestPersonsEditDuringWriteIsKept is defect 9: kb extract checked a
// file's hash, then wrote, fsynced and renamed; kb learn read AGENTS.md
// and wrote it later: an edit in between was lost. The failpoint pauses kb
// right after the new content is written and synced (where a slow fsync
// kept the window open), the test edits the file as a person would, and
// kb must keep the edit and say so.
func TestPersonsEditDuringWriteIsKept(t *testing.T) {
	t.Parallel()
	t.Run("extract", func(t *testing.T) {
		t.Parallel()
		k := newKB(t)
		dir := writeSessions(t, sessionIDs...)
		k.must(t, "import", filepath.Join(dir, sessionIDs[0]+".jsonl"))
		k.must(t, "extract")
		k.must(t, "import", dir)
		p := startPaused(t, k, "fsx.replace", 1, "extract")
		rel, err := filepath.Rel(k.Root, p.Note)
		if err != nil || !strings.HasPrefix(filepath.ToSlash(rel), "observations/") {
			p.kill(t)
			t.Fatalf("the first checked replace of kb extract is %s, not an observation file", p.Note)
		}
		edited := readString(t, p.Note) + "\nA person's note, added while kb extract was writing.\n"
		write(t, p.Note, edited)
		r := p.resume(t)
		if got := readString(t, p.Note); got != edited {
			t.Errorf("kb extract overwrote the edit of %s:\n%s", rel, got)
		}
		if !strings.Contains(r.Stdout+r.Stderr, filepath.ToSlash(rel)) || !strings.Contains(r.Stdout+r.Stderr, "changed while kb extract was writing it") {
			t.Errorf("kb extract does not report the file it left alone:\n%s\n%s", r.Stdout, r)
		}
		if e := mustDoctor(t, k); len(e) > 0 {
			t.Errorf("doctor after the run: %v", e)
		}
	})
	t.Run("learn", func(t *testing.T) {
		t.Parallel()
		p := newProjectKB(t)
		p.must(t, "import", writeSessions(t, sessionIDs...))
		p.must(t, "extract") // so that the first checked replace of learn is its own
		agents := filepath.Join(p.Proj, "AGENTS.md")
		write(t, agents, "# Project rules\n")
		run := startPaused(t, p.KB, "fsx.replace", 1, "learn")
		if run.Note != agents {
			run.kill(t)
			t.Fatalf("the first checked replace of kb learn is %s, not AGENTS.md", run.Note)
		}
		edited := "# Project rules\n\n- Deploys go through the release script.\n"
		write(t, agents, edited)
		r := run.resume(t)
		if got := readString(t, agents); got != edited {
			t.Errorf("kb learn overwrote the edit of AGENTS.md:\n%s", got)
		}
		if !strings.Contains(r.Stdout, "AGENTS.md changed while kb learn ran") {
			t.Errorf("kb learn does not report the edit it kept:\n%s\n%s", r.Stdout, r)
		}
		if _, err := os.Stat(filepath.Join(p.Proj, ".continual-learning", "index.json")); err == nil {
			t.Errorf("kb learn wrote index.json although it left AGENTS.md alone")
		}
		// The next tick starts from the person's file.
		p.must(t, "learn")
		if got := readString(t, agents); !strings.HasPrefix(got, edited) || !strings.Contains(got, "pnpm") {
			t.Errorf("the next kb learn did not add to the person's AGENTS.md:\n%s", got)
		}
	})
}

// mustDoctor runs kb doctor and returns its unfixed errors.
func mustDoctor(t *testing.T, k *KB) []string {
	t.Helper()
	rep, _ := k.doctor(t, false)
	return rep.errorsOf()
}

// strayTemps lists fsx temp files in the project outside the KB's temp
// area: what `git add -A` would commit.
func strayTemps(p *projKB) []string {
	var out []string
	tmp := filepath.Join(p.Root, ".state", "tmp")
	filepath.WalkDir(p.Proj, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == ".git" || path == tmp) {
			return fs.SkipDir
		}
		if strings.HasPrefix(d.Name(), ".kb-tmp-") {
			rel, _ := filepath.Rel(p.Proj, path)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// TestInterruptedWritesLeaveNoTempInProject is defect 10: killing kb learn
// or kb promote --apply mid-write left .kb-tmp-* files in the project root
// or .continual-learning/, which kb doctor --fix did not clean and git
// add -A would commit. kb is killed with both new contents staged (learn)
// or at its first checked replace (promote), the worst moment.
func TestInterruptedWritesLeaveNoTempInProject(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		args []string
		prep []string
	}{
		{"learn", []string{"learn"}, []string{"extract"}},
		{"promote", []string{"promote", "--apply"}, []string{"extract"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := newProjectKB(t)
			p.must(t, "import", writeSessions(t, sessionIDs...))
			if c.prep != nil {
				p.must(t, c.prep...)
			}
			write(t, filepath.Join(p.Proj, "AGENTS.md"), "# Project rules\n")
			run := startPaused(t, p.KB, "fsx.replace", 1, c.args...)
			run.kill(t)
			if s := strayTemps(p); len(s) > 0 {
				t.Errorf("kb %s killed mid-write left temp files in the project: %v", c.name, s)
			}
			rep, _ := p.doctor(t, false)
			var orphans int
			for _, ch := range rep.Checks {
				if ch.Rule == "orphan-temp" {
					orphans++
					if !strings.HasPrefix(ch.Path, ".state/tmp/") {
						t.Errorf("orphan temp file outside .state/tmp: %s", ch.Path)
					}
				}
			}
			if orphans == 0 {
				t.Errorf("kb doctor does not report the temp files the kill left in .state/tmp: %v", rep.Checks)
			}
			p.doctor(t, true)
			if rep, _ := p.doctor(t, false); len(rep.warningsOf()) > 0 || len(rep.errorsOf()) > 0 {
				t.Errorf("kb doctor after --fix: %v %v", rep.warningsOf(), rep.errorsOf())
			}
			r := p.run(t, nil, c.args...)
			if r.Code != 0 {
				t.Errorf("the re-run failed: %s", r)
			}
		})
	}
	// A temp file an older kb (or a temp area on another filesystem) left
	// beside a project file: kb doctor names it, --fix removes it.
	t.Run("doctor", func(t *testing.T) {
		t.Parallel()
		p := newProjectKB(t)
		must(t, os.MkdirAll(filepath.Join(p.Proj, ".continual-learning"), 0o755))
		must(t, os.MkdirAll(filepath.Join(p.Proj, ".claude", "skills", "x"), 0o755))
		planted := []string{".kb-tmp-AGENTS.md-123", ".continual-learning/.kb-tmp-index.json-456", ".claude/skills/x/.kb-tmp-SKILL.md-789"}
		for _, rel := range planted {
			write(t, filepath.Join(p.Proj, filepath.FromSlash(rel)), "partial")
		}
		rep, _ := p.doctor(t, false)
		for _, rel := range planted {
			found := false
			for _, ch := range rep.Checks {
				found = found || (ch.Rule == "orphan-temp" && ch.Path == "../"+rel)
			}
			if !found {
				t.Errorf("kb doctor does not name %s: %v", rel, rep.Checks)
			}
		}
		p.doctor(t, true)
		if s := strayTemps(p); len(s) > 0 {
			t.Errorf("temp files left after kb doctor --fix: %v", s)
		}
	})
}
