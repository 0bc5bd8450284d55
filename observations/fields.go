package observations

import (
	"github.com/kbmem/kb/internal/doc"
)

// fieldOrder is the frontmatter key order of an observation file: the
// common document keys first (internal/doc's model), then the typed ones.
var fieldOrder = []string{"id", "type", "title", "description", "lifecycle", "status", "author", "origin", "reviewed", "created", "updated", "sources",
	"confidence", "importance", "sessions", "first_seen", "last_seen", "signals", "projects",
	"trigger", "action_type", "action_types", "lesson", "consequence",
	"domain", "statement", "accepts", "rejects", "consistency",
	"goal", "steps", "question", "alternatives", "chosen", "reasons",
	"approach", "failure", "followed_by", "claim", "marker", "references", "answered", "excerpt"}

// Fields returns the observation's frontmatter for doc.Render, in a stable
// order, with created/updated set from first/last seen.
func (o *Observation) Fields() []doc.Field {
	m := o.ToMap()
	if v, ok := m["first_seen"]; ok {
		m["created"] = v
	}
	if v, ok := m["last_seen"]; ok {
		m["updated"] = v
	}
	var out []doc.Field
	for _, k := range fieldOrder {
		if v, ok := m[k]; ok {
			out = append(out, doc.Field{Key: k, Value: v})
		}
	}
	return out
}
