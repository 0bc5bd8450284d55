package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// waitLimit bounds every wait for an expected event. It is generous so a
// loaded machine does not make the tests flaky; no test asserts timings.
const waitLimit = 10 * time.Second

type harness struct {
	t       *testing.T
	w       *Watcher
	batches chan []Event
	cancel  context.CancelFunc
	done    chan error
}

func start(t *testing.T, opts Options, paths ...string) *harness {
	t.Helper()
	if opts.Logf == nil {
		opts.Logf = t.Logf
	}
	if opts.Debounce == 0 {
		opts.Debounce = 50 * time.Millisecond
	}
	w, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if err := w.Add(p); err != nil {
			w.Close()
			t.Fatalf("Add(%s): %v", p, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &harness{t: t, w: w, batches: make(chan []Event, 10000), cancel: cancel, done: make(chan error, 1)}
	go func() {
		h.done <- w.Run(ctx, func(b []Event) {
			h.batches <- append([]Event(nil), b...)
		})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-h.done:
			if err != nil {
				t.Errorf("Run returned %v", err)
			}
		case <-time.After(waitLimit):
			t.Errorf("Run did not return after cancel")
		}
	})
	return h
}

// next returns the next batch, checking that it is sorted and has one
// event per path; it fails the test after waitLimit.
func (h *harness) next(what string) []Event {
	h.t.Helper()
	select {
	case b := <-h.batches:
		if !sort.SliceIsSorted(b, func(i, j int) bool { return b[i].Path < b[j].Path }) {
			h.t.Errorf("batch not sorted: %v", b)
		}
		for i := 1; i < len(b); i++ {
			if b[i].Path == b[i-1].Path {
				h.t.Errorf("batch has %s twice: %v", b[i].Path, b)
			}
		}
		return b
	case <-time.After(waitLimit):
		h.t.Fatalf("no batch within %v while waiting for %s", waitLimit, what)
		return nil
	}
}

// waitFor reads batches until one holds an event matching want and
// returns every event seen so far.
func (h *harness) waitFor(what string, want func(Event) bool) []Event {
	h.t.Helper()
	var seen []Event
	deadline := time.Now().Add(waitLimit)
	for time.Now().Before(deadline) {
		b := h.next(what)
		seen = append(seen, b...)
		for _, e := range b {
			if want(e) {
				return seen
			}
		}
	}
	h.t.Fatalf("never saw %s; saw %v", what, seen)
	return nil
}

func pathIs(p string, ops ...string) func(Event) bool {
	return func(e Event) bool {
		if e.Path != p {
			return false
		}
		if len(ops) == 0 {
			return true
		}
		for _, op := range ops {
			if e.Op == op {
				return true
			}
		}
		return false
	}
}

func mustWrite(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendTo(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func TestBurstCoalesces(t *testing.T) {
	dir := t.TempDir()
	// A long quiet time and no practical max delay, so the burst below can
	// only be split by a stall of most of a second.
	h := start(t, Options{Debounce: 700 * time.Millisecond, MaxDelay: time.Minute}, dir)
	a, b, c := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.md"), filepath.Join(dir, "c.md")
	for i := 0; i < 200; i++ {
		appendTo(t, a, fmt.Sprintf("{\"n\":%d}\n", i))
	}
	mustWrite(t, b, "b")
	mustWrite(t, c, "c")
	if err := os.Remove(c); err != nil {
		t.Fatal(err)
	}
	batch := h.next("the burst")
	got := fmt.Sprint(batch)
	want := fmt.Sprint([]Event{{a, OpWrite}, {b, OpWrite}, {c, OpRemove}})
	if got != want {
		t.Errorf("burst batch = %s, want %s", got, want)
	}
	// Nothing of the burst is left over: the next batch has only the
	// sentinel.
	s := filepath.Join(dir, "sentinel")
	mustWrite(t, s, "s")
	if batch := h.next("the sentinel"); fmt.Sprint(batch) != fmt.Sprint([]Event{{s, OpWrite}}) {
		t.Errorf("after the burst got %v", batch)
	}
}

func TestContinuousWritesAreDelivered(t *testing.T) {
	// Under writes that never pause for Debounce, MaxDelay still flushes.
	dir := t.TempDir()
	h := start(t, Options{Debounce: 5 * time.Second, MaxDelay: 300 * time.Millisecond}, dir)
	p := filepath.Join(dir, "transcript.jsonl")
	stop := make(chan struct{})
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				return
			}
			fmt.Fprintf(f, "%d\n", i)
			f.Close()
		}
	}()
	defer func() { close(stop); <-writerDone }()
	// Two batches for the same file prove the writes did not hold the
	// batch back until they stopped.
	h.waitFor("first transcript batch", pathIs(p))
	h.waitFor("second transcript batch", pathIs(p))
}

func TestNewSubdirectoriesAreFollowed(t *testing.T) {
	dir := t.TempDir()
	h := start(t, Options{}, dir)
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	h.waitFor("sub created", pathIs(sub, OpCreate))
	f := filepath.Join(sub, "f.md")
	mustWrite(t, f, "x")
	h.waitFor("file in new dir", pathIs(f))

	// mkdir -p and a file right away: the file may be created before the
	// watches exist, and must be found by the walk.
	deep := filepath.Join(dir, "p", "q", "r", "deep.md")
	mustWrite(t, deep, "deep")
	h.waitFor("file in a fresh tree", pathIs(deep))
	// And later writes in the deepest new directory are watched.
	appendTo(t, deep, "more")
	h.waitFor("write in a fresh tree", pathIs(deep, OpWrite))
}

func TestPathThatDoesNotExistYet(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "projects", "x", "session")
	h := start(t, Options{}, root)

	// Activity in the ancestor that stands in for the root is not
	// reported.
	other := filepath.Join(base, "unrelated.txt")
	mustWrite(t, other, "o")
	mustWrite(t, filepath.Join(base, "projects", "y", "z.txt"), "y")

	f := filepath.Join(root, "t.jsonl")
	mustWrite(t, f, "{}\n")
	seen := h.waitFor("file in late root", pathIs(f))
	for _, e := range seen {
		if e.Path != root && !strings.HasPrefix(e.Path, root+string(filepath.Separator)) {
			t.Errorf("event outside the root: %v", e)
		}
	}
	// The root is now watched recursively.
	g := filepath.Join(root, "sub", "g.jsonl")
	mustWrite(t, g, "{}\n")
	h.waitFor("file below late root", pathIs(g))

	// Removing the root and creating it again picks it up once more.
	if err := os.RemoveAll(filepath.Join(base, "projects")); err != nil {
		t.Fatal(err)
	}
	h.waitFor("root removed", pathIs(root, OpRemove))
	f2 := filepath.Join(root, "again.jsonl")
	mustWrite(t, f2, "{}\n")
	h.waitFor("file in recreated root", pathIs(f2))

	h.w.mu.Lock()
	defer h.w.mu.Unlock()
	for d := range h.w.watched {
		if d != root && !strings.HasPrefix(d, root+string(filepath.Separator)) {
			t.Errorf("stand-in watch on %s kept after the root appeared", d)
		}
	}
}

func TestFileRoot(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "memory.md")
	mustWrite(t, p, "v1")
	h := start(t, Options{}, p)
	sibling := filepath.Join(dir, "sibling.md")
	mustWrite(t, sibling, "s")
	appendTo(t, p, "v2")
	seen := h.waitFor("write to file root", pathIs(p, OpWrite))
	for _, e := range seen {
		if e.Path != p {
			t.Errorf("event outside the file root: %v", e)
		}
	}
	// Atomic replacement by rename is still seen.
	tmp := filepath.Join(dir, ".tmp-memory")
	mustWrite(t, tmp, "v3")
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	h.waitFor("rename onto file root", pathIs(p, OpCreate))
}

func TestIgnore(t *testing.T) {
	dir := t.TempDir()
	ignored := filepath.Join(dir, ".git")
	if err := os.Mkdir(ignored, 0o755); err != nil {
		t.Fatal(err)
	}
	h := start(t, Options{Ignore: func(p string, isDir bool) bool {
		return (isDir && filepath.Base(p) == ".git") || strings.HasSuffix(p, ".tmp")
	}}, dir)
	mustWrite(t, filepath.Join(ignored, "index"), "i")
	mustWrite(t, filepath.Join(dir, "x.tmp"), "t")
	keep := filepath.Join(dir, "keep.md")
	mustWrite(t, keep, "k")
	seen := h.waitFor("kept file", pathIs(keep))
	for _, e := range seen {
		if e.Path != keep {
			t.Errorf("ignored path reported: %v", e)
		}
	}
	h.w.mu.Lock()
	defer h.w.mu.Unlock()
	if h.w.watched[ignored] {
		t.Error("ignored directory is watched")
	}
}

func TestRenameDirectory(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old")
	mustWrite(t, filepath.Join(old, "inner", "f.md"), "f")
	h := start(t, Options{}, dir)
	nu := filepath.Join(dir, "new")
	if err := os.Rename(old, nu); err != nil {
		t.Fatal(err)
	}
	h.waitFor("rename away", pathIs(old, OpRename))
	// Writes below the moved directory carry the new path.
	g := filepath.Join(nu, "inner", "g.md")
	mustWrite(t, g, "g")
	seen := h.waitFor("write below renamed dir", pathIs(g))
	for _, e := range seen {
		if strings.HasPrefix(e.Path, old+string(filepath.Separator)) {
			t.Errorf("event under the old name: %v", e)
		}
	}
}

func TestOverflowAsksForRescan(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("overflow is provoked through the inotify queue limit")
	}
	b, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events")
	if err != nil {
		t.Skip("cannot read max_queued_events:", err)
	}
	limit, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || limit > 100000 {
		t.Skipf("max_queued_events = %q; too large to overflow quickly", b)
	}
	dir := t.TempDir()
	w, err := New(Options{Debounce: 50 * time.Millisecond, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Add(dir); err != nil {
		t.Fatal(err)
	}
	// Nobody reads events before Run, so alternating writes to two files
	// (identical consecutive events would be merged) fill the queue.
	fa, err := os.Create(filepath.Join(dir, "a"))
	if err != nil {
		t.Fatal(err)
	}
	defer fa.Close()
	fb, err := os.Create(filepath.Join(dir, "b"))
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Close()
	for i := 0; i < limit+2000; i++ {
		fa.Write([]byte{'a'})
		fb.Write([]byte{'b'})
	}
	ctx, cancel := context.WithCancel(context.Background())
	found := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		var once bool
		done <- w.Run(ctx, func(batch []Event) {
			for _, e := range batch {
				if e.Path == dir && e.Op == OpRescan && !once {
					once = true
					close(found)
				}
			}
		})
	}()
	select {
	case <-found:
	case <-time.After(waitLimit):
		t.Error("no rescan event after overflow")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestCancelCloseAndErrors(t *testing.T) {
	dir := t.TempDir()
	w, err := New(Options{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Add(dir); err != nil {
		t.Fatal(err)
	}
	if err := w.Add(dir); err != nil {
		t.Fatalf("second Add: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx, func([]Event) {}) }()
	mustWrite(t, filepath.Join(dir, "x"), "x")
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run after cancel = %v", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("Run did not return after cancel")
	}
	if err := w.Run(context.Background(), func([]Event) {}); !errors.Is(err, ErrClosed) {
		t.Errorf("Run after close = %v, want ErrClosed", err)
	}
	if err := w.Add(dir); !errors.Is(err, ErrClosed) {
		t.Errorf("Add after close = %v, want ErrClosed", err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}

	// Close while Run runs makes Run return nil.
	w2, err := New(Options{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	go func() { done <- w2.Run(context.Background(), func([]Event) {}) }()
	time.Sleep(10 * time.Millisecond) // let Run start; either order is fine
	w2.Close()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, ErrClosed) {
			t.Fatalf("Run after Close = %v", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("Run did not return after Close")
	}
}

func openFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}

// settle polls until f() <= want or the limit passes, and returns f().
func settle(want int, f func() int) int {
	deadline := time.Now().Add(waitLimit)
	n := f()
	for n > want && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
		n = f()
	}
	return n
}

func TestNoLeaks(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "a", "b", "c.md"), "c")
	missing := filepath.Join(dir, "later", "x")

	// Warm up once so lazily started runtime goroutines are counted.
	cycle := func(i int) {
		w, err := New(Options{Debounce: time.Millisecond, Logf: t.Logf})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Add(dir); err != nil {
			t.Fatal(err)
		}
		if err := w.Add(missing); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 { // closed without ever running
			w.Close()
			return
		}
		ctx, cancel := context.WithCancel(context.Background())
		got := make(chan struct{}, 1)
		done := make(chan error, 1)
		go func() {
			done <- w.Run(ctx, func([]Event) {
				select {
				case got <- struct{}{}:
				default:
				}
			})
		}()
		mustWrite(t, filepath.Join(dir, "a", "b", fmt.Sprintf("f%d.md", i)), "x")
		select {
		case <-got:
		case <-time.After(waitLimit):
			t.Fatalf("cycle %d: no batch", i)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		w.Close()
	}
	cycle(1)
	time.Sleep(50 * time.Millisecond)
	g0 := runtime.NumGoroutine()
	fd0 := openFDs(t)
	for i := 0; i < 60; i++ {
		cycle(i)
	}
	if g := settle(g0, runtime.NumGoroutine); g > g0 {
		buf := make([]byte, 1<<16)
		t.Errorf("goroutines %d -> %d\n%s", g0, g, buf[:runtime.Stack(buf, true)])
	}
	if fd0 >= 0 {
		if fd := settle(fd0, func() int { return openFDs(t) }); fd > fd0 {
			t.Errorf("open fds %d -> %d", fd0, fd)
		}
	}
}
