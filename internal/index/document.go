package index

import (
	"strconv"
	"strings"

	"github.com/kbmem/kb/internal/doc"
)

// FromDocument maps a parsed document of a layer onto the index schema. The bleve id is
// the path (unique by construction); the note id is a keyword field.
func FromDocument(layer string, d *doc.Document) Doc {
	x := Doc{
		ID: d.Path, Path: d.Path, Layer: layer, Type: d.Type, Title: d.Title, Description: d.Description,
		Tags: d.Tags, Lifecycle: d.Lifecycle, Status: d.Status,
		Text: map[string]string{}, Keywords: map[string][]string{"noteid": {d.IDOrName()}}, Num: map[string]float64{},
	}
	x.Body, x.Truncated = CapBody(d.Body) // the file keeps all of it
	if t, err := d.CreatedTime(); err == nil {
		x.Created = t
	}
	if t, err := d.UpdatedTime(); err == nil {
		x.Updated = t
	}
	if x.Title == "" {
		x.Title = d.IDOrName()
	}
	for _, l := range d.Links {
		if l.Kind != doc.KindTag {
			x.Links = append(x.Links, l.Target)
			x.Keywords[LinkField] = append(x.Keywords[LinkField], EncodeLink(l))
		}
	}
	// excerpt: recall reads the person's words from it (the body quotes it
	// already, so search finds nothing new through it).
	for _, key := range []string{"trigger", "lesson", "consequence", "statement", "goal", "approach", "failure", "claim", "question", "chosen", "excerpt"} {
		if s, ok := d.Fields[key].(string); ok && s != "" {
			x.Text[key] = s
		}
	}
	for _, key := range []string{"action_type", "action_types", "triggers", "domain", "projects", "author", "sources", "signals"} {
		switch v := d.Fields[key].(type) {
		case string:
			x.Keywords[key] = []string{v}
		case []any:
			for _, e := range v {
				if s, ok := e.(string); ok {
					x.Keywords[key] = append(x.Keywords[key], s)
				}
			}
		}
	}
	for _, key := range []string{"importance", "confidence", "sessions"} {
		switch v := d.Fields[key].(type) {
		case int:
			x.Num[key] = float64(v)
		case float64:
			x.Num[key] = v
		}
	}
	return x
}

// LinkField stores each link of a document, encoded, so that the link graph
// can be built from the index without re-reading files.
const LinkField = "linkrec"

// EncodeLink is a link as LinkField keeps it.
func EncodeLink(l doc.Link) string {
	return strings.Join([]string{l.Kind, l.Rel, strconv.Itoa(l.Line), l.Target, l.Alias, l.Heading}, "\x1f")
}

// DecodeLink reads a link EncodeLink wrote.
func DecodeLink(s string) (doc.Link, bool) {
	p := strings.Split(s, "\x1f")
	if len(p) != 6 {
		return doc.Link{}, false
	}
	line, _ := strconv.Atoi(p[2])
	return doc.Link{Kind: p[0], Rel: p[1], Line: line, Target: p[3], Alias: p[4], Heading: p[5]}, true
}
