package kb

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/kbmem/kb/internal/config"
	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/index"
	"github.com/kbmem/kb/observations"
	"github.com/kbmem/kb/recall"
)

// The activation index (recall.Compiled): compiled from the search index
// after every sync of the layers recall reads, so that hooks answer
// without opening bleve (agents.AnswerHook, cmd/kb-hook).

// activationPath is the activation index of the KB.
func (k *KB) activationPath() string { return filepath.Join(k.Root, IndexDir, recall.CompiledFile) }

// activationStale says whether the activation index must be compiled again
// after a sync that changed changed files, with the layer directories'
// times dirs.
func (k *KB) activationStale(changed int, dirs map[string]int64) bool {
	if changed > 0 || k.activationPending() {
		return true
	}
	c, err := recall.OpenCompiled(k.activationPath())
	if err != nil {
		return true
	}
	defer c.Close()
	// Documents a compile left without their item record (a first compile
	// of a large KB) are loaded by the next ones. A kb.yaml edited since
	// has its snapshot taken again (the hooks parse it until then).
	m := c.Meta()
	if tax, err := k.Taxonomy(); err == nil && m.TaxonomyKey != "" && m.TaxonomyKey != tax.Key() {
		return true // compiled by another kb or with other action_types: the hooks would classify every trigger again
	}
	return m.Unloaded > 0 || !maps.Equal(m.Dirs, recallDirs(dirs)) || m.Config == nil || !m.Config.Current(k.Root)
}

// pendingPath is the marker of changes the activation index lacks
// (recall.PendingFile).
func (k *KB) pendingPath() string { return filepath.Join(k.Root, IndexDir, recall.PendingFile) }

func (k *KB) activationPending() bool {
	_, err := os.Stat(k.pendingPath())
	return err == nil
}

// deferActivation leaves the compile of the activation index to the
// background indexer: a read command that synced changes marks them, and
// the next hook, finding the mark, starts one (ADR 0008).
func (k *KB) deferActivation() {
	if err := k.files().WriteFile(k.pendingPath(), []byte("pending\n"), 0o644); err != nil {
		k.logf("activation index: %v (the next sync compiles it)", err)
	}
}

// compilePending compiles the activation index when a read command left
// changes to it, over the index opened read-only: searches read on
// meanwhile, writers wait (at 100,000 notes the compile takes tens of
// seconds).
func (k *KB) compilePending(ctx context.Context) error {
	if !k.activationPending() {
		return nil
	}
	dir, err := k.indexDir()
	if err != nil {
		return err
	}
	ro, err := index.OpenReadOnly(dir)
	if err != nil {
		return fmt.Errorf("activation index: %w", err)
	}
	defer ro.Close()
	return (&Searcher{ix: ro, k: k}).compileActivation(nil)
}

// recallDirs are the directories of dirs that recall reads.
func recallDirs(dirs map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for rel, mt := range dirs {
		layer, _, _ := strings.Cut(rel, "/")
		if slices.Contains(recallLayers, layer) {
			out[rel] = mt
		}
	}
	return out
}

// maxLoads bounds the item records one compile reads from the files
// (recall.CompileOptions.MaxLoads); a variable for tests.
var maxLoads = recall.DefaultMaxLoads

// LoadEveryItem makes this KB's activation compiles read every item
// record, unbounded: for kb index, the foreground command whose job is to
// build. Bounded (maxLoads), a first compile of 100,000 notes left 80,000
// to the compiles after it, and while the watcher ran them (seconds each,
// the index held open) a search that had an edit to apply waited for the
// index and failed.
func (k *KB) LoadEveryItem() { k.everyItem = true }

// loads is the bound on the item records one compile reads.
func (k *KB) loads() int {
	if k.everyItem {
		return math.MaxInt
	}
	return maxLoads
}

// activationFields are the stored fields the activation index is compiled
// from: what recall's Searcher returns (recall.StoredFields) and the text
// its words are searched in.
var activationFields = append([]string{"path", "layer", "type", "title", "description", "body", "tags", "status"}, recall.StoredFields...)

// compileActivation writes the activation index from the open index, with
// the layer directories' times dirs (nil: those the previous activation
// index recorded, as they are now; a sync of a few paths scanned no
// directory), atomically.
func (x *Searcher) compileActivation(dirs map[string]int64) error {
	// The mark of deferred changes goes first: this compile reads them
	// (the open index keeps other writers out), and one a read command
	// writes after it is for the next compile.
	if err := os.Remove(x.k.pendingPath()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("activation index: %w", err)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// Not under the soft limit a read command set for its own few MB
		// (cmd/kb): a first compile at 100,000 notes holds about a GB, and under
		// 48 MB the collector ran all the time (an edit seen by `kb search`
		// under kb watch: 73 s, 24 s without the limit).
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	}
	o := recall.CompileOptions{Meta: recall.CompiledMeta{Compiled: time.Now().UTC()}, Load: x.k.loadItem, MaxLoads: x.k.loads()}
	if snap, ok := config.TakeSnapshot(x.k.Root); ok {
		o.Meta.Config = &snap // kb.yaml for the hooks, while it stays as it is
	}
	if tax, err := x.k.Taxonomy(); err == nil {
		o.Taxonomy = tax // the hooks' taxonomy while kb.yaml's action_types stay as they are
	}
	if prev, err := recall.OpenCompiled(x.k.activationPath()); err == nil {
		defer prev.Close()
		o.Prev = prev
		if dirs == nil {
			dirs = x.k.restat(prev.Meta().Dirs)
		}
	}
	o.Meta.Dirs = recallDirs(dirs)
	// The previous index's documents are reused only when its trigger
	// types are this taxonomy's (Compile checks it too).
	taxKey := ""
	if o.Taxonomy != nil {
		taxKey = o.Taxonomy.Key()
	}
	reuse := o.Prev != nil && o.Prev.Meta().TaxonomyKey == taxKey
	docs, err := x.compileDocs(o.Prev, reuse)
	if err != nil {
		return err
	}
	if docs == nil {
		return x.compileInRounds(o, reuse)
	}
	err = x.writeActivation(docs, o)
	if errors.Is(err, recall.ErrNotReusable) {
		// prev is of another taxonomy, or did not hold what Holds said:
		// every document in full.
		if docs, err = x.compileDocs(o.Prev, false); err == nil {
			if docs == nil {
				return x.compileInRounds(o, false)
			}
			err = x.writeActivation(docs, o)
		}
	}
	return err
}

// writeActivation compiles docs into the activation index, streamed to
// the temp file an atomic replace renames into place: at 100,000 notes
// the file is hundreds of MB, not worth a copy in memory.
func (x *Searcher) writeActivation(docs []recall.CompileDoc, o recall.CompileOptions) error {
	st, err := x.k.files().Stage(x.k.activationPath(), 0o644, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		if err := recall.Compile(bw, docs, o); err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		return err
	}
	return st.Commit(nil)
}

// roundDocs is the number of documents a compile of every document in
// full reads and analyzes at a time: at 100,000 notes one pass held every
// note's text and every posting at once (2.0 GB; rounds of 25,000: 1.25 GB,
// rounds of 10,000: 1.16 GB but a fifth more CPU). Since the pages read of
// bleve's segments and of the previous round are released as they are
// read, what a round holds is most of the peak: rounds of 12,500 took the
// compile's peak RSS at 100,000 notes from 756 to 466 MB (roundGC: 375 MB).
var roundDocs = 12500

// roundGC is the GOGC of a compile in rounds (100 by default).
const roundGC = 50

// compileInRounds compiles every document in full, roundDocs at a time:
// each round reuses the previous round's output whole (Reuse) and adds the
// next documents in path order, so that memory holds one round's text and
// postings besides the mapped file, not the KB's. The item records loaded
// stay within MaxLoads over all rounds. The first round reuses the
// records of the previous activation index, when reuse says it may.
func (x *Searcher) compileInRounds(o recall.CompileOptions, reuse bool) error {
	if os.Getenv("GOGC") == "" {
		// The collector runs when the heap has grown by half what a round
		// keeps, not by all of it: at 100,000 notes the peak anon RSS of
		// the compile went from ~400 to ~310 MB, for a few more seconds
		// of CPU.
		defer debug.SetGCPercent(debug.SetGCPercent(roundGC))
	}
	// Only the documents' ids and paths are kept across the rounds: a
	// whole index.Doc each was 40 MB at 100,000 notes.
	all, err := x.ix.AllOf(recallLayers, "path")
	if err != nil {
		return fmt.Errorf("activation index: %w", err)
	}
	type listed struct{ id, path string }
	list := make([]listed, len(all))
	for i, d := range all {
		list[i] = listed{d.ID, d.Path}
	}
	slices.SortFunc(list, func(a, b listed) int { return strings.Compare(a.path, b.path) })
	stamps := x.ix.Stamps()
	stampOf := func(path string) string {
		if st, ok := stamps[path]; ok {
			return recall.FileStamp(st.Size, st.Mtime)
		}
		return ""
	}
	tmp := x.k.activationPath() + ".round"
	defer os.Remove(tmp)
	prev := o.Prev
	if !reuse {
		prev = nil
	}
	var (
		round    *recall.Compiled
		loads    = x.k.loads()
		unloaded = 0
	)
	defer func() { round.Close() }()
	for start := 0; start < len(list); start += roundDocs {
		end := min(len(list), start+roundDocs)
		ids := make(map[string]bool, end-start)
		for _, d := range list[start:end] {
			ids[d.id] = true
		}
		part, err := x.ix.AllWhere(recallLayers, func(id string) bool { return ids[id] }, activationFields...)
		if err != nil {
			return fmt.Errorf("activation index: %w", err)
		}
		docs := make([]recall.CompileDoc, 0, end)
		for _, d := range list[:start] {
			docs = append(docs, recall.CompileDoc{Hit: recall.Hit{Path: d.path}, Stamp: stampOf(d.path), Reuse: true})
		}
		for _, d := range part {
			cd := compileDocOf(d)
			cd.Stamp = stampOf(d.Path)
			docs = append(docs, cd)
		}
		ro := o
		ro.Prev, ro.MaxLoads = prev, loads
		if loads <= 0 {
			ro.MaxLoads = -1
		}
		if end == len(list) {
			return x.writeActivation(docs, ro)
		}
		if err := writeRound(tmp+".new", docs, ro); err != nil {
			return err
		}
		round.Close()
		if err := os.Rename(tmp+".new", tmp); err != nil {
			return fmt.Errorf("activation index: %w", err)
		}
		if round, err = recall.OpenCompiled(tmp); err != nil {
			return fmt.Errorf("activation index: %w", err)
		}
		prev = round
		// The documents of this round that got no item record: the rest
		// of the loads go to the next rounds.
		u := round.Meta().Unloaded
		loads -= (end - start) - (u - unloaded)
		unloaded = u
	}
	return nil // no documents: the caller's single pass wrote the index
}

// writeRound writes one round of compileInRounds to path (derived data,
// removed after the compile: no atomic replace needed).
func writeRound(path string, docs []recall.CompileDoc, o recall.CompileOptions) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("activation index: %w", err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = recall.Compile(bw, docs, o)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// maxRefetch bounds the documents an incremental compile reads one by one
// from the search index; past it (a first compile, a changed taxonomy, a
// large import) one pass reads every document's stored fields.
const maxRefetch = 2000

// compileDocs are the documents of the layers recall reads, for Compile:
// with reuse, those prev holds unchanged (path and stamp) are marked
// Reuse and carry only their path and stamp, so that a compile after an
// edit reads and analyzes the edited notes only, not the KB.
func (x *Searcher) compileDocs(prev *recall.Compiled, reuse bool) ([]recall.CompileDoc, error) {
	stamps := x.ix.Stamps()
	stampOf := func(path string) string {
		if st, ok := stamps[path]; ok {
			return recall.FileStamp(st.Size, st.Mtime)
		}
		return ""
	}
	if reuse && prev != nil {
		list, err := x.ix.AllOf(recallLayers, "path")
		if err != nil {
			return nil, fmt.Errorf("activation index: %w", err)
		}
		docs := make([]recall.CompileDoc, 0, len(list))
		var fetch []string
		fetchPath := map[string]string{}
		for _, d := range list {
			stamp := stampOf(d.Path)
			if stamp != "" && prev.Holds(d.Path, stamp) {
				docs = append(docs, recall.CompileDoc{Hit: recall.Hit{Path: d.Path}, Stamp: stamp, Reuse: true})
			} else {
				fetch = append(fetch, d.ID)
				fetchPath[d.ID] = d.Path
			}
		}
		if len(fetch) <= maxRefetch {
			complete := true
			for _, id := range fetch {
				if cd, ok := x.pre.take(id, fetchPath[id], stampOf(fetchPath[id])); ok {
					docs = append(docs, cd)
					continue
				}
				d, ok := x.ix.Get(id)
				if !ok || d.Path == "" {
					// A document read back without its stored fields (seen
					// under load when a listing that stopped at _id had left
					// two of bleve's stored-field readers sharing one
					// buffer; index.AllWhere no longer does): the listing
					// below reads them all from one snapshot.
					complete = false
					break
				}
				docs = append(docs, x.compileDoc(*d, stampOf(d.Path)))
			}
			if complete {
				return docs, nil
			}
		}
	}
	if n, err := x.ix.Count(); err == nil && n > uint64(roundDocs) {
		// Possibly more than a round of documents in full: in rounds
		// (the count includes other layers' documents).
		if list, err := x.ix.AllOf(recallLayers, "path"); err == nil && len(list) > roundDocs {
			return nil, nil
		}
	}
	var docs []recall.CompileDoc
	var keep func(id string) bool // every document
	if x.pre != nil {
		// The documents the sync precomputed, as the index holds them;
		// the stored fields of the others only.
		list, err := x.ix.AllOf(recallLayers, "path")
		if err != nil {
			return nil, fmt.Errorf("activation index: %w", err)
		}
		docs = make([]recall.CompileDoc, 0, len(list))
		rest := map[string]bool{}
		for _, d := range list {
			if cd, ok := x.pre.take(d.ID, d.Path, stampOf(d.Path)); ok {
				docs = append(docs, cd)
			} else {
				rest[d.ID] = true
			}
		}
		if len(rest) == 0 {
			return docs, nil
		}
		keep = func(id string) bool { return rest[id] }
	}
	all, err := x.ix.AllWhere(recallLayers, keep, activationFields...)
	if err != nil {
		return nil, fmt.Errorf("activation index: %w", err)
	}
	for _, d := range all {
		docs = append(docs, x.compileDoc(d, stampOf(d.Path)))
	}
	return docs, nil
}

// compileDoc is the document d of the index, with stamp, for Compile.
func (x *Searcher) compileDoc(d index.Doc, stamp string) recall.CompileDoc {
	cd := compileDocOf(d)
	cd.Stamp = stamp
	return cd
}

// compileDocOf is a search document as recall's Searcher returns it (the
// shapes of kb/recallports.go's hits: a keyword list as strings, a text
// field as a string, a number as a float64).
func compileDocOf(d index.Doc) recall.CompileDoc {
	f := map[string]any{}
	for _, name := range recall.StoredFields {
		switch {
		case name == "status" && d.Status != "":
			f[name] = d.Status
		case name == "description" && d.Description != "":
			f[name] = d.Description
		case len(d.Keywords[name]) == 1:
			f[name] = d.Keywords[name][0]
		case len(d.Keywords[name]) > 1:
			f[name] = slices.Clone(d.Keywords[name])
		case d.Text[name] != "":
			f[name] = d.Text[name]
		default:
			if v, ok := d.Num[name]; ok {
				f[name] = v
			}
		}
	}
	return recall.CompileDoc{Hit: recall.Hit{Path: d.Path, ID: d.ID, Layer: d.Layer, Type: d.Type, Title: d.Title,
		Description: d.Description, Fields: f}, Tags: d.Tags, Body: d.Body}
}

// restat is dirs with the times the directories have now (those gone
// left out).
func (k *KB) restat(dirs map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(dirs))
	for rel := range dirs {
		if st, err := os.Stat(filepath.Join(k.Root, filepath.FromSlash(rel))); err == nil {
			out[rel] = st.ModTime().UnixNano()
		}
	}
	return out
}

// loadItem reads the file of a document for the activation index.
func (k *KB) loadItem(rel, layer string) (*observations.Observation, *doc.Document, error) {
	files := recall.Files{Root: k.Root}
	if layer == LayerObservations {
		o, err := files.Observation(rel)
		return o, nil, err
	}
	d, err := files.Document(rel)
	return nil, d, err
}

// parseItem is loadItem of the bytes b read from the file.
func (k *KB) parseItem(rel, layer string, b []byte) (*observations.Observation, *doc.Document, error) {
	if layer == LayerObservations {
		o, err := recall.ParseObservation(rel, b)
		return o, nil, err
	}
	d, err := doc.ParseFrontmatter(rel, b)
	return nil, d, err
}

// refreshActivation brings the index of the layers recall reads, and with
// it the activation index, up to date after a command changed them
// (extract, forget, review, remember, promote, new notes...), so that the
// next hook answers with the change. An index busy with another writer is
// left to it: a hook that finds the layers changed since its compile
// starts a background sync.
func (k *KB) refreshActivation(ctx context.Context) {
	x, _, err := k.openIndex(ctx, recallLayers, false, nil)
	if err != nil {
		if !errors.Is(err, index.ErrBusy) {
			k.logf("activation index: %v (the next sync brings it up to date)", err)
		}
		return
	}
	x.Close()
}
