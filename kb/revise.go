package kb

import (
	"errors"
	"io/fs"
	"sort"
	"time"

	"github.com/kbmem/kb/observations"
	"github.com/kbmem/kb/traces"
)

// Revising observations already written (observations.Retract, Fold): each
// extraction run, before it merges its candidates, retires what turned out
// to rest on a template and folds files that are one observation. The
// changes go through the run's journal with its other writes.

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
func (ta *turnAuthors) notPerson(s observations.SourceRef) bool {
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
func (k *KB) templateSources(x *extraction, files []*ObsFile) func(observations.SourceRef) bool {
	if x.attr == nil {
		return func(observations.SourceRef) bool { return false }
	}
	paths := map[string]string{}
	for _, info := range x.all {
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
			if !ok || !x.attr.MayRecur(p) {
				continue
			}
			if sd, _, err := k.readSession(traces.SessionInfo{ID: s.Session, Path: p}); err == nil {
				x.turns[s.Session] = attribute(x.attr, sd.sess.Records, p)
			}
		}
	}
	return func(s observations.SourceRef) bool { return x.turns[s.Session].notPerson(s) }
}

// reviseObservations retracts and folds the live files; it returns the
// files as they stand after, the new tombstones, and the revisions.
func (k *KB) reviseObservations(x *extraction, live []*ObsFile, rep *ExtractReport) ([]*ObsFile, []observations.Tombstone, []*observations.Revision) {
	var all []*observations.Revision
	var tombs []observations.Tombstone
	apply := func(revs []*observations.Revision) {
		byPath := map[string]*observations.Revision{}
		for _, r := range revs {
			byPath[r.File.Path] = r
		}
		out := live[:0:0]
		for _, f := range live {
			r := byPath[f.Path]
			switch {
			case r == nil:
				out = append(out, f)
			case r.Tomb != nil:
				tombs = append(tombs, *r.Tomb)
			default:
				nf, prob := observations.ParseFile(f.Path, r.Content)
				if prob != nil {
					rep.Problems = append(rep.Problems, *prob)
					out = append(out, f)
					continue
				}
				out = append(out, nf)
			}
		}
		live = out
		all = append(all, revs...)
	}
	revs, probs := observations.Retract(live, k.templateSources(x, live), time.Now())
	rep.Problems = append(rep.Problems, probs...)
	for _, r := range revs {
		if r.Tomb != nil {
			rep.Retracted = append(rep.Retracted, r.File.Path)
		}
	}
	apply(revs)
	revs, probs = observations.Fold(live)
	rep.Problems = append(rep.Problems, probs...)
	for _, r := range revs {
		if r.Into != nil {
			rep.Folded = append(rep.Folded, Fold{From: r.File.Path, Into: r.Into.Path})
		}
	}
	apply(revs)
	return live, tombs, all
}

// Fold is one observation file folded into another (ExtractReport.Folded).
type Fold struct {
	From string `json:"from"`
	Into string `json:"into"`
}

// revisionWrites turns revisions and the merge's writes into the journal's
// writes: one per file, from the file as found on disk (raw, by path) to
// its final bytes;
// the tombstones first, the removals last.
func (k *KB) revisionWrites(raw map[string][]byte, revs []*observations.Revision, tombs []observations.Tombstone, merged []*observations.Write) ([]*obsWrite, error) {
	var writes []*obsWrite
	if len(tombs) > 0 {
		old, err := k.files().ReadFile(k.tombstonePath())
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		content := old
		for _, t := range tombs {
			content = observations.AppendTombstone(content, t)
		}
		w := &obsWrite{Path: TombstoneFile, Content: content, After: sum(content)}
		if err == nil {
			w.Before = sum(old)
		}
		writes = append(writes, w)
	}
	final := map[string][]byte{}
	var order []string
	set := func(p string, b []byte) {
		if _, ok := final[p]; !ok {
			order = append(order, p)
		}
		final[p] = b
	}
	var deletes []*obsWrite
	for _, r := range revs {
		if r.Tomb != nil {
			deletes = append(deletes, &obsWrite{Path: r.File.Path, Before: sum(raw[r.File.Path]), Delete: true})
			continue
		}
		set(r.File.Path, r.Content)
	}
	for _, w := range merged {
		if w.Before != nil {
			if _, ok := raw[w.Path]; !ok {
				raw[w.Path] = w.Before
			}
		}
		set(w.Path, w.Content)
	}
	for _, p := range order {
		w := &obsWrite{Path: p, Content: final[p], After: sum(final[p])}
		if b, ok := raw[p]; ok {
			if sum(b) == w.After {
				continue
			}
			w.Before = sum(b)
		}
		writes = append(writes, w)
	}
	return append(writes, deletes...), nil
}
