package kb

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/lexicon"
	"github.com/kbmem/kb/library"
	"github.com/kbmem/kb/observations"
)

// Decision provenance (design: "Decision provenance: answering why",
// "Negative result preservation"): kb why searches decisions, ADRs,
// negative results and corrections; kb adr draft pre-assembles an ADR from
// the deliberation the sessions preserved.

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

// whyTerms turns a question into plain search words: punctuation and
// query syntax become spaces, question words go.
func whyTerms(q string) string {
	words := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	})
	var keep []string
	for _, w := range words {
		if !whyStop[w] {
			keep = append(keep, w)
		}
	}
	return strings.Join(keep, " ")
}

// Why answers "why did we do X" and "why didn't we do Y": the decisions,
// ADRs, negative results and corrections about the topic, newest first.
func (k *KB) Why(ctx context.Context, query string, limit int) (*WhyAnswer, error) {
	if limit <= 0 {
		limit = 10
	}
	ans := &WhyAnswer{Query: query, Terms: whyTerms(query), Items: []WhyItem{}}
	if ans.Terms == "" {
		return nil, fmt.Errorf("%w: kb why needs a topic", ErrInvalidInput)
	}
	x, _, err := k.OpenIndex(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	res, err := x.Search(SearchOptions{Query: ans.Terms, Layers: []string{LayerObservations, LayerLibrary}, Types: WhyTypes, Limit: limit})
	if err != nil {
		return nil, err
	}
	for _, h := range res.Hits {
		b, err := k.files().ReadFile(filepath.Join(k.Root, filepath.FromSlash(h.Path)))
		if err != nil {
			continue // deleted since it was indexed (or a path out of the KB)
		}
		d, err := doc.Parse(h.Path, b)
		if err != nil {
			continue
		}
		it := WhyItem{ID: h.ID, Type: h.Type, Title: h.Title, Path: h.Path, Score: h.Score, Sources: []string{}}
		if h.Layer == LayerObservations {
			o, err := observations.FromMap(d.Fields)
			if err != nil {
				continue
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
		ans.Items = append(ans.Items, it)
	}
	sort.SliceStable(ans.Items, func(i, j int) bool { return ans.Items[i].When.After(ans.Items[j].When) })
	return ans, nil
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

// ADRDraftOptions select what `kb adr draft` assembles from.
type ADRDraftOptions struct {
	FromObs string // a decision (or negative result) observation id
	Session string // every decision and negative result of this session (id or prefix)
	Write   bool   // write it to library/adrs/ instead of only returning it
	Now     time.Time
}

// ADRDraft is a pre-assembled ADR.
type ADRDraft struct {
	ID           string   `json:"id"`
	Path         string   `json:"path"` // relative to the KB root
	Content      string   `json:"content"`
	Written      bool     `json:"written"`
	Observations []string `json:"observations"`
}

// DraftADR pre-assembles an ADR from a decision observation (plus the
// negative results of the same sessions) or from a session's decisions and
// negative results.
func (k *KB) DraftADR(ctx context.Context, o ADRDraftOptions) (*ADRDraft, error) {
	if (o.FromObs == "") == (o.Session == "") {
		return nil, fmt.Errorf("%w: give either an observation id or a session", ErrInvalidInput)
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	if o.Write {
		l, err := k.Lock(ctx)
		if err != nil {
			return nil, err
		}
		defer l.Release()
	}
	files, _, err := k.LoadObservations(ctx)
	if err != nil {
		return nil, err
	}
	all := make([]*observations.Observation, len(files))
	for i, f := range files {
		all[i] = f.Obs
	}
	var decisions, negatives []*observations.Observation
	if o.FromObs != "" {
		f, err := findObs(files, o.FromObs)
		if err != nil {
			return nil, err
		}
		if decisions, negatives, err = library.ADRSources(f.Obs, all); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidInput, err)
		}
	} else if decisions, negatives = library.ADRSourcesOfSession(o.Session, all); len(decisions)+len(negatives) == 0 {
		return nil, fmt.Errorf("no decision or negative result in session %q: %w", o.Session, ErrNotFound)
	}
	notes := k.promotedNotes()
	num := library.NextADRNumber(notes.IDs)
	var c *library.Created
	for {
		c = library.DraftADR(num, decisions, negatives, now)
		if _, err := os.Stat(filepath.Join(k.Root, filepath.FromSlash(c.RelPath))); errors.Is(err, fs.ErrNotExist) {
			break
		}
		num++
	}
	out := &ADRDraft{ID: c.ID, Path: c.RelPath, Content: string(c.Content)}
	for _, x := range append(append([]*observations.Observation{}, decisions...), negatives...) {
		out.Observations = append(out.Observations, x.ID)
	}
	if o.Write {
		abs, err := k.Path(c.RelPath)
		if err != nil {
			return nil, err
		}
		if err := k.files().WriteFile(abs, c.Content, 0o644); err != nil {
			return nil, fmt.Errorf("adr draft: %w", err)
		}
		out.Written = true
	}
	return out, nil
}
