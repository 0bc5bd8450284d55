package reliability

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// noteText is a library note with the given id and words.
func noteText(id string, words []string) string {
	return fmt.Sprintf(`---
id: %s
type: note
title: Reliability note %s
description: A note rewritten by the concurrency suite.
tags: [reliability]
lifecycle: knowledge
status: active
created: 2026-01-19
updated: 2026-01-19
---

# Reliability note %s

Words added by concurrent edits: %s.
`, id, id, id, strings.Join(words, " "))
}

var (
	waitedRE = regexp.MustCompile(`waited ([0-9.]+m?s) for the KB lock`)
	holderRE = regexp.MustCompile(`held by (pid \d+|an unknown process)`)
)

// contention tallies what the concurrent processes met.
type contention struct {
	mu       sync.Mutex
	ops      map[string]int // command -> runs
	waits    int            // commands that logged a lock wait (> 1 s)
	maxWait  time.Duration
	maxRun   time.Duration
	locked   int // exit 4
	noHolder int // exit 4 without naming the holder
	busy     map[string]int
	failures []string
}

func (c *contention) record(name string, r res) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ops == nil {
		c.ops, c.busy = map[string]int{}, map[string]int{}
	}
	c.ops[name]++
	c.maxRun = max(c.maxRun, r.Dur)
	if m := waitedRE.FindStringSubmatch(r.Stderr); m != nil {
		c.waits++
		if d, err := time.ParseDuration(m[1]); err == nil {
			c.maxWait = max(c.maxWait, d)
		}
	}
	if strings.Contains(r.Stderr, "in use by another process") {
		c.busy[name]++
	}
	switch {
	case r.Code == 0:
	case r.Code == 4:
		c.locked++
		if !holderRE.MatchString(r.Stderr) {
			c.noHolder++
		}
	default:
		c.failures = append(c.failures, r.String())
	}
}

// TestConcurrency runs kb watch while four processes import, extract,
// recall and edit notes at once, then checks that nothing was lost,
// duplicated or corrupted and that every process finished.
func TestConcurrency(t *testing.T) {
	t.Parallel()
	wall := pick(10*time.Second, 60*time.Second)
	files := fixtureTranscripts(t, 250<<10)
	src := filepath.Join(t.TempDir(), "agent-transcripts")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	k := newKB(t, src)
	const notes = 4
	words := make([][]string, notes)
	for i := range notes {
		p := filepath.Join(k.Root, "library", "notes", fmt.Sprintf("rel-%d.md", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(noteText(fmt.Sprintf("rel-%d", i), nil)), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// kb watch, logging JSON lines.
	watch := exec.Command(kbBin, "--kb", k.Root, "--json", "watch")
	watch.Env = kbEnv(k.Home)
	stdout, _ := watch.StdoutPipe()
	var werr strings.Builder
	watch.Stderr = &werr
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	defer killNow(watch)
	started := make(chan struct{})
	var watchErrors, watchImports int
	var wmu sync.Mutex
	var busyInWatch []string
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		once := sync.Once{}
		for sc.Scan() {
			var a struct{ Action, Message string }
			if json.Unmarshal(sc.Bytes(), &a) != nil {
				continue
			}
			wmu.Lock()
			switch a.Action {
			case "start":
				once.Do(func() { close(started) })
			case "error":
				watchErrors++
				if strings.Contains(a.Message, "in use by another process") {
					busyInWatch = append(busyInWatch, a.Message)
				}
			case "import":
				watchImports++
			}
			wmu.Unlock()
		}
	}()
	select {
	case <-started:
	case <-time.After(cmdTimeout):
		t.Fatalf("kb watch did not start within %s:\n%s", cmdTimeout, werr.String())
	}

	var cont contention
	deadline := time.Now().Add(wall)
	var wg sync.WaitGroup
	worker := func(name string, step func(i int) bool) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(deadline); i++ {
				if !step(i) {
					return
				}
			}
		}()
	}
	runOp := func(name string, args ...string) res {
		r, err := runKB(k.Home, "", nil, cmdTimeout, append([]string{"--kb", k.Root}, args...)...)
		if err != nil {
			t.Errorf("%v\n%s", err, r)
		}
		checkPanic(t, r)
		cont.record(name, r)
		return r
	}
	var imported []string
	worker("import", func(i int) bool {
		if i >= len(files) {
			return false
		}
		dst := filepath.Join(src, fmt.Sprintf("%03d-%s", i, filepath.Base(files[i])))
		b, err := os.ReadFile(files[i])
		if err != nil {
			t.Error(err)
			return false
		}
		// Written in two halves, as an agent appends: kb watch may see
		// the first half alone.
		h := len(b) / 2
		for h > 0 && b[h-1] != '\n' {
			h--
		}
		os.WriteFile(dst, b[:h], 0o644)
		f, _ := os.OpenFile(dst, os.O_APPEND|os.O_WRONLY, 0)
		f.Write(b[h:])
		f.Close()
		imported = append(imported, dst)
		runOp("import", "import", dst)
		return true
	})
	worker("extract", func(i int) bool { runOp("extract", "extract"); return true })
	worker("recall", func(i int) bool {
		runOp("recall", "recall", "install the project and run the tests")
		return true
	})
	var lostEdits []string
	var edits int
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	worker("edit", func(i int) bool {
		n := i % notes
		w := fmt.Sprintf("zqrel%dx%d", i, rng.IntN(1e6))
		words[n] = append(words[n], w)
		p := filepath.Join(k.Root, "library", "notes", fmt.Sprintf("rel-%d.md", n))
		if err := os.WriteFile(p, []byte(noteText(fmt.Sprintf("rel-%d", n), words[n])), 0o644); err != nil {
			t.Error(err)
			return false
		}
		edits++
		r := runOp("search", "search", "--json", w)
		if r.Code == 0 && !strings.Contains(r.Stdout, "rel-"+fmt.Sprint(n)+".md") {
			lostEdits = append(lostEdits, w)
		}
		return true
	})
	wg.Wait()

	// Stop kb watch with SIGTERM: it must exit on its own.
	watch.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- watch.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("kb watch exited with %v after SIGTERM:\n%s", err, tail(werr.String(), 3000))
		}
	case <-time.After(cmdTimeout):
		t.Fatalf("kb watch did not stop within %s of SIGTERM (deadlock?):\n%s", cmdTimeout, tail(werr.String(), 3000))
	}
	checkPanic(t, res{Args: []string{"watch"}, Stderr: werr.String()})

	for _, f := range cont.failures {
		t.Errorf("a command failed under contention: %s", f)
	}
	if cont.noHolder > 0 {
		t.Errorf("%d command(s) exited 4 without naming the lock holder", cont.noHolder)
	}
	if len(lostEdits) > 0 {
		t.Errorf("edits not found by kb search right after the edit: %v", lostEdits)
	}
	// Every edit searchable at the end.
	for n := range notes {
		for _, w := range words[n] {
			r := k.run(t, nil, "search", "--json", w)
			if !strings.Contains(r.Stdout, fmt.Sprintf("rel-%d.md", n)) {
				t.Errorf("lost update: %q (note rel-%d) not found at the end", w, n)
			}
		}
	}
	// Every imported record present once: equal to a clean import.
	ref := newKB(t)
	ref.must(t, append([]string{"import"}, imported...)...)
	got, probs := traceState(k.Root)
	want, _ := traceState(ref.Root)
	for _, p := range probs {
		t.Errorf("corrupt trace: %s", p)
	}
	for _, d := range compareTraces(got, want) {
		t.Errorf("traces differ from a clean import of the same files: %s", d)
	}
	rep, _ := k.doctor(t, false)
	if e := rep.errorsOf(); len(e) > 0 {
		t.Errorf("kb doctor errors after the concurrent run:\n%s", strings.Join(e, "\n"))
	}
	wmu.Lock()
	defer wmu.Unlock()
	total := 0
	for _, n := range cont.ops {
		total += n
	}
	t.Logf("RESULT concurrency: %s wall, %d commands %v, %d note edits, watch imports %d, watch errors %d; lock waits > 1s: %d (max %s); exit 4 (locked): %d; busy index: %v (watch: %d); longest command %s",
		wall, total, cont.ops, edits, watchImports, watchErrors, cont.waits, cont.maxWait, cont.locked, cont.busy, len(busyInWatch), cont.maxRun.Round(time.Millisecond))
	if len(busyInWatch) > 0 {
		t.Logf("busy index in kb watch: %s", busyInWatch[0])
	}
	for name, n := range cont.busy {
		if n > 0 {
			t.Logf("busy index in %s: %d time(s)", name, n)
		}
	}
}
