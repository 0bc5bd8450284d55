package observations

import (
	"github.com/kbmem/kb/internal/textutil"
	"slices"
	"sort"
	"strings"

	"github.com/kbmem/kb/traces"
)

// Session is one agent session's records, in Seq order.
type Session struct {
	ID      string
	Records []traces.Record

	// types memoizes callTypes: every extractor classifies the same calls.
	types       map[*traces.Record][]string
	contentOnly map[*traces.Record][]string
	typesTax    *Taxonomy
}

// callTypes is tax.ClassifyCall of record i, computed once per session
// and taxonomy (the correction, negative-result and other extractors all
// ask for the calls around each message), with the types the call has only
// through what it writes last: `python -c "...print(...)"` is first of all
// running Python, an edit of a test with print() in it an edit of tests.
func (s *Session) callTypes(tax *Taxonomy, i int) []string {
	r := &s.Records[i]
	if s.types == nil || s.typesTax != tax {
		s.types, s.contentOnly, s.typesTax = map[*traces.Record][]string{}, map[*traces.Record][]string{}, tax
	}
	if t, ok := s.types[r]; ok {
		return t
	}
	t := tax.ClassifyCall(r.Tool, r.Input)
	var co []string
	if len(t) > 0 {
		if co = tax.contentOnly(r.Tool, r.Input, t); len(co) > 0 && len(co) < len(t) {
			var first, last []string
			for _, ty := range t {
				if slices.Contains(co, ty) {
					last = append(last, ty)
				} else {
					first = append(first, ty)
				}
			}
			t = append(first, last...)
		}
	}
	s.types[r], s.contentOnly[r] = t, co
	return t
}

// shapeTypes are record i's call types without those it has only through
// what it writes: two `python -c` scripts are one approach, whatever they
// print.
func (s *Session) shapeTypes(tax *Taxonomy, i int) []string {
	co := s.callContentOnly(tax, i)
	return slices.DeleteFunc(slices.Clone(s.callTypes(tax, i)), func(t string) bool { return slices.Contains(co, t) })
}

// callContentOnly are the types of record i's call that it has only
// through what it writes (Taxonomy.contentOnly, when it has others too).
func (s *Session) callContentOnly(tax *Taxonomy, i int) []string {
	s.callTypes(tax, i)
	return s.contentOnly[&s.Records[i]]
}

// Extractor is one narrow, schema-constrained extractor for one
// observation type.
type Extractor interface {
	Type() string
	Extract(s *Session) []*Observation
}

// Extractors returns the per-session extractors for types (all per-session
// types when types is empty), using taxonomy tax (the default when nil).
// Procedures are mined across sessions by Procedures, not here.
func Extractors(tax *Taxonomy, types []string) []Extractor {
	if tax == nil {
		tax = defaultTaxonomy()
	}
	all := []Extractor{
		&correctionExtractor{tax}, &preferenceExtractor{tax}, &decisionExtractor{tax},
		&negativeExtractor{tax}, &discoveryExtractor{tax}, &questionExtractor{tax},
	}
	if len(types) == 0 {
		return all
	}
	var out []Extractor
	for _, e := range all {
		for _, t := range types {
			if e.Type() == t {
				out = append(out, e)
			}
		}
	}
	return out
}

// MaxPerRecords bounds extraction: a session yields at most one observation
// per this many records (but at least minCap), the most important kept.
const (
	MaxPerRecords = 10
	minCap        = 6
)

// Extract runs the narrow extractors for types (all when empty) over s,
// merges near-duplicates, fills the common fields (ID, lifecycle, status,
// sessions, first/last seen) and caps the count at one observation per
// MaxPerRecords records. Corrections are never dropped by the cap.
func Extract(s *Session, tax *Taxonomy, types []string) []*Observation {
	if s == nil || len(s.Records) == 0 {
		return nil
	}
	var obs []*Observation
	for _, e := range Extractors(tax, types) {
		obs = append(obs, e.Extract(s)...)
	}
	obs = withoutRetracted(s, obs)
	for _, o := range obs {
		finish(o)
	}
	obs = Dedupe(obs)
	markCorrecting(obs)
	limit := max(minCap, (len(s.Records)+MaxPerRecords-1)/MaxPerRecords)
	if len(obs) > limit {
		sort.SliceStable(obs, func(i, j int) bool {
			ci, cj := obs[i].Type == TypeCorrection, obs[j].Type == TypeCorrection
			if ci != cj {
				return ci
			}
			return obs[i].Importance*obs[i].Confidence > obs[j].Importance*obs[j].Confidence
		})
		keep := limit
		for keep < len(obs) && obs[keep].Type == TypeCorrection {
			keep++
		}
		obs = obs[:keep]
		sort.SliceStable(obs, func(i, j int) bool { return firstFrom(obs[i]) < firstFrom(obs[j]) })
	}
	return obs
}

// markCorrecting gives SignalCorrecting to each preference taken from a
// person message a correction was also taken from (its source lies in the
// correction's records, which run from the corrected call to the words).
func markCorrecting(obs []*Observation) {
	var said []SourceRef
	for _, o := range obs {
		if o.Type == TypeCorrection {
			said = append(said, o.Sources...)
		}
	}
	within := func(p SourceRef) bool {
		return slices.ContainsFunc(said, func(c SourceRef) bool {
			return c.Session == p.Session && p.From <= c.To && c.From <= p.To
		})
	}
	for _, o := range obs {
		if o.Type == TypePreference && !slices.Contains(o.Signals, SignalCorrecting) && slices.ContainsFunc(o.Sources, within) {
			o.Signals = append(o.Signals, SignalCorrecting)
		}
	}
}

func firstFrom(o *Observation) int {
	if len(o.Sources) == 0 {
		return 0
	}
	return o.Sources[0].From
}

// finish fills the fields every observation shares.
func finish(o *Observation) {
	if o.Lifecycle == "" {
		o.Lifecycle = LifecycleOf(o.Type)
	}
	if o.Status == "" {
		o.Status = StatusCandidate
	}
	o.Sessions = distinctSessions(o.Sources)
	for _, s := range o.Sources {
		o.FirstSeen = minTime(o.FirstSeen, s.Time)
		o.LastSeen = maxTime(o.LastSeen, s.Time)
	}
	if len(o.ActionTypes) > 0 && o.ActionType == "" {
		o.ActionType = o.ActionTypes[0]
	}
	o.Confidence = clamp01(o.Confidence)
	o.Importance = clamp01(o.Importance)
	if o.ID == "" {
		o.ID = o.MakeID()
	}
}

// retractRE is the person taking back what they just said: "never mind",
// "actually, let's keep using bash", "vergiss es", "olvídalo", "laisse
// tomber", "забудь", "算了", "やっぱり".
var retractRE = textutil.Lazy(`(?i)^\s*(?:actually\b[^.!?]{0,40}[.!?,]?\s*(?:\S+\s+){0,3}?(?:let'?s\s+)?(?:continue|keep|stick with|stay with|go back to|revert to)\b|vergiss (?:es|das)\b|doch nicht\b|olvídalo|olvida eso|mejor no\b|laisse tomber|oublie (?:ça|ca)\b|finalement non\b|забудь|неважно|算了|还是用回|やっぱり(?:いい|やめ|元)|됐어|아니 그냥)`)

// retracted reports whether text takes back the message before it: the
// English "never mind" family the correction rules know (neverMindRE),
// or retractRE.
func retracted(text string) bool { return neverMindRE.MatchString(text) || retractRE.MatchString(text) }

// withoutRetracted leaves out what the person took back in their next
// message: the corrections, preferences and decisions whose source ends
// at a message that the following one retracts ("Let's use python
// instead of bash" ... "Actually, never mind. Let's continue using
// bash").
func withoutRetracted(s *Session, obs []*Observation) []*Observation {
	tl := buildTimeline(s)
	gone := map[int]string{} // Seq of the retracted message -> the retraction
	for k := 1; k < len(tl.utts); k++ {
		if retracted(tl.utts[k].text) {
			gone[tl.rec(tl.utts[k-1].idx).Seq] = tl.utts[k].text
		}
	}
	if len(gone) == 0 {
		return obs
	}
	out := obs[:0]
	for _, o := range obs {
		personal := o.Type == TypeCorrection || o.Type == TypePreference || o.Type == TypeDecision
		if back, ok := gone[lastTo(o)]; personal && ok && retracts(back, o) {
			continue
		}
		out = append(out, o)
	}
	return out
}

// retracts reports whether retraction back takes back o: it keeps to the
// old way ("let's continue using bash") or names what o is about. "Never
// mind! But add a details element" drops the request before it, not the
// constraint the person stated with it.
func retracts(back string, o *Observation) bool {
	ss := sentences(back)
	if len(ss) == 0 {
		return false
	}
	if keepOldRE.MatchString(strings.Join(ss[:min(2, len(ss))], " ")) {
		return true
	}
	return sharesTopic(ss[0], o.Summary())
}

// sharesTopic reports whether a and b share a topic token.
func sharesTopic(a, b string) bool {
	tb := topicTokens(b)
	for t := range topicTokens(a) {
		if tb[t] {
			return true
		}
	}
	return false
}

// keepOldRE is a retraction that keeps to the way before it.
var keepOldRE = textutil.Lazy(`(?i)\b(?:continue|keep|stick with|stay with|go back to|revert to|bleiben bei|bleib bei|seguimos con|sigamos con|on garde|restons|оставим|вернёмся|还是用|继续用|のままで|그대로)\b`)

func lastTo(o *Observation) int {
	if len(o.Sources) == 0 {
		return -1
	}
	return o.Sources[len(o.Sources)-1].To
}
