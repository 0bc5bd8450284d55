// Package failpoint makes the process fail at a named point of its work, so
// that the reliability tests can reproduce exactly the state a crash between
// two writes, or a full disk in the middle of one, leaves (the random-delay
// SIGKILL harness finds such states only by chance).
//
// A point is armed through the environment. KB_FAILPOINT=name=N kills the
// process with SIGKILL (TerminateProcess on Windows) on the Nth time Hit is
// called with that name. KB_FAILPOINT=name=N:short makes the Nth
// ShortWrite at that name report a short write (half the bytes, then
// ENOSPC, as a full disk does). With KB_FAILPOINT_PAUSE=DIR as well, a
// killing point pauses instead of dying: it writes DIR/name.reached
// (holding the note the point passes, such as the file about to be
// replaced) and waits until DIR/name.resume exists, so that a test can act
// at that exact moment (edit a file between kb's check and its rename)
// without relying on timing. Without the variables Hit and ShortWrite cost
// two atomic loads.
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

// Env is the variable that arms a failpoint: "name=N" or "name=N:short".
const Env = "KB_FAILPOINT"

// PauseEnv names a directory: an armed point pauses there instead of
// killing the process (see the package comment).
const PauseEnv = "KB_FAILPOINT_PAUSE"

// maxPause bounds a pause, so that a test that never resumes the process
// leaves no process behind for ever.
const maxPause = 5 * time.Minute

var (
	once   sync.Once
	mu     sync.Mutex
	name   string
	after  int64
	action string // "kill" or "short"
	pause  string
	hits   atomic.Int64
	armed  atomic.Bool
	hook   atomic.Pointer[hookFn]
)

type hookFn struct {
	point string
	fn    func(note string)
}

func load() {
	arm(os.Getenv(Env))
	mu.Lock()
	pause = os.Getenv(PauseEnv)
	mu.Unlock()
}

func arm(v string) {
	mu.Lock()
	defer mu.Unlock()
	n, i, a, ok := parse(v)
	name, after, action = n, i, a
	hits.Store(0)
	armed.Store(ok)
}

// Arm arms a point as the environment variable would ("" disarms), for
// tests inside one process.
func Arm(v string) {
	once.Do(func() {})
	arm(v)
}

// parse reads "name=N" or "name=N:short" (N >= 1).
func parse(v string) (string, int64, string, bool) {
	n, c, ok := strings.Cut(v, "=")
	if !ok || n == "" {
		return "", 0, "", false
	}
	a := "kill"
	if num, act, cut := strings.Cut(c, ":"); cut {
		if act != "short" && act != "kill" {
			return "", 0, "", false
		}
		c, a = num, act
	}
	i, err := strconv.ParseInt(c, 10, 64)
	if err != nil || i < 1 {
		return "", 0, "", false
	}
	return n, i, a, true
}

// reached counts a pass through point armed with act and reports whether
// the count reached the armed N.
func reached(point, act string) bool {
	once.Do(load)
	if !armed.Load() {
		return false
	}
	mu.Lock()
	match := point == name && action == act
	mu.Unlock()
	return match && hits.Add(1) == after
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
	if !reached(point, "kill") {
		return
	}
	mu.Lock()
	dir := pause
	mu.Unlock()
	if dir != "" {
		wait(dir, point, note)
		return
	}
	p, err := os.FindProcess(os.Getpid())
	if err == nil {
		_ = p.Kill()
	}
	os.Exit(137) // not reached where Kill works
}

// wait announces the pause and blocks until it is resumed (or maxPause).
func wait(dir, point, note string) {
	base := filepath.Join(dir, point)
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

// ShortWrite counts a write of n bytes through the named point. On the
// armed Nth one it returns how many bytes a full disk would have let
// through (half, rounded down) and true: the caller writes that many and
// fails the write with ENOSPC.
func ShortWrite(point string, n int) (int, bool) {
	if !reached(point, "short") {
		return n, false
	}
	return n / 2, true
}

// OnHit makes every pass through point call fn with the point's note, in
// this process (for tests that drive kb in-process). It returns the
// function that removes the hook. One hook at a time.
func OnHit(point string, fn func(note string)) (remove func()) {
	h := &hookFn{point: point, fn: fn}
	hook.Store(h)
	return func() { hook.CompareAndSwap(h, nil) }
}
