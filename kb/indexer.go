package kb

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/kbmem/kb/agents"
	"github.com/kbmem/kb/internal/fsx"

	"github.com/kbmem/kb/internal/lock"
)

// A hook never builds or syncs the index: when the index is missing or
// stale it answers from what exists and starts one background indexer,
// `kb index --background`, detached from the agent, logging to
// .state/indexer.log. The indexer holds .state/indexer.lock while it runs,
// so a second one exits at once, and a foreground command that finds the
// index busy waits for it instead of failing.
const (
	indexerLock = "indexer.lock"
	indexerLog  = "indexer.log"
	// maxIndexerLog is the size past which the log starts over.
	maxIndexerLog = 1 << 20
	// indexerWait bounds how long a foreground command waits for a
	// background indexer.
	indexerWait = 10 * time.Minute
)

// recallLayers are the layers recall reads, which a background indexer
// brings up to date. Traces are left to the commands that search them,
// kb index and kb watch: indexing a large session would hold the index
// (and keep hooks from reading it) for minutes.
var recallLayers = []string{LayerObservations, LayerEpisodes, LayerLibrary}

func (k *KB) indexerLockPath() string { return filepath.Join(k.Root, StateDir, indexerLock) }

// indexerRunning reports whether a background indexer holds its lock.
func indexerRunning(root string) bool {
	return lock.Held(filepath.Join(root, StateDir, indexerLock))
}

// BackgroundIndex is `kb index --background`: it brings the layers recall
// reads up to date, unless another background indexer is running (then
// ran is false and nothing is done).
func (k *KB) BackgroundIndex(ctx context.Context) (st SyncStats, ran bool, err error) {
	l, err := k.lockIndexer()
	if errors.Is(err, lock.ErrLocked) {
		return st, false, nil
	}
	if err != nil {
		return st, false, err
	}
	defer l.Release()
	// Not OpenIndexLayers: it would wait for this very indexer.
	x, st, err := k.openIndex(ctx, recallLayers, nil)
	if err != nil {
		return st, true, err
	}
	return st, true, x.Close()
}

// lockIndexer takes the background indexer's lock without waiting.
func (k *KB) lockIndexer() (*lock.Lock, error) {
	return lock.Acquire(context.Background(), k.indexerLockPath(), time.Millisecond)
}

// waitIndexer waits for a running background indexer to finish and
// reports whether there was one.
func (k *KB) waitIndexer(ctx context.Context) bool {
	if !indexerRunning(k.Root) {
		return false
	}
	h, _ := lock.ReadHolder(k.indexerLockPath())
	k.logf("waiting for the background indexer (%s) to finish", h)
	l, err := lock.Acquire(ctx, k.indexerLockPath(), indexerWait)
	if err != nil {
		return false
	}
	l.Release()
	return true
}

// startIndexer starts exe --kb root --quiet index --background in its own
// session, with its output appended to .state/indexer.log, and does not
// wait for it. Nothing is started while another indexer runs (two hooks
// racing may both start one; the second exits at once on the lock).
func startIndexer(exe, root string) (bool, error) {
	if indexerRunning(root) {
		return false, nil
	}
	dir := filepath.Join(root, StateDir)
	// Through the KB's tree: a .state or indexer.log that a cloned
	// repository committed as a symlink out of the KB is refused.
	tree := fsx.Tree{Root: root}
	if err := tree.MkdirAll(dir); err != nil {
		return false, err
	}
	st, err := os.Lstat(filepath.Join(dir, indexerLog))
	logf, err := tree.OpenLog(filepath.Join(dir, indexerLog), err == nil && st.Size() > maxIndexerLog)
	if err != nil {
		return false, err
	}
	defer logf.Close()
	if err := agents.StartDetached(root, logf, exe, "--kb", root, "--quiet", "index", "--background"); err != nil {
		return false, err
	}
	return true, nil
}
