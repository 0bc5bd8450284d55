package recall

import (
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kbmem/kb/library"
	"github.com/kbmem/kb/observations"
)

// maxReadPerKind bounds the files read per kind of item: a budget holds
// far fewer items than this.
const maxReadPerKind = 16

// prelim is a candidate's rough rank on the index's fields, before its
// file is read: relevance x consequence x frequency, without recency.
func prelim(c *candidate) float64 {
	return c.relevance * standingWeight(c.importance, c.sessions)
}

// standingWeight is prelim without the relevance: consequence x frequency.
// It is a standing candidate's prelim (its relevance is 1), and the order
// in which the activation index lists the standing documents
// (standingRank), so that a new session reads them best first and stops
// when each kind has its share (Engine.readStanding).
func standingWeight(importance, sessions float64) float64 {
	return (0.5 + math.Max(importance, 0.1)) * (1 + math.Log(math.Max(1, sessions)))
}

// priority is an item's score: relevance x recency x consequence x
// frequency, with what its file says (o, lastSeen) over the index's
// fields.
func priority(c *candidate, o *observations.Observation, lastSeen, now time.Time, sessions float64, high bool) float64 {
	recency := 1.0
	if !lastSeen.IsZero() {
		age := now.Sub(lastSeen).Hours() / 24
		if age < 0 {
			age = 0
		}
		recency = 0.5 + 0.5*math.Exp(-age/90)
	}
	imp := c.importance
	if o != nil && o.Importance > 0 {
		imp = o.Importance
	}
	if imp <= 0 {
		imp = 0.5
	}
	consequence := 0.5 + imp
	if high {
		consequence *= 1.3
	}
	freq := 1 + math.Log(math.Max(1, sessions))
	return math.Round(c.relevance*recency*consequence*freq*1000) / 1000
}

// byScore orders items best first, then by id.
func byScore(items []Item) {
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].Score != items[j].Score {
			return items[i].Score > items[j].Score
		}
		return items[i].ID < items[j].ID
	})
}

// outOfScope reports whether c is a lesson of another project than the
// query's, in a KB that holds many: it travels only when it is general
// (seen in two projects, or promoted) or about a high-consequence action,
// and is then marked otherProject. About it means in the lesson's own
// words (tax, when given, reads them): a refusal of `rm -rf` in another
// project followed by "find a cleaner way to reinstall" is about that
// project's reinstall, not about deleting, and does not follow the agent
// into every project where it deletes something. A lesson of no known
// project (written by hand, or from a transcript without a working
// directory) stays in scope.
func outOfScope(c *candidate, q Query, cfg *Config, high map[string]bool, tax *observations.Taxonomy) bool {
	if !cfg.ScopeProjects || q.Project == "" || inProject(c.projects, q.Project) {
		return false
	}
	// No project known: a lesson written by hand (or over MCP) applies
	// anywhere; one extracted from a session that recorded no working
	// directory (an aider history, a generic export) is of a project
	// nobody knows, and travels like another project's.
	if len(c.projects) == 0 && !c.fromSession {
		return false
	}
	about := c.typeScore >= 0.9 && high[c.matchedAT] && (tax == nil || sameDomainVerb(c.ownTypes(tax), c.matchedAT))
	if len(c.projects) < 2 && c.status != observations.StatusPromoted && !about {
		return true
	}
	c.otherProject = true
	return false
}

// foldCovered spends one line, not two, on a lesson that an observation
// and a library note both give (library.Covering: the note's title and
// description say the observation's lesson, with a shared action-type
// trigger). The observation's line stays: it is the person's own words,
// tied to the action at hand and to its sessions; the note is named on it
// ("[cor-..., stage-files-by-name]") so the agent can open it, and its
// budget goes to the next item.
// foldRepeated drops an item whose lesson a better item already shows
// word for word: one message of the person's can yield a correction and a
// preference, and the agent gains nothing from reading it twice. items
// are best first.
func foldRepeated(items []Item) []Item {
	out := items[:0]
	var kept []string // the texts of out, in lower case, each lowered once
	for _, it := range items {
		key := strings.ToLower(strings.TrimRight(strings.TrimSpace(it.Lesson), ".!…"))
		if len(key) > 60 {
			key = key[:60]
		}
		repeated := len(key) >= 20 && slices.ContainsFunc(kept, func(k string) bool { return strings.Contains(k, key) })
		if !repeated {
			out = append(out, it)
			kept = append(kept, strings.ToLower(it.Text))
		}
	}
	return out
}

func foldCovered(items []Item, byPath map[string]*candidate) []Item {
	var notes []library.Note
	var at []int
	for i, it := range items {
		if c := byPath[it.Path]; c != nil && c.layer == LayerLibrary {
			notes = append(notes, library.Note{ID: it.ID, Path: it.Path, Type: c.typ, Title: c.title, Text: c.description,
				Triggers: append(slices.Clone(c.types), c.phrases...)})
			at = append(at, i)
		}
	}
	if len(notes) == 0 {
		return items
	}
	cov := library.NewCoverage(notes)
	drop := map[int]bool{}
	for i := range items {
		c := byPath[items[i].Path]
		if c == nil || c.layer != LayerObservations {
			continue
		}
		o := observations.WithText(c.typ, c.lesson, c.types)
		if o == nil {
			continue
		}
		o.Trigger = c.trigger
		n := cov.Covering(o)
		if n == nil {
			continue
		}
		j := at[slices.IndexFunc(notes, func(x library.Note) bool { return x.Path == n.Path })]
		drop[j] = true
		it := &items[i]
		if ref := "[" + it.ID + "]"; strings.HasSuffix(it.Text, ref) {
			it.Text = strings.TrimSuffix(it.Text, ref) + "[" + it.ID + ", " + n.ID + "]"
		} else {
			it.Text += " [" + n.ID + "]"
		}
		it.Score = math.Max(it.Score, items[j].Score)
		it.Reasons = append(it.Reasons, "library note "+n.ID+" says the same")
	}
	if len(drop) == 0 {
		return items
	}
	out := items[:0]
	for i, it := range items {
		if !drop[i] {
			out = append(out, it)
		}
	}
	byScore(out)
	return out
}

func kindOf(layer, typ string) string {
	switch layer {
	case LayerObservations:
		switch typ {
		case observations.TypeCorrection:
			return KindCorrections
		case observations.TypePreference:
			return KindPreferences
		case observations.TypeProcedure:
			return KindProcedures
		case observations.TypeNegativeResult:
			return KindPrecedents
		}
		return "" // decisions, discoveries, questions: searched, not pushed
	case LayerEpisodes:
		return KindPrecedents
	case LayerLibrary:
		return KindLibrary
	}
	return ""
}

// packBudget keeps the best items within the total budget: each kind first
// fills its reserved share (recall.budgets, scaled to the total), then the
// remaining tokens go to the best leftover items of any kind. The header and
// footer of the markdown block are counted.
func packBudget(items []Item, budget int, shares map[string]int) ([]Item, int) {
	if len(items) == 0 {
		return []Item{}, 0
	}
	limit := budget*4 - len(header) - len(footer) // characters
	sum := 0
	for _, kd := range kinds {
		sum += max(0, shares[kd])
	}
	reserved := map[string]int{}
	for _, kd := range kinds {
		if sum > 0 {
			reserved[kd] = max(0, shares[kd]) * limit / max(sum, 1)
			if sum < budget { // shares smaller than the total: keep them as written
				reserved[kd] = max(0, shares[kd]) * 4
			}
		}
	}
	cost := func(it Item) int { return len(it.Text) + 3 }
	used, total := map[string]int{}, 0
	take := make([]bool, len(items))
	for i, it := range items {
		c := cost(it)
		if used[it.Kind]+c <= reserved[it.Kind] && total+c <= limit {
			take[i] = true
			used[it.Kind] += c
			total += c
		}
	}
	for i, it := range items {
		if take[i] {
			continue
		}
		if c := cost(it); total+c <= limit {
			take[i] = true
			total += c
		}
	}
	out := []Item{}
	dropped := 0
	for i, it := range items {
		if take[i] {
			out = append(out, it)
		} else {
			dropped++
		}
	}
	return out, dropped
}
