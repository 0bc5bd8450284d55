package reliability

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kbmem/kb/internal/testenv"
	"github.com/kbmem/kb/traces"
)

// kbBin is the kb binary built once by TestMain.
var kbBin string

// repoRoot is the directory holding go.mod.
var repoRoot string

func TestMain(m *testing.M) {
	// The suites spend most of their time waiting on kb subprocesses and
	// on paced traffic, not on this process's CPU: run them all at once
	// unless -test.parallel was given.
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", "8")
	}
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	root, err := findRepoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "reliability:", err)
		return 1
	}
	repoRoot = root
	dir, err := os.MkdirTemp("", "kb-reliability-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "reliability:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	kbBin = filepath.Join(dir, "kb")
	cmd := exec.Command("go", "build", "-o", kbBin, "./cmd/kb")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "reliability: go build ./cmd/kb: %v\n%s", err, out)
		return 1
	}
	code := m.Run()
	for _, d := range sharedDirs {
		os.RemoveAll(d)
	}
	return code
}

// sharedDirs are fixtures built once and shared by several tests.
var sharedDirs []string

func findRepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the package directory")
		}
		dir = parent
	}
}

// long reports whether the long mode was asked for (KB_RELIABILITY=long).
func long() bool { return os.Getenv("KB_RELIABILITY") == "long" }

// pick returns short or long by mode.
func pick[T any](short, lng T) T {
	if long() {
		return lng
	}
	return short
}

// sharedTranscripts is ../shared/data/transcripts relative to the repo, or
// "" when this clone does not have it.
func sharedTranscripts() string {
	p := filepath.Join(filepath.Dir(repoRoot), "shared", "data", "transcripts")
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		return p
	}
	return ""
}

// ---------------------------------------------------------------------------
// Running kb

// res is the outcome of one kb process.
type res struct {
	Args   []string
	Code   int
	Stdout string
	Stderr string
	Dur    time.Duration
}

func (r res) String() string {
	return fmt.Sprintf("kb %s: exit %d\nstderr:\n%s", strings.Join(r.Args, " "), r.Code, tail(r.Stderr, 2000))
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// kbEnv is the environment of every kb process: a private HOME so that
// nothing under the real home is read or written, no KB_DIR, no color.
func kbEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "KB_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME":
			continue
		}
		env = append(env, kv)
	}
	// No background indexer started by hooks: a detached process could
	// outlive the test's temp dirs (bounded_test.go turns it back on).
	return append(env, "HOME="+home, "NO_COLOR=1", "GIT_CONFIG_NOSYSTEM=1", "KB_HOOK_NO_INDEX=1",
		"GIT_AUTHOR_NAME=kb-test", "GIT_AUTHOR_EMAIL=kb@test.invalid", "GIT_COMMITTER_NAME=kb-test", "GIT_COMMITTER_EMAIL=kb@test.invalid")
}

// panicRE matches a Go panic or fatal runtime error on stderr.
var panicRE = regexp.MustCompile(`(?m)^(panic: |fatal error: |goroutine \d+ \[running\]:)`)

// checkPanic fails t when stderr holds a Go panic trace.
func checkPanic(t testing.TB, r res) {
	t.Helper()
	if panicRE.MatchString(r.Stderr) {
		t.Errorf("kb %s panicked:\n%s", strings.Join(r.Args, " "), tail(r.Stderr, 4000))
	}
}

// cmdTimeout bounds every kb process: a process still running after it is
// a deadlock, and the test fails with its stderr.
const cmdTimeout = 90 * time.Second

// KB is a test KB with its private home directory.
type KB struct {
	Root string
	Home string
}

// run runs kb with --kb root, stdin from in (may be nil), waiting at most
// cmdTimeout. It fails t on a timeout or a panic; the exit code is the
// caller's to judge.
func (k *KB) run(t testing.TB, in []byte, args ...string) res {
	t.Helper()
	return k.runIn(t, "", in, args...)
}

func (k *KB) runIn(t testing.TB, dir string, in []byte, args ...string) res {
	t.Helper()
	full := append([]string{"--kb", k.Root}, args...)
	r, err := runKB(k.Home, dir, in, cmdTimeout, full...)
	if err != nil {
		t.Fatalf("%v\n%s", err, r)
	}
	checkPanic(t, r)
	return r
}

// runKB runs the binary; err is set only when it had to be killed after
// timeout (a deadlock) or could not start.
func runKB(home, dir string, in []byte, timeout time.Duration, args ...string) (res, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, kbBin, args...)
	cmd.Env = kbEnv(home)
	cmd.Dir = dir
	if in != nil {
		cmd.Stdin = bytes.NewReader(in)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := res{Args: args, Stdout: out.String(), Stderr: errb.String(), Dur: time.Since(start), Code: -1}
	if cmd.ProcessState != nil {
		r.Code = cmd.ProcessState.ExitCode()
	}
	if ctx.Err() != nil {
		return r, fmt.Errorf("kb %s did not finish within %s (deadlock?)", strings.Join(args, " "), timeout)
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return r, fmt.Errorf("kb %s: %w", strings.Join(args, " "), err)
	}
	return r, nil
}

// must runs kb and fails t unless it exits 0.
func (k *KB) must(t testing.TB, args ...string) res {
	t.Helper()
	r := k.run(t, nil, args...)
	if r.Code != 0 {
		t.Fatalf("%s", r)
	}
	return r
}

// newKB creates a standalone KB under a new temp dir, with a private HOME
// and kb.yaml pointing the agent transcript directories at nothing (or at
// sources, watched by kb watch and read by kb learn).
func newKB(t testing.TB, sources ...string) *KB {
	t.Helper()
	base := t.TempDir()
	k := &KB{Root: filepath.Join(base, "kb"), Home: filepath.Join(base, "home")}
	if err := os.MkdirAll(k.Home, 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := runKB(k.Home, base, nil, cmdTimeout, "init", k.Root)
	if err != nil || r.Code != 0 {
		t.Fatalf("kb init: %v\n%s", err, r)
	}
	setSources(t, k.Root, sources...)
	return k
}

// setSources rewrites kb.yaml's transcript directories.
func setSources(t testing.TB, root string, sources ...string) {
	t.Helper()
	p := filepath.Join(root, "kb.yaml")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	q := make([]string, len(sources))
	for i, src := range sources {
		q[i] = strconvQuote(src)
	}
	for _, kv := range [][2]string{
		{"claude_code: [auto]", "claude_code: []"},
		{"codex: [auto]", "codex: []"},
		{"sources: []", "sources: [" + strings.Join(q, ", ") + "]"},
	} {
		if !strings.Contains(s, kv[0]) {
			t.Fatalf("kb.yaml has no %q: the default config changed; update setSources", kv[0])
		}
		s = strings.Replace(s, kv[0], kv[1], 1)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// copyTree copies a directory tree (regular files, dirs, symlinks).
func copyTree(t testing.TB, src, dst string) { testenv.CopyTree(t, src, dst) }

// clone copies k (KB root and home) into a new temp dir.
func (k *KB) clone(t testing.TB) *KB {
	t.Helper()
	base := t.TempDir()
	c := &KB{Root: filepath.Join(base, "kb"), Home: filepath.Join(base, "home")}
	copyTree(t, k.Root, c.Root)
	copyTree(t, k.Home, c.Home)
	return c
}

// ---------------------------------------------------------------------------
// Fixtures

// fixtureTranscripts returns transcript files for the crash and concurrency
// suites: real ones from ../shared when present (a subset in short mode),
// else the synthetic ones of testdata/transcripts.
func fixtureTranscripts(t testing.TB, shortBytes int64) []string {
	t.Helper()
	var files []string
	if sh := sharedTranscripts(); sh != "" {
		var all []string
		filepath.WalkDir(filepath.Join(sh, "claude-code", "projects"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
				all = append(all, p)
			}
			return nil
		})
		if cx, _ := filepath.Glob(filepath.Join(sh, "codex", "*.jsonl")); len(cx) > 0 {
			all = append(all, cx...)
		}
		sort.Strings(all)
		if long() {
			return all
		}
		// Short mode: the smallest non-empty files first, up to shortBytes.
		sort.Slice(all, func(i, j int) bool { return size(all[i]) < size(all[j]) })
		var total int64
		for _, p := range all {
			s := size(p)
			if s == 0 {
				continue
			}
			if total+s > shortBytes && len(files) > 0 {
				continue
			}
			total += s
			files = append(files, p)
		}
		return files
	}
	t.Logf("../shared/data/transcripts is absent: using the well-formed synthetic transcripts of testdata/transcripts")
	filepath.WalkDir(filepath.Join(repoRoot, "testdata", "transcripts"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") && wellFormed(p) {
			files = append(files, p)
		}
		return nil
	})
	return files
}

// wellFormed reports whether a transcript parses without problems. Some
// fixtures carry malformed lines on purpose (to test that they are reported),
// which would make every import in these suites exit 1.
func wellFormed(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	p, err := traces.Detect(path, b)
	if err != nil {
		return false
	}
	_, probs, err := p.Parse(bytes.NewReader(b), path, traces.Pos{}, func(traces.Record) error { return nil })
	return err == nil && len(probs) == 0
}

func size(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return st.Size()
}

// ---------------------------------------------------------------------------
// State of a KB

// traceKey identifies a trace record by its origin.
type traceKey struct {
	File string
	Line int
}

// sessionState is what a session file holds.
type sessionState struct {
	Records int              // full records, meta included
	Keys    map[traceKey]int // (source file, line) -> records from it
	Torn    bool             // last line without newline
}

// traceState reads every session file under traces/: per session file, its
// records and whether seq is contiguous. Problems (a partial record that is
// not the torn last line, a seq gap) are returned as strings.
func traceState(root string) (map[string]*sessionState, []string) {
	out := map[string]*sessionState{}
	var probs []string
	filepath.WalkDir(filepath.Join(root, "traces"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		st := &sessionState{Keys: map[traceKey]int{}}
		out[filepath.ToSlash(rel)] = st
		f, err := os.Open(p)
		if err != nil {
			probs = append(probs, rel+": "+err.Error())
			return nil
		}
		defer f.Close()
		r := bufio.NewReaderSize(f, 1<<16)
		line, want := 0, -1
		for {
			b, err := r.ReadBytes('\n')
			if len(b) > 0 {
				line++
				if b[len(b)-1] != '\n' {
					st.Torn = true
					break
				}
				var rec struct {
					Seq    int `json:"seq"`
					Source struct {
						File string `json:"file"`
						Line int    `json:"line"`
					} `json:"source"`
					Kind string `json:"kind"`
				}
				if t := bytes.TrimSpace(b); len(t) > 0 {
					if err := json.Unmarshal(t, &rec); err != nil {
						probs = append(probs, fmt.Sprintf("%s:%d: partial or corrupt record: %v", rel, line, err))
						continue
					}
					if want >= 0 && rec.Seq != want {
						probs = append(probs, fmt.Sprintf("%s:%d: seq %d, want %d", rel, line, rec.Seq, want))
					}
					want = rec.Seq + 1
					st.Records++
					if rec.Kind != "meta" {
						st.Keys[traceKey{rec.Source.File, rec.Source.Line}]++
					}
				}
			}
			if err != nil {
				break
			}
		}
		return nil
	})
	return out, probs
}

// compareTraces reports how got differs from want: sessions missing or
// extra, record counts, (source, line) keys lost or duplicated.
func compareTraces(got, want map[string]*sessionState) []string {
	var diffs []string
	for s, w := range want {
		g, ok := got[s]
		if !ok {
			diffs = append(diffs, "session file missing: "+s)
			continue
		}
		if g.Records != w.Records {
			diffs = append(diffs, fmt.Sprintf("%s: %d records, want %d", s, g.Records, w.Records))
		}
		for k, n := range w.Keys {
			if g.Keys[k] != n {
				diffs = append(diffs, fmt.Sprintf("%s: %s:%d has %d record(s), want %d", s, filepath.Base(k.File), k.Line, g.Keys[k], n))
			}
		}
		for k, n := range g.Keys {
			if _, ok := w.Keys[k]; !ok {
				diffs = append(diffs, fmt.Sprintf("%s: unexpected record(s) from %s:%d (%d)", s, filepath.Base(k.File), k.Line, n))
			}
		}
	}
	for s := range got {
		if _, ok := want[s]; !ok {
			diffs = append(diffs, "unexpected session file: "+s)
		}
	}
	sort.Strings(diffs)
	return diffs
}

// fileSet lists the regular files under root/dir (slash paths relative to
// root) with their contents, skipping hidden directories.
func fileSet(root string, dirs ...string) map[string]string {
	out := map[string]string{}
	for _, dir := range dirs {
		filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != filepath.Join(root, dir) {
				return fs.SkipDir
			}
			if d.Type().IsRegular() {
				b, _ := os.ReadFile(p)
				rel, _ := filepath.Rel(root, p)
				out[filepath.ToSlash(rel)] = string(b)
			}
			return nil
		})
	}
	return out
}

// volatileRE matches the wall-clock timestamps kb writes (today's date),
// which differ between a reference run and a re-run.
var volatileRE = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})`)

func normalize(s string) string {
	today := time.Now().UTC().Format("2006-01-02")
	s = volatileRE.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(m, today) || strings.HasPrefix(m, time.Now().Format("2006-01-02")) {
			return "<now>"
		}
		return m
	})
	return s
}

// doctorReport is the --json shape of kb doctor.
type doctorReport struct {
	Files    int `json:"files"`
	Sessions int `json:"sessions"`
	Checks   []struct {
		Path     string `json:"path"`
		Line     int    `json:"line"`
		Msg      string `json:"message"`
		Rule     string `json:"rule"`
		Severity string `json:"severity"`
		Fixable  bool   `json:"fixable"`
		Fixed    bool   `json:"fixed"`
	} `json:"checks"`
	Lock  string `json:"lock"`
	Index string `json:"index"`
}

func (k *KB) doctor(t testing.TB, fix bool) (doctorReport, res) {
	t.Helper()
	args := []string{"doctor", "--json"}
	if fix {
		args = append(args, "--fix")
	}
	r := k.run(t, nil, args...)
	var rep doctorReport
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatalf("kb doctor --json: not JSON (%v)\n%s\n%s", err, r.Stdout, r)
	}
	return rep, r
}

// errorsOf lists the unfixed error findings.
func (d doctorReport) errorsOf() []string {
	var out []string
	for _, c := range d.Checks {
		if c.Severity == "error" && !c.Fixed {
			out = append(out, fmt.Sprintf("%s:%d: %s [%s]", c.Path, c.Line, c.Msg, c.Rule))
		}
	}
	return out
}

func (d doctorReport) warningsOf() []string {
	var out []string
	for _, c := range d.Checks {
		if c.Severity == "warning" && !c.Fixed {
			out = append(out, fmt.Sprintf("%s:%d: %s [%s]", c.Path, c.Line, c.Msg, c.Rule))
		}
	}
	return out
}

// snapshotTree hashes every file under dir (path -> size+content hash) so
// that a later call can tell whether anything changed.
func snapshotTree(dir string) map[string]string {
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			out[p] = "error: " + err.Error()
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		switch {
		case d.Type().IsRegular():
			f, err := os.Open(p)
			if err != nil {
				out[p] = "unreadable"
				return nil
			}
			h := sha256.New()
			io.Copy(h, f)
			f.Close()
			out[p] = fmt.Sprintf("file %d %x %o", info.Size(), h.Sum(nil), info.Mode().Perm())
		case d.IsDir():
			out[p] = fmt.Sprintf("dir %o", info.Mode().Perm())
		default:
			l, _ := os.Readlink(p)
			out[p] = "link " + l
		}
		return nil
	})
	return out
}

func diffSnapshots(a, b map[string]string) []string {
	var d []string
	for p, v := range a {
		if b[p] != v {
			d = append(d, fmt.Sprintf("%s: %q -> %q", p, v, b[p]))
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			d = append(d, p+": created")
		}
	}
	sort.Strings(d)
	return d
}

// counter is a mutex-guarded tally for concurrent workers.
type counter struct {
	mu sync.Mutex
	m  map[string]int
}

func (c *counter) add(k string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]int{}
	}
	c.m[k] += n
}

// killNow sends SIGKILL to a started command.
func killNow(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Signal(syscall.SIGKILL)
	}
}
