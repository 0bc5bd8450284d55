// Package failpoint makes the process fail at a named point of its work, so
// that the reliability tests can reproduce exactly the state a crash between
// two writes, or a full disk in the middle of one, leaves (the random-delay
// SIGKILL harness finds such states only by chance).
//
// A point is armed through the environment. KB_FAILPOINT=name=N kills the
// process with SIGKILL (TerminateProcess on Windows) on the Nth time Hit is
// called with that name. KB_FAILPOINT=name=N:short makes the Nth
// ShortWrite at that name report a short write (half the bytes, then
// ENOSPC, as a full disk does). Without the variable Hit and ShortWrite cost
// one atomic load.
package failpoint

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Env is the variable that arms a failpoint: "name=N" or "name=N:short".
const Env = "KB_FAILPOINT"

var (
	once   sync.Once
	mu     sync.Mutex
	name   string
	after  int64
	action string // "kill" or "short"
	hits   atomic.Int64
	armed  atomic.Bool
)

func load() {
	arm(os.Getenv(Env))
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
func Hit(point string) {
	if !reached(point, "kill") {
		return
	}
	p, err := os.FindProcess(os.Getpid())
	if err == nil {
		_ = p.Kill()
	}
	os.Exit(137) // not reached where Kill works
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
