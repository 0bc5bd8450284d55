package kb

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kbmem/kb/agents"
	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/index"
	"github.com/kbmem/kb/internal/watch"
	"github.com/kbmem/kb/traces"
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

// WatchAction is one thing the watcher did, for its log.
type WatchAction struct {
	Time     time.Time `json:"time"`
	Action   string    `json:"action"` // import, index, quiet, error, start
	File     string    `json:"file,omitempty"`
	Records  int       `json:"records,omitempty"`
	Sessions []string  `json:"sessions,omitempty"`
	Message  string    `json:"message"`
}

// watchStateFile (.state/watch.json) holds the watcher's pending sessions
// (watch.Pending).
const watchStateFile = "watch.json"

// Watch imports transcripts as agents write them and keeps the index in step
// with edits, until ctx is done (then it returns nil). New or grown
// transcripts under the sources are imported (the store's checkpoints make
// this cheap and restart-safe); edits under the layer directories are
// re-indexed; a session without new records for QuietAfter is handed to
// OnQuiet. Directories that do not exist yet are watched from their nearest
// existing parent.
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
	report := o.OnAction
	if report == nil {
		report = func(a WatchAction) { k.logf("%s", a.Message) }
	}
	w := &watcher{k: k, o: o, report: report}
	st, _, err := k.traceStore(o.NoRedact, &w.redacted)
	if err != nil {
		return err
	}
	w.store = st
	w.state = k.loadWatchState()

	// Catch up with what was written while nobody watched.
	w.importSources(ctx, o.Sources)
	w.sync(ctx)
	if o.Once {
		w.checkQuiet(ctx)
		return nil
	}

	paths := make([]string, 0, len(o.Sources)+len(Layers))
	for _, s := range o.Sources {
		paths = append(paths, s.Path)
	}
	for _, l := range Layers {
		paths = append(paths, filepath.Join(k.Root, l))
	}
	return watch.Loop{
		Options: watch.Options{Debounce: o.Debounce, Ignore: w.ignore,
			Logf: func(f string, a ...any) { w.act(WatchAction{Action: "error", Message: fmt.Sprintf(f, a...)}) }},
		Paths: paths, Tick: o.Tick, Every: o.LearnEvery,
		Started: func() {
			w.act(WatchAction{Action: "start", Message: fmt.Sprintf("watching %d source(s) and the KB layers (quiet after %s)", len(o.Sources), o.QuietAfter)})
		},
		OnBatch: func(b []watch.Event) { w.handle(ctx, b) },
		OnTick: func() {
			if w.resync {
				w.sync(ctx)
			}
			w.checkQuiet(ctx)
		},
		OnEvery: func() { w.learn(ctx) },
	}.Run(ctx)
}

type watcher struct {
	resync   bool // the last sync found the index busy: retry on the next tick
	k        *KB
	o        WatchOptions
	report   func(WatchAction)
	store    *traces.Store
	state    *watch.Pending
	redacted atomic.Int64
}

func (w *watcher) act(a WatchAction) {
	if a.Time.IsZero() {
		a.Time = w.o.Clock()
	}
	w.report(a)
}

func (w *watcher) ignore(p string, isDir bool) bool {
	name := filepath.Base(p)
	if strings.HasPrefix(name, ".kb-tmp-") {
		return true
	}
	if isDir && (name == ".git" || name == IndexDir || name == StateDir || name == "node_modules") {
		return true
	}
	return false
}

// handle reacts to one batch of file events.
func (w *watcher) handle(ctx context.Context, batch []watch.Event) {
	var files []string
	var rescan []Source
	needSync := false
	for _, ev := range batch {
		if fsx.Inside(w.k.Root, ev.Path) {
			if ev.Op == watch.OpRescan || w.inLayer(ev.Path) {
				needSync = true
			}
			continue
		}
		file, dir := agents.Route(w.o.Sources, ev.Path, ev.Op == watch.OpRescan, ev.Op == watch.OpRemove || ev.Op == watch.OpRename)
		if file != "" {
			files = append(files, file)
		} else if dir != nil {
			rescan = append(rescan, *dir)
		}
	}
	if len(files) > 0 || len(rescan) > 0 {
		if w.importFiles(ctx, files, rescan) {
			needSync = true
		}
	}
	if needSync {
		w.sync(ctx)
	}
}

func (w *watcher) inLayer(p string) bool {
	for _, l := range Layers {
		if fsx.Inside(filepath.Join(w.k.Root, l), p) {
			return true
		}
	}
	return false
}

// importSources imports everything under the sources; it reports whether
// any record was appended.
func (w *watcher) importSources(ctx context.Context, sources []Source) bool {
	files, dirs := agents.SplitSources(sources)
	return w.importFiles(ctx, files, dirs)
}

// importFiles imports files (and the transcripts under dirs) under the
// write lock, one log line per file that got records.
func (w *watcher) importFiles(ctx context.Context, files []string, dirs []Source) bool {
	files, unreadable := agents.SourceFiles(files, dirs, w.k.Root)
	for _, u := range unreadable {
		w.act(WatchAction{Action: "error", File: u.Path, Message: "import " + u.Msg})
	}
	if len(files) == 0 {
		return false
	}
	l, err := w.k.Lock(ctx)
	if err != nil {
		w.act(WatchAction{Action: "error", Message: fmt.Sprintf("import: %v", err)})
		return false
	}
	defer l.Release()
	any := false
	now := w.o.Clock()
	prev := ""
	for _, f := range files {
		if f == prev || ctx.Err() != nil {
			continue
		}
		prev = f
		res := w.store.ImportFile(f, w.k.pathOptions(ImportOptions{NoRedact: w.o.NoRedact}, nil))
		if res.NotTranscript {
			continue // a .json that is no transcript, outside an agent's directory: not ours
		}
		if res.Error != "" {
			w.act(WatchAction{Action: "error", File: f, Message: "import " + res.Error})
			continue
		}
		for _, p := range res.Problems {
			w.act(WatchAction{Action: "error", File: f, Message: p})
		}
		if res.Appended == 0 {
			continue
		}
		any = true
		w.state.Touch(res.Sessions, now)
		w.act(WatchAction{Action: "import", File: f, Records: res.Appended, Sessions: res.Sessions,
			Message: fmt.Sprintf("imported %d records from %s", res.Appended, f)})
	}
	if any {
		w.saveState()
	}
	return any
}

// sync brings the index up to date with the files.
func (w *watcher) sync(ctx context.Context) {
	x, st, err := w.k.OpenIndex(ctx, nil)
	if err != nil {
		if errors.Is(err, index.ErrBusy) {
			// Another kb process has the index open (a search, a hook):
			// not an error, try again on the next tick.
			w.resync = true
			return
		}
		if ctx.Err() == nil {
			w.act(WatchAction{Action: "error", Message: fmt.Sprintf("index: %v", err)})
		}
		return
	}
	w.resync = false
	x.Close()
	if n := st.Added + st.Updated + st.Removed; n > 0 {
		w.act(WatchAction{Action: "index", Records: n,
			Message: fmt.Sprintf("re-indexed %d file(s): %d added, %d updated, %d removed", n, st.Added, st.Updated, st.Removed)})
	}
}

// checkQuiet hands the sessions quiet for QuietAfter to the hook.
func (w *watcher) checkQuiet(ctx context.Context) {
	now := w.o.Clock()
	quiet := w.state.Quiet(now, w.o.QuietAfter)
	if len(quiet) == 0 {
		return
	}
	if w.o.OnQuiet == nil {
		w.state.Done(quiet)
		w.saveState()
		w.act(WatchAction{Action: "quiet", Sessions: quiet, Message: fmt.Sprintf("session %s quiet: no pipeline configured", strings.Join(quiet, ", "))})
		return
	}
	err := w.o.OnQuiet(ctx, w.k, quiet)
	if err != nil && ctx.Err() != nil {
		return // stopped mid-way: the sessions stay pending for the next run
	}
	if err != nil {
		// Try again after another quiet period.
		w.state.Touch(quiet, now)
		w.saveState()
		w.act(WatchAction{Action: "error", Sessions: quiet, Message: fmt.Sprintf("session %s quiet: pipeline failed: %v", strings.Join(quiet, ", "), err)})
		return
	}
	w.state.Done(quiet)
	w.saveState()
	w.act(WatchAction{Action: "quiet", Sessions: quiet, Message: fmt.Sprintf("session %s quiet: pipeline ran", strings.Join(quiet, ", "))})
	if w.o.LearnEvery > 0 {
		w.learn(ctx)
	}
}

// learn runs one `kb learn` tick and logs its result.
func (w *watcher) learn(ctx context.Context) {
	res, err := w.k.LearnTick(ctx)
	if err != nil {
		w.act(WatchAction{Action: "error", Message: "learn: " + err.Error()})
		return
	}
	msg := "learn: " + res.Result
	if res.Reason != "" {
		msg += " (" + res.Reason + ")"
	}
	if n := len(res.Applied); n > 0 {
		msg += fmt.Sprintf(", %d entr%s written", n, map[bool]string{true: "y", false: "ies"}[n == 1])
	}
	w.act(WatchAction{Action: "learn", Message: msg})
}

func (k *KB) loadWatchState() *watch.Pending {
	data, err := k.files().ReadFile(filepath.Join(k.Root, StateDir, watchStateFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		k.logf("watch state: %v", err)
	}
	return watch.ParsePending(data)
}

func (w *watcher) saveState() {
	b, err := w.state.JSON()
	if err == nil {
		err = w.k.files().WriteFile(filepath.Join(w.k.Root, StateDir, watchStateFile), b, 0o644)
	}
	if err != nil {
		w.act(WatchAction{Action: "error", Message: fmt.Sprintf("watch state: %v", err)})
	}
}
