package watch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// startKeeper runs a keeper over root until the test ends.
func startKeeper(t *testing.T, dir string, roots ...string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	kp := &Keeper{Dir: dir, Roots: roots, Logf: t.Logf, Ready: func() { close(ready) }}
	go func() { done <- kp.Run(ctx) }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("keeper: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("keeper: %v", err)
		}
	})
}

func ask(t *testing.T, dir string) Answer {
	t.Helper()
	return Ask(dir, 5*time.Second) // an answer comes in microseconds; the bound only stops a broken test
}

func write(t *testing.T, p, s string, mt time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, mt, mt); err != nil {
		t.Fatal(err)
	}
}

// The keeper lists every change made before a query's ping, including an
// edit in place that keeps the size and the second of the mtime, and a
// file made in a directory made just before; it is clean only after a
// query that scanned said done with no change in between.
func TestKeeperAnswers(t *testing.T) {
	root := t.TempDir()
	lib := filepath.Join(root, "library")
	dir := filepath.Join(root, ".index", "fresh")
	mt := time.Date(2026, 1, 2, 3, 4, 5, 100, time.UTC)
	a := filepath.Join(lib, "notes", "a.md")
	write(t, a, "alpha one\n", mt)
	if got := Ask(dir, time.Second); got.Known {
		t.Fatalf("answer with no keeper: %+v", got)
	}
	startKeeper(t, dir, lib)

	got := ask(t, dir)
	if !got.Known || !got.All {
		t.Fatalf("first answer %+v, want all (nothing known yet)", got)
	}
	got.Done(1)
	if got := ask(t, dir); !got.Clean() {
		t.Fatalf("after a query's done: %+v, want clean", got)
	}
	if got := ask(t, dir); !got.Clean() {
		t.Fatalf("asked again: %+v, want clean", got)
	}

	write(t, a, "alpha two\n", mt.Add(time.Microsecond)) // same size, same second
	got = ask(t, dir)
	if got.Clean() || !slices.Contains(got.Changed, a) {
		t.Fatalf("after an edit in place: %+v, want %s listed", got, a)
	}
	if again := ask(t, dir); !slices.Contains(again.Changed, a) {
		t.Fatalf("a query that did not say done cleared the change: %+v", again)
	}

	// A change between the ping and the done keeps it listed.
	b := filepath.Join(lib, "new", "deep", "b.md")
	write(t, b, "beta\n", mt)
	got.Done(1)
	got = ask(t, dir)
	if got.Clean() || !slices.Contains(got.Changed, filepath.Join(lib, "new")) {
		t.Fatalf("after a new directory made after the ping: %+v, want it listed", got)
	}
	got.Done(1)
	if got := ask(t, dir); !got.Clean() {
		t.Fatalf("after done: %+v", got)
	}
	// The new directory is watched too.
	write(t, b, "beta two\n", mt)
	if got := ask(t, dir); !slices.Contains(got.Changed, b) {
		t.Fatalf("edit in a new directory: %+v, want %s", got, b)
	}

	// A removed file is listed; a moved directory makes the keeper start
	// over (all).
	ask(t, dir).Done(1)
	os.Remove(a)
	if got := ask(t, dir); !slices.Contains(got.Changed, a) {
		t.Fatalf("after a removal: %+v", got)
	}
	if err := os.Rename(filepath.Join(lib, "new"), filepath.Join(lib, "moved")); err != nil {
		t.Fatal(err)
	}
	if got := ask(t, dir); !got.All {
		t.Fatalf("after a directory moved: %+v, want all", got)
	}
}

// The keeper's directory removed (rm -rf .index) under it: it starts over.
func TestKeeperDirRemoved(t *testing.T) {
	root, _, dir := keeperKB(t)
	ask(t, dir).Done(1)
	// The keeper may write into the directory while RemoveAll empties
	// it ("directory not empty"), as under `rm -rf`: remove until gone.
	var err error
	for range 50 {
		if err = os.RemoveAll(filepath.Join(root, ".index")); err == nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	var got Answer
	for i := 0; i < 500 && !got.Known; i++ { // the keeper makes its directory again
		time.Sleep(10 * time.Millisecond)
		got = Ask(dir, time.Second)
	}
	if !got.All {
		t.Fatalf("after the directory came back: %+v, want all", got)
	}
}

// A root removed and made again: the keeper starts over (all) and watches
// the new one.
func TestKeeperRootRemade(t *testing.T) {
	root, lib, dir := keeperKB(t)
	ask(t, dir).Done(1)
	write(t, filepath.Join(root, "kb.yaml"), "x", time.Now()) // beside the roots: no change
	if got := ask(t, dir); !got.Clean() {
		t.Fatalf("after a file beside the roots: %+v, want clean", got)
	}
	if err := os.RemoveAll(lib); err != nil {
		t.Fatal(err)
	}
	if got := ask(t, dir); !got.All {
		t.Fatalf("after the root was removed: %+v, want all", got)
	}
	ask(t, dir).Done(1)
	a := filepath.Join(lib, "a.md")
	write(t, a, "alpha", time.Now())
	got := ask(t, dir)
	if got.Clean() {
		t.Fatalf("a file in the root made again went unseen: %+v", got)
	}
}

// keeperKB is a KB root with a library/ directory and a keeper running
// over it, answering in dir.
func keeperKB(t *testing.T) (root, lib, dir string) {
	t.Helper()
	root = t.TempDir()
	lib = filepath.Join(root, "library")
	os.MkdirAll(lib, 0o755)
	dir = filepath.Join(root, ".index", "fresh")
	startKeeper(t, dir, lib)
	return root, lib, dir
}

// A keeper started on demand (Idle) answers while queries come, stops
// after Idle without one, and stops, without making it again, when its
// directory goes away.
func TestKeeperOnDemand(t *testing.T) {
	run := func(t *testing.T, idle time.Duration) (root, dir string, done chan error) {
		root = t.TempDir()
		lib := filepath.Join(root, "library")
		os.MkdirAll(lib, 0o755)
		os.MkdirAll(filepath.Join(root, ".index"), 0o755)
		dir = filepath.Join(root, ".index", "fresh")
		ready := make(chan struct{})
		done = make(chan error, 1)
		kp := &Keeper{Dir: dir, Roots: []string{lib}, Logf: t.Logf, Ready: func() { close(ready) }, Idle: idle}
		go func() { done <- kp.Run(context.Background()) }()
		select {
		case <-ready:
		case err := <-done:
			t.Fatalf("keeper: %v", err)
		}
		return root, dir, done
	}
	t.Run("idle", func(t *testing.T) {
		_, dir, done := run(t, 300*time.Millisecond)
		for range 5 { // queries every 100 ms keep it running past its idle time
			if !ask(t, dir).Known {
				t.Fatal("no answer while queries come")
			}
			time.Sleep(100 * time.Millisecond)
		}
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("still running long after its idle time")
		}
		if Ask(dir, 100*time.Millisecond).Known {
			t.Error("an answer after it stopped")
		}
	})
	t.Run("removed", func(t *testing.T) {
		root, _, done := run(t, time.Hour)
		if err := os.RemoveAll(filepath.Join(root, ".index")); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("still running after its directory was removed")
		}
		if _, err := os.Stat(filepath.Join(root, ".index")); err == nil {
			t.Error("the index directory was made again")
		}
	})
}
