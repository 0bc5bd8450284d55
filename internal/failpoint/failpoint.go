// Package failpoint kills the process at a named point of its work, so that
// the reliability tests can reproduce exactly the state a crash between two
// writes leaves (the random-delay SIGKILL harness finds such states only by
// chance).
//
// A point is armed through the environment: KB_FAILPOINT=name=N kills the
// process with SIGKILL (TerminateProcess on Windows) on the Nth time Hit is
// called with that name. With KB_FAILPOINT_PAUSE=DIR as well, the process
// pauses there instead of dying: it writes DIR/name.reached (holding the
// note the point passes, such as the file about to be replaced) and waits
// until DIR/name.resume exists, so that a test can act at that exact moment
// (edit a file between kb's check and its rename) without relying on timing.
// Without the variables Hit costs two atomic loads.
package failpoint

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Env is the variable that arms a failpoint: "name=N".
const Env = "KB_FAILPOINT"

// PauseEnv names a directory: an armed point pauses there instead of
// killing the process (see the package comment).
const PauseEnv = "KB_FAILPOINT_PAUSE"

// maxPause bounds a pause, so that a test that never resumes the process
// leaves no process behind for ever.
const maxPause = 5 * time.Minute

var (
	once  sync.Once
	name  string
	after int64
	pause string
	hits  atomic.Int64
	armed atomic.Bool
	hook  atomic.Pointer[hookFn]
)

type hookFn struct {
	point string
	fn    func(note string)
}

func load() {
	if n, i, ok := parse(os.Getenv(Env)); ok {
		name, after = n, i
		pause = os.Getenv(PauseEnv)
		armed.Store(true)
	}
}

// parse reads "name=N" (N >= 1).
func parse(v string) (string, int64, bool) {
	n, c, ok := strings.Cut(v, "=")
	if !ok || n == "" {
		return "", 0, false
	}
	i, err := strconv.ParseInt(c, 10, 64)
	if err != nil || i < 1 {
		return "", 0, false
	}
	return n, i, true
}

// Hit counts a pass through the named point and kills the process when
// that count reaches the armed N.
func Hit(point string) { HitNote(point, "") }

// HitNote is Hit for a point that says what it is about to do (a path): the
// note is passed to an OnHit function and written into a pause's .reached
// file.
func HitNote(point, note string) {
	if h := hook.Load(); h != nil && h.point == point {
		h.fn(note)
	}
	once.Do(load)
	if !armed.Load() || point != name {
		return
	}
	if hits.Add(1) != after {
		return
	}
	if pause != "" {
		wait(point, note)
		return
	}
	p, err := os.FindProcess(os.Getpid())
	if err == nil {
		_ = p.Kill()
	}
	os.Exit(137) // not reached where Kill works
}

// wait announces the pause and blocks until it is resumed (or maxPause).
func wait(point, note string) {
	base := filepath.Join(pause, point)
	// Written aside and renamed, so that a watcher never reads it empty.
	if err := os.WriteFile(base+".reaching", []byte(note), 0o644); err != nil {
		return
	}
	if err := os.Rename(base+".reaching", base+".reached"); err != nil {
		return
	}
	deadline := time.Now().Add(maxPause)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(base + ".resume"); err == nil {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// OnHit makes every pass through point call fn with the point's note, in
// this process (for tests that drive kb in-process). It returns the
// function that removes the hook. One hook at a time.
func OnHit(point string, fn func(note string)) (remove func()) {
	h := &hookFn{point: point, fn: fn}
	hook.Store(h)
	return func() { hook.CompareAndSwap(h, nil) }
}
