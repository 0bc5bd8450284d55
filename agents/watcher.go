package agents

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/watch"
	"github.com/kbmem/kb/traces"
)

// The transcript watcher (kb watch): it imports the transcripts agents
// write under their sources as they grow, asks for a re-index when the
// KB's layer files are edited, and hands a session without new records for
// QuietAfter to OnQuiet. What it needs of the KB (the write lock, the index,
// the learn tick, its state file) comes in as functions.

// WatchAction is one thing the watcher did, for its log.
type WatchAction struct {
	Time     time.Time `json:"time"`
	Action   string    `json:"action"` // import, index, quiet, learn, error, start
	File     string    `json:"file,omitempty"`
	Records  int       `json:"records,omitempty"`
	Sessions []string  `json:"sessions,omitempty"`
	Message  string    `json:"message"`
}

// ErrIndexBusy is what Watcher.Sync returns when another process holds the
// index: not an error, the watcher tries again on its next tick.
var ErrIndexBusy = errors.New("index busy")

// Watcher watches the sources and the layer directories of a KB.
type Watcher struct {
	Root     string   // the KB root: events inside it are the KB's own files
	Layers   []string // the layer directories under Root; an edit there asks for Sync
	SkipDirs []string // directory names never watched (besides .git and node_modules)
	Sources  []Source
	Store    *traces.Store      // the store transcripts are imported into
	Import   traces.PathOptions // how a transcript file is imported
	Pending  *watch.Pending     // the sessions not quiet yet

	QuietAfter time.Duration    // a session without new records this long has ended
	Debounce   time.Duration    // coalesce bursts of events
	Tick       time.Duration    // how often quiet sessions are looked for
	LearnEvery time.Duration    // run Learn on this schedule and after OnQuiet ran (0 = never)
	Clock      func() time.Time // now
	Report     func(WatchAction)

	Lock      func(ctx context.Context) (release func(), err error) // the KB write lock
	Sync      func(ctx context.Context) (added, updated, removed int, err error)
	OnQuiet   func(ctx context.Context, sessions []string) error // nil = nothing configured
	Learn     func(ctx context.Context) (string, error)          // one learn tick, and what it did
	SaveState func(data []byte) error                            // writes Pending's JSON

	resync bool // the last sync found the index busy: retry on the next tick
}

// Run catches up with what was written while nobody watched, then (unless
// once) watches until ctx is done; with once it hands the sessions already
// quiet to OnQuiet and returns.
func (w *Watcher) Run(ctx context.Context, once bool) error {
	files, dirs := SplitSources(w.Sources)
	w.importFiles(ctx, files, dirs)
	w.sync(ctx)
	if once {
		w.checkQuiet(ctx)
		return nil
	}
	paths := make([]string, 0, len(w.Sources)+len(w.Layers))
	for _, s := range w.Sources {
		paths = append(paths, s.Path)
	}
	for _, l := range w.Layers {
		paths = append(paths, filepath.Join(w.Root, l))
	}
	return watch.Loop{
		Options: watch.Options{Debounce: w.Debounce, Ignore: w.ignore,
			Logf: func(f string, a ...any) { w.act(WatchAction{Action: "error", Message: fmt.Sprintf(f, a...)}) }},
		Paths: paths, Tick: w.Tick, Every: w.LearnEvery,
		Started: func() {
			w.act(WatchAction{Action: "start", Message: fmt.Sprintf("watching %d source(s) and the KB layers (quiet after %s)", len(w.Sources), w.QuietAfter)})
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

func (w *Watcher) act(a WatchAction) {
	if a.Time.IsZero() {
		a.Time = w.Clock()
	}
	w.Report(a)
}

func (w *Watcher) ignore(p string, isDir bool) bool {
	name := filepath.Base(p)
	if strings.HasPrefix(name, ".kb-tmp-") {
		return true
	}
	return isDir && (name == ".git" || name == "node_modules" || slices.Contains(w.SkipDirs, name))
}

// handle reacts to one batch of file events.
func (w *Watcher) handle(ctx context.Context, batch []watch.Event) {
	var files []string
	var rescan []Source
	needSync := false
	for _, ev := range batch {
		if fsx.Inside(w.Root, ev.Path) {
			if ev.Op == watch.OpRescan || w.inLayer(ev.Path) {
				needSync = true
			}
			continue
		}
		file, dir := Route(w.Sources, ev.Path, ev.Op == watch.OpRescan, ev.Op == watch.OpRemove || ev.Op == watch.OpRename)
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

func (w *Watcher) inLayer(p string) bool {
	for _, l := range w.Layers {
		if fsx.Inside(filepath.Join(w.Root, l), p) {
			return true
		}
	}
	return false
}

// importFiles imports files (and the transcripts under dirs) under the
// write lock, one log line per file that got records; it reports whether
// any record was appended.
func (w *Watcher) importFiles(ctx context.Context, files []string, dirs []Source) bool {
	files, unreadable := SourceFiles(files, dirs, w.Root)
	for _, u := range unreadable {
		w.act(WatchAction{Action: "error", File: u.Path, Message: "import " + u.Msg})
	}
	if len(files) == 0 {
		return false
	}
	release, err := w.Lock(ctx)
	if err != nil {
		w.act(WatchAction{Action: "error", Message: fmt.Sprintf("import: %v", err)})
		return false
	}
	defer release()
	any := false
	now := w.Clock()
	prev := ""
	for _, f := range files {
		if f == prev || ctx.Err() != nil {
			continue
		}
		prev = f
		res := w.Store.ImportFile(f, w.Import)
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
		w.Pending.Touch(res.Sessions, now)
		w.act(WatchAction{Action: "import", File: f, Records: res.Appended, Sessions: res.Sessions,
			Message: fmt.Sprintf("imported %d records from %s", res.Appended, f)})
	}
	if any {
		w.saveState()
	}
	return any
}

// sync brings the index up to date with the files.
func (w *Watcher) sync(ctx context.Context) {
	added, updated, removed, err := w.Sync(ctx)
	if err != nil {
		if errors.Is(err, ErrIndexBusy) {
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
	if n := added + updated + removed; n > 0 {
		w.act(WatchAction{Action: "index", Records: n,
			Message: fmt.Sprintf("re-indexed %d file(s): %d added, %d updated, %d removed", n, added, updated, removed)})
	}
}

// checkQuiet hands the sessions quiet for QuietAfter to OnQuiet.
func (w *Watcher) checkQuiet(ctx context.Context) {
	now := w.Clock()
	quiet := w.Pending.Quiet(now, w.QuietAfter)
	if len(quiet) == 0 {
		return
	}
	if w.OnQuiet == nil {
		w.Pending.Done(quiet)
		w.saveState()
		w.act(WatchAction{Action: "quiet", Sessions: quiet, Message: fmt.Sprintf("session %s quiet: no pipeline configured", strings.Join(quiet, ", "))})
		return
	}
	err := w.OnQuiet(ctx, quiet)
	if err != nil && ctx.Err() != nil {
		return // stopped mid-way: the sessions stay pending for the next run
	}
	if err != nil {
		// Try again after another quiet period.
		w.Pending.Touch(quiet, now)
		w.saveState()
		w.act(WatchAction{Action: "error", Sessions: quiet, Message: fmt.Sprintf("session %s quiet: pipeline failed: %v", strings.Join(quiet, ", "), err)})
		return
	}
	w.Pending.Done(quiet)
	w.saveState()
	w.act(WatchAction{Action: "quiet", Sessions: quiet, Message: fmt.Sprintf("session %s quiet: pipeline ran", strings.Join(quiet, ", "))})
	if w.LearnEvery > 0 {
		w.learn(ctx)
	}
}

// learn runs one learn tick and logs its result.
func (w *Watcher) learn(ctx context.Context) {
	msg, err := w.Learn(ctx)
	if err != nil {
		w.act(WatchAction{Action: "error", Message: "learn: " + err.Error()})
		return
	}
	w.act(WatchAction{Action: "learn", Message: "learn: " + msg})
}

func (w *Watcher) saveState() {
	b, err := w.Pending.JSON()
	if err == nil {
		err = w.SaveState(b)
	}
	if err != nil {
		w.act(WatchAction{Action: "error", Message: fmt.Sprintf("watch state: %v", err)})
	}
}
