package kb

import (
	"context"
	"sort"

	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/index"
	"github.com/kbmem/kb/internal/links"
	"github.com/kbmem/kb/library"
)

// LintResult lists every problem found, sorted by path and line.
type LintResult struct {
	Files    int       `json:"files"`
	Problems []Problem `json:"problems"`
}

// ParsedDoc is a markdown document of some layer, parsed.
type ParsedDoc = index.ParsedDoc

// ReadDocs parses every markdown document of the KB (all layers but
// traces, index.ParseDocs). Files that fail to parse are reported, not
// returned.
func (k *KB) ReadDocs(ctx context.Context) ([]ParsedDoc, []Problem, error) {
	files, skipped, err := k.scanAll()
	if err != nil {
		return nil, nil, err
	}
	docs, probs, err := index.ParseDocs(ctx, files, LayerTraces)
	if err != nil {
		return nil, nil, err
	}
	return docs, append(skipped, probs...), nil
}

// GraphOf builds the link graph of parsed documents.
func GraphOf(docs []ParsedDoc) *links.Graph { return index.GraphOf(docs) }

// Lint checks every document: it parses, and passes library.Lint (the
// required keys with valid values, a unique id, links only to documents
// that exist).
func (k *KB) Lint(ctx context.Context) (*LintResult, error) {
	docs, probs, err := k.ReadDocs(ctx)
	if err != nil {
		return nil, err
	}
	ds := make([]*doc.Document, len(docs))
	for i, p := range docs {
		ds[i] = p.Doc
	}
	res := &LintResult{Files: len(docs) + len(probs), Problems: append(probs, library.Lint(ds, GraphOf(docs))...)}
	sort.SliceStable(res.Problems, func(i, j int) bool {
		a, b := res.Problems[i], res.Problems[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Line < b.Line
	})
	if res.Problems == nil {
		res.Problems = []Problem{}
	}
	return res, nil
}
