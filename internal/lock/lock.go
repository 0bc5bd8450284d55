// Package lock owns the KB write lock: one advisory file lock (gofrs/flock)
// per KB, taken by every command that writes, with the holder's pid, host,
// command and start time recorded beside it so that a waiting command can say
// who holds it.
package lock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/kbmem/kb/internal/fsx"
)

// ErrLocked is returned when the lock could not be taken in time.
var ErrLocked = errors.New("KB is locked")

// Holder describes the process that holds the lock.
type Holder struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Command string    `json:"command"`
	Since   time.Time `json:"since"`
}

func (h Holder) String() string {
	if h.PID == 0 {
		return "an unknown process"
	}
	return fmt.Sprintf("pid %d on %s (%s) since %s", h.PID, h.Host, h.Command, h.Since.Format(time.RFC3339))
}

// Lock is a held KB write lock.
type Lock struct {
	fl       *flock.Flock
	info     string
	Waited   time.Duration
	released bool
}

// Acquire takes the exclusive lock file at path, waiting up to timeout.
// On timeout the error wraps ErrLocked and names the holder.
func Acquire(ctx context.Context, path string, timeout time.Duration) (*Lock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	// kb creates the lock file and its holder note itself; a symlink in
	// their place (a cloned repository's) is refused, not opened.
	for _, p := range []string{path, path + ".holder"} {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s is a symlink: kb keeps its lock in a file of its own and does not follow it (remove the link; kb doctor --fix does)", p)
		}
	}
	fl := flock.New(path)
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// One attempt first, whatever the timeout: a short timeout on a loaded
	// machine can expire before flock's loop makes its first try, and a
	// free lock would then be reported as held.
	ok, err := fl.TryLock()
	if err == nil && !ok {
		ok, err = fl.TryLockContext(ctx, 20*time.Millisecond)
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return nil, err
	}
	if !ok {
		h, _ := ReadHolder(path)
		return nil, fmt.Errorf("%w: held by %s (waited %s)", ErrLocked, h, time.Since(start).Round(time.Millisecond))
	}
	l := &Lock{fl: fl, info: path + ".holder", Waited: time.Since(start)}
	host, _ := os.Hostname()
	h := Holder{PID: os.Getpid(), Host: host, Command: strings.Join(os.Args, " "), Since: time.Now().UTC()}
	if b, err := json.Marshal(h); err == nil {
		// Best effort and not atomic on purpose: it is advisory text, and a
		// torn holder file only degrades the message to "unknown process".
		_ = fsx.WriteNoFollow(l.info, b, 0o644)
	}
	return l, nil
}

// Release drops the lock. It is safe to call more than once.
func (l *Lock) Release() error {
	if l == nil || l.released {
		return nil
	}
	l.released = true
	_ = os.Remove(l.info)
	return l.fl.Unlock()
}

// ReadHolder reports who holds (or last held) the lock at path.
func ReadHolder(path string) (Holder, error) {
	var h Holder
	b, err := fsx.ReadFileNoFollow(path + ".holder")
	if err != nil {
		return h, err
	}
	err = json.Unmarshal(b, &h)
	return h, err
}

// Held reports whether some process currently holds the lock at path.
func Held(path string) bool {
	fl := flock.New(path)
	ok, err := fl.TryLock()
	if err != nil {
		return false
	}
	if ok {
		fl.Unlock()
		return false
	}
	return true
}
