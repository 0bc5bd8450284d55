package kb

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/kbmem/kb/internal/diag"
	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/index"
	"github.com/kbmem/kb/internal/watch"
)

// IndexSchema names the schema version of the derived index.
func IndexSchema() string { return fmt.Sprint(index.SchemaVersion) }

// Problem is a file-level problem found while reading the KB: a file that
// fails to parse, a broken link, a duplicate id. It prints as path:line: msg
// (internal/diag.Problem, which every layer reports).
type Problem = diag.Problem

// SyncStats reports what an index sync did.
type SyncStats = index.SyncStats

// Searcher is the KB's open search index: search, show, links, recall over
// what the files hold, kept in step with them. Close it when done. (Not
// internal/index.Index, which it holds.)
type Searcher struct {
	ix *index.Index
	k  *KB
	// pre is the activation index's work on the documents this open's
	// sync loads, for the compile after it (nil: none kept).
	pre *precompiled
}

// Close closes the index.
func (x *Searcher) Close() error { return x.ix.Close() }

// OpenIndex opens the derived index and brings it up to date with the
// files: a missing, corrupt or old-schema index is rebuilt (with one line
// saying so), and only files whose mtime or size changed are re-parsed.
// progress, if set, is called with (done, total) KiB of the changed files
// while they are indexed (a session of a million turns is one file).
// While a background indexer (see BackgroundIndex) holds the index, it
// waits for it to finish rather than failing as busy.
func (k *KB) OpenIndex(ctx context.Context, progress func(done, total int)) (*Searcher, SyncStats, error) {
	return k.OpenIndexLayers(ctx, nil, progress)
}

// OpenIndexLayers is OpenIndex that brings only the given layers up to date
// (every layer when none): a search of the notes does not wait for a
// session just imported to be indexed. The other layers are searchable as
// they were last indexed.
func (k *KB) OpenIndexLayers(ctx context.Context, layers []string, progress func(done, total int)) (*Searcher, SyncStats, error) {
	return k.openIndexRetry(ctx, layers, false, progress)
}

// OpenIndexToRead is OpenIndexLayers for a command that only reads the
// index (search, show, links, graph): when no file of the layers changed
// since the last sync, the index is opened read-only, which skips bleve's
// background work (a merge of the last writer's segments, started by every
// writable open and abandoned at Close). The Searcher's Sync and Rebuild
// then fail with index.ErrReadOnly.
func (k *KB) OpenIndexToRead(ctx context.Context, layers []string, progress func(done, total int)) (*Searcher, SyncStats, error) {
	return k.openIndexRetry(ctx, layers, true, progress)
}

func (k *KB) openIndexRetry(ctx context.Context, layers []string, readOnly bool, progress func(done, total int)) (*Searcher, SyncStats, error) {
	start := time.Now()
	x, st, err := k.openIndex(ctx, layers, readOnly, progress)
	if errors.Is(err, index.ErrBusy) && k.waitIndexer(ctx) {
		x, st, err = k.openIndex(ctx, layers, readOnly, progress)
	}
	// Another command holds the index while it writes (an extract
	// refreshing it, kb watch syncing an edit): a foreground command
	// waits for it as long as it would for the KB lock, as a writer
	// does, rather than failing after the index's own short wait.
	for logged := false; errors.Is(err, index.ErrBusy) && time.Since(start) < k.lockTimeout() && ctx.Err() == nil; logged = true {
		if readOnly {
			// A read that has changes to apply waits for a writer, but
			// not for a reader that holds the index for long (kb watch
			// compiling the hooks' index at 100,000 notes, seconds): it
			// answers from the index as it is, and says so.
			if x, ok := k.openAsIs(); ok {
				return x, SyncStats{}, nil
			}
		}
		if !logged {
			k.logf("waiting for another kb process that is writing the search index")
		}
		x, st, err = k.openIndex(ctx, layers, readOnly, progress)
	}
	return x, st, err
}

// openAsIs opens the index to read as it is, without applying the changes
// of the files since the last sync, when another process only reads it;
// false when one writes it (or it must be rebuilt).
func (k *KB) openAsIs() (*Searcher, bool) {
	dir, err := k.indexDir()
	if err != nil {
		return nil, false
	}
	ix, err := index.OpenReadOnlyWait(dir, 10*time.Millisecond)
	if err != nil {
		return nil, false
	}
	k.logf("another kb process is reading the search index (kb watch compiling the hooks' index, most often); answering from the index as it is: files changed since its last sync are not in these results")
	return &Searcher{ix: ix, k: k}, true
}

func (k *KB) openIndex(ctx context.Context, layers []string, readOnly bool, progress func(done, total int)) (*Searcher, SyncStats, error) {
	dir, err := k.indexDir()
	if err != nil {
		return nil, SyncStats{}, fmt.Errorf("open index: %w", err)
	}
	// Under kb watch, its freshness keeper says what changed since the
	// index last caught up, so that a read does not stat every file.
	var fresh watch.Answer
	asked := false
	if readOnly && len(layers) > 0 && !slices.ContainsFunc(layers, func(l string) bool { return !slices.Contains(recallLayers, l) }) {
		asked = true
		// An index at another generation than the answer's was most
		// often just synced by another reader (kb watch's own sync), whose
		// done the keeper has by now: ask once more before a full scan.
		for try := 0; try < 2; try++ {
			fresh = watch.Ask(filepath.Join(dir, freshDir), freshWait)
			x, st, ok, otherGen, err := k.openFresh(ctx, dir, fresh, progress)
			if ok || err != nil {
				return x, st, err
			}
			if !otherGen {
				break
			}
		}
	}
	open := index.OpenScanned
	if readOnly {
		open = func(dir string, so index.ScanOptions) (*index.Index, index.OpenInfo, index.Scanned, error) {
			return index.OpenScannedToRead(dir, so, layers)
		}
	}
	so := k.scanOptions()
	if len(layers) > 0 {
		so.Layers = layers // the others are left as they were last indexed: no need to walk them
	}
	ix, info, sc, err := open(dir, so)
	if err != nil {
		return nil, SyncStats{}, fmt.Errorf("open index: %w", err)
	}
	if asked && !fresh.Known {
		// No keeper answered: this read stat'ed every file; at scale,
		// start one for the next reads.
		k.startKeeper(len(sc.Files))
	}
	x := &Searcher{ix: ix, k: k}
	if !ix.ReadOnly() {
		// The sync's merges and the compile read most of bleve's files:
		// their pages are not kept counted in kb's RSS (kb index at
		// 100,000 notes). Every second was not often enough: a merge
		// into a segment of 50,000 notes reads 200 MB of segments in
		// a second or two, and up to 185 MB of them were counted at
		// once (peaks of 430-610 MB); every 100 ms, at most 67 MB.
		defer ix.ReleaseMappedEvery(releaseMappedEvery)()
	}
	var st SyncStats
	if ix.ReadOnly() {
		st.Scanned = countLayers(sc.Files, layers) // up to date: nothing to apply
	} else {
		if !readOnly && (len(layers) == 0 || !slices.ContainsFunc(recallLayers, func(l string) bool { return !slices.Contains(layers, l) })) {
			// The compile below follows this sync (a read command leaves
			// it to the background indexer).
			if x.pre = k.newPrecompiled(sc.Files); x.pre != nil {
				ix.SetSyncMemoryLimit(precompiledMemLimit)
			}
		}
		st, err = x.sync(ctx, sc.Files, layers, progress)
	}
	st.Problems = append(sc.Skipped, st.Problems...)
	if err == nil && (len(layers) == 0 || !slices.ContainsFunc(recallLayers, func(l string) bool { return !slices.Contains(layers, l) })) {
		// The hooks' freshness check and their activation index: only
		// after a sync of every layer recall reads; and the keeper's,
		// which watches those.
		switch changed := st.Added + st.Updated + st.Removed; {
		case readOnly && k.activationStale(changed, sc.Dirs):
			// A read command (search, show) answers now; the hooks'
			// index follows in the background indexer the next hook
			// starts (a first compile at 100k notes takes tens of seconds).
			// So does an index a first compile left without every item
			// record: each compile loads more, and at 100,000 notes each
			// took a search 40 s and 2 GB while it did.
			if !k.activationPending() {
				k.deferActivation()
			}
		case k.activationStale(changed, sc.Dirs):
			if err := x.compileActivation(sc.Dirs); err != nil {
				k.logf("%v (hooks answer from the previous one)", err)
			}
		}
		x.pre = nil // the compile's alone
		k.saveDirStamps(sc.Dirs)
		fresh.Done(ix.Gen())
	}
	if info.Rebuilt && info.Reason != "missing" {
		k.logf("index %s: rebuilt from the files", info.Reason)
	}
	if len(info.Resumed) > 0 {
		k.logf("index: an update was interrupted; resumed it, keeping what it had committed (%d files)", len(info.Resumed))
	}
	st.Rebuilt, st.Reason, st.Resumed = info.Rebuilt, info.Reason, len(info.Resumed)
	if err != nil {
		ix.Close()
		return nil, st, err
	}
	return x, st, nil
}

// releaseMappedEvery is how often a writable open releases the pages of
// bleve's mapped files (index.ReleaseMappedEvery).
const releaseMappedEvery = 100 * time.Millisecond

// freshDir, in the index directory, is where kb watch's freshness keeper
// answers (internal/watch.Keeper); freshWait is how long a read waits for
// its answer before it scans every file instead.
const (
	freshDir  = "fresh"
	freshWait = 50 * time.Millisecond
)

// openFresh opens the index as the keeper's answer allows (ok), without a
// scan of every file: read-only when nothing changed, else after a sync of
// the changed paths only. Not ok: the caller scans everything (no keeper,
// no answer in time, or an index that must be rebuilt).
func (k *KB) openFresh(ctx context.Context, dir string, a watch.Answer, progress func(done, total int)) (x *Searcher, st SyncStats, ok, otherGen bool, err error) {
	// The keeper's answer holds for the index generation it was given
	// last; an index at another one was written by a command it did not
	// hear from (kb index --rebuild, a rebuild killed half-way): scan.
	switch {
	case a.Clean():
		// The keeper vouches for the files at its generation: the index's
		// stamps are not needed to answer (index.OpenToSearch).
		ix, err := index.OpenToSearch(dir)
		if err != nil {
			return nil, st, false, false, nil // stale, busy, damaged: the usual path says what
		}
		if ix.Gen() != a.Gen {
			ix.Close()
			return nil, st, false, true, nil
		}
		return &Searcher{ix: ix, k: k}, st, true, false, nil
	case !a.Known || a.All:
		return nil, st, false, false, nil
	}
	so := k.scanOptions()
	so.Layers = recallLayers
	files, covered := index.ScanPaths(so, a.Changed)
	ix, info, err := index.Open(dir)
	if err != nil {
		return nil, st, false, false, nil
	}
	if info.Rebuilt || len(info.Resumed) > 0 || ix.Gen() != a.Gen {
		ix.Close()
		return nil, st, false, !info.Rebuilt && len(info.Resumed) == 0, nil
	}
	x = &Searcher{ix: ix, k: k}
	st, err = ix.SyncPaths(ctx, files, covered, x.loadParts, progress)
	if err != nil {
		ix.Close()
		return nil, st, true, false, err
	}
	if st.Added+st.Updated+st.Removed > 0 {
		// The hooks' activation index follows in the background indexer
		// the next hook starts: this is a read command's sync.
		k.deferActivation()
	}
	a.Done(ix.Gen())
	return x, st, true, false, nil
}

// countLayers counts the files in the given layers (all when none).
func countLayers(files []fileInfo, layers []string) int {
	if len(layers) == 0 {
		return len(files)
	}
	n := 0
	for _, f := range files {
		if slices.Contains(layers, f.Layer) {
			n++
		}
	}
	return n
}

// Rebuild drops the index and indexes every file again.
func (x *Searcher) Rebuild(ctx context.Context, progress func(done, total int)) (SyncStats, error) {
	if err := x.ix.Reset(); err != nil {
		return SyncStats{}, fmt.Errorf("rebuild index: %w", err)
	}
	st, err := x.Sync(ctx, progress)
	st.Rebuilt, st.Reason = true, "requested"
	return st, err
}

// fileInfo is one indexable file of the layers.
type fileInfo = index.File

// scan walks the layer directories and returns every indexable file, sorted
// by path (index.Scan).
func (k *KB) scan() ([]fileInfo, error) {
	files, _, err := k.scanAll()
	return files, err
}

// scanAll is scan that also returns the entries it did not read and why:
// symlinks and special files named like notes or traces (kb never follows a
// link out of the KB), and directories named like notes.
func (k *KB) scanAll() ([]fileInfo, []Problem, error) {
	files, skipped, _ := index.Scan(k.scanOptions())
	return files, skipped, nil
}

func (k *KB) scanOptions() index.ScanOptions {
	return index.ScanOptions{Root: k.Root, Layers: Layers, StreamLayer: LayerTraces, SymlinkMsg: index.SymlinkSkipMsg(k.files())}
}

// indexDir is the index directory, refused when it is a symlink (index.Dir).
func (k *KB) indexDir() (string, error) { return index.Dir(k.files(), k.Root, IndexDir) }

// Sync applies the changes between the files and the index.
func (x *Searcher) Sync(ctx context.Context, progress func(done, total int)) (SyncStats, error) {
	files, err := x.k.scan()
	if err != nil {
		return SyncStats{}, err
	}
	return x.sync(ctx, files, nil, progress)
}

// sync applies the changes of files (of the given layers only, when any):
// markdown files as their documents, trace sessions turn by turn.
func (x *Searcher) sync(ctx context.Context, files []fileInfo, layers []string, progress func(done, total int)) (SyncStats, error) {
	return x.ix.Sync(ctx, files, layers, x.loadParts, progress)
}

// partDocs is the number of docs of one part of a trace file (a var for tests).
var partDocs = 10000

const (
	partBytes = 16 << 20 // text of one part of a trace file
	// maxTraceLine bounds the record line a sync holds in memory; a longer
	// record is not indexed (the file keeps it) and is reported.
	maxTraceLine = 64 << 20
)

// filePart is one part of a changed file, ready to apply.
type filePart = index.Part

// loadParts turns one file into parts, handing each to emit; it stops when
// emit returns false.
func (x *Searcher) loadParts(f fileInfo, emit func(filePart) bool) bool {
	if f.Layer == LayerTraces {
		prev, _ := x.ix.Progress(f.Rel)
		return traceIndexParts(f, prev, partLimits{Docs: partDocs, Bytes: partBytes, Line: maxTraceLine}, emit)
	}
	return x.loadMarkdown(f, emit)
}

// NoteID is a document's id: its frontmatter id, else its file name.
func NoteID(d *doc.Document) string { return d.IDOrName() }

// saveDirStamps records the layers' directory times after a sync (see
// index.DirStampsFile).
func (k *KB) saveDirStamps(dirs map[string]int64) {
	index.SaveDirStamps(k.files(), filepath.Join(k.Root, IndexDir), dirs)
}

// dirsUnchanged reports whether no directory of the layers that recall
// reads (observations, episodes, library) changed since the last sync.
func (k *KB) dirsUnchanged() bool {
	return index.DirsUnchanged(k.files(), k.Root, filepath.Join(k.Root, IndexDir), LayerTraces)
}
