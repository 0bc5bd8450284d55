package links

import "github.com/kbmem/kb/internal/doc"

// Note is a document with its place in the graph, for `kb show`.
type Note struct {
	ID          string         `json:"id"`
	Path        string         `json:"path"`
	Layer       string         `json:"layer"`
	Type        string         `json:"type,omitempty"`
	Title       string         `json:"title"`
	Description string         `json:"description,omitempty"`
	Frontmatter map[string]any `json:"frontmatter"`
	Body        string         `json:"body"`
	Links       []Ref          `json:"links"`
	Backlinks   []Ref          `json:"backlinks"`
}

// NoteOf is the document d at the graph's path p (in layer), with its
// links and backlinks.
func (g *Graph) NoteOf(p, layer string, d *doc.Document) *Note {
	fm := d.Fields
	if fm == nil {
		fm = map[string]any{}
	}
	return &Note{ID: d.IDOrName(), Path: p, Layer: layer, Type: d.Type, Title: d.Title, Description: d.Description,
		Frontmatter: fm, Body: d.Body, Links: Refs(g.Forward(p)), Backlinks: Refs(g.Backlinks(p))}
}
