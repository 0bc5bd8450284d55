package index

import (
	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/links"
)

// Graph builds the link graph of the indexed documents, but those of the
// layer skip, from their stored fields, without re-reading the files. A
// document's node id is its noteid field (frontmatter id or file name).
func (ix *Index) Graph(skip string) (*links.Graph, error) {
	docs, err := ix.All("path", "layer", "type", "title", "tags", "noteid", LinkField)
	if err != nil {
		return nil, err
	}
	nodes := make([]links.Node, 0, len(docs))
	for _, d := range docs {
		if d.Layer == skip {
			continue
		}
		id := d.ID
		if ks := d.Keywords["noteid"]; len(ks) > 0 {
			id = ks[0]
		}
		var ls []doc.Link
		for _, enc := range d.Keywords[LinkField] {
			if l, ok := DecodeLink(enc); ok {
				ls = append(ls, l)
			}
		}
		nodes = append(nodes, links.Node{Path: d.Path, ID: id, Title: d.Title, Type: d.Type, Tags: d.Tags, Links: ls})
	}
	return links.Build(nodes), nil
}

// FieldString is a stored field of a hit as one string (its first value).
func FieldString(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case []any:
		if len(t) > 0 {
			s, _ := t[0].(string)
			return s
		}
	case []string:
		if len(t) > 0 {
			return t[0]
		}
	}
	return ""
}
