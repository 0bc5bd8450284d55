package index

import (
	"context"
	"errors"

	"github.com/kbmem/kb/internal/diag"
	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/links"
	"github.com/kbmem/kb/internal/markdown"
)

// ParsedDoc is a markdown document of some layer, parsed.
type ParsedDoc struct {
	Layer string
	Doc   *doc.Document
}

// ParseDocs parses the scanned markdown files (Scan's), all but those of
// the stream layer (traces). A file that cannot be read or parsed is a
// problem with its line, not a document; ctx stops the walk.
func ParseDocs(ctx context.Context, files []File, streamLayer string) ([]ParsedDoc, []diag.Problem, error) {
	var docs []ParsedDoc
	var probs []diag.Problem
	for _, f := range files {
		if f.Layer == streamLayer {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		b, err := fsx.ReadFileNoFollow(f.Abs) // scanned: no symlink on the way
		if err != nil {
			probs = append(probs, diag.Problem{Path: f.Rel, Msg: err.Error(), Rule: "unreadable"})
			continue
		}
		d, err := markdown.Parse(f.Rel, b)
		if err != nil {
			var pe *doc.ParseError
			if errors.As(err, &pe) {
				probs = append(probs, diag.Problem{Path: f.Rel, Line: pe.Line, Msg: pe.Msg, Rule: "parse"})
			} else {
				probs = append(probs, diag.Problem{Path: f.Rel, Msg: err.Error(), Rule: "parse"})
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
		nodes = append(nodes, links.Node{Path: d.Path, ID: d.IDOrName(), Title: d.Title, Type: d.Type, Tags: d.Tags, Links: d.Links})
	}
	return links.Build(nodes)
}
