package kb

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/kbmem/kb/agents"
	"github.com/kbmem/kb/internal/index"
	"github.com/kbmem/kb/internal/watch"
)

// SessionHook runs the pipeline on sessions that have ended: the watcher
// calls it, without holding the KB write lock, for sessions quiet for
// WatchOptions.QuietAfter. Extraction plugs in here.
type SessionHook func(ctx context.Context, k *KB, sessionIDs []string) error

// WatchOptions configure Watch. Zero values take kb.yaml's watch section.
type WatchOptions struct {
	OnQuiet    SessionHook      // called for sessions that went quiet; nil = nothing
	QuietAfter time.Duration    // a session without new records this long has ended (default watch.quiet_after)
	Debounce   time.Duration    // coalesce bursts of events (default watch.debounce)
	Tick       time.Duration    // how often quiet sessions are looked for (default QuietAfter/10, 50ms..30s)
	Clock      func() time.Time // default time.Now
	Once       bool             // one pass: import, re-index, run the hook on sessions already quiet, return
	NoRedact   bool
	// Sources to watch; nil = TraceSources(true, true, true).
	Sources []Source
	// OnAction receives one WatchAction per thing done; default: k.Logf.
	OnAction func(WatchAction)
	// LearnEvery runs the `kb learn` tick on this schedule and after the
	// pipeline ran on quiet sessions (0 = never; default watch.learn_every).
	LearnEvery time.Duration
}

// WatchAction is one thing the watcher did, for its log (agents.WatchAction).
type WatchAction = agents.WatchAction

// watchStateFile (.state/watch.json) holds the watcher's pending sessions
// (watch.Pending).
const watchStateFile = "watch.json"

// Watch imports transcripts as agents write them and keeps the index in step
// with edits, until ctx is done (then it returns nil). New or grown
// transcripts under the sources are imported (the store's checkpoints make
// this cheap and restart-safe); edits under the layer directories are
// re-indexed; a session without new records for QuietAfter is handed to
// OnQuiet. Directories that do not exist yet are watched from their nearest
// existing parent. The watcher itself is agents.Watcher; the KB gives it
// the write lock, the index, the learn tick and its state file.
func (k *KB) Watch(ctx context.Context, o WatchOptions) error {
	if o.QuietAfter <= 0 {
		o.QuietAfter = k.Config.Watch.QuietAfter.D()
		if o.QuietAfter <= 0 {
			o.QuietAfter = 10 * time.Minute
		}
	}
	if o.Debounce <= 0 {
		o.Debounce = k.Config.Watch.Debounce.D()
	}
	if o.Tick <= 0 {
		o.Tick = min(max(o.QuietAfter/10, 50*time.Millisecond), 30*time.Second)
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.LearnEvery == 0 {
		o.LearnEvery = k.Config.Watch.LearnEvery.D()
	}
	if o.Sources == nil {
		o.Sources = k.TraceSources(true, true, true)
	}
	st, _, err := k.traceStore(o.NoRedact, nil)
	if err != nil {
		return err
	}
	w := &agents.Watcher{Root: k.Root, Layers: Layers, SkipDirs: []string{IndexDir, StateDir}, Sources: o.Sources, Store: st,
		Import: k.pathOptions(ImportOptions{NoRedact: o.NoRedact}, nil), Pending: k.loadWatchState(),
		QuietAfter: o.QuietAfter, Debounce: o.Debounce, Tick: o.Tick, LearnEvery: o.LearnEvery, Clock: o.Clock,
		Report: o.OnAction, Lock: k.watchLock, Sync: k.watchSync, Learn: k.watchLearn,
		SaveState: func(b []byte) error {
			return k.files().WriteFile(filepath.Join(k.Root, StateDir, watchStateFile), b, 0o644)
		},
	}
	if w.Report == nil {
		w.Report = func(a WatchAction) { k.logf("%s", a.Message) }
	}
	if o.OnQuiet != nil {
		w.OnQuiet = func(ctx context.Context, ids []string) error { return o.OnQuiet(ctx, k, ids) }
	}
	if !o.Once {
		stop := k.keepFresh(ctx)
		defer stop()
	}
	return w.Run(ctx, o.Once)
}

// keepFresh runs the index's freshness keeper (internal/watch.Keeper) over
// the layers recall reads until stop is called: while it runs, a read of
// those layers (kb search) asks it what changed instead of stat'ing every
// file. Traces are left out: they change all through a session.
func (k *KB) keepFresh(ctx context.Context) (stop func()) {
	kp := k.keeper(0)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := kp.Run(ctx); err != nil && !errors.Is(err, watch.ErrKeeperRunning) {
			k.logf("freshness keeper: %v (searches scan every file)", err)
		}
	}()
	return func() { cancel(); <-done }
}

// keeper is the KB's freshness keeper: over the layers recall reads, in
// the index directory; idle as watch.Keeper's.
func (k *KB) keeper(idle time.Duration) *watch.Keeper {
	var roots []string
	for _, l := range recallLayers {
		roots = append(roots, filepath.Join(k.Root, l))
	}
	return &watch.Keeper{Dir: filepath.Join(k.Root, IndexDir, freshDir), Roots: roots, Logf: k.logf, Idle: idle}
}

// KeepFresh runs only the freshness keeper of the layers recall reads
// (kb watch --keeper), until ctx is done or, with idle > 0, until no read
// asked it anything for idle (and it stops when the index directory goes
// away). With another keeper running it returns nil at once: that one
// serves the KB.
func (k *KB) KeepFresh(ctx context.Context, idle time.Duration) error {
	if err := k.keeper(idle).Run(ctx); err != nil && !errors.Is(err, watch.ErrKeeperRunning) {
		return err
	}
	return nil
}

// KeeperStarter is a StartKeeper that starts `exe watch --keeper` for the
// KB, detached, its output appended to .state/keeper.log; nothing when a
// keeper runs.
func (k *KB) KeeperStarter(exe string) func(idle time.Duration) error {
	return func(idle time.Duration) error {
		b := agents.Background{Root: k.Root, Lock: filepath.Join(k.Root, IndexDir, freshDir, watch.KeeperLock),
			Log: filepath.Join(k.Root, StateDir, "keeper.log"), MaxLog: 1 << 20}
		_, err := b.Start(exe, "--kb", k.Root, "watch", "--keeper", "--idle", idle.String())
		return err
	}
}

// startKeeper starts a freshness keeper in the background after a read
// stat'ed files files to find what changed, when kb.yaml's
// watch.keeper_files says that many are worth it and the KB's
// StartKeeper is set (cmd/kb: a detached kb watch --keeper), once per
// process.
func (k *KB) startKeeper(files int) {
	n := k.Config.Watch.KeeperFiles
	if k.StartKeeper == nil || n <= 0 || files < n || k.keeperStarted {
		return
	}
	k.keeperStarted = true
	idle := k.Config.Watch.KeeperIdle.D()
	if idle <= 0 {
		idle = 30 * time.Minute
	}
	if err := k.StartKeeper(idle); err != nil {
		k.logf("freshness keeper: %v (searches stat every file)", err)
	}
}

// watchLock is the KB write lock, for the watcher.
func (k *KB) watchLock(ctx context.Context) (func(), error) {
	l, err := k.Lock(ctx)
	if err != nil {
		return nil, err
	}
	return func() { l.Release() }, nil
}

// watchSync brings the index up to date for the watcher; an index another
// process holds is agents.ErrIndexBusy.
func (k *KB) watchSync(ctx context.Context) (added, updated, removed int, err error) {
	// The layers recall reads as a search does, through the freshness
	// keeper this process runs (the changed files only, not a stat of
	// every file after each edit), then the traces; each opens the index
	// to write only when something changed (a writable open starts
	// bleve's merger, and a search waiting for the index waited for it).
	for _, open := range []func() (*Searcher, SyncStats, error){
		func() (*Searcher, SyncStats, error) { return k.OpenIndexToRead(ctx, recallLayers, nil) },
		func() (*Searcher, SyncStats, error) { return k.OpenIndexToRead(ctx, []string{LayerTraces}, nil) },
	} {
		x, st, err := open()
		if errors.Is(err, index.ErrBusy) {
			return 0, 0, 0, agents.ErrIndexBusy
		}
		if err != nil {
			return 0, 0, 0, err
		}
		x.Close()
		added, updated, removed = added+st.Added, updated+st.Updated, removed+st.Removed
	}
	// The watcher compiles what its read syncs left to the background:
	// it is the background.
	if err := k.compilePending(ctx); errors.Is(err, index.ErrBusy) {
		return added, updated, removed, agents.ErrIndexBusy
	} else if err != nil {
		k.logf("%v (hooks answer from the previous one)", err)
	}
	return added, updated, removed, nil
}

// watchLearn runs one `kb learn` tick for the watcher.
func (k *KB) watchLearn(ctx context.Context) (string, error) {
	res, err := k.LearnTick(ctx)
	if err != nil {
		return "", err
	}
	return res.Summary(), nil
}

func (k *KB) loadWatchState() *watch.Pending {
	data, err := k.files().ReadFile(filepath.Join(k.Root, StateDir, watchStateFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		k.logf("watch state: %v", err)
	}
	return watch.ParsePending(data)
}
