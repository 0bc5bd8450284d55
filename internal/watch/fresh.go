package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/gofrs/flock"
)

// Freshness: a long-running process (kb watch) tells short queries which
// files changed since the index was last brought up to date, so that a
// query does not stat every file of the KB to find out. Correctness for
// edits made by any program rests on the order of inotify events: all
// events of one inotify instance come in one queue, in the order they
// happened. A query asks by creating a ping file in the keeper's directory
// (an event behind every change made before it) and reading the keeper's
// answer (the pong): "clean" (nothing changed since the index last caught
// up: no scan at all), the changed paths (stat those only), or "all" (the
// keeper does not know: a full scan). A query that then brought the index
// up to date says so with a done file; if no change arrived between its
// ping and its done, the keeper starts over from clean. A keeper that is
// not running (its lock is free), or that does not answer in time, means a
// full scan, as without it.

// KeeperLock is the file in the keeper's directory a running keeper holds
// locked.
const KeeperLock = freshLock

// Names in the keeper's directory.
const (
	freshLock = "keeper.lock"
	pingExt   = ".ping"
	pongExt   = ".pong"
	doneExt   = ".done"
	// answerAll asks for a full scan.
	answerAll     = "all"
	answerClean   = "clean"
	answerChanged = "changed"
	// maxChanged bounds the paths a keeper lists; past it, it answers all.
	maxChanged = 10000
)

// Keeper watches directory trees (the layers) and answers queries' pings
// in Dir. Run it once; one keeper per Dir runs at a time.
type Keeper struct {
	Dir   string   // its directory (created), e.g. .index/fresh
	Roots []string // absolute directory trees it vouches for
	Logf  func(format string, args ...any)
	// Ready, if set, is called once the trees are watched.
	Ready func()
	// Idle, when positive, makes a keeper started on demand (a search
	// that found none): it stops after Idle without a query's ping, and
	// when Dir goes away (the index removed, the KB deleted) it stops
	// instead of starting over.
	Idle time.Duration

	w       *fsnotify.Watcher
	seq     uint64              // changes seen
	all     bool                // a change it cannot list (or none known yet)
	changed map[string]struct{} // changed paths since clean, when !all
	gen     uint64              // the index generation when it was last clean, when !all
	pings   map[string]uint64   // seq at each ping answered
}

// ErrKeeperRunning: another keeper holds Dir.
var ErrKeeperRunning = errors.New("a freshness keeper is already running")

// Run watches until ctx is done. It returns ErrKeeperRunning when another
// keeper holds Dir.
func (k *Keeper) Run(ctx context.Context) error {
	for ctx.Err() == nil {
		if err := k.run(ctx); err != nil || ctx.Err() != nil || k.Idle > 0 {
			return err
		}
		k.logf("freshness keeper: %s was removed or moved; starting over", k.Dir)
	}
	return nil
}

// run keeps Dir until ctx is done (nil) or Dir itself goes away (nil, with
// ctx not done: Run starts over).
func (k *Keeper) run(ctx context.Context) error {
	mkdir := os.MkdirAll
	if k.Idle > 0 {
		mkdir = os.Mkdir // on demand: never remake the index directory of a KB removed
	}
	if err := mkdir(k.Dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	// A query probes the lock for a moment (Ask); retry past that.
	fl := flock.New(filepath.Join(k.Dir, freshLock))
	lctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	ok, err := fl.TryLockContext(lctx, 5*time.Millisecond)
	cancel()
	if err != nil && ctx.Err() != nil {
		return nil
	}
	if !ok {
		return ErrKeeperRunning
	}
	defer fl.Unlock()
	if ents, err := os.ReadDir(k.Dir); err == nil { // what queries that died left
		for _, e := range ents {
			if e.Name() != freshLock {
				os.Remove(filepath.Join(k.Dir, e.Name()))
			}
		}
	}
	k.pings = map[string]uint64{}
	for {
		k.markAll() // nothing known until a query scans after a ping
		if err := k.watchAll(); err != nil {
			return err
		}
		// Pings made while no watcher ran (a restart) get their answer now.
		if ents, err := os.ReadDir(k.Dir); err == nil {
			for _, e := range ents {
				if strings.HasSuffix(e.Name(), pingExt) {
					k.control(fsnotify.Event{Name: filepath.Join(k.Dir, e.Name()), Op: fsnotify.Create})
				}
			}
		}
		if k.Ready != nil {
			k.Ready()
			k.Ready = nil
		}
		again := k.loop(ctx)
		k.w.Close()
		if again != restartWatch {
			return nil
		}
	}
}

// watchAll starts a watcher on Dir and every directory of the roots.
func (k *Keeper) watchAll() error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("freshness keeper: %w", err)
	}
	k.w = w
	if err := w.Add(k.Dir); err != nil {
		w.Close()
		return fmt.Errorf("freshness keeper: %w", err)
	}
	for _, r := range k.Roots {
		// Its parent too: fsnotify says nothing when a watched directory
		// itself is removed, and one made again under the same name would
		// go unwatched.
		if !slices.Contains(k.Roots, filepath.Dir(r)) {
			w.Add(filepath.Dir(r))
		}
		k.addTree(r)
	}
	return nil
}

// isRootParent reports whether dir is the parent of a root (watched for
// the roots themselves only).
func (k *Keeper) isRootParent(dir string) bool {
	return slices.ContainsFunc(k.Roots, func(r string) bool { return filepath.Dir(r) == dir }) && !slices.Contains(k.Roots, dir)
}

// addTree watches dir and its directories (hidden ones left out, as the
// index's scan leaves them out). A directory it cannot watch makes the
// keeper answer all until it restarts.
func (k *Keeper) addTree(dir string) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if err := k.w.Add(p); err != nil {
			k.markAll()
			k.logf("freshness keeper: %s: %v (queries scan every file)", p, err)
			return filepath.SkipDir
		}
		return nil
	})
}

func (k *Keeper) logf(format string, args ...any) {
	if k.Logf != nil {
		k.Logf(format, args...)
	}
}

func (k *Keeper) markAll() { k.seq++; k.all, k.changed = true, nil }

// What ends a keeper's loop.
const (
	stopped      = iota // ctx done, or the watcher closed
	restartWatch        // a watched directory moved: fsnotify would go on naming its events by the old path
	lostDir             // Dir itself was removed or moved
)

// loop handles events until it must stop or start again.
func (k *Keeper) loop(ctx context.Context) int {
	var idle <-chan time.Time
	var timer *time.Timer
	if k.Idle > 0 {
		timer = time.NewTimer(k.Idle)
		defer timer.Stop()
		idle = timer.C
	}
	for {
		select {
		case <-ctx.Done():
			return stopped
		case <-idle:
			k.logf("freshness keeper: no query for %s; stopping", k.Idle)
			return stopped
		case err, ok := <-k.w.Errors:
			if !ok {
				return stopped
			}
			k.markAll() // an overflow, say: changes were lost
			k.logf("freshness keeper: %v", err)
		case ev, ok := <-k.w.Events:
			if !ok {
				return stopped
			}
			// fsnotify reports no event for a watched directory removed
			// (rm -rf .index), only for what was in it: the lock file.
			if (ev.Name == k.Dir || ev.Name == filepath.Join(k.Dir, freshLock)) && ev.Op&(fsnotify.Remove|fsnotify.Rename) != 0 {
				return lostDir
			}
			if filepath.Dir(ev.Name) == k.Dir {
				if k.control(ev) && timer != nil {
					timer.Reset(k.Idle)
				}
				continue
			}
			if k.isRootParent(filepath.Dir(ev.Name)) {
				if slices.Contains(k.Roots, ev.Name) {
					return restartWatch // a root made, removed or moved
				}
				continue // another entry beside the roots
			}
			k.seq++
			if ev.Has(fsnotify.Rename) && k.watched(ev.Name) {
				return restartWatch
			}
			if !k.all {
				if k.changed == nil {
					k.changed = map[string]struct{}{}
				}
				k.changed[ev.Name] = struct{}{}
				if len(k.changed) > maxChanged {
					k.markAll()
				}
			}
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() && !strings.HasPrefix(filepath.Base(ev.Name), ".") {
					k.addTree(ev.Name) // files made in it before the watch: the query's scan of it sees them
				}
			}
		}
	}
}

func (k *Keeper) watched(p string) bool {
	for _, w := range k.w.WatchList() {
		if w == p || strings.HasPrefix(w, p+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// control answers a query's ping, or takes its done; true for a ping.
func (k *Keeper) control(ev fsnotify.Event) bool {
	if !ev.Has(fsnotify.Create) {
		return false
	}
	name := filepath.Base(ev.Name)
	switch {
	case strings.HasSuffix(name, pingExt):
		id := strings.TrimSuffix(name, pingExt)
		if _, err := os.Lstat(filepath.Join(k.Dir, id+pongExt)); err == nil {
			return true // answered already (found by a restart, then its event)
		}
		// The first line: all, or clean or changed and the index
		// generation the last done recorded; then the changed paths.
		answer := answerClean + " " + strconv.FormatUint(k.gen, 10)
		switch {
		case k.all:
			answer = answerAll
		case len(k.changed) > 0:
			var b strings.Builder
			b.WriteString(answerChanged + " " + strconv.FormatUint(k.gen, 10) + "\n")
			for p := range k.changed {
				b.WriteString(p)
				b.WriteByte('\n')
			}
			answer = b.String()
		}
		if len(k.pings) > 1000 { // queries that never said done
			clear(k.pings)
		}
		k.pings[id] = k.seq
		tmp := filepath.Join(k.Dir, id+".tmp")
		if os.WriteFile(tmp, []byte(answer), 0o644) == nil {
			os.Rename(tmp, filepath.Join(k.Dir, id+pongExt))
		}
		return true
	case strings.HasSuffix(name, doneExt):
		id, g, _ := strings.Cut(strings.TrimSuffix(name, doneExt), "~")
		gen, err := strconv.ParseUint(g, 10, 64)
		if seq, ok := k.pings[id]; ok && seq == k.seq && err == nil {
			k.all, k.changed, k.gen = false, nil, gen
		}
		delete(k.pings, id)
	}
	return false
}

// Answer is a keeper's answer to a query (Ask).
type Answer struct {
	// Known is false when there is no answer (no keeper, or none in time):
	// the query scans every file.
	Known bool
	// All: the keeper does not know what changed; scan every file.
	All bool
	// Changed lists the paths (absolute) changed since the index last
	// caught up: files, or directories made, moved or removed. Empty with
	// Known and not All: nothing changed.
	Changed []string
	// Gen is the index generation that held every change up to the
	// keeper's clean point (what the query that said done synced to). An
	// index at another generation was written by someone the keeper did
	// not hear from (a rebuild, say): the answer says nothing about it.
	Gen uint64

	dir, id string
}

// Clean reports whether nothing changed since the index last caught up.
func (a Answer) Clean() bool { return a.Known && !a.All && len(a.Changed) == 0 }

// Done tells the keeper that the index, now at generation gen, holds
// every change up to the ping (the query scanned what the answer said and
// synced it).
func (a Answer) Done(gen uint64) {
	if !a.Known || (a.Clean() && gen == a.Gen) {
		return
	}
	p := filepath.Join(a.dir, a.id+"~"+strconv.FormatUint(gen, 10)+doneExt)
	if f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644); err == nil {
		f.Close()
		os.Remove(p) // the keeper reads the event, not the file
	}
}

var askSeq atomic.Uint64

// Ask asks the keeper of dir, waiting at most wait for its answer.
func Ask(dir string, wait time.Duration) Answer {
	// A free lock means no keeper. The probe holds it for a moment only;
	// a keeper starting meanwhile retries.
	fl := flock.New(filepath.Join(dir, freshLock))
	if ok, err := fl.TryRLock(); err != nil || ok {
		if ok {
			fl.Unlock()
		}
		return Answer{}
	}
	id := strconv.Itoa(os.Getpid()) + "-" + strconv.FormatUint(askSeq.Add(1), 10) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	ping := filepath.Join(dir, id+pingExt)
	f, err := os.OpenFile(ping, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return Answer{}
	}
	f.Close()
	defer os.Remove(ping)
	pong := filepath.Join(dir, id+pongExt)
	deadline := time.Now().Add(wait)
	for pause := 20 * time.Microsecond; ; pause = min(2*pause, time.Millisecond) {
		b, err := os.ReadFile(pong)
		if err == nil {
			os.Remove(pong)
			a := Answer{Known: true, dir: dir, id: id}
			head, rest, _ := strings.Cut(string(b), "\n")
			kind, g, _ := strings.Cut(head, " ")
			gen, err := strconv.ParseUint(g, 10, 64)
			switch {
			case kind == answerAll:
				a.All = true
			case err != nil:
				return Answer{}
			case kind == answerClean:
				a.Gen = gen
			case kind == answerChanged:
				a.Gen = gen
				a.Changed = strings.Split(strings.TrimSuffix(rest, "\n"), "\n")
			default:
				return Answer{}
			}
			return a
		}
		if time.Now().After(deadline) {
			return Answer{}
		}
		time.Sleep(pause)
	}
}
