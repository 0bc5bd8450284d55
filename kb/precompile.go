package kb

import (
	"slices"
	"sync"

	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/index"
	"github.com/kbmem/kb/observations"
	"github.com/kbmem/kb/recall"
)

// precompiled holds the activation index's work on the documents a
// writable sync loads (recall.Precompute), keyed by path: their words,
// candidate and item records, computed by the sync's loaders from the
// bytes they read, while bleve indexes the documents before them. The
// compile after the sync takes a document from here when its id and stamp
// are those of the index, and reads the others' stored fields as before.
// Made only for a KB of at most roundDocs documents of recall's layers: a
// compile in rounds keeps a round's work in memory, not the KB's.
type precompiled struct {
	tax  *observations.Taxonomy
	mu   sync.Mutex
	docs map[string]recall.CompileDoc
}

// precompiledMemLimit is the soft memory limit of a sync that keeps
// precomputed documents: they are live until the compile (about 6 KB a
// note), and at the pace of a large sync's collector (GOGC 200) kb index
// at 10,000 notes peaked at 480 MB instead of 250; under this limit, at
// ~390 MB for the same CPU.
const precompiledMemLimit = 320 << 20

// newPrecompiled is a store for a sync of files, or nil when the compile
// after it would run in rounds.
func (k *KB) newPrecompiled(files []fileInfo) *precompiled {
	if countLayers(files, recallLayers) > roundDocs {
		return nil
	}
	p := &precompiled{docs: map[string]recall.CompileDoc{}}
	if tax, err := k.Taxonomy(); err == nil {
		p.tax = tax // compileActivation's: Compile builds again a candidate made under another
	}
	return p
}

// loadMarkdown is index.LoadMarkdown that also precomputes the documents
// of a file of recall's layers, from the same bytes.
func (x *Searcher) loadMarkdown(f fileInfo, emit func(filePart) bool) bool {
	p := x.pre
	if p == nil || !slices.Contains(recallLayers, f.Layer) {
		return index.LoadMarkdown(f, emit)
	}
	b, err := fsx.ReadFileNoFollow(f.Abs) // scanned: no symlink on the way
	return index.LoadMarkdownBytes(f, b, err, func(part filePart) bool {
		if err == nil {
			p.add(x.k, f, part.Change.Docs, b, part.Parsed)
		}
		return emit(part)
	})
}

// add precomputes the documents docs of file f, whose bytes are b and
// which the index's loader parsed as parsed (nil: it did not parse). A
// note's item record takes its frontmatter from parsed (the same as
// parseItem's, which the markdown parse starts with); an observation's is
// parsed as one.
func (p *precompiled) add(k *KB, f fileInfo, docs []index.Doc, b []byte, parsed *doc.Document) {
	for _, d := range docs {
		if len(d.Body) > index.MaxBody {
			continue // Apply cuts it: the compile reads what the index stored
		}
		d.Path = f.Rel
		cd := compileDocOf(d)
		cd.Stamp = recall.FileStamp(f.Stamp.Size, f.Stamp.Mtime)
		var ob *observations.Observation
		dc, lerr := parsed, error(nil)
		if parsed == nil || f.Layer == LayerObservations {
			ob, dc, lerr = k.parseItem(f.Rel, f.Layer, b)
		}
		if recall.Precompute(&cd, p.tax, true, ob, dc, lerr) != nil {
			continue // the compile loads it and says why
		}
		p.mu.Lock()
		p.docs[f.Rel] = cd
		p.mu.Unlock()
	}
}

// take is the precomputed document of the index's document id at path
// with stamp, if any.
func (p *precompiled) take(id, path, stamp string) (recall.CompileDoc, bool) {
	if p == nil || stamp == "" {
		return recall.CompileDoc{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	cd, ok := p.docs[path]
	if !ok || cd.ID != id || cd.Stamp != stamp {
		return recall.CompileDoc{}, false
	}
	return cd, true
}
