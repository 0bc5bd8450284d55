package library

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kbmem/kb/internal/diag"
	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/links"
)

// Lint checks parsed documents of any layer against the document model:
// the Required keys, a lifecycle among Lifecycles, an id no other document
// has (case-insensitively), and links that resolve in g, the graph of the
// same documents. Each problem has its line and rule: "required",
// "value", "duplicate-id", "broken-link".
func Lint(docs []*doc.Document, g *links.Graph) []diag.Problem {
	var probs []diag.Problem
	byID := map[string][]*doc.Document{}
	for _, d := range docs {
		for _, key := range Required {
			if v, ok := d.Fields[key]; !ok || fmt.Sprint(v) == "" {
				if !d.HasFrontmatter {
					probs = append(probs, diag.Problem{Path: d.Path, Line: 1, Msg: "no frontmatter (needs " + strings.Join(Required, ", ") + ")", Rule: "required"})
					break
				}
				probs = append(probs, diag.Problem{Path: d.Path, Line: 1, Msg: fmt.Sprintf("missing required field %q", key), Rule: "required"})
			}
		}
		if d.Lifecycle != "" && !slices.Contains(Lifecycles, d.Lifecycle) {
			probs = append(probs, diag.Problem{Path: d.Path, Line: d.KeyLine("lifecycle"),
				Msg: fmt.Sprintf("lifecycle %q is not one of %s", d.Lifecycle, strings.Join(Lifecycles, ", ")), Rule: "value"})
		}
		if d.ID != "" {
			byID[strings.ToLower(d.ID)] = append(byID[strings.ToLower(d.ID)], d)
		}
	}
	for _, ds := range byID {
		if len(ds) < 2 {
			continue
		}
		for i, d := range ds {
			other := ds[(i+1)%len(ds)]
			probs = append(probs, diag.Problem{Path: d.Path, Line: d.KeyLine("id"),
				Msg: fmt.Sprintf("duplicate id %q (also in %s)", d.ID, other.Path), Rule: "duplicate-id"})
		}
	}
	for _, e := range g.Unresolved() {
		probs = append(probs, diag.Problem{Path: e.From, Line: e.Link.Line,
			Msg: fmt.Sprintf("broken link %s: no document %q", linkText(e.Link), e.Link.Target), Rule: "broken-link"})
	}
	return probs
}

func linkText(l doc.Link) string {
	switch l.Kind {
	case doc.KindWiki:
		return "[[" + l.Target + "]]"
	case doc.KindMarkdown:
		return "(" + l.Target + ")"
	case doc.KindRelation:
		return l.Rel + ": " + l.Target
	}
	return l.Target
}
