package agents

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/kbmem/kb/internal/config"
	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/lock"
)

// Background is a kb process a hook starts detached, one at a time (the
// background indexer): it holds Lock while it runs, so a second one exits
// at once and a foreground command can wait for it, and its output is
// appended to Log, which starts over past MaxLog bytes.
type Background struct {
	Root   string // the KB root; Lock and Log are inside it
	Lock   string
	Log    string
	MaxLog int64
}

// Running reports whether a process holds the lock.
func (b Background) Running() bool { return lock.Held(b.Lock) }

// TryLock takes the lock without waiting (lock.ErrLocked when it is held).
func (b Background) TryLock() (*lock.Lock, error) {
	return lock.Acquire(context.Background(), b.Lock, time.Millisecond)
}

// Wait waits up to max for a running process to finish and reports
// whether there was one; logf is told whom it waits for.
func (b Background) Wait(ctx context.Context, max time.Duration, logf func(holder lock.Holder)) bool {
	if !b.Running() {
		return false
	}
	h, _ := lock.ReadHolder(b.Lock)
	logf(h)
	l, err := lock.Acquire(ctx, b.Lock, max)
	if err != nil {
		return false
	}
	l.Release()
	return true
}

// Start starts exe args... in its own session, in Root, with its output
// appended to Log, and does not wait for it. Nothing is started while
// another one runs (two hooks racing may both start one; the second exits
// at once on the lock).
func (b Background) Start(exe string, args ...string) (bool, error) {
	if b.Running() {
		return false, nil
	}
	// Through the KB's tree: a log or its directory that a cloned
	// repository committed as a symlink out of the KB is refused.
	tree := fsx.Tree{Root: b.Root}
	if err := tree.MkdirAll(filepath.Dir(b.Log)); err != nil {
		return false, err
	}
	st, err := os.Lstat(b.Log)
	logf, err := tree.OpenLog(b.Log, err == nil && st.Size() > b.MaxLog)
	if err != nil {
		return false, err
	}
	defer logf.Close()
	if err := StartDetached(b.Root, logf, exe, args...); err != nil {
		return false, err
	}
	return true, nil
}

// The background indexer of a KB (`kb index --background`, started by a
// hook that found the index missing or stale): its lock and its log in
// the KB's state directory.
const (
	indexerLock = "indexer.lock"
	indexerLog  = "indexer.log"
	// maxIndexerLog is the size past which the log starts over.
	maxIndexerLog = 1 << 20
)

// Indexer is the background indexer of the KB at root.
func Indexer(root string) Background {
	dir := filepath.Join(root, config.StateDir)
	return Background{Root: root, Lock: filepath.Join(dir, indexerLock), Log: filepath.Join(dir, indexerLog), MaxLog: maxIndexerLog}
}
