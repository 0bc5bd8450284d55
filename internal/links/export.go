package links

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/kbmem/kb/internal/doc"
)

// GraphJSON is the graph as plain data for JSON output.
type GraphJSON struct {
	Nodes []NodeJSON `json:"nodes"`
	Edges []EdgeJSON `json:"edges"`
}

// NodeJSON is one document in GraphJSON.
type NodeJSON struct {
	ID    string `json:"id,omitempty"`
	Path  string `json:"path"`
	Title string `json:"title,omitempty"`
	Type  string `json:"type,omitempty"`
}

// EdgeJSON is one resolved link in GraphJSON.
type EdgeJSON struct {
	From string `json:"from"`
	To   string `json:"to"`
	Kind string `json:"kind"`
	Rel  string `json:"rel,omitempty"`
}

// resolvedEdges returns the resolved non-tag edges, deduplicated by
// (From, To, Kind, Rel), sorted by From then line.
func (g *Graph) resolvedEdges() []EdgeJSON {
	type key struct{ from, to, kind, rel string }
	seen := map[key]bool{}
	var out []EdgeJSON
	for _, ed := range g.edges {
		if ed.To == "" || ed.Link.Kind == doc.KindTag {
			continue
		}
		k := key{ed.From, ed.To, ed.Link.Kind, ed.Link.Rel}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, EdgeJSON{From: ed.From, To: ed.To, Kind: ed.Link.Kind, Rel: ed.Link.Rel})
	}
	return out
}

// JSON returns the nodes (sorted by path) and the resolved links between
// them (tags and broken links left out, duplicates merged).
func (g *Graph) JSON() GraphJSON {
	out := GraphJSON{Nodes: make([]NodeJSON, len(g.nodes)), Edges: g.resolvedEdges()}
	for i, n := range g.nodes {
		out.Nodes[i] = NodeJSON{ID: n.ID, Path: n.Path, Title: n.Title, Type: n.Type}
	}
	if out.Edges == nil {
		out.Edges = []EdgeJSON{}
	}
	return out
}

func label(n *Node) string {
	switch {
	case strings.TrimSpace(n.Title) != "":
		return n.Title
	case n.ID != "":
		return n.ID
	}
	return n.Path
}

// dotQuote returns s as a DOT double-quoted string: backslashes and quotes
// escaped, newlines as \n, other control characters dropped, invalid UTF-8
// replaced.
func dotQuote(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\n':
			b.WriteString(`\n`)
		case unicode.IsControl(r):
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// WriteDOT writes the graph in Graphviz DOT: one box per document labeled
// with its title (or id, or path), solid arrows for body links, dashed
// labeled arrows for relations.
func (g *Graph) WriteDOT(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "digraph kb {")
	fmt.Fprintln(bw, "  node [shape=box];")
	for i := range g.nodes {
		n := &g.nodes[i]
		fmt.Fprintf(bw, "  %s [label=%s", dotQuote(n.Path), dotQuote(label(n)))
		if n.Type != "" {
			fmt.Fprintf(bw, ", tooltip=%s", dotQuote(n.Type+": "+n.Path))
		}
		fmt.Fprintln(bw, "];")
	}
	for _, e := range g.resolvedEdges() {
		fmt.Fprintf(bw, "  %s -> %s", dotQuote(e.From), dotQuote(e.To))
		if e.Kind == doc.KindRelation {
			fmt.Fprintf(bw, " [label=%s, style=dashed]", dotQuote(e.Rel))
		}
		fmt.Fprintln(bw, ";")
	}
	fmt.Fprintln(bw, "}")
	return bw.Flush()
}

// mermaidText escapes a label for use inside a quoted Mermaid label:
// characters Mermaid or HTML would interpret become entity codes, and
// newlines become spaces.
func mermaidText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '#':
			b.WriteString("#35;")
		case r == '"':
			b.WriteString("#quot;")
		case r == '<':
			b.WriteString("#lt;")
		case r == '>':
			b.WriteString("#gt;")
		case r == '&':
			b.WriteString("#amp;")
		case r == '`':
			b.WriteString("#96;")
		case r == '%':
			b.WriteString("#37;")
		case r == '|':
			b.WriteString("#124;")
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case unicode.IsControl(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// WriteMermaid writes the graph as a Mermaid flowchart. Node ids are
// generated (n0, n1, ...) so no document text is ever parsed as syntax;
// labels are quoted and escaped.
func (g *Graph) WriteMermaid(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "flowchart LR")
	for i := range g.nodes {
		fmt.Fprintf(bw, "  n%d[\"%s\"]\n", i, mermaidText(label(&g.nodes[i])))
	}
	for _, e := range g.resolvedEdges() {
		from, to := g.byPath[e.From], g.byPath[e.To]
		if e.Kind == doc.KindRelation {
			fmt.Fprintf(bw, "  n%d -.->|\"%s\"| n%d\n", from, mermaidText(e.Rel), to)
		} else {
			fmt.Fprintf(bw, "  n%d --> n%d\n", from, to)
		}
	}
	return bw.Flush()
}
