package links

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Ref is one edge as shown to users (kb links, kb show).
type Ref struct {
	From   string `json:"from"`
	To     string `json:"to,omitempty"` // resolved path; empty when unresolved
	Target string `json:"target"`       // as written
	Kind   string `json:"kind"`
	Rel    string `json:"rel,omitempty"`
	Line   int    `json:"line"`
}

// Refs shows edges.
func Refs(edges []Edge) []Ref {
	out := make([]Ref, 0, len(edges))
	for _, e := range edges {
		out = append(out, Ref{From: e.From, To: e.To, Target: e.Link.Target, Kind: e.Link.Kind, Rel: e.Link.Rel, Line: e.Link.Line})
	}
	return out
}

// ErrFormat: a graph format Write does not know.
var ErrFormat = errors.New("unknown graph format")

// Write writes the graph as dot (also for ""), mermaid or indented json.
func (g *Graph) Write(w io.Writer, format string) error {
	switch format {
	case "dot", "":
		return g.WriteDOT(w)
	case "mermaid":
		return g.WriteMermaid(w)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(g.JSON())
	}
	return fmt.Errorf("%w %q (dot, mermaid or json)", ErrFormat, format)
}

// IDsWithPrefix lists, sorted, at most limit node ids starting with
// prefix, ignoring case (shell completion).
func (g *Graph) IDsWithPrefix(prefix string, limit int) []string {
	var out []string
	for _, n := range g.nodes {
		if strings.HasPrefix(strings.ToLower(n.ID), strings.ToLower(prefix)) {
			out = append(out, n.ID)
		}
	}
	sort.Strings(out)
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}
