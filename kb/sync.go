package kb

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kbmem/kb/internal/diag"
	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/index"
	"github.com/kbmem/kb/traces"
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
	x, st, err := k.openIndex(ctx, layers, progress)
	if errors.Is(err, index.ErrBusy) && k.waitIndexer(ctx) {
		x, st, err = k.openIndex(ctx, layers, progress)
	}
	return x, st, err
}

func (k *KB) openIndex(ctx context.Context, layers []string, progress func(done, total int)) (*Searcher, SyncStats, error) {
	// The stat walk and opening bleve are independent: overlap them, since
	// every read command pays both.
	type scanned struct {
		files   []fileInfo
		skipped []Problem
		dirs    map[string]int64
		err     error
	}
	ch := make(chan scanned, 1)
	go func() {
		f, skipped, dirs, err := k.scanTree()
		ch <- scanned{f, skipped, dirs, err}
	}()
	var ix *index.Index
	var info index.OpenInfo
	dir, err := k.indexDir()
	if err == nil {
		ix, info, err = index.Open(dir)
	}
	sc := <-ch
	if err != nil {
		return nil, SyncStats{}, fmt.Errorf("open index: %w", err)
	}
	x := &Searcher{ix: ix, k: k}
	if sc.err != nil {
		ix.Close()
		return nil, SyncStats{}, sc.err
	}
	st, err := x.sync(ctx, sc.files, layers, progress)
	st.Problems = append(sc.skipped, st.Problems...)
	if err == nil && (len(layers) == 0 || !slices.ContainsFunc(recallLayers, func(l string) bool { return !slices.Contains(layers, l) })) {
		// The hooks' freshness check: only after a sync of every layer
		// recall reads.
		k.saveDirStamps(sc.dirs)
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
	files, skipped, _, err := k.scanTree()
	return files, skipped, err
}

// scanTree is scanAll that also returns the modification time of every
// directory it read (for the hooks' fast path, see dirsUnchanged).
func (k *KB) scanTree() ([]fileInfo, []Problem, map[string]int64, error) {
	files, skipped, dirs := index.Scan(index.ScanOptions{Root: k.Root, Layers: Layers, StreamLayer: LayerTraces, SymlinkMsg: k.symlinkSkipMsg})
	return files, skipped, dirs, nil
}

// symlinkSkipMsg says why a symlink in the layers is not read, and where
// it leads.
func (k *KB) symlinkSkipMsg(abs string) string {
	target, _ := os.Readlink(abs)
	if _, err := k.files().Resolve(abs); errors.Is(err, fsx.ErrOutsideRoot) {
		return fmt.Sprintf("a symlink to %s, outside the KB: not followed (kb never reads through a link out of the KB)", target)
	}
	return fmt.Sprintf("a symlink (to %s): not followed (kb reads the layers' own files only; put the file itself here)", target)
}

// indexDir is the index directory, refused when it is a symlink: kb
// creates it as a directory of its own, so a link there (committed by a
// cloned repository, say) would make bleve write wherever it points.
func (k *KB) indexDir() (string, error) {
	dir := filepath.Join(k.Root, IndexDir)
	if _, err := k.files().Resolve(dir); err != nil {
		return "", err // names the link out of the KB
	}
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(dir)
		return "", fmt.Errorf("%s is a symlink to %s: kb keeps its index in a directory of its own and does not follow it (remove the link; kb doctor --fix does)", IndexDir, target)
	}
	return dir, nil
}

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
		return x.loadTrace(f, emit)
	}
	return index.LoadMarkdown(f, emit)
}

// NoteID is a document's id: its frontmatter id, else its file name.
func NoteID(d *doc.Document) string { return d.IDOrName() }

// loadTrace indexes the dialogue turns of a session file, one document per
// message record, so retrieval works at the granularity of a turn while every
// hit still points back to its session. Records are streamed: the turns are
// handed to emit in parts of at most partDocs docs or partBytes of text,
// each part recording how far into the file it reaches. Session files are
// append-only, so when the index already holds the file up to some offset
// and the bytes before it are unchanged (traces.Follow), only what follows
// is read: a growing session costs what it appended, and an interrupted
// sync continues where it stopped.
func (x *Searcher) loadTrace(f fileInfo, emit func(filePart) bool) bool {
	unreadable := func(err error) bool {
		return emit(filePart{Change: index.Change{Path: f.Rel, Stamp: f.Stamp}, FileBytes: f.Stamp.Size,
			Problems: []Problem{{Path: f.Rel, Msg: err.Error(), Rule: "unreadable"}}})
	}
	fh, err := fsx.OpenNoFollow(f.Abs) // scanned: no symlink on the way
	if err != nil {
		return unreadable(err)
	}
	defer fh.Close()
	var m traces.Mark
	if pr, ok := x.ix.Progress(f.Rel); ok && pr.Done > 0 && pr.Done <= f.Stamp.Size {
		m = traces.Mark{Offset: pr.Done, Lines: pr.Lines, Tail: pr.Tail}
	}
	fo, err := traces.Follow(fh, f.Rel, m)
	if err != nil {
		return unreadable(err)
	}
	var (
		docs      []index.Doc
		probs     []Problem
		text      int
		cur       = fo.Start()
		from      = cur.Offset // where the current part starts
		appending = fo.Resumed()
	)
	part := func(last bool) bool {
		p := filePart{
			Change: index.Change{Path: f.Rel, Stamp: f.Stamp, Docs: docs, Append: appending, Partial: !last,
				Progress: index.Progress{Done: cur.Offset, Lines: cur.Lines, Tail: cur.Tail}},
			Problems: probs, Bytes: text, FileBytes: cur.Offset - from,
		}
		docs, probs, text, appending, from = nil, nil, 0, true, cur.Offset
		return emit(p)
	}
	stopped, err := fo.Lines(maxTraceLine, func(l traces.Line) bool {
		cur = l.After
		if l.Prob != nil {
			probs = append(probs, *l.Prob)
		} else if l.Rec != nil {
			if d, ok := traceDoc(f, l.Rec); ok {
				docs = append(docs, d)
				text += len(d.Body) + len(d.Title)
			}
		}
		return len(docs) < partDocs && text < partBytes || part(false)
	})
	if stopped {
		return false
	}
	var p *traces.Problem
	if errors.As(err, &p) {
		probs = append(probs, *p)
	}
	return part(true)
}

func traceDoc(f fileInfo, r *traces.Record) (index.Doc, bool) {
	if r.Kind == traces.KindMeta {
		return index.Doc{}, false
	}
	text := r.Text
	switch r.Kind {
	case traces.KindToolCall:
		text = r.Tool + " " + string(r.Input)
	case traces.KindToolResult:
		text = r.Output
	}
	if strings.TrimSpace(text) == "" || r.Has(traces.MarkInjected) {
		return index.Doc{}, false
	}
	const maxBody = 8 << 10 // tool output can be huge; the head is what search needs
	var truncated int64
	if len(text) > maxBody {
		n := maxBody
		for n > maxBody-4 && !utf8.RuneStart(text[n]) {
			n--
		}
		text, truncated = text[:n], int64(len(text))
	}
	title := firstLine(text, 80)
	return index.Doc{
		ID: fmt.Sprintf("%s#%d", r.Session, r.Seq), Path: f.Rel, Layer: LayerTraces,
		Type: r.Kind, Title: title, Body: text, Truncated: truncated, Session: r.Session, Seq: r.Seq,
		Created: r.Time, Updated: r.Time,
		Keywords: map[string][]string{"role": {r.Role}, "agent": {r.Agent}},
	}, true
}

func firstLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > n {
		s = truncate(s, n)
	}
	return s
}

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
