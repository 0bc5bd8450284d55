package links

import "io"

// The questions `kb links`, `kb graph` and `kb new` ask of the graph by a
// reference (an id, path, file name or title; see Lookup, whose errors
// they return).

// LinksOf returns the forward links of the document ref names, or its
// backlinks.
func (g *Graph) LinksOf(ref string, back bool) ([]Ref, error) {
	n, err := g.Lookup(ref)
	if err != nil {
		return nil, err
	}
	if back {
		return Refs(g.Backlinks(n.Path)), nil
	}
	return Refs(g.Forward(n.Path)), nil
}

// WriteFrom writes the graph (or, with from, the part within depth hops
// of the document from names) as dot, mermaid or json (see Write).
func (g *Graph) WriteFrom(w io.Writer, format, from string, depth int) error {
	if from != "" {
		n, err := g.Lookup(from)
		if err != nil {
			return err
		}
		g = g.Subgraph(n.Path, depth)
	}
	return g.Write(w, format)
}

// IDs are the node ids of every document.
func (g *Graph) IDs() []string {
	ids := make([]string, 0, len(g.nodes))
	for _, n := range g.nodes {
		ids = append(ids, n.ID)
	}
	return ids
}
