package kb

import (
	"context"
	"errors"
	"sort"

	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/links"
	"github.com/kbmem/kb/library"
)

// LintResult lists every problem found, sorted by path and line.
type LintResult struct {
	Files    int       `json:"files"`
	Problems []Problem `json:"problems"`
}

// ParsedDoc is a markdown document of some layer, parsed.
type ParsedDoc struct {
	Layer string
	Doc   *doc.Document
}

// ReadDocs parses every markdown document of the KB (all layers but
// traces). Files that fail to parse are reported, not returned.
func (k *KB) ReadDocs(ctx context.Context) ([]ParsedDoc, []Problem, error) {
	files, skipped, err := k.scanAll()
	if err != nil {
		return nil, nil, err
	}
	var docs []ParsedDoc
	probs := skipped
	for _, f := range files {
		if f.Layer == LayerTraces {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		b, err := fsx.ReadFileNoFollow(f.Abs) // scanned: no symlink on the way
		if err != nil {
			probs = append(probs, Problem{Path: f.Rel, Msg: err.Error(), Rule: "unreadable"})
			continue
		}
		d, err := doc.Parse(f.Rel, b)
		if err != nil {
			var pe *doc.ParseError
			if errors.As(err, &pe) {
				probs = append(probs, Problem{Path: f.Rel, Line: pe.Line, Msg: pe.Msg, Rule: "parse"})
			} else {
				probs = append(probs, Problem{Path: f.Rel, Msg: err.Error(), Rule: "parse"})
			}
			continue
		}
		docs = append(docs, ParsedDoc{Layer: f.Layer, Doc: d})
	}
	return docs, probs, nil
}

// GraphOf builds the link graph of parsed documents.
func GraphOf(docs []ParsedDoc) *links.Graph {
	nodes := make([]links.Node, 0, len(docs))
	for _, p := range docs {
		d := p.Doc
		nodes = append(nodes, links.Node{Path: d.Path, ID: NoteID(d), Title: d.Title, Type: d.Type, Tags: d.Tags, Links: d.Links})
	}
	return links.Build(nodes)
}

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
