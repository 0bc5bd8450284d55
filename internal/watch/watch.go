package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Event operations.
const (
	OpCreate = "create"
	OpWrite  = "write"
	OpRemove = "remove"
	OpRename = "rename" // the path was moved away; its new name arrives as a create
	OpRescan = "rescan" // events were lost under Path; rescan it
)

// Defaults for Options.
const (
	DefaultDebounce = 300 * time.Millisecond
	DefaultMaxDelay = 2 * time.Second
)

var (
	// ErrWatchLimit: the system ran out of inotify watches or instances.
	ErrWatchLimit = errors.New("file watch limit reached")
	// ErrClosed: the watcher was closed (Run returns it only when called
	// after Close; a Watcher runs once).
	ErrClosed = errors.New("watcher closed")
)

// Event is one changed path in a batch.
type Event struct {
	Path string // absolute, cleaned, OS-separated
	Op   string // OpCreate, OpWrite, OpRemove, OpRename or OpRescan
}

// Options configure a Watcher. The zero value is usable.
type Options struct {
	// Debounce is the quiet time that ends a burst (default 300ms).
	Debounce time.Duration
	// MaxDelay bounds how long a burst of continuous events is held back
	// (default 2s), so a growing file is still reported regularly.
	MaxDelay time.Duration
	// Ignore, if set, drops events for matching paths and keeps the
	// watcher out of matching directories.
	Ignore func(path string, isDir bool) bool
	// Logf receives problems that cannot be returned, such as hitting the
	// watch limit while following a new directory (default log.Printf).
	Logf func(format string, args ...any)
}

type rootState int

const (
	statePending rootState = iota // does not exist; anchor is watched
	stateDir                      // an existing directory, watched recursively
	stateFile                     // an existing file; its parent is watched
)

type root struct {
	path   string
	state  rootState
	anchor string // nearest existing ancestor, while pending
}

// Watcher watches files and directory trees. Add paths, then call Run
// once; Run closes the watcher when it returns.
type Watcher struct {
	opts Options
	fsw  *fsnotify.Watcher

	mu      sync.Mutex
	roots   map[string]*root
	watched map[string]bool // directories with an fsnotify watch
	closed  bool
	running bool
}

// New creates a watcher. It fails with ErrWatchLimit when the system has
// no inotify instances left.
func New(opts Options) (*Watcher, error) {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.MaxDelay <= 0 {
		opts.MaxDelay = DefaultMaxDelay
	}
	if opts.Logf == nil {
		opts.Logf = log.Printf
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		if errors.Is(err, syscall.EMFILE) {
			return nil, fmt.Errorf("watch: %w: no inotify instances left; raise fs.inotify.max_user_instances (%v)", ErrWatchLimit, err)
		}
		return nil, fmt.Errorf("watch: %w", err)
	}
	return &Watcher{opts: opts, fsw: fsw, roots: map[string]*root{}, watched: map[string]bool{}}, nil
}

// Add watches path: a file, a directory tree (recursively, including
// directories created later), or a path that does not exist yet, which is
// watched from its nearest existing ancestor until it appears. Adding a
// path twice is a no-op. Add may be called while Run runs.
func (w *Watcher) Add(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("watch %s: %w", path, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return fmt.Errorf("watch %s: %w", abs, ErrClosed)
	}
	if _, ok := w.roots[abs]; ok {
		return nil
	}
	r := &root{path: abs, state: statePending}
	if err := w.reconcile(r, nil); err != nil {
		w.prune()
		return err
	}
	w.roots[abs] = r
	w.prune()
	return nil
}

// Close stops watching and releases all resources. It is safe to call more
// than once and while Run runs (Run then returns nil).
func (w *Watcher) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	w.mu.Unlock()
	if err := w.fsw.Close(); err != nil {
		return fmt.Errorf("watch: close: %w", err)
	}
	return nil
}

// Run delivers events until ctx is done, then closes the watcher and
// returns nil. Each burst of events is coalesced into one batch (one event
// per path, the last operation wins, sorted by path) and handed to handle
// after Debounce of quiet, or after MaxDelay under continuous activity.
// handle calls are serialised and made on Run's goroutine; events keep
// being collected while handle runs. A batch still pending at
// cancellation is dropped.
func (w *Watcher) Run(ctx context.Context, handle func(batch []Event)) error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return ErrClosed
	}
	if w.running {
		w.mu.Unlock()
		return errors.New("watch: Run called twice")
	}
	w.running = true
	w.mu.Unlock()

	batches := make(chan []Event)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.collect(batches, stop)
	}()
	defer func() {
		close(stop)
		<-done
		w.Close()
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-done:
			return nil // closed
		case b := <-batches:
			handle(b)
		}
	}
}

// collect reads fsnotify, follows new directories and roots, and offers a
// batch on out whenever one is due.
func (w *Watcher) collect(out chan<- []Event, stop <-chan struct{}) {
	pending := map[string]string{}
	var batch []Event // cached sorted form of pending; nil when stale
	quiet := time.NewTimer(time.Hour)
	quiet.Stop()
	maxWait := time.NewTimer(time.Hour)
	maxWait.Stop()
	defer quiet.Stop()
	defer maxWait.Stop()
	ready, started, changed := false, false, false

	emit := func(path, op string) {
		pending[path] = op
		batch = nil
		changed = true
	}
	for {
		var send chan<- []Event
		if ready && len(pending) > 0 {
			if batch == nil {
				batch = sortedBatch(pending)
			}
			send = out
		}
		select {
		case <-stop:
			return
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			w.handleEvent(ev, emit)
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			w.handleError(err, emit)
		case <-quiet.C:
			ready = true
		case <-maxWait.C:
			ready = true
		case send <- batch:
			pending = map[string]string{}
			batch = nil
			ready, started = false, false
			quiet.Stop()
			maxWait.Stop()
		}
		if changed {
			changed = false
			if !ready {
				quiet.Reset(w.opts.Debounce)
			}
			if !started {
				started = true
				maxWait.Reset(w.opts.MaxDelay)
			}
		}
	}
}

func sortedBatch(pending map[string]string) []Event {
	b := make([]Event, 0, len(pending))
	for p, op := range pending {
		b = append(b, Event{Path: p, Op: op})
	}
	sort.Slice(b, func(i, j int) bool { return b[i].Path < b[j].Path })
	return b
}

func opOf(o fsnotify.Op) string {
	switch {
	case o.Has(fsnotify.Remove):
		return OpRemove
	case o.Has(fsnotify.Rename):
		return OpRename
	case o.Has(fsnotify.Create):
		return OpCreate
	case o.Has(fsnotify.Write):
		return OpWrite
	}
	return "" // chmod and the like
}

func (w *Watcher) handleEvent(ev fsnotify.Event, emit func(path, op string)) {
	op := opOf(ev.Op)
	if op == "" {
		return
	}
	p := filepath.Clean(ev.Name)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	isDir := false
	switch op {
	case OpRemove, OpRename:
		isDir = w.watched[p]
		w.unwatchTree(p)
	default:
		if fi, err := os.Lstat(p); err == nil {
			isDir = fi.IsDir()
		}
	}

	// Roots at or below p may have appeared or vanished.
	reconciled := false
	for _, r := range w.roots {
		if r.path == p || within(r.path, p) {
			if err := w.reconcile(r, emit); err != nil {
				w.opts.Logf("watch: %v", err)
			}
			reconciled = true
		}
	}

	if w.relevant(p) && !w.ignored(p, isDir) {
		emit(p, op)
		if op == OpCreate && isDir && w.inDirRoot(p) {
			if err := w.addTree(p, emit); err != nil {
				w.opts.Logf("watch: %v", err)
			}
		}
	}
	if reconciled || op == OpRemove || op == OpRename {
		w.prune()
	}
}

func (w *Watcher) handleError(err error, emit func(path, op string)) {
	if !errors.Is(err, fsnotify.ErrEventOverflow) {
		w.opts.Logf("watch: %v", err)
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.opts.Logf("watch: event queue overflowed; asking for a rescan of %d roots", len(w.roots))
	// Drop watches on directories that vanished unseen, then rebuild.
	for d := range w.watched {
		if fi, err := os.Lstat(d); err != nil || !fi.IsDir() {
			w.fsw.Remove(d)
			delete(w.watched, d)
		}
	}
	for _, r := range w.roots {
		emit(r.path, OpRescan)
		if err := w.reconcile(r, nil); err != nil {
			w.opts.Logf("watch: %v", err)
		}
	}
	w.prune()
}

// within reports whether p lies strictly below dir.
func within(p, dir string) bool {
	if dir == string(filepath.Separator) {
		return p != dir && strings.HasPrefix(p, dir)
	}
	return strings.HasPrefix(p, dir+string(filepath.Separator))
}

// relevant reports whether p is a root or lies below one.
func (w *Watcher) relevant(p string) bool {
	for _, r := range w.roots {
		if r.path == p || within(p, r.path) {
			return true
		}
	}
	return false
}

// inDirRoot reports whether p is a directory root or lies below one.
func (w *Watcher) inDirRoot(p string) bool {
	for _, r := range w.roots {
		if r.state == stateDir && (r.path == p || within(p, r.path)) {
			return true
		}
	}
	return false
}

func (w *Watcher) ignored(p string, isDir bool) bool {
	return w.opts.Ignore != nil && w.opts.Ignore(p, isDir)
}

// reconcile brings r's watches in line with what exists on disk. emit, if
// not nil, receives create events for a root that just appeared and its
// content. Caller holds w.mu.
func (w *Watcher) reconcile(r *root, emit func(path, op string)) error {
	was := r.state
	// A pending root is watched from its nearest existing ancestor. The
	// ancestor is checked again after the watch is in place, since the
	// next level may have been created in between.
	for range 64 {
		fi, err := os.Stat(r.path)
		switch {
		case err == nil && fi.IsDir():
			r.state, r.anchor = stateDir, ""
			if was == stateDir {
				emit = nil
			} else if emit != nil && !w.ignored(r.path, true) {
				emit(r.path, OpCreate)
			}
			return w.addTree(r.path, emit)
		case err == nil:
			r.state, r.anchor = stateFile, ""
			if was == statePending && emit != nil && !w.ignored(r.path, false) {
				emit(r.path, OpCreate)
			}
			return w.watch(filepath.Dir(r.path))
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return fmt.Errorf("watch %s: %w", r.path, err)
		}
		anchor := nearestDir(r.path)
		if anchor == "" {
			return fmt.Errorf("watch %s: no existing ancestor directory", r.path)
		}
		if err := w.watch(anchor); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if _, err := os.Stat(r.path); err != nil && nearestDir(r.path) == anchor {
			r.state, r.anchor = statePending, anchor
			return nil
		}
	}
	return fmt.Errorf("watch %s: the path keeps changing", r.path)
}

// nearestDir returns the nearest existing directory strictly above p, or
// "" if there is none.
func nearestDir(p string) string {
	for a := filepath.Dir(p); ; a = filepath.Dir(a) {
		if fi, err := os.Stat(a); err == nil && fi.IsDir() {
			return a
		}
		if a == filepath.Dir(a) {
			return ""
		}
	}
}

// addTree watches dir and every directory below it that is not ignored.
// emit, if not nil, receives a create event for every entry found below
// dir, since they may have appeared before the watch was in place. A
// directory that vanishes meanwhile is skipped; hitting the watch limit
// stops the walk. Caller holds w.mu.
func (w *Watcher) addTree(dir string, emit func(path, op string)) error {
	if err := w.watch(dir); err != nil {
		if errors.Is(err, ErrWatchLimit) {
			return err
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		w.opts.Logf("watch: %v", err)
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			w.opts.Logf("watch: read %s: %v", dir, err)
		}
		return nil
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		isDir := e.IsDir() // a symlink to a directory is not followed
		if w.ignored(p, isDir) {
			continue
		}
		if emit != nil {
			emit(p, OpCreate)
		}
		if isDir {
			if err := w.addTree(p, emit); err != nil {
				return err
			}
		}
	}
	return nil
}

// watch adds an fsnotify watch on dir unless it has one. Caller holds w.mu.
func (w *Watcher) watch(dir string) error {
	if w.watched[dir] {
		return nil
	}
	if err := w.fsw.Add(dir); err != nil {
		if errors.Is(err, syscall.ENOSPC) {
			return fmt.Errorf("watch %s: %w: no inotify watches left; raise fs.inotify.max_user_watches (%v)", dir, ErrWatchLimit, err)
		}
		if errors.Is(err, fsnotify.ErrClosed) {
			return fmt.Errorf("watch %s: %w", dir, ErrClosed)
		}
		return fmt.Errorf("watch %s: %w", dir, err)
	}
	w.watched[dir] = true
	return nil
}

// unwatchTree forgets the watches on p and below after p was removed or
// moved away. Caller holds w.mu.
func (w *Watcher) unwatchTree(p string) {
	for d := range w.watched {
		if d == p || within(d, p) {
			w.fsw.Remove(d) // already gone when p was deleted; fine
			delete(w.watched, d)
		}
	}
}

// prune drops watches no root needs any more, such as the ancestor that
// stood in for a root until it appeared. Caller holds w.mu.
func (w *Watcher) prune() {
	need := map[string]bool{}
	for _, r := range w.roots {
		switch r.state {
		case statePending:
			need[r.anchor] = true
		case stateFile:
			need[filepath.Dir(r.path)] = true
		}
	}
	for d := range w.watched {
		if !need[d] && !w.inDirRoot(d) {
			w.fsw.Remove(d)
			delete(w.watched, d)
		}
	}
}
