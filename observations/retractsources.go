package observations

import (
	"sort"

	"github.com/kbmem/kb/traces"
)

// Which sources rest on a template: a run applies the attribution to the
// sessions it reads and remembers, per session, the user turns it took
// from the person; Retract asks templateSources about each source.

// turnAuthors are, for one session, the Seqs of its user messages: those
// Attribution now gives to a template or the harness although the record
// gives them to the person (flipped), and those that stay the person's.
type turnAuthors struct {
	flipped, person []int // ascending
}

// attribute applies the attribution to a session's records and returns
// what changed (nil when nothing did).
func attribute(a *traces.Attribution, recs []traces.Record, sessionFile string) *turnAuthors {
	var before []bool
	for i := range recs {
		r := &recs[i]
		if r.Role == traces.RoleUser && r.Kind == traces.KindMessage {
			if before == nil {
				before = make([]bool, len(recs))
			}
			before[i] = r.Human()
		}
	}
	if a.Apply(recs, sessionFile) == 0 {
		return nil
	}
	ta := &turnAuthors{}
	for i := range recs {
		r := &recs[i]
		switch {
		case before == nil || r.Role != traces.RoleUser || r.Kind != traces.KindMessage:
		case r.Human():
			ta.person = append(ta.person, r.Seq)
		case before[i]:
			ta.flipped = append(ta.flipped, r.Seq)
		}
	}
	if len(ta.flipped) == 0 {
		return nil
	}
	return ta
}

// notPerson: the source's records hold a turn that is no longer the
// person's, and none that still is.
func (ta *turnAuthors) notPerson(s SourceRef) bool {
	in := func(seqs []int) bool {
		i := sort.SearchInts(seqs, s.From)
		return i < len(seqs) && seqs[i] <= s.To
	}
	return ta != nil && in(ta.flipped) && !in(ta.person)
}

// templateSources returns the test Retract needs: the sessions this run
// read are known already; an older one a person-authored observation
// rests on is read again only when it holds a turn that now recurs
// (Attribution.MayRecur).
func (x *Run) templateSources(files []*File) func(SourceRef) bool {
	if x.Attr == nil {
		return func(SourceRef) bool { return false }
	}
	paths := map[string]string{}
	for _, info := range x.All {
		paths[info.ID] = info.Path
	}
	for _, f := range files {
		if f.Obs.AgentAuthored() {
			continue
		}
		for _, s := range f.Obs.Sources {
			if _, done := x.turns[s.Session]; done {
				continue
			}
			x.turns[s.Session] = nil
			p, ok := paths[s.Session]
			if !ok || !x.Attr.MayRecur(p) {
				continue
			}
			if sess, _, _, err := x.Read(traces.SessionInfo{ID: s.Session, Path: p}); err == nil {
				x.turns[s.Session] = attribute(x.Attr, sess.Records, p)
			}
		}
	}
	return func(s SourceRef) bool { return x.turns[s.Session].notPerson(s) }
}
