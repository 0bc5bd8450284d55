package library

import (
	"slices"
	"strings"

	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/textutil"
	"github.com/kbmem/kb/observations"
)

// Note is an existing library note, as far as coverage needs it.
type Note struct {
	ID    string `json:"id"`
	Path  string `json:"path"` // relative to the KB root
	Type  string `json:"type"`
	Title string `json:"title"`
	// Text is the note's description and the start of its body.
	Text string `json:"-"`
	// Triggers are the note's cues: action types ("git:stage-all") and
	// phrases.
	Triggers    []string `json:"-"`
	DerivedFrom []string `json:"-"`
}

// Covering returns the first of notes that already says what o says, or
// nil: a note whose title, or title and text, is a near-duplicate of o's
// main text (observations.Similar, reading the note as an observation of
// o's type with the note's action-type triggers). Graduating o would only
// add a second note saying the same thing: the library is curated, so the
// note a person wrote or accepted wins. A note derived from o is its own
// graduation, not a cover. For many observations, use a Coverage.
func Covering(o *observations.Observation, notes []Note) *Note {
	return NewCoverage(notes).Covering(o)
}

// Coverage answers Covering for many observations against one set of
// notes, preparing each note's text once per observation type.
type Coverage struct {
	notes  []Note
	types  [][]string                               // action-type triggers per note
	byType map[string][][2]*observations.Comparable // per observation type: title, title+text per note
}

// NewCoverage prepares notes for Covering.
func NewCoverage(notes []Note) *Coverage {
	c := &Coverage{notes: notes, types: make([][]string, len(notes)), byType: map[string][][2]*observations.Comparable{}}
	for i, n := range notes {
		for _, t := range n.Triggers {
			if isActionType(t) {
				c.types[i] = append(c.types[i], t)
			}
		}
	}
	return c
}

func (c *Coverage) prepared(typ string) [][2]*observations.Comparable {
	if p, ok := c.byType[typ]; ok {
		return p
	}
	p := make([][2]*observations.Comparable, len(c.notes))
	for i, n := range c.notes {
		for k, text := range []string{n.Title, strings.TrimSpace(n.Title + ". " + n.Text)} {
			p[i][k] = observations.Prepare(observations.WithText(typ, text, c.types[i]))
		}
	}
	c.byType[typ] = p
	return p
}

// Covering is the package function Covering against c's notes.
func (c *Coverage) Covering(o *observations.Observation) *Note {
	if o == nil || len(c.notes) == 0 || observations.WithText(o.Type, "", nil) == nil {
		return nil
	}
	po := observations.Prepare(o)
	for i, p := range c.prepared(o.Type) {
		if slices.Contains(c.notes[i].DerivedFrom, o.ID) {
			continue
		}
		if po.Similar(p[0]) || po.Similar(p[1]) {
			return &c.notes[i]
		}
	}
	return nil
}

// isActionType tells an action type ("git:push-force") from a phrase.
func isActionType(s string) bool {
	dom, rest, ok := strings.Cut(s, ":")
	if !ok || dom == "" || rest == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == ':' || r == '.') {
			return false
		}
	}
	return true
}

// NoteOf is what coverage compares of a parsed library note: title,
// description and the first paragraphs of the body, triggers, derived_from.
func NoteOf(rel string, d *doc.Document) Note {
	n := Note{ID: d.IDOrName(), Path: rel, Type: d.Type, Title: d.Title, DerivedFrom: d.Relations["derived_from"]}
	if n.Title == "" {
		n.Title = n.ID
	}
	desc, _ := d.Fields["description"].(string)
	var body []string
	for _, l := range strings.Split(d.Body, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			body = append(body, l)
		}
	}
	n.Text = textutil.Truncate(strings.TrimSpace(desc+" "+strings.Join(body, " ")), 600)
	switch t := d.Fields["triggers"].(type) {
	case []any:
		for _, v := range t {
			if s, ok := v.(string); ok {
				n.Triggers = append(n.Triggers, s)
			}
		}
	case string:
		n.Triggers = []string{t}
	}
	return n
}
