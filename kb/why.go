package kb

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/markdown"
	"github.com/kbmem/kb/library"
	"github.com/kbmem/kb/observations"
	"github.com/kbmem/kb/recall"
)

// Decision provenance (design: "Decision provenance: answering why",
// "Negative result preservation"): kb why searches decisions, ADRs,
// negative results and corrections; kb adr draft pre-assembles an ADR from
// the deliberation the sessions preserved.

// WhyTypes are the document types `kb why` searches.
var WhyTypes = recall.WhyTypes

// WhyItem is one answer of `kb why` (recall.WhyItem).
type WhyItem = recall.WhyItem

// WhyAnswer is the answer of `kb why`.
type WhyAnswer = recall.WhyAnswer

// Why answers "why did we do X" and "why didn't we do Y": the decisions,
// ADRs, negative results and corrections about the topic, newest first.
func (k *KB) Why(ctx context.Context, query string, limit int) (*WhyAnswer, error) {
	if limit <= 0 {
		limit = 10
	}
	ans := &WhyAnswer{Query: query, Terms: recall.WhyTerms(query), Items: []WhyItem{}}
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
	hits := make([]recall.WhyHit, 0, len(res.Hits))
	for _, h := range res.Hits {
		hits = append(hits, recall.WhyHit{ID: h.ID, Type: h.Type, Title: h.Title, Path: h.Path, Score: h.Score, Observation: h.Layer == LayerObservations})
	}
	ans.AddWhyItems(hits, func(p string) (*doc.Document, error) {
		b, err := k.files().ReadFile(filepath.Join(k.Root, filepath.FromSlash(p)))
		if err != nil {
			return nil, err // deleted since it was indexed (or a path out of the KB)
		}
		return markdown.Parse(p, b)
	})
	return ans, nil
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
	defer k.refreshActivation(ctx) // the next hook answers with what this changed
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
	plan := library.PlanADRDraft(decisions, negatives, k.promotedNotes().IDs, func(rel string) bool {
		_, err := os.Stat(filepath.Join(k.Root, filepath.FromSlash(rel)))
		return !errors.Is(err, fs.ErrNotExist)
	}, now)
	c := plan.Note
	out := &ADRDraft{ID: c.ID, Path: c.RelPath, Content: string(c.Content), Observations: plan.Observations}
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
