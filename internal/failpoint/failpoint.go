// Package failpoint kills the process at a named point of its work, so that
// the reliability tests can reproduce exactly the state a crash between two
// writes leaves (the random-delay SIGKILL harness finds such states only by
// chance).
//
// A point is armed through the environment: KB_FAILPOINT=name=N kills the
// process with SIGKILL (TerminateProcess on Windows) on the Nth time Hit is
// called with that name. Without the variable Hit costs one atomic load.
package failpoint

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Env is the variable that arms a failpoint: "name=N".
const Env = "KB_FAILPOINT"

var (
	once  sync.Once
	name  string
	after int64
	hits  atomic.Int64
	armed atomic.Bool
)

func load() {
	if n, i, ok := parse(os.Getenv(Env)); ok {
		name, after = n, i
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
func Hit(point string) {
	once.Do(load)
	if !armed.Load() || point != name {
		return
	}
	if hits.Add(1) == after {
		p, err := os.FindProcess(os.Getpid())
		if err == nil {
			_ = p.Kill()
		}
		os.Exit(137) // not reached where Kill works
	}
}
