package observations

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/kbmem/kb/internal/doc"
)

// The git merge of an observation file (kb merge-driver): two clones that
// extracted, reviewed or edited the same observation since their common
// base. The rules, per field (docs/format.md has them as a table):
//
//   - sources: the three-way set merge (each side's additions, minus what
//     a side removed from the base), in the canonical order; sessions
//     recounted from them, and the recurrence and return signals derived
//     as an extraction would.
//   - signals, projects, references, action_types: three-way set merge.
//   - first_seen the earlier, last_seen and reviewed the later.
//   - accepts, rejects: the base's plus what each side added; consistency
//     recomputed from them.
//   - confidence, importance: the side that changed them; both changed,
//     the higher, raised by the sessions the union adds as extraction
//     raises them.
//   - status: the side that changed it; both changed, the one further
//     along (superseded, rejected, promoted, candidate).
//   - every other field (the text): the side that changed it; both changed
//     differently, the side a person edited wins over kb's text; both
//     edited, ours stays in the field and both values go to kb_conflicts,
//     a conflict for the person; neither edited (the same observation
//     extracted in two clones), the older extraction's text (earlier
//     first_seen), so both merge orders agree.
//   - the body: kb's rendering of the merged fields when neither side was
//     edited; otherwise merged line-wise, a stretch both changed going by
//     the rule above, with the Sources line recomputed.
//   - keys kb does not know (a person's): the side that changed them; both
//     changed, ours, and a kb_conflicts entry.

// statusRank orders statuses by how far along an observation is: a
// status change toward the end wins over one toward the start.
var statusRank = map[string]int{StatusCandidate: 1, StatusPromoted: 2, StatusRejected: 3, StatusSuperseded: 4}

// mergeSpecial are the fields GitMerge merges by their own rule, not as
// text.
var mergeSpecial = map[string]bool{"sources": true, "sessions": true, "reviewed": true, "first_seen": true, "last_seen": true,
	"signals": true, "projects": true, "references": true, "action_types": true, "importance": true, "confidence": true,
	"accepts": true, "rejects": true, "consistency": true, "answered": true, "status": true}

// GitMerge merges two versions of the observation file at rel (slash path)
// against their common base (empty when both sides added the file). It
// returns the merged file, which parses when both sides do (one side
// unchanged from the base: the other as it is, doc.Trivial3), and the conflicts it left
// in the file's kb_conflicts for the person: fields both sides edited by
// hand to different values, ours kept. The error says why it cannot merge
// at all: a side that is no observation file.
func GitMerge(rel string, base, ours, theirs []byte) ([]byte, []doc.Conflict, error) {
	if out, ok := doc.Trivial3(base, ours, theirs); ok {
		return out, nil, nil
	}
	fa, fb, fo, _, err := doc.ParseSides(rel, base, ours, theirs, ParseFile) // a damaged base is no base: the union
	if err != nil {
		return nil, nil, err
	}
	m := &obsMerge{rel: rel, a: fa, b: fb, o: fo}
	return m.run()
}

type obsMerge struct {
	rel       string
	o, a, b   *File
	conflicts []doc.Conflict
}

func (m *obsMerge) run() ([]byte, []doc.Conflict, error) {
	ra, rb := rawFields(m.a), rawFields(m.b)
	ro := map[string]any{}
	if m.o != nil {
		ro = rawFields(m.o)
	}
	ka, kb, ko := doc.NormalizeFields(m.a.Obs.ToMap()), doc.NormalizeFields(m.b.Obs.ToMap()), map[string]any{}
	if m.o != nil {
		ko = doc.NormalizeFields(m.o.Obs.ToMap())
	}
	// The text: known fields but the ones with a rule of their own.
	merged := map[string]any{}
	for _, k := range fieldOrder {
		if mergeSpecial[k] {
			continue
		}
		if v, ok := m.field(k, ko, ka, kb, false); ok {
			merged[k] = v
		}
	}
	obs, err := FromMap(merged)
	if err != nil {
		return nil, nil, fmt.Errorf("merged fields: %w", err)
	}
	m.bookkeeping(obs)
	// A person's keys, and the conflicts both sides already carried.
	extra := map[string]any{}
	for _, k := range doc.UnionKeys(ro, ra, rb) {
		if k == doc.DigestKey || k == doc.ConflictsKey || knownField[k] {
			continue
		}
		if v, ok := m.field(k, ro, ra, rb, true); ok {
			extra[k] = v
		}
	}
	rendered, err := Render(obs)
	if err != nil {
		return nil, nil, err
	}
	var out []byte
	if !m.a.Edited && !m.b.Edited {
		// kb's text on both sides: the merged observation as kb writes it.
		out = rendered
		if len(extra) > 0 || len(m.conflicts) > 0 || ra[doc.ConflictsKey] != nil || rb[doc.ConflictsKey] != nil {
			m.putConflicts(extra, ra, rb)
			if out, err = doc.Update(out, extra, nil); err != nil {
				return nil, nil, err
			}
		}
	} else {
		want, err := fieldsOf(rendered)
		if err != nil {
			return nil, nil, err
		}
		// The digest of an edited side stays: the result is still a
		// person's text, which extraction does not rewrite.
		edited := m.a
		if !m.a.Edited {
			edited = m.b
		}
		if d := rawFields(edited)[doc.DigestKey]; d != nil {
			want[doc.DigestKey] = d
		} else {
			delete(want, doc.DigestKey)
		}
		body := m.body(obs)
		m.putConflicts(extra, ra, rb)
		for k, v := range extra {
			want[k] = v
		}
		if out, err = doc.UpdateTo(m.a.Raw, want, &body); err != nil {
			return nil, nil, err
		}
	}
	if _, p := ParseFile(m.rel, out); p != nil {
		return nil, nil, fmt.Errorf("the merged file would not parse: %s", p)
	}
	return out, m.conflicts, nil
}

// field merges one key of the normalized field maps; person says the key
// is a person's own (unknown to kb), so two different changes conflict.
func (m *obsMerge) field(k string, o, a, b map[string]any, person bool) (any, bool) {
	vo, okO := o[k]
	va, okA := a[k]
	vb, okB := b[k]
	v, ok, conflict := doc.Merge3Value(vo, va, vb, okO, okA, okB)
	if !conflict {
		return v, ok
	}
	switch {
	case !person && m.a.Edited != m.b.Edited:
		if m.b.Edited {
			return vb, okB
		}
		return va, okA
	case !person && !m.a.Edited:
		if m.theirsOlder(va, vb) {
			return vb, okB
		}
		return va, okA
	}
	m.conflicts = append(m.conflicts, doc.Conflict{Field: k, Ours: doc.ShowValue(va, okA), Theirs: doc.ShowValue(vb, okB)})
	return va, okA
}

// theirsOlder reports whether theirs is the older extraction (the earlier
// first seen; on a tie the smaller value), whose text a merge of two
// kb-written versions keeps.
func (m *obsMerge) theirsOlder(va, vb any) bool {
	ta, tb := m.a.Obs.FirstSeen, m.b.Obs.FirstSeen
	if !ta.Equal(tb) && !ta.IsZero() && !tb.IsZero() {
		return tb.Before(ta)
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return string(jb) < string(ja)
}

// bookkeeping sets the fields with a rule of their own on the merged
// observation.
func (m *obsMerge) bookkeeping(out *Observation) {
	a, b := m.a.Obs, m.b.Obs
	o := &Observation{}
	if m.o != nil {
		o = m.o.Obs
	}
	src := func(x *Observation) []string {
		var s []string
		for _, r := range x.Sources {
			r.Time = time.Time{}
			s = append(s, r.String())
		}
		return s
	}
	for _, s := range doc.MergeSet(src(o), src(a), src(b)) {
		if r, err := ParseSourceRef(s); err == nil {
			out.Sources = append(out.Sources, r)
		}
	}
	canonical(out)
	sa, sb := max(a.Sessions, distinctSessions(a.Sources)), max(b.Sessions, distinctSessions(b.Sources))
	out.Sessions = distinctSessions(out.Sources)
	if len(out.Sources) == 0 {
		out.Sessions = merge3Int(o.Sessions, a.Sessions, b.Sessions)
	}
	out.FirstSeen = minTime(a.FirstSeen, b.FirstSeen)
	out.LastSeen = maxTime(a.LastSeen, b.LastSeen)
	out.Reviewed = maxTime(a.Reviewed, b.Reviewed)
	out.Signals = doc.MergeSet(o.Signals, a.Signals, b.Signals)
	out.Projects = doc.MergeSet(o.Projects, a.Projects, b.Projects)
	sort.Strings(out.Projects)
	out.References = doc.MergeSet(o.References, a.References, b.References)
	out.ActionTypes = doc.MergeSet(o.ActionTypes, a.ActionTypes, b.ActionTypes)
	if out.Sessions >= 2 {
		out.Signals = unionStrings(out.Signals, []string{SignalRecurrence})
		if !out.FirstSeen.IsZero() && out.LastSeen.Sub(out.FirstSeen) >= 24*time.Hour {
			out.Signals = unionStrings(out.Signals, []string{SignalReturn})
		}
	}
	added := func(o, a, b int) int { return o + max(0, a-o) + max(0, b-o) }
	out.Accepts = added(o.Accepts, a.Accepts, b.Accepts)
	out.Rejects = added(o.Rejects, a.Rejects, b.Rejects)
	out.Consistency = merge3Float(o.Consistency, a.Consistency, b.Consistency, 0, 0)
	if out.Type == TypePreference && out.Accepts+out.Rejects > 0 {
		out.Consistency = float64(max(out.Accepts, out.Rejects)) / float64(out.Accepts+out.Rejects)
	}
	more := out.Sessions - max(sa, sb)
	out.Confidence = merge3Float(o.Confidence, a.Confidence, b.Confidence, 0.05, more)
	out.Importance = merge3Float(o.Importance, a.Importance, b.Importance, 0.1, more)
	out.Answered = a.Answered || b.Answered
	out.Status = a.Status
	if v, _, conflict := doc.Merge3Value(o.Status, a.Status, b.Status, true, true, true); !conflict {
		out.Status = v.(string)
	} else if ra, rb := statusRank[a.Status], statusRank[b.Status]; rb > ra || rb == ra && b.Status < a.Status {
		out.Status = b.Status
	}
}

// merge3Int is the three-way merge of a count; both changed, the higher.
func merge3Int(o, a, b int) int {
	switch {
	case a == b, o == b:
		return a
	case o == a:
		return b
	}
	return max(a, b)
}

// merge3Float is the three-way merge of a score: both changed, the higher,
// raised by step for each of the more sessions the union holds.
func merge3Float(o, a, b, step float64, more int) float64 {
	switch {
	case a == b, o == b:
		return a
	case o == a:
		return b
	}
	return clamp01(max(a, b) + step*float64(max(more, 0)))
}

// body merges the bodies of an edited observation line-wise, the Sources
// line left out and written again from the merged sources.
func (m *obsMerge) body(obs *Observation) string {
	lines := func(f *File) []string {
		if f == nil {
			return nil
		}
		d, err := doc.ParseFrontmatter(m.rel, f.Raw)
		if err != nil {
			return nil
		}
		var out []string
		for _, l := range doc.SplitLines(d.Body) {
			if !strings.HasPrefix(l, "Sources: ") {
				out = append(out, l)
			}
		}
		return out
	}
	hadSources := func(f *File) bool {
		return f != nil && bytes.Contains(f.Raw, []byte("\nSources: "))
	}
	merged, _ := doc.Merge3Lines(lines(m.o), lines(m.a), lines(m.b), func(h doc.Hunk) ([]string, bool) {
		switch {
		case m.b.Edited && !m.a.Edited:
			return h.Theirs, true
		case m.a.Edited && m.b.Edited:
			m.conflicts = append(m.conflicts, doc.Conflict{Field: "body", Ours: strings.Join(h.Ours, "\n"), Theirs: strings.Join(h.Theirs, "\n")})
		}
		return h.Ours, true
	})
	if len(obs.Sources) > 0 && (hadSources(m.a) || hadSources(m.b)) {
		for len(merged) > 0 && strings.TrimSpace(merged[len(merged)-1]) == "" {
			merged = merged[:len(merged)-1]
		}
		refs := make([]string, len(obs.Sources))
		for i, s := range obs.Sources {
			refs[i] = s.String()
		}
		if len(merged) > 0 {
			merged = append(merged, "")
		}
		merged = append(merged, "Sources: "+strings.Join(refs, ", "))
	}
	return doc.JoinLines(merged)
}

// putConflicts adds to fields the kb_conflicts key: the conflicts either
// side carried and the ones this merge left.
func (m *obsMerge) putConflicts(fields map[string]any, ra, rb map[string]any) {
	fields[doc.ConflictsKey] = doc.ConflictsValue(doc.ReadConflicts([]any{ra[doc.ConflictsKey], rb[doc.ConflictsKey]}, m.conflicts))
}

func rawFields(f *File) map[string]any {
	d, err := doc.ParseFrontmatter(f.Path, f.Raw)
	if err != nil {
		return map[string]any{}
	}
	return doc.NormalizeFields(d.Fields)
}

func fieldsOf(b []byte) (map[string]any, error) {
	d, err := doc.ParseFrontmatter("", b)
	if err != nil {
		return nil, err
	}
	return d.Fields, nil
}
