package observations

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/kbmem/kb/internal/diag"
)

// Revising observations already on disk. Extraction decides, for each new
// candidate, which file it belongs to; two things can make files already
// written wrong later:
//
//   - a user turn the person seemed to type turns out to be a template once
//     a second session holds it (traces.Attribution decides recurrence when
//     a session is read): what was extracted from it is not the person's
//     word (Retract);
//   - two clones extracted the same correction in other words: their ids
//     differ (MakeID hashes the lesson's words), so after a git merge they
//     are two files with one session each, which the recurrence rule that
//     merges new candidates (recurrence.same) says are one (Fold).
//
// Both are decided here, in memory; the caller writes through the
// extraction journal. A file a person edited is never changed by either:
// it is reported.

// Revision is one change to an observation file: Content is its new bytes
// (nil: the file is removed, and Tomb is the tombstone that records why).
type Revision struct {
	File    *File
	Content []byte
	Tomb    *Tombstone
	// Into is the file a removed one was folded into.
	Into *File
	// Dropped are the sources a retraction took away.
	Dropped []SourceRef
}

// Retract drops from each file the sources notPerson says no longer rest on
// the person's words; a file left with no source is retired (removed, with
// a tombstone by id, so that the same candidate never comes back), one left
// with others keeps them and its counts are recounted. Agent-authored files
// were never the person's and are left alone. A file a person edited is
// reported, not changed.
func Retract(files []*File, notPerson func(SourceRef) bool, at time.Time) ([]*Revision, []diag.Problem) {
	var revs []*Revision
	var probs []diag.Problem
	for _, f := range files {
		if f.Obs.AgentAuthored() || len(f.Obs.Sources) == 0 {
			continue
		}
		var keep, drop []SourceRef
		for _, s := range f.Obs.Sources {
			if notPerson(s) {
				drop = append(drop, s)
			} else {
				keep = append(keep, s)
			}
		}
		if len(drop) == 0 {
			continue
		}
		if f.Edited {
			probs = append(probs, diag.Problem{Path: f.Path, Msg: fmt.Sprintf("%d source(s) turned out to be a template or harness turn, not the person's words; the file was edited by a person, so it is left as it is (kb forget %s if it should go)", len(drop), f.Obs.ID), Rule: "retract"})
			continue
		}
		if len(keep) == 0 {
			t := Tombstone{ID: f.Obs.ID, Type: f.Obs.Type, Why: "retracted: its source turn is a template or harness text (it recurs across sessions), not the person's words", At: at.UTC()}
			revs = append(revs, &Revision{File: f, Tomb: &t, Dropped: drop})
			continue
		}
		o := *f.Obs
		o.Sources = keep
		o.Sessions = distinctSessions(keep)
		if o.Sessions < 2 {
			o.Signals = slices.DeleteFunc(slices.Clone(o.Signals), func(s string) bool { return s == SignalRecurrence || s == SignalReturn })
		}
		_, out, changed, err := RenderFile(&o, f)
		if err != nil {
			probs = append(probs, diag.Problem{Path: f.Path, Msg: "retract: " + err.Error(), Rule: "retract"})
			continue
		}
		if changed {
			revs = append(revs, &Revision{File: f, Content: out, Dropped: drop})
		}
	}
	return revs, probs
}

// Fold merges the files the recurrence rule says are the same observation
// (the rule extraction uses for a new candidate): deterministically, so
// that two clones fold alike. Files are taken oldest first (first_seen,
// then id); each absorbs every later one that recurs with it: sources
// unioned, sessions recounted, its id kept. The absorbed file is removed
// with a tombstone that redirects its id to the survivor (Into), dated
// when the later of the two was last seen (the same on every clone). Only
// candidates fold: a promoted, superseded or rejected observation is
// referred to by what it is, and a file a person edited is reported.
func Fold(files []*File) ([]*Revision, []diag.Problem) {
	type item struct {
		f   *File
		rec *recurrence
	}
	byType := map[string][]*item{}
	var types []string
	for _, f := range files {
		o := f.Obs
		if o.Status != "" && o.Status != StatusCandidate || o.SupersededBy != "" || len(o.Supersedes) > 0 || len(o.Sources) == 0 {
			continue
		}
		if byType[o.Type] == nil {
			types = append(types, o.Type)
		}
		byType[o.Type] = append(byType[o.Type], &item{f: f})
	}
	sort.Strings(types)
	var revs []*Revision
	var probs []diag.Problem
	for _, typ := range types {
		items := byType[typ]
		sort.SliceStable(items, func(i, j int) bool {
			a, b := items[i].f.Obs, items[j].f.Obs
			if !a.FirstSeen.Equal(b.FirstSeen) {
				if a.FirstSeen.IsZero() || b.FirstSeen.IsZero() {
					return !a.FirstSeen.IsZero()
				}
				return a.FirstSeen.Before(b.FirstSeen)
			}
			return a.ID < b.ID
		})
		for _, it := range items {
			it.rec = prepareRecurrence(it.f.Obs)
		}
		gone := make([]bool, len(items))
		for i, s := range items {
			if gone[i] {
				continue
			}
			var into *Observation // the survivor as it absorbs, nil until it does
			var absorbed []*File
			for j := i + 1; j < len(items); j++ {
				if gone[j] || !s.rec.same(items[j].rec) {
					continue
				}
				l := items[j]
				if s.f.Edited || l.f.Edited {
					probs = append(probs, diag.Problem{Path: l.f.Path, Msg: fmt.Sprintf("the same observation as %s (recurrence across wording) but a person edited one of them: not folded; merge them by hand, or kb forget the one to drop", s.f.Path), Rule: "fold"})
					continue
				}
				if into == nil {
					o := *s.f.Obs
					o.Sources = slices.Clone(o.Sources)
					into = &o
				}
				lo := *l.f.Obs
				lo.Sources = slices.Clone(lo.Sources)
				Merge(into, &lo)
				canonical(into)
				gone[j] = true
				absorbed = append(absorbed, l.f)
			}
			if into == nil {
				continue
			}
			_, out, _, err := RenderFile(into, s.f)
			if err != nil {
				probs = append(probs, diag.Problem{Path: s.f.Path, Msg: "fold: " + err.Error(), Rule: "fold"})
				continue
			}
			revs = append(revs, &Revision{File: s.f, Content: out})
			for _, l := range absorbed {
				at := maxTime(l.Obs.LastSeen, s.f.Obs.LastSeen)
				if at.IsZero() {
					at = maxTime(l.Obs.FirstSeen, s.f.Obs.FirstSeen)
				}
				t := Tombstone{ID: l.Obs.ID, Type: l.Obs.Type, Why: "folded: the same observation in other words", Into: s.f.Obs.ID, At: at.UTC()}
				revs = append(revs, &Revision{File: l, Tomb: &t, Into: s.f})
			}
		}
	}
	return revs, probs
}

// Redirect follows the tombstones that fold an id into another (Into) to
// the id that holds it now; an id no fold names is returned as it is.
func Redirect(ts []Tombstone, id string) string {
	for range len(ts) + 1 { // a chain never visits an id twice
		next := ""
		for _, t := range ts {
			if t.ID == id && t.Into != "" {
				next = t.Into
			}
		}
		if next == "" || next == id {
			return id
		}
		id = next
	}
	return id
}
