package index

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/kbmem/kb/internal/diag"
	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/markdown"
)

// Keeping the index in step with the files: which files of the layer
// directories there are (Scan), which of them changed since they were
// indexed (the stamps), and applying them in bounded, committed groups
// (Sync). What a file becomes is the caller's Loader; a markdown file's
// documents are LoadMarkdown's.

// File is one indexable file of a layer directory.
type File struct {
	Rel   string // slash path relative to the KB root
	Abs   string
	Layer string
	Stamp Stamp
}

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
	Resumed  int            `json:"resumed,omitempty"`
	Problems []diag.Problem `json:"problems,omitempty"`
}

// ScanOptions say what Scan walks.
type ScanOptions struct {
	Root   string   // the KB root
	Layers []string // the layer directories under Root
	// StreamLayer is the layer whose .jsonl files are indexed too (traces);
	// every layer's .md files are.
	StreamLayer string
	// SymlinkMsg says why the symlink at abs is not read.
	SymlinkMsg func(abs string) string
}

// Scan walks the layer directories and returns every indexable file, sorted
// by path, the entries it did not read and why (symlinks and special files
// named like notes or traces, directories named like notes), and the
// modification time of every directory it read (see DirsUnchanged). It runs
// before every query, so it is written for speed: each directory is read
// with one getdents pass and its entries stat'ed, several directories at a
// time, and relative paths are built by concatenation. Hidden entries,
// symlinks and special files are never followed.
func Scan(o ScanOptions) ([]File, []diag.Problem, map[string]int64) {
	var roots []dirJob
	var skipped []diag.Problem
	for _, layer := range o.Layers {
		abs := filepath.Join(o.Root, layer)
		if fi, err := os.Lstat(abs); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			skipped = append(skipped, diag.Problem{Path: layer, Msg: o.SymlinkMsg(abs) + "; the layer is not indexed", Rule: "skipped"})
			continue
		}
		roots = append(roots, dirJob{abs: abs, rel: layer, layer: layer})
	}
	files, more, dirs := scanDirs(o, roots)
	skipped = append(skipped, more...)
	sort.Slice(skipped, func(i, j int) bool { return skipped[i].Path < skipped[j].Path })
	return files, skipped, dirs
}

// ScanPaths is Scan of the given paths only (absolute; those outside the
// layers are left out): a directory is scanned whole, a file is stat'ed.
// covered lists (relative) the paths looked at: an indexed file that is
// one of them, or under one, and is not among files is gone.
func ScanPaths(o ScanOptions, paths []string) (files []File, covered []string) {
	var roots []dirJob
	for _, abs := range paths {
		rel, err := filepath.Rel(o.Root, abs)
		if err != nil || !filepath.IsLocal(rel) {
			continue
		}
		rel = filepath.ToSlash(rel)
		layer, _, _ := strings.Cut(rel, "/")
		if !slices.Contains(o.Layers, layer) || slices.ContainsFunc(strings.Split(rel, "/"), func(c string) bool { return c == "" || c[0] == '.' }) {
			continue // not indexed (hidden entries never are)
		}
		covered = append(covered, rel)
		fi, err := os.Lstat(abs)
		switch {
		case err != nil: // gone
		case fi.IsDir():
			roots = append(roots, dirJob{abs: abs, rel: rel, layer: layer})
		case fi.Mode().IsRegular() && wantedFile(o, layer, fi.Name()):
			files = append(files, File{Rel: rel, Abs: abs, Layer: layer, Stamp: Stamp{Mtime: fi.ModTime().UnixNano(), Size: fi.Size()}})
		}
	}
	more, _, _ := scanDirs(o, roots)
	files = append(files, more...)
	sort.Slice(files, func(i, j int) bool { return files[i].Rel < files[j].Rel })
	return slices.CompactFunc(files, func(a, b File) bool { return a.Rel == b.Rel }), covered
}

// wantedFile reports whether a file of layer named name is indexed.
func wantedFile(o ScanOptions, layer, name string) bool {
	return strings.HasSuffix(name, ".md") || (layer == o.StreamLayer && strings.HasSuffix(name, ".jsonl"))
}

type dirJob struct{ abs, rel, layer string }

// scanDirs walks the directory trees of roots (see Scan).
func scanDirs(o ScanOptions, roots []dirJob) ([]File, []diag.Problem, map[string]int64) {
	var (
		mu      sync.Mutex
		dirs    = map[string]int64{}
		skipped []diag.Problem
		files   []File
		pending sync.WaitGroup
		jobs    = make(chan dirJob, 1024)
	)
	skip := func(rel, msg string) {
		mu.Lock()
		skipped = append(skipped, diag.Problem{Path: rel, Msg: msg, Rule: "skipped"})
		mu.Unlock()
	}
	enqueue := func(j dirJob) {
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
		defer dir.Close() // open until its files are stat'ed (statAt)
		dst, serr := dir.Stat()
		ents, err := dir.ReadDir(-1)
		if err != nil || serr != nil {
			return
		}
		mu.Lock()
		dirs[j.rel] = dst.ModTime().UnixNano()
		mu.Unlock()
		var local []File
		for _, d := range ents {
			name := d.Name()
			if name == "" || name[0] == '.' {
				continue
			}
			rel := j.rel + "/" + name
			abs := j.abs + string(filepath.Separator) + name
			wanted := wantedFile(o, j.layer, name)
			switch {
			case d.IsDir():
				if wanted {
					skip(rel, "a directory named like a document; its files are read, it is not")
				}
				enqueue(dirJob{abs: abs, rel: rel, layer: j.layer})
			case d.Type()&fs.ModeSymlink != 0:
				// Every link, whatever its name: a link to a directory
				// hides a whole subtree.
				skip(rel, o.SymlinkMsg(abs))
			case !wanted:
			case !d.Type().IsRegular():
				skip(rel, "not a regular file: not read")
			default:
				if st, ok := statAt(dir, name, abs); ok {
					local = append(local, File{Rel: rel, Abs: abs, Layer: j.layer, Stamp: st})
				}
			}
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
	for _, r := range roots {
		enqueue(r)
	}
	pending.Wait()
	close(jobs)
	wg.Wait()
	sort.Slice(files, func(i, j int) bool { return files[i].Rel < files[j].Rel })
	return files, skipped, dirs
}

// Part is one part of a changed file, ready to apply.
type Part struct {
	Change    Change
	Problems  []diag.Problem
	Bytes     int   // text of its docs
	FileBytes int64 // bytes of the file it covers
	// Parsed is the markdown file as LoadMarkdown parsed it (nil when
	// it did not parse), for a caller that reads more of it than its
	// index document, without parsing it again.
	Parsed *doc.Document
}

// A Loader turns one file into parts, handing each to emit; it stops (and
// returns false) when emit returns false.
type Loader func(f File, emit func(Part) bool) bool

// Bounds of one sync's memory (see Sync).
const (
	largeSync  = 16 << 20 // bytes of changed files past which the GC is relaxed
	applyFiles = 1000     // files (parts) applied together
	applyBytes = 32 << 20 // text applied together
)

// Sync applies the changes between files (of the given layers only, when
// any) and the index: load turns each new or changed file into parts, and
// files no longer there are removed. progress, if set, is called with
// (done, total) KiB of the changed files.
func (ix *Index) Sync(ctx context.Context, files []File, layers []string, load Loader, progress func(done, total int)) (SyncStats, error) {
	return ix.syncIn(ctx, files, inLayers(layers), nil, load, progress)
}

// SyncPaths is Sync of the files ScanPaths found under covered: an indexed
// file elsewhere is left as it is.
func (ix *Index) SyncPaths(ctx context.Context, files []File, covered []string, load Loader, progress func(done, total int)) (SyncStats, error) {
	return ix.syncIn(ctx, files, func(rel string) bool {
		return slices.ContainsFunc(covered, func(c string) bool {
			return rel == c || (len(rel) > len(c) && rel[len(c)] == '/' && strings.HasPrefix(rel, c))
		})
	}, ix.exactPaths(files, covered), load, progress)
}

// exactPaths returns covered when each path is a file (found, or indexed):
// their stamps are then looked up, not found by a walk over every stamp
// (10 ms at 100k files). Nil when one is a directory.
func (ix *Index) exactPaths(files []File, covered []string) []string {
	known := ix.known(covered)
	for _, c := range covered {
		if !known[c] && !slices.ContainsFunc(files, func(f File) bool { return f.Rel == c }) {
			return nil
		}
	}
	return covered
}

// inLayers says whether a path is in one of layers (every path when none).
func inLayers(layers []string) func(rel string) bool {
	return func(rel string) bool {
		l, _, _ := strings.Cut(rel, "/")
		return len(layers) == 0 || slices.Contains(layers, l)
	}
}

// syncIn is Sync of the paths for which in is true; exact, when set,
// lists them all (see exactPaths).
func (ix *Index) syncIn(ctx context.Context, files []File, in func(rel string) bool, exact []string, load Loader, progress func(done, total int)) (SyncStats, error) {
	st, todo, removals := ix.plan(files, in, exact)
	if len(todo) == 0 && len(removals) == 0 {
		return st, nil
	}
	// Removals first, then the changed files: parsed in parallel while the
	// previous group is applied (applyParts), so parsing overlaps with
	// bleve's work. A
	// file comes as one or more parts (a trace session yields a part per
	// so many turns or bytes of text), and parts are applied in groups of
	// at most applyFiles files or applyBytes: memory stays bounded by a few
	// groups however many files changed and however large they are, and
	// each group is committed before the next, so a killed sync keeps what
	// it applied and the next one continues from there.
	if len(removals) > 0 {
		if err := ix.Apply(removals); err != nil {
			return st, fmt.Errorf("update index: %w", err)
		}
	}
	var todoBytes int64
	for _, f := range todo {
		todoBytes += f.Stamp.Size
	}
	if todoBytes > largeSync && os.Getenv("GOGC") == "" {
		// The live heap stays small (a few parts), so the collector would
		// run very often over the garbage of bleve's analysis: let the
		// heap grow to three times the live data instead of two (measured
		// on 100k turns: 10-20% less CPU, 300 MB peak instead of 200).
		defer debug.SetGCPercent(debug.SetGCPercent(200))
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// No soft memory limit a caller set for small work (kb's read
		// commands) while applying: with bleve's batches live above it,
		// the collector would run all the time.
		limit := int64(math.MaxInt64)
		if ix.syncLimit > 0 {
			limit = ix.syncLimit
		}
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(limit))
	}
	pctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops the loaders when applying fails
	if err := ix.applyParts(ctx, loadAll(pctx, todo, load), &st, todoBytes, progress); err != nil {
		return st, err
	}
	if err := ctx.Err(); err != nil {
		return st, err
	}
	return st, nil
}

// plan compares the files with the index's stamps: the files to (re)load
// and the removals of files that are gone.
func (ix *Index) plan(files []File, in func(rel string) bool, exact []string) (st SyncStats, todo []File, removals []Change) {
	stamps := ix.stampsIn(in, exact)
	files = slices.DeleteFunc(slices.Clone(files), func(f File) bool { return !in(f.Rel) })
	st.Scanned = len(files)
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		seen[f.Rel] = true
		old, ok := stamps[f.Rel]
		if !ok {
			st.Added++
			todo = append(todo, f)
		} else if old != f.Stamp {
			st.Updated++
			todo = append(todo, f)
		}
	}
	for p := range stamps {
		if !seen[p] {
			st.Removed++
			removals = append(removals, Change{Path: p, Remove: true})
		}
	}
	sort.Slice(removals, func(i, j int) bool { return removals[i].Path < removals[j].Path })
	return st, todo, removals
}

// stampsIn is Stamps of the paths for which in is true (a sync of a few
// changed paths looks up a few stamps: the stamps file is not decoded).
func (ix *Index) stampsIn(in func(rel string) bool, exact []string) map[string]Stamp {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	m := map[string]Stamp{}
	sts := ix.stampSet()
	if exact != nil {
		sts.find(exact)
		for _, p := range exact {
			if st, _, ok := sts.lookup(p); ok {
				m[p] = st
			}
		}
		return m
	}
	all, _ := sts.all()
	for p, st := range all {
		if in(p) {
			m[p] = st
		}
	}
	return m
}

// loadAll loads the files into parts on every core, in the order of the
// files per loader; the channel closes when all are loaded or ctx is done.
func loadAll(ctx context.Context, todo []File, load Loader) <-chan Part {
	jobs := make(chan File)
	workers := max(1, runtime.GOMAXPROCS(0))
	parts := make(chan Part, workers)
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
			emit := func(p Part) bool {
				select {
				case parts <- p:
					return true
				case <-ctx.Done():
					return false
				}
			}
			for f := range jobs {
				if !load(f, emit) {
					return
				}
			}
		}()
	}
	go func() { wg.Wait(); close(parts) }()
	return parts
}

// applyParts applies the loaded parts in groups (see Sync), counting into
// st and reporting progress in KiB of the files. The next group is
// collected while the previous one is applied, on another goroutine: the
// loaders (parsing, the compile's precompute) keep the other core busy
// while bleve builds a group's segments, where they stopped before as soon
// as the channel of parts was full. Groups are still applied one at a time
// and in order, and at most one waits while one is applied.
func (ix *Index) applyParts(ctx context.Context, parts <-chan Part, st *SyncStats, todoBytes int64, progress func(done, total int)) error {
	type group struct {
		changes []Change
		done    int64 // KiB of the files loaded up to its end, for progress
	}
	var (
		groups  = make(chan group)
		failed  = make(chan struct{}) // closed when a group failed
		applied = make(chan error, 1)
		docs    int
	)
	report := func(done int64) {
		if progress != nil {
			progress(int(min(done, todoBytes)>>10), int(todoBytes>>10))
		}
	}
	go func() {
		var err error
		for g := range groups {
			if err == nil {
				err = ctx.Err()
			}
			if err == nil {
				if err = ix.Apply(g.changes); err != nil {
					err = fmt.Errorf("update index: %w", err)
				}
			}
			if err != nil {
				select {
				case <-failed:
				default:
					close(failed)
				}
				continue // drained, not applied
			}
			for _, ch := range g.changes {
				docs += len(ch.Docs)
			}
			report(g.done)
		}
		applied <- err
	}()
	var (
		cur        []Change
		groupBytes int
		doneBytes  int64
		stopped    bool
	)
	send := func() {
		if len(cur) == 0 {
			return
		}
		select {
		case groups <- group{changes: cur, done: doneBytes}:
		case <-failed:
			stopped = true
		}
		cur, groupBytes = nil, 0
	}
	for p := range parts {
		cur = append(cur, p.Change)
		groupBytes += p.Bytes
		st.Problems = append(st.Problems, p.Problems...)
		doneBytes += p.FileBytes
		// A part of a file indexed in parts is applied on its own, so that
		// a kill loses at most one part of a large file.
		if len(cur) >= applyFiles || groupBytes >= applyBytes || p.Change.Partial || p.Change.Append {
			if send(); stopped {
				break
			}
		}
	}
	if !stopped {
		send()
	}
	close(groups)
	err := <-applied
	st.Docs += docs
	if err != nil {
		return err
	}
	report(todoBytes) // a session read from where the index left it reads less
	return nil
}

// LoadMarkdown turns one markdown file into its index document, as one
// part. A file that fails to parse is still indexed by its path and raw
// text, so it stays findable, and the problem is reported.
func LoadMarkdown(f File, emit func(Part) bool) bool {
	b, err := fsx.ReadFileNoFollow(f.Abs) // scanned: no symlink on the way
	return LoadMarkdownBytes(f, b, err, emit)
}

// LoadMarkdownBytes is LoadMarkdown of the bytes b of the file, which
// reading it returned with err: for a caller that reads more of the file
// than its index document.
func LoadMarkdownBytes(f File, b []byte, err error, emit func(Part) bool) bool {
	docs, parsed, probs := markdownDocs(f, b, err)
	n := 0
	for i := range docs {
		n += len(docs[i].Body)
	}
	return emit(Part{Change: Change{Path: f.Rel, Stamp: f.Stamp, Docs: docs}, Problems: probs, Bytes: n, FileBytes: f.Stamp.Size, Parsed: parsed})
}

func markdownDocs(f File, b []byte, err error) ([]Doc, *doc.Document, []diag.Problem) {
	if err != nil {
		return nil, nil, []diag.Problem{{Path: f.Rel, Msg: err.Error(), Rule: "unreadable"}}
	}
	d, err := markdown.Parse(f.Rel, b)
	if err != nil {
		var pe *doc.ParseError
		line := 0
		msg := err.Error()
		if errors.As(err, &pe) {
			line, msg = pe.Line, pe.Msg
		}
		body, truncated := CapBody(string(b))
		return []Doc{{ID: f.Rel, Path: f.Rel, Layer: f.Layer, Title: path.Base(f.Rel), Body: body, Truncated: truncated}}, nil,
			[]diag.Problem{{Path: f.Rel, Line: line, Msg: msg, Rule: "parse"}}
	}
	return []Doc{FromDocument(f.Layer, d)}, d, nil
}

// DirStampsFile, in the index directory, records after each sync the
// modification time of every directory under the layers. kb's own writes
// (atomic renames) and file creations and deletions change their
// directory's time, so a hook can tell "nothing changed since the last
// sync" from a few stats instead of a stat per file. Edits made in place by
// an editor do not change it: those are picked up by the next ordinary
// command, or at once under kb watch.
const DirStampsFile = "dirs.json"

// SaveDirStamps writes dirs (Scan's) to the index directory dir through
// tree, unless it holds them already. Derived data: a failed write only
// costs the next hook a full scan.
func SaveDirStamps(tree fsx.Tree, dir string, dirs map[string]int64) {
	p := filepath.Join(dir, DirStampsFile)
	b, err := json.Marshal(dirs)
	if err != nil {
		return
	}
	if old, err := tree.ReadFile(p); err == nil && bytes.Equal(old, b) {
		return
	}
	_ = tree.WriteFile(p, b, 0o644)
}

// DirsUnchanged reports whether no directory the last sync recorded in the
// index directory dir, of any layer but skip, changed since.
func DirsUnchanged(tree fsx.Tree, root, dir, skip string) bool {
	b, err := tree.ReadFile(filepath.Join(dir, DirStampsFile))
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
		if layer == skip {
			continue
		}
		st, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil || st.ModTime().UnixNano() != mt {
			return false
		}
		seen++
	}
	return seen > 0
}

// StaleCount counts the files whose stamps differ from the index's (new or
// changed since they were indexed), and the indexed files no longer there.
func (ix *Index) StaleCount(files []File) int {
	stamps := ix.Stamps()
	stale := 0
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		seen[f.Rel] = true
		if st, ok := stamps[f.Rel]; !ok || st != f.Stamp {
			stale++
		}
	}
	for p := range stamps {
		if !seen[p] {
			stale++
		}
	}
	return stale
}
