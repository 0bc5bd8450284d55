package kb

import (
	"context"
	"errors"
	"time"

	"github.com/kbmem/kb/agents"
	"github.com/kbmem/kb/internal/lock"
)

// A hook never builds or syncs the index: when the index is missing or
// stale it answers from what exists and starts one background indexer,
// `kb index --background`, detached from the agent, logging to
// .state/indexer.log. The indexer holds .state/indexer.lock while it runs,
// so a second one exits at once, and a foreground command that finds the
// index busy waits for it instead of failing (agents.Background).
//
// indexerWait bounds how long a foreground command waits for a
// background indexer.
const indexerWait = 10 * time.Minute

// recallLayers are the layers recall reads, which a background indexer
// brings up to date. Traces are left to the commands that search them,
// kb index and kb watch: indexing a large session would hold the index
// (and keep hooks from reading it) for minutes.
var recallLayers = []string{LayerObservations, LayerEpisodes, LayerLibrary}

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
	x, st, err := k.openIndex(ctx, recallLayers, false, nil)
	if err != nil {
		return st, true, err
	}
	return st, true, x.Close()
}

// lockIndexer takes the background indexer's lock without waiting.
func (k *KB) lockIndexer() (*lock.Lock, error) { return agents.Indexer(k.Root).TryLock() }

// waitIndexer waits for a running background indexer to finish and
// reports whether there was one.
func (k *KB) waitIndexer(ctx context.Context) bool {
	return agents.Indexer(k.Root).Wait(ctx, indexerWait, func(h lock.Holder) {
		k.logf("waiting for the background indexer (%s) to finish", h)
	})
}
