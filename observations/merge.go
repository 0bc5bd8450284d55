package observations

import (
	"context"
	"fmt"
	"github.com/kbmem/kb/internal/textutil"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kbmem/kb/internal/diag"
	"github.com/kbmem/kb/internal/lexicon"
)

// TypeCounts says what a merge did with the observations of one type.
type TypeCounts struct {
	New       int `json:"new"`
	Merged    int `json:"merged"`
	Unchanged int `json:"unchanged"`
}

// Write is one file a merge creates or changes.
type Write struct {
	Path    string
	Before  []byte // the file as the merge found it; nil for a new file
	Content []byte
}

// Merger folds extracted candidates into observation files, in memory: it
// decides which file each candidate belongs to and the new bytes of every
// file, and leaves writing them to the caller.
type Merger struct {
	Files      []*File     // the observation files, as loaded; updated as candidates merge in
	Tombstones []Tombstone // what was forgotten: never brought back
	// Broken are files that exist but do not parse: never overwritten.
	Broken map[string]bool
	// Occupied reports whether something that is no observation file (a
	// directory, a link) is at the path a new observation would take.
	Occupied func(rel string) bool
	// Gate drops the candidates it finds obvious or derivable (final
	// verdicts; a first sighting may still recur, so one-off is left to
	// promote and learn). Nil: a gate without a project.
	Gate *Gate
}

// MergeResult is what a Merge decided.
type MergeResult struct {
	Writes    []*Write
	Types     map[string]*TypeCounts
	Forgotten int            // candidates that matched a tombstone
	Gated     map[string]int // candidates the gate dropped, by reason
	Edited    int            // merged into files a person edited: bookkeeping only
	Problems  []diag.Problem
}

func (r *MergeResult) count(typ string) *TypeCounts {
	c := r.Types[typ]
	if c == nil {
		c = &TypeCounts{}
		r.Types[typ] = c
	}
	return c
}

// Merge folds cands into the files. Merging the same candidates again
// changes nothing: re-extracting sessions whose observations are already
// on disk (a re-run, a lost marker) merges as the first run did. So
// candidates are matched by id first, and the fallbacks (same source
// records, near-duplicate text) skip the files of candidates that come
// later in this run: in the first run those files did not exist yet when
// this candidate was merged.
func (m *Merger) Merge(ctx context.Context, cands []*Observation) (*MergeResult, error) {
	res := &MergeResult{Types: map[string]*TypeCounts{}}
	claimed := map[string]int{}
	for i, n := range cands {
		canonical(n)
		if n.ID == "" {
			n.ID = n.MakeID()
		}
		n.ID = Redirect(m.Tombstones, n.ID) // folded into another file: merge there
		if _, ok := claimed[n.Type+"\x00"+n.ID]; !ok {
			claimed[n.Type+"\x00"+n.ID] = i
		}
	}
	forget := newForgetting(m.Tombstones)
	byPath := map[string]*Write{}
	// plan records the new bytes of a file; several candidates merging
	// into one file make one write, from the file as it was found.
	plan := func(rel string, before *File, out []byte) (*File, error) {
		f, prob := ParseFile(rel, out)
		if prob != nil {
			return nil, fmt.Errorf("%s would not parse back: %s", rel, prob.Msg)
		}
		w := byPath[rel]
		if w == nil {
			w = &Write{Path: rel}
			if before != nil {
				w.Before = before.Raw
			}
			byPath[rel] = w
			res.Writes = append(res.Writes, w)
		}
		w.Content = out
		return f, nil
	}
	for i, n := range cands {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if forget.forgotten(n) {
			res.Forgotten++
			continue
		}
		if v := m.Gate.JudgeFinal(n); !v.Keep() {
			if res.Gated == nil {
				res.Gated = map[string]int{}
			}
			res.Gated[v.Reason]++
			continue
		}
		c := res.count(n.Type)
		ex := match(m.Files, n, func(f *File) bool {
			j, ok := claimed[f.Obs.Type+"\x00"+f.Obs.ID]
			return ok && j > i
		})
		if ex == nil {
			f, err := m.create(n, res, plan)
			if err != nil {
				return nil, err
			}
			if f != nil {
				m.Files = append(m.Files, f)
				c.New++
			}
			continue
		}
		edited := ex.Edited
		changed, err := m.update(ex, n, byPath[ex.Path] == nil, plan)
		if err != nil {
			return nil, err
		}
		if !changed {
			c.Unchanged++
			continue
		}
		c.Merged++
		if edited {
			res.Edited++
		}
	}
	return res, nil
}

type planFunc func(rel string, before *File, out []byte) (*File, error)

// create plans the file of a candidate no file matched, unless its place
// is taken; it returns nil then, with the problem reported.
func (m *Merger) create(n *Observation, res *MergeResult, plan planFunc) (*File, error) {
	settle(n)
	rel := FilePath(n.Type, n.ID)
	if m.Broken[rel] {
		res.Problems = append(res.Problems, diag.Problem{Path: rel, Msg: "not updated: the file does not parse; fix it and extract again", Rule: "observation"})
		return nil, nil
	}
	if m.Occupied != nil && m.Occupied(rel) {
		res.Problems = append(res.Problems, diag.Problem{Path: rel, Msg: "not written: a file is in the way", Rule: "observation"})
		return nil, nil
	}
	rel, out, _, err := RenderFile(n, nil)
	if err != nil {
		return nil, err
	}
	return plan(rel, nil, out)
}

// update plans the merge of n into the file ex; first says this is the
// first change to that file in this run. It reports whether the file
// changes.
func (m *Merger) update(ex *File, n *Observation, first bool, plan planFunc) (bool, error) {
	o := *ex.Obs
	o.Sources = slices.Clone(ex.Obs.Sources)
	if !bringsNewSource(ex.Obs, n) {
		// The same evidence extracted again: its counts are in already.
		cp := *n
		cp.Accepts, cp.Rejects = 0, 0
		n = &cp
	}
	Merge(&o, n)
	canonical(&o)
	rel, out, changed, err := RenderFile(&o, ex)
	if err != nil || !changed {
		return false, err
	}
	var orig *File
	if first {
		orig = ex
	}
	f, err := plan(rel, orig, out)
	if err != nil {
		return false, err
	}
	*ex = *f
	return true, nil
}

// canonical makes an observation's sources independent of whether it was
// just extracted or read back from its file, where a source is only
// "session#from-to": times dropped, sorted by session and range. Without it
// a re-run would see "new" sources and rewrite files.
func canonical(o *Observation) {
	for i := range o.Sources {
		o.Sources[i].Time = time.Time{}
	}
	sort.SliceStable(o.Sources, func(i, j int) bool {
		a, b := o.Sources[i], o.Sources[j]
		if a.Session != b.Session {
			return a.Session < b.Session
		}
		if a.From != b.From {
			return a.From < b.From
		}
		return a.To < b.To
	})
	o.Sources = slices.Compact(o.Sources)
}

// settle brings a new observation to the state a re-run would merge it
// into (signals such as recurrence and return that Merge derives), so that
// the second run finds nothing to change.
func settle(n *Observation) {
	cp := *n
	cp.Sources = slices.Clone(n.Sources)
	cp.Accepts, cp.Rejects = 0, 0
	Merge(n, &cp)
	canonical(n)
}

func bringsNewSource(existing, n *Observation) bool {
	for _, b := range n.Sources {
		if !slices.ContainsFunc(existing.Sources, func(a SourceRef) bool { return sameRecords(a, b) }) {
			return true
		}
	}
	return false
}

func sameRecords(a, b SourceRef) bool {
	return a.Session == b.Session && a.From == b.From && a.To == b.To
}

// match finds the file an extracted observation belongs to: the same id,
// else the same type and source records (a re-run after the text was
// edited), else the same observation in other words (recurrence). Files
// later claims are skipped by the fallbacks.
func match(files []*File, n *Observation, later func(*File) bool) *File {
	for _, f := range files {
		if f.Obs.ID == n.ID && f.Obs.Type == n.Type {
			return f
		}
	}
	for _, f := range files {
		if f.Obs.Type != n.Type || later(f) {
			continue
		}
		for _, a := range f.Obs.Sources {
			for _, b := range n.Sources {
				if sameRecords(a, b) {
					return f
				}
			}
		}
	}
	nr := prepareRecurrence(n)
	for _, f := range files {
		if !later(f) && nr.same(prepareRecurrence(f.Obs)) && !revokes(f.Obs, n) {
			// A lesson that reverses the one it resembles ("we dropped
			// rubocop" after "use bin/rubocop -a") is no recurrence: it
			// supersedes it (Supersede).
			return f
		}
	}
	return nil
}

// Recurrence across wording: the same correction said in two sessions in
// different words is one observation, so that it reaches the promotion
// threshold; two different lessons about the same tool are not. For an
// observation about an action (it has action types), "the same" is: the
// same most specific action type (the same kind of call was refused or
// corrected), at least one concrete thing both lessons name (a tool,
// package, path, flag or command), and lessons that say related things
// beyond those names (their content stems, without the words every tool
// call says, overlap), or two things named alike; lessons naming nothing
// in common must say nearly the same words. Without action types it
// is Similar. Either way never across authors (the agent's unreviewed
// words are not the person saying it again) and never across projects:
// an observation whose sessions ran in other working directories is
// another project's.
type recurrence struct {
	o       *Observation
	cmp     *Comparable
	primary string
	things  map[string]bool
	stems   map[string]bool // lesson stems, things and tool-call words left out
}

// FailureReported separates, in a failure report's lesson, the fixed
// instruction from what the person reported (correctionLesson).
const FailureReported = "; the person reported: "

// IsFailureReport reports whether a correction's lesson is a failure
// report: the fixed wording, then what the person reported.
func IsFailureReport(lesson string) bool { return strings.Contains(lesson, FailureReported) }

// Reported is what the person reported in a failure report's lesson, and
// whether the lesson is one.
func Reported(lesson string) (string, bool) {
	_, r, ok := strings.Cut(lesson, FailureReported)
	return r, ok
}

// MomentTrigger reports whether a correction's trigger names a moment of
// the conversation ("when asked to ...", "after the agent's answer ...")
// rather than an action.
func MomentTrigger(trigger string) bool {
	return strings.HasPrefix(trigger, "when ") || strings.HasPrefix(trigger, "after ")
}

// failureReport returns the stems of what the person reported in a failure
// report's lesson, nil for any other observation. "Check that the change
// to X really works" is said of every change, so two reports are the same
// only in the person's words: within a session (Dedupe) and across
// sessions (recurrence).
func failureReport(o *Observation) map[string]bool {
	said, ok := Reported(o.Lesson)
	if !ok || o.Type != TypeCorrection {
		return nil
	}
	r := map[string]bool{}
	for w := range contentStems(said) {
		if !lexicon.StopCue.Has(w) {
			r[w] = true
		}
	}
	return r
}

// sameReport: two failure reports whose reported words nearly agree.
func sameReport(a, b *Comparable) bool {
	return a.report != nil && b.report != nil && len(a.report) > 0 && jaccard(a.report, b.report) >= 0.5
}

func prepareRecurrence(o *Observation) *recurrence {
	r := &recurrence{o: o, cmp: Prepare(o)}
	if at := o.actionTypes(); len(at) > 0 {
		r.primary = at[0]
		r.things = thingsNamed(o.mainText())
		r.stems = map[string]bool{}
		for w := range contentStems(o.mainText()) {
			if !r.things[w] && !lexicon.StopCue.Has(w) {
				r.stems[w] = true
			}
		}
	}
	return r
}

func (a *recurrence) same(b *recurrence) bool {
	if a.o.Type != b.o.Type || a.o.AgentAuthored() != b.o.AgentAuthored() || !sameScope(a.o, b.o) {
		return false
	}
	if a.primary == "" || b.primary == "" {
		return a.cmp.Similar(b.cmp)
	}
	if a.cmp.key == b.cmp.key {
		return true
	}
	if a.cmp.report != nil || b.cmp.report != nil {
		return sameReport(a.cmp, b.cmp)
	}
	if a.primary != b.primary {
		return false
	}
	shared := 0
	for t := range a.things {
		if b.things[t] {
			shared++
		}
	}
	switch {
	case shared >= 2:
		return true
	case shared == 1:
		return jaccard(a.stems, b.stems) >= 0.25 || (min(len(a.stems), len(b.stems)) >= 2 && overlap(a.stems, b.stems) >= 0.5)
	}
	// Nothing concrete in common: only lessons that say nearly the same
	// words are the same ("never force push to main" twice).
	return jaccard(a.stems, b.stems) >= 0.5 || (min(len(a.stems), len(b.stems)) >= 4 && overlap(a.stems, b.stems) >= 0.8)
}

// sameScope: both observations' sessions share a project (working
// directory), or one of them does not know its project.
func sameScope(a, b *Observation) bool {
	if len(a.Projects) == 0 || len(b.Projects) == 0 {
		return true
	}
	for _, p := range a.Projects {
		if slices.Contains(b.Projects, p) {
			return true
		}
	}
	return false
}

var (
	thingSpanRE = textutil.Lazy("`([^`]+)`")
	thingWordRE = textutil.Lazy(`(?:^|[\s(,;:'"])(--?[a-zA-Z][\w-]*|@?[\w.-]+/[\w./@-]+|[\w-]+\.[a-zA-Z][\w]{0,5}|[a-z]+[A-Z]\w*|\w+_\w+)`)
)

// thingsNamed are the concrete things a lesson names: tools and packages
// the taxonomy knows as commands, flags, paths and file names, code
// identifiers, and the words of code spans, lower-cased (a plain word is
// its stem, so that it compares with the lesson's stems).
func thingsNamed(text string) map[string]bool {
	out := map[string]bool{}
	known := defaultTaxonomy().knownNames()
	for _, m := range thingSpanRE.FindAllStringSubmatch(text, -1) {
		for _, w := range strings.Fields(m[1]) {
			if w = strings.ToLower(strings.Trim(w, ".,;:()'\"")); len(w) >= 2 {
				out[w] = true
			}
		}
	}
	for _, m := range thingWordRE.FindAllStringSubmatch(text, -1) {
		if w := strings.ToLower(strings.Trim(m[1], ".,;:()")); len(w) >= 2 {
			out[w] = true
		}
	}
	for _, w := range words(text) {
		if known[w] {
			out[w] = true
			out[stem(w)] = true
		}
	}
	return out
}
