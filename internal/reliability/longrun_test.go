package reliability

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// procSample is one reading of a process's resources.
type procSample struct {
	rssKB, threads, fds int
}

// sampleProc reads /proc/<pid>/status and /proc/<pid>/fd.
func sampleProc(pid int) (procSample, error) {
	var s procSample
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return s, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "VmRSS:":
			s.rssKB, _ = strconv.Atoi(f[1])
		case "Threads:":
			s.threads, _ = strconv.Atoi(f[1])
		}
	}
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return s, err
	}
	s.fds = len(ents)
	return s, nil
}

func median(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	c := append([]int(nil), xs...)
	sort.Ints(c)
	return c[len(c)/2]
}

// TestLongRun runs kb watch under compressed transcript traffic (several
// transcripts appended to every few hundred milliseconds) and samples its
// memory, threads and open files: they stay flat. Hooks and kb mcp run
// alongside and must exit on their own when their request is done.
func TestLongRun(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc: resource sampling needs Linux")
	}
	t.Parallel()
	wall := pick(15*time.Second, 20*time.Minute)
	src := filepath.Join(t.TempDir(), "agent-transcripts", "-home-dev-app")
	os.MkdirAll(src, 0o755)
	k := newKB(t, filepath.Dir(src))
	copyTree(t, filepath.Join(repoRoot, "testdata", "examples", "library"), filepath.Join(k.Root, "library"))

	watch := exec.Command(kbBin, "--kb", k.Root, "--json", "watch")
	watch.Env = kbEnv(k.Home)
	stdout, _ := watch.StdoutPipe()
	var werr bytes.Buffer
	watch.Stderr = &werr
	must(t, watch.Start())
	defer killNow(watch)
	started := make(chan struct{})
	var imports, errorsN int
	var amu sync.Mutex
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var once sync.Once
		for sc.Scan() {
			var a struct{ Action string }
			if json.Unmarshal(sc.Bytes(), &a) == nil {
				amu.Lock()
				switch a.Action {
				case "start":
					once.Do(func() { close(started) })
				case "import":
					imports++
				case "error":
					errorsN++
				}
				amu.Unlock()
			}
		}
	}()
	select {
	case <-started:
	case <-time.After(cmdTimeout):
		t.Fatalf("kb watch did not start:\n%s", werr.String())
	}

	// Traffic: 4 sessions, one record each every 250 ms, with a new
	// session every few seconds (20 minutes of agent work, compressed).
	const sessions = 4
	sess := make([]*ccSession, sessions)
	written := make([]int, sessions)
	var samples []procSample
	deadline := time.Now().Add(wall)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	var hookRuns, mcpRuns int
	mcpOK := true
	gen := 0
	for i := 0; time.Now().Before(deadline); i++ {
		<-tick.C
		n := i % sessions
		if sess[n] == nil || len(sess[n].lines) > 60 {
			gen++
			sess[n] = &ccSession{id: fmt.Sprintf("22222222-bbbb-4bbb-8bbb-%012d", gen), t: time.Date(2025, 12, 1, 9, 0, 0, 0, time.UTC)}
			written[n] = 0
		}
		s := sess[n]
		switch i % 3 {
		case 0:
			s.user(fmt.Sprintf("Step %d: run the tests again, and never push to main directly.", i))
		case 1:
			s.tool(fmt.Sprintf("t%d", i), "Bash", map[string]any{"command": "go test ./..."}, strings.Repeat("ok  \tpkg\t0.1s\n", 20))
		default:
			s.assistant(fmt.Sprintf("Done with step %d.", i))
		}
		p := filepath.Join(src, s.id+".jsonl")
		f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		must(t, err)
		for _, l := range s.lines[written[n]:] {
			f.WriteString(l + "\n")
		}
		written[n] = len(s.lines)
		f.Close()

		if i%4 == 0 {
			sm, err := sampleProc(watch.Process.Pid)
			if err != nil {
				t.Fatalf("kb watch is gone: %v\n%s", err, tail(werr.String(), 2000))
			}
			samples = append(samples, sm)
		}
		if i%20 == 5 {
			runHook(t, k)
			hookRuns++
		}
		if i%40 == 10 && mcpOK {
			if mcpOK = mcpRuns > 0 || mcpAvailable(t, k); mcpOK {
				runMCP(t, k)
				mcpRuns++
			}
		}
	}
	// Let the last appends settle (debounce), then stop kb watch.
	time.Sleep(2 * time.Second)
	watch.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- watch.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("kb watch: %v\n%s", err, tail(werr.String(), 2000))
		}
	case <-time.After(cmdTimeout):
		t.Fatalf("kb watch did not stop after SIGTERM:\n%s", tail(werr.String(), 2000))
	}
	checkPanic(t, res{Args: []string{"watch"}, Stderr: werr.String()})

	// Flat: the last third of the samples against the first third (after
	// the first sample, which is start-up).
	if len(samples) < 6 {
		t.Fatalf("only %d samples", len(samples))
	}
	third := len(samples) / 3
	pickF := func(f func(procSample) int, from, to int) []int {
		var out []int
		for _, s := range samples[from:to] {
			out = append(out, f(s))
		}
		return out
	}
	rss := func(s procSample) int { return s.rssKB }
	thr := func(s procSample) int { return s.threads }
	fds := func(s procSample) int { return s.fds }
	r0, r1 := median(pickF(rss, 1, 1+third)), median(pickF(rss, len(samples)-third, len(samples)))
	t0, t1 := median(pickF(thr, 1, 1+third)), median(pickF(thr, len(samples)-third, len(samples)))
	f0, f1 := median(pickF(fds, 1, 1+third)), median(pickF(fds, len(samples)-third, len(samples)))
	maxOf := func(f func(procSample) int) int {
		m := 0
		for _, s := range samples {
			m = max(m, f(s))
		}
		return m
	}
	if r1 > r0*3/2+32<<10 {
		t.Errorf("kb watch RSS grew from %d KB to %d KB", r0, r1)
	}
	if t1 > t0+8 {
		t.Errorf("kb watch threads grew from %d to %d", t0, t1)
	}
	if f1 > f0+sessions+8 {
		t.Errorf("kb watch open files grew from %d to %d", f0, f1)
	}
	// Every record written was imported.
	got, probs := traceState(k.Root)
	for _, p := range probs {
		t.Errorf("trace: %s", p)
	}
	records := 0
	for _, s := range got {
		records += s.Records
	}
	ref := newKB(t)
	ref.must(t, "import", filepath.Dir(src))
	want, _ := traceState(ref.Root)
	for _, d := range compareTraces(got, want) {
		t.Errorf("kb watch lost or duplicated records (against a clean import): %s", d)
	}
	amu.Lock()
	t.Logf("RESULT long run: %s of traffic, %d sessions, %d trace records on disk, %d watch imports, %d watch errors; %d samples: RSS %d -> %d KB (max %d), threads %d -> %d (max %d), fds %d -> %d (max %d); %d hook and %d mcp processes exited on their own",
		wall, gen, records, imports, errorsN, len(samples), r0, r1, maxOf(rss), t0, t1, maxOf(thr), f0, f1, maxOf(fds), hookRuns, mcpRuns)
	amu.Unlock()
}

// runHook sends one PreToolUse event: the hook must answer and exit.
func runHook(t *testing.T, k *KB) {
	t.Helper()
	in, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "session_id": "s", "cwd": k.Root,
		"tool_name": "Bash", "tool_input": map[string]any{"command": "git push --force origin main"}})
	r := k.runIn(t, k.Root, in, "hook", "claude-code")
	if r.Code != 0 {
		t.Errorf("hook exit %d\n%s", r.Code, r)
	}
	if r.Stdout != "" && !json.Valid([]byte(r.Stdout)) {
		t.Errorf("hook answered non-JSON: %q", r.Stdout)
	}
}

// mcpAvailable reports whether kb was built with its MCP server; without
// it, kb mcp must still exit at once with a message.
func mcpAvailable(t *testing.T, k *KB) bool {
	t.Helper()
	r := k.run(t, []byte{}, "mcp")
	if strings.Contains(r.Stderr, "built without the MCP server") {
		t.Logf("kb mcp: skipped: %s (it exited %d at once, as it should)", strings.TrimSpace(r.Stderr), r.Code)
		return false
	}
	return true
}

// runMCP starts kb mcp, initializes, lists tools, closes stdin: the server
// must exit.
func runMCP(t *testing.T, k *KB) {
	t.Helper()
	cmd := exec.Command(kbBin, "--kb", k.Root, "mcp")
	cmd.Env = kbEnv(k.Home)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var errb bytes.Buffer
	cmd.Stderr = &errb
	must(t, cmd.Start())
	defer killNow(cmd)
	msgs := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"reliability","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"migration"}}}`,
	}
	for _, m := range msgs {
		io.WriteString(stdin, m+"\n")
	}
	// Read the three answers, then close stdin.
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 4<<20)
	answers := make(chan int, 1)
	go func() {
		n := 0
		for n < 3 && sc.Scan() {
			if bytes.Contains(sc.Bytes(), []byte(`"id":`)) {
				n++
			}
		}
		answers <- n
		io.Copy(io.Discard, stdout)
	}()
	select {
	case n := <-answers:
		if n < 3 {
			t.Errorf("kb mcp answered %d of 3 requests\n%s", n, errb.String())
		}
	case <-time.After(cmdTimeout):
		t.Fatalf("kb mcp did not answer within %s\n%s", cmdTimeout, errb.String())
	}
	stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(cmdTimeout):
		t.Fatalf("kb mcp did not exit within %s of stdin closing\n%s", cmdTimeout, errb.String())
	}
	checkPanic(t, res{Args: []string{"mcp"}, Stderr: errb.String()})
}
