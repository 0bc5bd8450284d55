package recall

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/kbmem/kb/observations"
)

// Recall finds the knowledge that applies to q and returns it ranked and
// cut to the budget. Matching composes action-type classification of the
// proposed action (strong evidence on its own) with lexical similarity
// (lexical retrieval from the index, then token overlap as a precision
// filter: weak overlap alone never fires). Items are ranked by relevance x
// recency x consequence x frequency and packed into per-kind budgets.
func (e *Engine) Recall(ctx context.Context, q Query) (*Result, error) {
	tax := e.Taxonomy()
	budget := q.Budget
	if budget <= 0 {
		budget = e.Config.Budget
	}
	if budget <= 0 {
		budget = DefaultBudget
	}
	res := &Result{Budget: budget, Items: []Item{}, ActionTypes: []string{}, Standing: q.Standing}
	cue := buildCueLex(tax, e.Config.Lexicon, q)
	res.ActionTypes = append(res.ActionTypes, cue.types...)
	high := map[string]bool{}
	for _, t := range e.Config.HighConsequence {
		high[t] = true
	}
	var (
		items   []Item
		skipped int
		byPath  map[string]*candidate
	)
	if sl, ok := e.Index.(standingLister); ok && q.Standing {
		var err error
		if items, skipped, byPath, err = e.readStanding(sl, cue, q, high, e.now()); err != nil {
			return nil, err
		}
	} else {
		var err error
		if items, skipped, byPath, err = e.search(ctx, cue, q, high); err != nil {
			return nil, err
		}
	}
	byScore(items)
	items = foldCovered(items, byPath)
	items = foldRepeated(items)
	before := len(items)
	items = e.judge(ctx, q, items)
	res.Items, res.Dropped = packBudget(items, budget, e.Config.Budgets)
	res.Dropped += before - len(items)
	res.Dropped += skipped
	res.Tokens = Tokens(res.Markdown())
	return res, nil
}

// search finds the candidates of q (its cue's, or the standing ones when
// the index cannot list them best first), keeps the relevant ones and
// reads the best few per kind; byPath holds every relevant candidate.
func (e *Engine) search(ctx context.Context, cue *cue, q Query, high map[string]bool) (items []Item, skipped int, byPath map[string]*candidate, err error) {
	var cands []*candidate
	if q.Standing {
		cands, err = e.standingCandidates()
	} else {
		cands, err = e.cueCandidates(cue)
	}
	if err != nil {
		return nil, 0, nil, err
	}
	semantic := e.semanticOn(q, cue)
	if semantic {
		// The semantic layer compares every candidate's text.
		cands = slices.DeleteFunc(cands, func(c *candidate) bool { return !c.load() })
		cands = e.semanticPool(cands)
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, nil, err
	}
	relevant := e.relevant(ctx, cue, q, cands, high, semantic)
	// Rank roughly on the index's fields (without recency, which needs the
	// file), and read only the files of the best few per kind.
	sort.SliceStable(relevant, func(i, j int) bool { return relevant[i].prelim > relevant[j].prelim })
	items, skipped = e.read(relevant, cue, q, high, e.now())
	byPath = make(map[string]*candidate, len(relevant))
	for _, c := range relevant {
		byPath[c.path] = c
	}
	return items, skipped, byPath, nil
}

// standingLister is a Searcher that lists the standing documents best
// first (the activation index, Compiled.eachStanding): a new session then
// reads them in that order and stops when every kind has its share,
// instead of ranking a thousand candidates to read a few dozen.
type standingLister interface {
	eachStanding(s Search, visit func(*candidate) bool) error
}

// readStanding is search for a new session's standing context over a
// standingLister: the same candidates, filtered and read in the same
// order (standingWeight is their prelim), but only until each kind of a
// set has maxReadPerKind items. skipped counts the relevant candidates it
// passed over on the way, not those it never looked at.
func (e *Engine) readStanding(sl standingLister, cue *cue, q Query, high map[string]bool, now time.Time) (items []Item, skipped int, byPath map[string]*candidate, err error) {
	perKind := map[string]int{}
	byPath = map[string]*candidate{}
	for _, set := range standingSets {
		// One walk per kind: the corrections' walk stops once it has read
		// its share, and the preferences' does not walk the corrections'
		// postings to find the few preferences among them.
		var kinds []string
		byKind := map[string][]string{}
		for _, t := range set.types {
			if kd := kindOf(set.layer, t); kd != "" {
				if _, ok := byKind[kd]; !ok {
					kinds = append(kinds, kd)
				}
				byKind[kd] = append(byKind[kd], t)
			}
		}
		for _, kd := range kinds {
			if perKind[kd] >= maxReadPerKind {
				continue
			}
			s := Search{Layers: []string{set.layer}, DocTypes: byKind[kd], Standing: true}
			if e.Config.ScopeProjects {
				s.Project = q.Project
			}
			err := sl.eachStanding(s, func(c *candidate) bool {
				if !e.keepStanding(c, q, high, cue.tax) {
					return true
				}
				byPath[c.path] = c
				if !c.load() {
					skipped++
					return true
				}
				if it, ok := e.item(c, cue, q, high, now); ok {
					perKind[kd]++
					items = append(items, it)
				}
				return perKind[kd] < maxReadPerKind
			})
			if err != nil {
				return nil, 0, nil, fmt.Errorf("recall: %w", err)
			}
		}
	}
	return items, skipped, byPath, nil
}

// Taxonomy is the action-type taxonomy the engine classifies with:
// kb.yaml's (Config.Taxonomy), or the built-in one.
func (e *Engine) Taxonomy() *observations.Taxonomy {
	if e.Config.Taxonomy != nil {
		return e.Config.Taxonomy
	}
	return observations.Default()
}

// relevant matches the candidates to the cue on the index's fields and
// returns those that apply, each with its rough rank (prelim). With the
// semantic layer on, the candidates no cue matched are compared by
// meaning.
func (e *Engine) relevant(ctx context.Context, cue *cue, q Query, cands []*candidate, high map[string]bool, semantic bool) []*candidate {
	var relevant, unmatched []*candidate
	for _, c := range cands {
		if q.Standing {
			if e.keepStanding(c, q, high, cue.tax) {
				relevant = append(relevant, c)
			}
			continue
		}
		if !surfaces(c) || c.standingOnly {
			continue
		}
		cue.readSaid(c)
		if cue.match(c); c.relevance <= 0 {
			if semantic && !c.rejected {
				unmatched = append(unmatched, c)
			}
			continue
		}
		if outOfScope(c, q, &e.Config, high, cue.tax) {
			continue
		}
		c.prelim = prelim(c)
		relevant = append(relevant, c)
	}
	if len(unmatched) > 0 {
		if err := e.matchSemantic(ctx, cue, unmatched); err != nil {
			e.logf("embeddings: %v (semantic matching skipped)", err)
		}
	}
	for _, c := range unmatched {
		if c.relevance <= 0 {
			continue
		}
		c.prelim = prelim(c)
		relevant = append(relevant, c)
	}
	return relevant
}

// surfaces reports whether a candidate is of a kind recall puts in front of
// an agent and still stands (not superseded or rejected).
func surfaces(c *candidate) bool {
	return c.status != observations.StatusSuperseded && c.status != observations.StatusRejected && kindOf(c.layer, c.typ) != ""
}

// keepStanding is relevant for a standing candidate: a kind recall
// surfaces, not superseded or rejected, earning its place (standing) and
// in scope; it sets the candidate's relevance (1) and prelim.
func (e *Engine) keepStanding(c *candidate, q Query, high map[string]bool, tax *observations.Taxonomy) bool {
	if !surfaces(c) {
		return false
	}
	if !e.standing(c, q) {
		return false // comes back at its moment, through the action's own cue
	}
	c.relevance = 1
	if outOfScope(c, q, &e.Config, high, tax) {
		return false
	}
	c.prelim = prelim(c)
	return true
}

// standing reports whether a candidate earns a place in the standing
// context of a new session, on the index's fields: a library note (the
// curated layer); a correction that recurred or a person promoted; a
// preference that recurred, was promoted, or is this project's (any
// preference of a KB inside a project). A one-off correction comes back at
// its moment through its action's cue, and another project's one-off
// lesson not at all. Review is read from the file (item).
func (e *Engine) standing(c *candidate, q Query) bool {
	if !mayStand(c.layer, c.typ, c.status, c.lesson, c.sessions) {
		return false
	}
	if c.layer == LayerObservations && c.sessions < 2 && c.status != observations.StatusPromoted && c.typ == observations.TypePreference {
		// A query that names no project is not scoped (kb recall
		// --standing); one written by hand (no session, so no project)
		// stands everywhere, as outOfScope has it.
		switch {
		case !e.Config.ScopeProjects || q.Project == "":
			return true
		case len(c.projects) == 0:
			return !c.fromSession
		}
		return inProject(c.projects, q.Project)
	}
	return true
}

// mayStand is standing without the project, on a document's kind and
// stored fields: a library note, a lesson that recurred or was promoted,
// a preference. A failure report ("Check that the change to X really
// works; the person reported: ...") is about changing X, not about every
// session: it comes back when X is changed, and stands only once a person
// promoted it.
func mayStand(layer, typ, status, lesson string, sessions float64) bool {
	if status == observations.StatusPromoted || layer != LayerObservations {
		return true
	}
	if typ == observations.TypeCorrection && observations.IsFailureReport(lesson) {
		return false
	}
	return sessions >= 2 || typ == observations.TypePreference
}

// read makes the items of the relevant candidates, best first, reading at
// most maxReadPerKind files of each kind; skipped counts those left
// unread.
func (e *Engine) read(relevant []*candidate, cue *cue, q Query, high map[string]bool, now time.Time) (items []Item, skipped int) {
	perKind := map[string]int{}
	for _, c := range relevant {
		kd := kindOf(c.layer, c.typ)
		if perKind[kd] >= maxReadPerKind {
			skipped++
			continue
		}
		if !c.load() {
			skipped++
			continue
		}
		if it, ok := e.item(c, cue, q, high, now); ok {
			perKind[kd]++
			items = append(items, it)
		}
	}
	return items, skipped
}
