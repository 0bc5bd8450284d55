package observations

import (
	"github.com/kbmem/kb/internal/doc"
)

// fieldOrder is the frontmatter key order of an observation file.
var fieldOrder = []string{"id", "type", "title", "description", "lifecycle", "status", "superseded_by", "supersedes", "author", "origin", "reviewed", "confidence", "importance",
	"sessions", "first_seen", "last_seen", "projects", "trigger", "action_type", "action_types", "lesson", "consequence",
	"domain", "statement", "accepts", "rejects", "consistency", "goal", "steps", "question", "alternatives",
	"chosen", "reasons", "approach", "failure", "followed_by", "claim", "marker", "references", "answered",
	"signals", "sources", "excerpt"}

// knownField are the keys kb writes; any other key in a file is a person's.
var knownField = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range fieldOrder {
		m[k] = true
	}
	return m
}()

// Fields returns the observation's frontmatter in file order, for
// doc.Render (Render adds the edit digest).
func (o *Observation) Fields() []doc.Field {
	m := o.ToMap()
	var out []doc.Field
	for _, k := range fieldOrder {
		if v, ok := m[k]; ok {
			out = append(out, doc.Field{Key: k, Value: v})
		}
	}
	return out
}
