package kb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
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
type SyncStats struct {
	Scanned int    `json:"scanned"`
	Added   int    `json:"added"`
	Updated int    `json:"updated"`
	Removed int    `json:"removed"`
	Docs    int    `json:"docs"`
	Rebuilt bool   `json:"rebuilt"`
	Reason  string `json:"reason,omitempty"`
	// Resumed counts the files an interrupted update (a killed kb) was
	// changing; this sync finished them, keeping what it had committed.
	Resumed  int       `json:"resumed,omitempty"`
	Problems []Problem `json:"problems,omitempty"`
}

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

type fileInfo struct {
	rel   string
	abs   string
	layer string
	stamp index.Stamp
}

// scan walks the layer directories and returns every indexable file, sorted
// by path. It runs before every query, so it is written for speed: each
// directory is read with one getdents pass and its entries stat'ed, several
// directories at a time, and relative paths are built by concatenation.
// Hidden entries, symlinks and special files are never followed.
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
	type dirJob struct{ abs, rel, layer string }
	var (
		mu      sync.Mutex
		dirs    = map[string]int64{}
		skipped []Problem
		files   []fileInfo
		pending sync.WaitGroup
		jobs    = make(chan dirJob, 1024)
	)
	var enqueue func(j dirJob)
	enqueue = func(j dirJob) {
		pending.Add(1)
		select {
		case jobs <- j:
		default:
			// The queue is full: walk this directory on a new goroutine
			// rather than block a worker on its own queue.
			go func() { jobs <- j }()
		}
	}
	work := func(j dirJob) {
		defer pending.Done()
		dir, err := os.Open(j.abs)
		if err != nil {
			return // missing or unreadable directory: skip it, keep going
		}
		dst, serr := dir.Stat()
		ents, err := dir.ReadDir(-1)
		dir.Close()
		if err != nil || serr != nil {
			return
		}
		mu.Lock()
		dirs[j.rel] = dst.ModTime().UnixNano()
		mu.Unlock()
		var local []fileInfo
		for _, d := range ents {
			name := d.Name()
			if name == "" || name[0] == '.' {
				continue
			}
			rel := j.rel + "/" + name
			abs := j.abs + string(filepath.Separator) + name
			wanted := strings.HasSuffix(name, ".md") || (j.layer == LayerTraces && strings.HasSuffix(name, ".jsonl"))
			if d.IsDir() {
				if wanted {
					mu.Lock()
					skipped = append(skipped, Problem{Path: rel, Msg: "a directory named like a document; its files are read, it is not", Rule: "skipped"})
					mu.Unlock()
				}
				enqueue(dirJob{abs: abs, rel: rel, layer: j.layer})
				continue
			}
			if d.Type()&fs.ModeSymlink != 0 {
				// Every link, whatever its name: a link to a directory
				// hides a whole subtree.
				mu.Lock()
				skipped = append(skipped, Problem{Path: rel, Msg: k.symlinkSkipMsg(abs), Rule: "skipped"})
				mu.Unlock()
				continue
			}
			if !wanted {
				continue
			}
			if !d.Type().IsRegular() {
				why := "not a regular file: not read"
				mu.Lock()
				skipped = append(skipped, Problem{Path: rel, Msg: why, Rule: "skipped"})
				mu.Unlock()
				continue
			}
			info, err := d.Info()
			if err != nil {
				continue
			}
			local = append(local, fileInfo{rel: rel, abs: abs, layer: j.layer,
				stamp: index.Stamp{Mtime: info.ModTime().UnixNano(), Size: info.Size()}})
		}
		if len(local) > 0 {
			mu.Lock()
			files = append(files, local...)
			mu.Unlock()
		}
	}
	workers := 4
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				work(j)
			}
		}()
	}
	for _, layer := range Layers {
		abs := filepath.Join(k.Root, layer)
		if fi, err := os.Lstat(abs); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			skipped = append(skipped, Problem{Path: layer, Msg: k.symlinkSkipMsg(abs) + "; the layer is not indexed", Rule: "skipped"})
			continue
		}
		enqueue(dirJob{abs: abs, rel: layer, layer: layer})
	}
	pending.Wait()
	close(jobs)
	wg.Wait()
	sort.Slice(files, func(i, j int) bool { return files[i].rel < files[j].rel })
	sort.Slice(skipped, func(i, j int) bool { return skipped[i].Path < skipped[j].Path })
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

// sync applies the changes of files (of the given layers only, when any).
func (x *Searcher) sync(ctx context.Context, files []fileInfo, layers []string, progress func(done, total int)) (SyncStats, error) {
	st, todo, removals := x.plan(files, layers)
	if len(todo) == 0 && len(removals) == 0 {
		return st, nil
	}
	// Removals first, then the changed files: parsed in parallel while the
	// previous group is applied, so parsing overlaps with bleve's work. A
	// file comes as one or more parts (a trace session yields a part per
	// partDocs turns or partBytes of text), and parts are applied in
	// groups of at most applyFiles files or applyBytes: memory stays bounded
	// by a few groups however many files changed and however large they
	// are, and each group is committed before the next, so a killed sync
	// keeps what it applied and the next one continues from there.
	if len(removals) > 0 {
		if err := x.ix.Apply(removals); err != nil {
			return st, fmt.Errorf("update index: %w", err)
		}
	}
	var todoBytes int64
	for _, f := range todo {
		todoBytes += f.stamp.Size
	}
	if todoBytes > largeSync && os.Getenv("GOGC") == "" {
		// The live heap stays small (a few parts), so the collector would
		// run very often over the garbage of bleve's analysis: let the
		// heap grow to three times the live data instead of two (measured
		// on 100k turns: 10-20% less CPU, 300 MB peak instead of 200).
		defer debug.SetGCPercent(debug.SetGCPercent(200))
	}
	pctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops the loaders when applying fails
	if err := x.applyParts(ctx, x.loadAll(pctx, todo), &st, todoBytes, progress); err != nil {
		return st, err
	}
	if err := ctx.Err(); err != nil {
		return st, err
	}
	return st, nil
}

// plan compares the files with the index's stamps: the files to (re)load
// and the removals of files that are gone.
func (x *Searcher) plan(files []fileInfo, layers []string) (st SyncStats, todo []fileInfo, removals []index.Change) {
	stamps := x.ix.Stamps()
	if len(layers) > 0 {
		in := func(p string) bool { l, _, _ := strings.Cut(p, "/"); return slices.Contains(layers, l) }
		files = slices.DeleteFunc(slices.Clone(files), func(f fileInfo) bool { return !in(f.rel) })
		maps.DeleteFunc(stamps, func(p string, _ index.Stamp) bool { return !in(p) })
	}
	st.Scanned = len(files)
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		seen[f.rel] = true
		old, ok := stamps[f.rel]
		if !ok {
			st.Added++
			todo = append(todo, f)
		} else if old != f.stamp {
			st.Updated++
			todo = append(todo, f)
		}
	}
	for p := range stamps {
		if !seen[p] {
			st.Removed++
			removals = append(removals, index.Change{Path: p, Remove: true})
		}
	}
	sort.Slice(removals, func(i, j int) bool { return removals[i].Path < removals[j].Path })
	return st, todo, removals
}

// loadAll loads the files into parts on every core, in the order of the
// files per loader; the channel closes when all are loaded or ctx is done.
func (x *Searcher) loadAll(ctx context.Context, todo []fileInfo) <-chan filePart {
	jobs := make(chan fileInfo)
	workers := max(1, runtime.GOMAXPROCS(0))
	parts := make(chan filePart, workers)
	go func() {
		defer close(jobs)
		for _, f := range todo {
			select {
			case jobs <- f:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			emit := func(p filePart) bool {
				select {
				case parts <- p:
					return true
				case <-ctx.Done():
					return false
				}
			}
			for f := range jobs {
				if !x.loadParts(f, emit) {
					return
				}
			}
		}()
	}
	go func() { wg.Wait(); close(parts) }()
	return parts
}

// applyParts applies the loaded parts in groups (see sync), counting into
// st and reporting progress in KiB of the files.
func (x *Searcher) applyParts(ctx context.Context, parts <-chan filePart, st *SyncStats, todoBytes int64, progress func(done, total int)) error {
	var group []index.Change
	groupBytes, doneBytes := 0, int64(0)
	report := func() {
		if progress != nil {
			progress(int(min(doneBytes, todoBytes)>>10), int(todoBytes>>10))
		}
	}
	flush := func() error {
		if len(group) == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := x.ix.Apply(group); err != nil {
			return fmt.Errorf("update index: %w", err)
		}
		for _, ch := range group {
			st.Docs += len(ch.Docs)
		}
		group, groupBytes = nil, 0
		return nil
	}
	for p := range parts {
		group = append(group, p.change)
		groupBytes += p.bytes
		st.Problems = append(st.Problems, p.problems...)
		doneBytes += p.fileBytes
		// A part of a file indexed in parts is applied on its own, so that
		// a kill loses at most one part of a large file.
		if len(group) >= applyFiles || groupBytes >= applyBytes || p.change.Partial || p.change.Append {
			if err := flush(); err != nil {
				return err
			}
			report()
		}
	}
	if err := flush(); err != nil {
		return err
	}
	doneBytes = todoBytes // a session read from where the index left it reads less
	report()
	return nil
}

// partDocs is the number of docs of one part of a file (a var for tests).
var partDocs = 10000

// Bounds of one sync's memory (see sync).
const (
	largeSync  = 16 << 20 // bytes of changed files past which the GC is relaxed
	partBytes  = 16 << 20 // text of one part of a file
	applyFiles = 1000     // files (parts) applied together
	applyBytes = 32 << 20 // text applied together
	// maxTraceLine bounds the record line a sync holds in memory; a longer
	// record is not indexed (the file keeps it) and is reported.
	maxTraceLine = 64 << 20
)

// filePart is one part of a changed file, ready to apply.
type filePart struct {
	change    index.Change
	problems  []Problem
	bytes     int   // text of its docs
	fileBytes int64 // bytes of the file it covers
}

// loadParts turns one file into parts, handing each to emit; it stops when
// emit returns false.
func (x *Searcher) loadParts(f fileInfo, emit func(filePart) bool) bool {
	if f.layer == LayerTraces {
		return x.loadTrace(f, emit)
	}
	docs, probs := x.k.loadFile(f)
	n := 0
	for i := range docs {
		n += len(docs[i].Body)
	}
	return emit(filePart{change: index.Change{Path: f.rel, Stamp: f.stamp, Docs: docs}, problems: probs, bytes: n, fileBytes: f.stamp.Size})
}

// loadFile turns one file into index documents. A file that fails to parse
// is still indexed by its path and raw text, so it stays findable, and the
// problem is reported.
func (k *KB) loadFile(f fileInfo) ([]index.Doc, []Problem) {
	b, err := fsx.ReadFileNoFollow(f.abs) // scanned: no symlink on the way
	if err != nil {
		return nil, []Problem{{Path: f.rel, Msg: err.Error(), Rule: "unreadable"}}
	}
	d, err := doc.Parse(f.rel, b)
	if err != nil {
		var pe *doc.ParseError
		line := 0
		msg := err.Error()
		if errors.As(err, &pe) {
			line, msg = pe.Line, pe.Msg
		}
		body, truncated := index.CapBody(string(b))
		return []index.Doc{{ID: f.rel, Path: f.rel, Layer: f.layer, Title: path.Base(f.rel), Body: body, Truncated: truncated}},
			[]Problem{{Path: f.rel, Line: line, Msg: msg, Rule: "parse"}}
	}
	return []index.Doc{index.FromDocument(f.layer, d)}, nil
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
		return emit(filePart{change: index.Change{Path: f.rel, Stamp: f.stamp}, fileBytes: f.stamp.Size,
			problems: []Problem{{Path: f.rel, Msg: err.Error(), Rule: "unreadable"}}})
	}
	fh, err := fsx.OpenNoFollow(f.abs) // scanned: no symlink on the way
	if err != nil {
		return unreadable(err)
	}
	defer fh.Close()
	var m traces.Mark
	if pr, ok := x.ix.Progress(f.rel); ok && pr.Done > 0 && pr.Done <= f.stamp.Size {
		m = traces.Mark{Offset: pr.Done, Lines: pr.Lines, Tail: pr.Tail}
	}
	fo, err := traces.Follow(fh, f.rel, m)
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
			change: index.Change{Path: f.rel, Stamp: f.stamp, Docs: docs, Append: appending, Partial: !last,
				Progress: index.Progress{Done: cur.Offset, Lines: cur.Lines, Tail: cur.Tail}},
			problems: probs, bytes: text, fileBytes: cur.Offset - from,
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
		ID: fmt.Sprintf("%s#%d", r.Session, r.Seq), Path: f.rel, Layer: LayerTraces,
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

// dirStampsFile records, after each sync, the modification time of every
// directory under the layers. kb's own writes (atomic renames) and file
// creations and deletions change their directory's time, so a hook can
// tell "nothing changed since the last sync" from a few stats instead of a
// stat per file. Edits made in place by an editor do not change it: those
// are picked up by the next ordinary command, or at once under kb watch.
const dirStampsFile = "dirs.json"

func (k *KB) saveDirStamps(dirs map[string]int64) {
	p := filepath.Join(k.Root, IndexDir, dirStampsFile)
	b, err := json.Marshal(dirs)
	if err != nil {
		return
	}
	if old, err := k.files().ReadFile(p); err == nil && bytes.Equal(old, b) {
		return
	}
	// Derived data: a failed write only costs the next hook a full scan.
	_ = k.files().WriteFile(p, b, 0o644)
}

// dirsUnchanged reports whether no directory of the layers that recall
// reads (observations, episodes, library) changed since the last sync.
func (k *KB) dirsUnchanged() bool {
	b, err := k.files().ReadFile(filepath.Join(k.Root, IndexDir, dirStampsFile))
	if err != nil {
		return false
	}
	var dirs map[string]int64
	if json.Unmarshal(b, &dirs) != nil || len(dirs) == 0 {
		return false
	}
	seen := 0
	for rel, mt := range dirs {
		layer, _, _ := strings.Cut(rel, "/")
		if layer == LayerTraces {
			continue
		}
		st, err := os.Stat(filepath.Join(k.Root, filepath.FromSlash(rel)))
		if err != nil || st.ModTime().UnixNano() != mt {
			return false
		}
		seen++
	}
	return seen > 0
}
