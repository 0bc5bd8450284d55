package kb

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/index"
	"github.com/kbmem/kb/traces"
)

// IndexSchema names the schema version of the derived index.
func IndexSchema() string { return fmt.Sprint(index.SchemaVersion) }

// Problem is a file-level problem found while reading the KB: a file that
// fails to parse, a broken link, a duplicate id. It prints as path:line: msg.
type Problem struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Msg  string `json:"message"`
	Rule string `json:"rule"`
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.Path, p.Line, p.Msg)
	}
	return fmt.Sprintf("%s: %s", p.Path, p.Msg)
}

// SyncStats reports what an index sync did.
type SyncStats struct {
	Scanned  int       `json:"scanned"`
	Added    int       `json:"added"`
	Updated  int       `json:"updated"`
	Removed  int       `json:"removed"`
	Docs     int       `json:"docs"`
	Rebuilt  bool      `json:"rebuilt"`
	Reason   string    `json:"reason,omitempty"`
	Problems []Problem `json:"problems,omitempty"`
}

// Index is the KB's open search index. Close it when done.
type Index struct {
	ix *index.Index
	k  *KB
}

// Close closes the index.
func (x *Index) Close() error { return x.ix.Close() }

// OpenIndex opens the derived index and brings it up to date with the
// files: a missing, corrupt or old-schema index is rebuilt (with one line
// saying so), and only files whose mtime or size changed are re-parsed.
// progress, if set, is called with (done, total) while files are indexed.
func (k *KB) OpenIndex(ctx context.Context, progress func(done, total int)) (*Index, SyncStats, error) {
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
	x := &Index{ix: ix, k: k}
	if sc.err != nil {
		ix.Close()
		return nil, SyncStats{}, sc.err
	}
	st, err := x.sync(ctx, sc.files, progress)
	st.Problems = append(sc.skipped, st.Problems...)
	if err == nil {
		k.saveDirStamps(sc.dirs)
	}
	if info.Rebuilt && info.Reason != "missing" {
		k.logf("index %s: rebuilt from the files", info.Reason)
	}
	st.Rebuilt, st.Reason = info.Rebuilt, info.Reason
	if err != nil {
		ix.Close()
		return nil, st, err
	}
	return x, st, nil
}

// Rebuild drops the index and indexes every file again.
func (x *Index) Rebuild(ctx context.Context, progress func(done, total int)) (SyncStats, error) {
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
func (x *Index) Sync(ctx context.Context, progress func(done, total int)) (SyncStats, error) {
	files, err := x.k.scan()
	if err != nil {
		return SyncStats{}, err
	}
	return x.sync(ctx, files, progress)
}

func (x *Index) sync(ctx context.Context, files []fileInfo, progress func(done, total int)) (SyncStats, error) {
	var st SyncStats
	st.Scanned = len(files)
	stamps := x.ix.Stamps()
	seen := make(map[string]bool, len(files))
	var todo []fileInfo
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
	var changes []index.Change
	for p := range stamps {
		if !seen[p] {
			st.Removed++
			changes = append(changes, index.Change{Path: p, Remove: true})
		}
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	if len(todo) == 0 && len(changes) == 0 {
		return st, nil
	}
	// Removals first, then the changed files in chunks: a chunk is parsed
	// in parallel while the previous one is applied, so parsing overlaps
	// with bleve's work and memory stays bounded by a few chunks however
	// many files changed.
	if len(changes) > 0 {
		if err := x.ix.Apply(changes); err != nil {
			return st, fmt.Errorf("update index: %w", err)
		}
	}
	type chunk struct {
		changes  []index.Change
		problems []Problem
	}
	const chunkSize = 1000
	chunks := make(chan chunk, 1)
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		defer close(chunks)
		workers := max(1, runtime.GOMAXPROCS(0))
		for lo := 0; lo < len(todo); lo += chunkSize {
			part := todo[lo:min(lo+chunkSize, len(todo))]
			c := chunk{changes: make([]index.Change, len(part))}
			probs := make([][]Problem, len(part))
			var wg sync.WaitGroup
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := w; i < len(part); i += workers {
						f := part[i]
						docs, p := x.k.loadFile(f)
						c.changes[i] = index.Change{Path: f.rel, Stamp: f.stamp, Docs: docs}
						probs[i] = p
					}
				}()
			}
			wg.Wait()
			for _, p := range probs {
				c.problems = append(c.problems, p...)
			}
			select {
			case chunks <- c:
			case <-pctx.Done():
				return
			}
		}
	}()
	done := 0
	for c := range chunks {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		if err := x.ix.Apply(c.changes); err != nil {
			return st, fmt.Errorf("update index: %w", err)
		}
		for _, ch := range c.changes {
			st.Docs += len(ch.Docs)
		}
		st.Problems = append(st.Problems, c.problems...)
		done += len(c.changes)
		if progress != nil {
			progress(done, len(todo))
		}
	}
	if err := ctx.Err(); err != nil {
		return st, err
	}
	return st, nil
}

// loadFile turns one file into index documents. A file that fails to parse
// is still indexed by its path and raw text, so it stays findable, and the
// problem is reported.
func (k *KB) loadFile(f fileInfo) ([]index.Doc, []Problem) {
	if f.layer == LayerTraces {
		return k.loadTrace(f)
	}
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
		return []index.Doc{{ID: f.rel, Path: f.rel, Layer: f.layer, Title: path.Base(f.rel), Body: string(b)}},
			[]Problem{{Path: f.rel, Line: line, Msg: msg, Rule: "parse"}}
	}
	return []index.Doc{docToIndex(f.layer, d)}, nil
}

// docToIndex maps a parsed document onto the index schema. The bleve id is
// the path (unique by construction); the note id is a keyword field.
func docToIndex(layer string, d *doc.Document) index.Doc {
	x := index.Doc{
		ID: d.Path, Path: d.Path, Layer: layer, Type: d.Type, Title: d.Title, Description: d.Description,
		Body: d.Body, Tags: d.Tags, Lifecycle: d.Lifecycle, Status: d.Status,
		Text: map[string]string{}, Keywords: map[string][]string{"noteid": {NoteID(d)}}, Num: map[string]float64{},
	}
	if t, err := d.CreatedTime(); err == nil {
		x.Created = t
	}
	if t, err := d.UpdatedTime(); err == nil {
		x.Updated = t
	}
	if x.Title == "" {
		x.Title = NoteID(d)
	}
	for _, l := range d.Links {
		if l.Kind != "tag" {
			x.Links = append(x.Links, l.Target)
			x.Keywords[linkField] = append(x.Keywords[linkField], encodeLink(l))
		}
	}
	for _, key := range []string{"trigger", "lesson", "consequence", "statement", "goal", "approach", "failure", "claim", "question", "chosen"} {
		if s, ok := d.Fields[key].(string); ok && s != "" {
			x.Text[key] = s
		}
	}
	for _, key := range []string{"action_type", "action_types", "triggers", "domain", "projects"} {
		switch v := d.Fields[key].(type) {
		case string:
			x.Keywords[key] = []string{v}
		case []any:
			for _, e := range v {
				if s, ok := e.(string); ok {
					x.Keywords[key] = append(x.Keywords[key], s)
				}
			}
		}
	}
	for _, key := range []string{"importance", "confidence", "sessions"} {
		switch v := d.Fields[key].(type) {
		case int:
			x.Num[key] = float64(v)
		case float64:
			x.Num[key] = v
		}
	}
	return x
}

// NoteID is a document's id: its frontmatter id, else its file name.
func NoteID(d *doc.Document) string {
	if d.ID != "" {
		return d.ID
	}
	return strings.TrimSuffix(path.Base(d.Path), path.Ext(d.Path))
}

// loadTrace indexes the dialogue turns of a session file, one document per
// message record, so retrieval works at the granularity of a turn while every
// hit still points back to its session.
func (k *KB) loadTrace(f fileInfo) ([]index.Doc, []Problem) {
	fh, err := fsx.OpenNoFollow(f.abs) // scanned: no symlink on the way
	if err != nil {
		return nil, []Problem{{Path: f.rel, Msg: err.Error(), Rule: "unreadable"}}
	}
	defer fh.Close()
	var docs []index.Doc
	var probs []Problem
	r := bufio.NewReaderSize(fh, 1<<16)
	line := 0
	var when string
	for {
		b, err := r.ReadBytes('\n')
		if len(b) > 0 && b[len(b)-1] == '\n' {
			line++
			b = bytes.TrimSpace(b)
			if len(b) > 0 {
				var rec traces.Record
				if jerr := json.Unmarshal(b, &rec); jerr != nil {
					probs = append(probs, Problem{Path: f.rel, Line: line, Msg: "malformed trace record: " + jerr.Error(), Rule: "parse"})
				} else if d, ok := traceDoc(f, &rec, &when); ok {
					docs = append(docs, d)
				}
			}
		}
		if err != nil {
			if err != io.EOF {
				probs = append(probs, Problem{Path: f.rel, Line: line + 1, Msg: err.Error(), Rule: "unreadable"})
			}
			break // a torn last line is the agent still writing: picked up next time
		}
	}
	return docs, probs
}

func traceDoc(f fileInfo, r *traces.Record, when *string) (index.Doc, bool) {
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
	if len(text) > maxBody {
		text = text[:maxBody]
	}
	title := firstLine(text, 80)
	return index.Doc{
		ID: fmt.Sprintf("%s#%d", r.Session, r.Seq), Path: f.rel, Layer: LayerTraces,
		Type: r.Kind, Title: title, Body: text, Session: r.Session, Seq: r.Seq,
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

// linkField stores each link of a document, encoded, so that the link graph
// can be built from the index without re-reading files.
const linkField = "linkrec"

func encodeLink(l doc.Link) string {
	return strings.Join([]string{l.Kind, l.Rel, strconv.Itoa(l.Line), l.Target, l.Alias, l.Heading}, "\x1f")
}

func decodeLink(s string) (doc.Link, bool) {
	p := strings.Split(s, "\x1f")
	if len(p) != 6 {
		return doc.Link{}, false
	}
	line, _ := strconv.Atoi(p[2])
	return doc.Link{Kind: p[0], Rel: p[1], Line: line, Target: p[3], Alias: p[4], Heading: p[5]}, true
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
