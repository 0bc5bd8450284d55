package observations

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"time"

	"github.com/kbmem/kb/internal/diag"
	"github.com/kbmem/kb/internal/llm/port"
	"github.com/kbmem/kb/traces"
)

// The extraction pipeline: what a run decides once kb has chosen the
// sessions, read them and taken the lock. A Run extracts each session
// (the heuristics, and the LLM extractors when it has a client), mines
// procedures across sessions, revises the files already written
// (Retract, Fold) and merges its candidates into the files, in memory: the
// writes it returns go through the run's Journal.

// Report says what an extraction run did.
type Report struct {
	Sessions  []string               `json:"sessions"`             // sessions extracted
	Skipped   int                    `json:"skipped"`              // sessions already extracted and unchanged
	Records   int                    `json:"records"`              // trace records read
	Bytes     int64                  `json:"bytes"`                // bytes of session files read
	Types     map[string]*TypeCounts `json:"types"`                // per observation type
	New       int                    `json:"new"`                  // totals over Types
	Merged    int                    `json:"merged"`               //
	Unchanged int                    `json:"unchanged"`            //
	Forgotten int                    `json:"forgotten"`            // skipped: matched a tombstone
	Edited    int                    `json:"edited"`               // merged into files a person edited: bookkeeping only
	Removed   []string               `json:"removed,omitempty"`    // tombstoned files left by an interrupted forget, deleted
	Written   []string               `json:"written,omitempty"`    // observation files created or changed
	Resumed   []string               `json:"resumed,omitempty"`    // files written to finish an interrupted run
	LLMErrors []string               `json:"llm_errors,omitempty"` // failed LLM calls; the heuristic results stand
	Problems  []diag.Problem         `json:"problems,omitempty"`
	Imported  []string               `json:"imported,omitempty"` // transcripts imported (kb's DrainQueue)
	// Superseded: earlier observations a later one of this run contradicts
	// (Supersession; Kept when a person edited the old one).
	Superseded []Supersession `json:"superseded,omitempty"`
	// Retracted: observation files retired because the turn they came from
	// turned out to be a template (it recurs across sessions); Folded: files
	// folded into another that is the same observation in other words.
	Retracted []string     `json:"retracted,omitempty"`
	Folded    []FoldedFile `json:"folded,omitempty"`
}

// NewReport is an empty report.
func NewReport() *Report { return &Report{Types: map[string]*TypeCounts{}, Sessions: []string{}} }

func (r *Report) count(typ string) *TypeCounts {
	if r.Types == nil {
		r.Types = map[string]*TypeCounts{}
	}
	c := r.Types[typ]
	if c == nil {
		c = &TypeCounts{}
		r.Types[typ] = c
	}
	return c
}

// Total adds the per-type counts into New, Merged and Unchanged.
func (r *Report) Total() {
	for _, c := range r.Types {
		r.New += c.New
		r.Merged += c.Merged
		r.Unchanged += c.Unchanged
	}
}

// FoldedFile is one observation file folded into another (Report.Folded).
type FoldedFile struct {
	From string `json:"from"`
	Into string `json:"into"`
}

// SessionMark is what a run remembers of a session it extracted: the
// session file's size then, and the types extracted.
type SessionMark struct {
	Size  int64    `json:"size"`
	Types []string `json:"types"`
}

// ReadSession reads one stored session into records (kb reads it through
// the trace store), returning the bytes it read.
type ReadSession func(traces.SessionInfo) (*Session, int64, []diag.Problem, error)

type sessionRead struct {
	info traces.SessionInfo
	size int64
	sess *Session
}

// Run is one run of the extraction pipeline: what it extracts with, and
// what it has read so far.
type Run struct {
	Types  []string
	Tax    *Taxonomy
	Client port.Client // nil: the heuristics only
	All    []traces.SessionInfo
	// Attr is who wrote what, beyond what each record says (nil: records only).
	Attr *traces.Attribution
	Read ReadSession
	// Prior are the per-session marks as found.
	Prior map[string]SessionMark

	sessions []*sessionRead          // read this run, as procedure mining sees them
	cands    []*Observation          // extracted, not merged yet
	cwds     map[string]string       // session -> its working directory
	turns    map[string]*turnAuthors // session -> the user turns attribution took from the person (nil: none)
}

func (x *Run) init() {
	if x.cwds == nil {
		x.cwds = map[string]string{}
	}
	if x.turns == nil {
		x.turns = map[string]*turnAuthors{}
	}
}

// ExtractSessions reads and extracts one session at a time; only the
// tool-call skeleton of each is kept, for procedure mining across
// sessions. A session that fails to read is reported and contributes
// nothing.
func (x *Run) ExtractSessions(ctx context.Context, selected []traces.SessionInfo, progress func(done, total int), rep *Report) error {
	x.init()
	for i, info := range selected {
		if err := ctx.Err(); err != nil {
			return err
		}
		sess, size, probs, err := x.Read(info)
		rep.Problems = append(rep.Problems, probs...)
		if err != nil {
			rep.Problems = append(rep.Problems, diag.Problem{Path: info.Path, Msg: err.Error(), Rule: "unreadable"})
		} else {
			rep.Records += len(sess.Records)
			rep.Bytes += size
			x.turns[info.ID] = attribute(x.Attr, sess.Records, info.Path)
			obs := Extract(sess, x.Tax, x.Types)
			if x.Client != nil {
				more, errs := ExtractLLM(ctx, x.Client, sess, x.Tax, x.Types)
				rep.LLMErrors = append(rep.LLMErrors, errs...)
				if len(more) > 0 {
					obs = MergeLLM(obs, more)
				}
			}
			x.cands = append(x.cands, obs...)
			sess.AddWorkdir(x.cwds)
			x.sessions = append(x.sessions, &sessionRead{info: info, size: size, sess: ProcedureView(sess)})
		}
		if progress != nil {
			progress(i+1, len(selected))
		}
	}
	return nil
}

// MineProcedures adds the procedures of the run, and gives every
// candidate its projects. Procedures recur across sessions, so once any
// session was extracted they are mined over every session of the KB, not
// only this run's: an incremental run on one new session still finds the
// workflow it shares with last week's.
func (x *Run) MineProcedures(ctx context.Context) {
	x.init()
	defer func() {
		for _, c := range x.cands {
			c.SetProjects(x.cwds)
		}
	}()
	if !slices.Contains(x.Types, TypeProcedure) || len(x.sessions) == 0 {
		return
	}
	ps := make([]*Session, 0, len(x.All))
	seen := map[string]bool{}
	for _, sd := range x.sessions {
		ps = append(ps, sd.sess)
		seen[sd.info.ID] = true
	}
	for _, info := range x.All {
		if seen[info.ID] || ctx.Err() != nil {
			continue
		}
		if sess, _, _, err := x.Read(info); err == nil {
			sess.AddWorkdir(x.cwds)
			ps = append(ps, ProcedureView(sess))
		}
	}
	if len(ps) > 1 {
		x.cands = append(x.cands, Procedures(ps, 2)...)
	}
}

// Marks are the per-session marks the run leaves (and adds the sessions
// to rep): each session read, at its size, with the types extracted (and,
// for a session that did not grow, the types extracted before).
func (x *Run) Marks(rep *Report) map[string]SessionMark {
	marks := map[string]SessionMark{}
	for _, sd := range x.sessions {
		rep.Sessions = append(rep.Sessions, sd.info.ID)
		mark := SessionMark{Size: sd.size, Types: slices.Clone(x.Types)}
		if old, ok := x.Prior[sd.info.ID]; ok && old.Size == sd.size {
			for _, t := range old.Types {
				if !slices.Contains(mark.Types, t) {
					mark.Types = append(mark.Types, t)
				}
			}
			sort.Strings(mark.Types)
		}
		marks[sd.info.ID] = mark
	}
	return marks
}

// MergeInput is what a run's merge starts from: the observation files as
// found, and the KB around them.
type MergeInput struct {
	Files      []*File         // the live files (tombstoned ones removed)
	Broken     map[string]bool // files that exist but do not parse: never overwritten
	Tombstones []Tombstone
	Gate       *Gate
	Occupied   func(rel string) bool // see Merger.Occupied
	// ReadTombstones reads TombstoneFile (an error of fs.ErrNotExist when
	// absent), which the run's new tombstones are appended to.
	ReadTombstones func() ([]byte, error)
}

// Merge revises the files (retracting what rests on a template, folding
// paraphrases) and merges the run's candidates into them, in memory
// (Merger decides): it returns the journal's writes, one per file.
func (x *Run) Merge(ctx context.Context, in MergeInput, rep *Report) ([]*JournalWrite, error) {
	x.init()
	// The bytes as found: the merge updates the File values in place.
	orig := make(map[string][]byte, len(in.Files))
	for _, f := range in.Files {
		orig[f.Path] = f.Raw
	}
	live, newTombs, revs := x.revise(in.Files, rep)
	m := &Merger{Files: live, Tombstones: append(in.Tombstones, newTombs...), Broken: in.Broken, Gate: in.Gate, Occupied: in.Occupied}
	res, err := m.Merge(ctx, x.cands)
	if err != nil {
		return nil, fmt.Errorf("extract: %w", err)
	}
	if rep.Superseded, err = res.Supersede(m.Files); err != nil {
		return nil, fmt.Errorf("extract: %w", err)
	}
	for typ, c := range res.Types {
		rc := rep.count(typ)
		rc.New, rc.Merged, rc.Unchanged = rc.New+c.New, rc.Merged+c.Merged, rc.Unchanged+c.Unchanged
	}
	rep.Forgotten += res.Forgotten
	rep.Edited += res.Edited
	rep.Problems = append(rep.Problems, res.Problems...)
	writes, err := revisionWrites(orig, revs, in.ReadTombstones, newTombs, res.Writes)
	if err != nil {
		return nil, fmt.Errorf("extract: %w", err)
	}
	return writes, nil
}

// revise retracts and folds the live files; it returns the files as they
// stand after, the new tombstones, and the revisions.
func (x *Run) revise(live []*File, rep *Report) ([]*File, []Tombstone, []*Revision) {
	var all []*Revision
	var tombs []Tombstone
	apply := func(revs []*Revision) {
		byPath := map[string]*Revision{}
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
				nf, prob := ParseFile(f.Path, r.Content)
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
	revs, probs := Retract(live, x.templateSources(live), time.Now())
	rep.Problems = append(rep.Problems, probs...)
	for _, r := range revs {
		if r.Tomb != nil {
			rep.Retracted = append(rep.Retracted, r.File.Path)
		}
	}
	apply(revs)
	revs, probs = Fold(live)
	rep.Problems = append(rep.Problems, probs...)
	for _, r := range revs {
		if r.Into != nil {
			rep.Folded = append(rep.Folded, FoldedFile{From: r.File.Path, Into: r.Into.Path})
		}
	}
	apply(revs)
	return live, tombs, all
}

// revisionWrites turns revisions and the merge's writes into the journal's
// writes: one per file, from the file as found on disk (raw, by path) to
// its final bytes; the tombstones (appended to the tombstone file as
// readTombs reads it) first, the removals last.
func revisionWrites(raw map[string][]byte, revs []*Revision, readTombs func() ([]byte, error), tombs []Tombstone, merged []*Write) ([]*JournalWrite, error) {
	var writes []*JournalWrite
	if len(tombs) > 0 {
		old, err := readTombs()
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		content := old
		for _, t := range tombs {
			content = AppendTombstone(content, t)
		}
		w := &JournalWrite{Path: TombstoneFile, Content: content, After: Sum(content)}
		if err == nil {
			w.Before = Sum(old)
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
	var deletes []*JournalWrite
	for _, r := range revs {
		if r.Tomb != nil {
			deletes = append(deletes, &JournalWrite{Path: r.File.Path, Before: Sum(raw[r.File.Path]), Delete: true})
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
		w := &JournalWrite{Path: p, Content: final[p], After: Sum(final[p])}
		if b, ok := raw[p]; ok {
			if Sum(b) == w.After {
				continue
			}
			w.Before = Sum(b)
		}
		writes = append(writes, w)
	}
	return append(writes, deletes...), nil
}
