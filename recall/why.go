package recall

import (
	"strings"
	"time"

	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/lexicon"
	"github.com/kbmem/kb/library"
	"github.com/kbmem/kb/observations"
)

// Decision provenance (design: "Decision provenance: answering why",
// "Negative result preservation"): what `kb why` searches, the search words
// of a why-question, and an answer item made of the document a hit names.

// WhyTypes are the document types `kb why` searches.
var WhyTypes = []string{observations.TypeDecision, library.TypeADR, observations.TypeNegativeResult, observations.TypeCorrection}

// WhyItem is one answer: what was chosen or what failed, the alternatives
// and reasons, and the sessions it came from.
type WhyItem struct {
	ID           string                     `json:"id"`
	Type         string                     `json:"type"`
	Title        string                     `json:"title"`
	Path         string                     `json:"path"`
	When         time.Time                  `json:"when,omitzero"`
	Question     string                     `json:"question,omitempty"`
	Chosen       string                     `json:"chosen,omitempty"`
	Alternatives []observations.Alternative `json:"alternatives,omitempty"`
	Reasons      []string                   `json:"reasons,omitempty"`
	Approach     string                     `json:"approach,omitempty"`
	Failure      string                     `json:"failure,omitempty"`
	FollowedBy   string                     `json:"followed_by,omitempty"`
	Lesson       string                     `json:"lesson,omitempty"`
	Consequence  string                     `json:"consequence,omitempty"`
	Summary      string                     `json:"summary,omitempty"` // ADRs: the Decision section
	Author       string                     `json:"author,omitempty"`  // "agent": the agent's words (observations.AuthorLabel)
	AuthorLabel  string                     `json:"author_label,omitempty"`
	Sources      []string                   `json:"sources"`
	Score        float64                    `json:"score"`
}

// WhyAnswer is the answer of `kb why`.
type WhyAnswer struct {
	Query string    `json:"query"`
	Terms string    `json:"terms"` // the search terms used
	Items []WhyItem `json:"items"`
}

// whyStop are words of a why-question that carry no topic.
var whyStop = lexicon.NewSet(`why did didn didnt do does doesn don dont we not the a an to of t instead was were is are what how
	it use used choose chose pick picked with for our us and or in on s decide decided try tried`)

// WhyTerms turns a question into plain search words: punctuation and
// query syntax become spaces, question words go.
func WhyTerms(q string) string {
	words := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	})
	var keep []string
	for _, w := range words {
		if !whyStop.Has(w) {
			keep = append(keep, w)
		}
	}
	return strings.Join(keep, " ")
}

// WhyHit is a search hit `kb why` explains.
type WhyHit struct {
	ID, Type, Title, Path string
	Score                 float64
	Observation           bool // a hit of the observations layer (else a library note)
}

// WhyItemOf is the answer item of the hit h, whose document is d; false
// when d is an observation that does not read as one.
func WhyItemOf(h WhyHit, d *doc.Document) (WhyItem, bool) {
	it := WhyItem{ID: h.ID, Type: h.Type, Title: h.Title, Path: h.Path, Score: h.Score, Sources: []string{}}
	if h.Observation {
		o, err := observations.FromMap(d.Fields)
		if err != nil {
			return WhyItem{}, false
		}
		it.When = o.LastSeen
		it.Question, it.Chosen, it.Alternatives, it.Reasons = o.Question, o.Chosen, o.Alternatives, o.Reasons
		it.Approach, it.Failure, it.FollowedBy = o.Approach, o.Failure, o.FollowedBy
		it.Lesson, it.Consequence = o.Lesson, o.Consequence
		if o.AgentAuthored() {
			it.Author, it.AuthorLabel = observations.AuthorAgent, o.AuthorLabel()
		}
		for _, s := range o.Sources {
			it.Sources = append(it.Sources, s.String())
		}
	} else {
		if t, err := d.UpdatedTime(); err == nil {
			it.When = t
		} else if t, err := d.CreatedTime(); err == nil {
			it.When = t
		}
		it.Summary = section(d.Body, "Decision")
		it.Sources = append(it.Sources, d.Sources...)
	}
	return it, true
}

// section returns the text under "## name" up to the next heading.
func section(body, name string) string {
	var out []string
	in := false
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, "#") {
			if in {
				break
			}
			in = strings.EqualFold(strings.TrimSpace(strings.TrimLeft(l, "#")), name)
			continue
		}
		if in {
			out = append(out, l)
		}
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}
