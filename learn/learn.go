// Package learn is the continual-learning tick (kb learn). It maintains two
// files of the project: AGENTS.md (or another target), where it owns the kb
// block "learned" (library.FindBlock), and the index at IndexFile. It
// follows the continual-learning contract: read the baseline, turn the
// observations into candidate facts, deduplicate, apply a high-signal gate,
// capture the prior state, write both files together or not at all, or say
// explicitly why nothing was written.
//
// Importing transcripts and extracting observations from them (the
// contract's first steps) are the facade's: kb.Learn does them, takes the
// write lock, loads the observation files and hands them to Run as plain
// values. learn reads and writes only through the fsx trees it is given.
package learn

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/gitx"
	"github.com/kbmem/kb/observations"
)

// Results of a tick.
const (
	Updated    = "updated"
	NoUpdate   = "no-update"
	Blocked    = "blocked"
	RolledBack = "rolled-back"
)

// Reasons of a no-update result.
const (
	ReasonNoNewTranscripts = "no new transcripts"
	ReasonAllDuplicates    = "all duplicates"
	ReasonAllBelowGate     = "all below the gate"
)

const (
	// IndexFile is the continual-learning index, relative to the project root.
	IndexFile = ".continual-learning/index.json"
	// Block names the kb block of the target a tick maintains; Begin and
	// End are its markers.
	Block = "learned"
	Begin = "<!-- kb:begin " + Block + " -->"
	End   = "<!-- kb:end " + Block + " -->"
	// TicksFile, in Files.State, holds the fingerprints of the last ticks
	// and the hashes of the facts written.
	TicksFile = "ticks.json"
)

// Index categories.
const (
	CategoryDecision         = "decision"
	CategoryConvention       = "convention"
	CategoryConstraint       = "constraint"
	CategoryResolvedProblem  = "resolved-problem"
	CategoryProjectKnowledge = "project-knowledge"
)

// Categories lists the index categories in the order AGENTS.md shows them.
var Categories = []string{CategoryDecision, CategoryConvention, CategoryConstraint, CategoryResolvedProblem, CategoryProjectKnowledge}

var categoryHeadings = map[string]string{
	CategoryDecision:         "Decisions",
	CategoryConvention:       "Conventions",
	CategoryConstraint:       "Constraints",
	CategoryResolvedProblem:  "Resolved problems",
	CategoryProjectKnowledge: "Project knowledge",
}

// Entry is one fact as the index stores it.
type Entry struct {
	Fact          string `json:"fact"`
	SourceSession string `json:"source_session"`
	Date          string `json:"date"`
	Category      string `json:"category"`
}

// Applied is an entry a tick wrote, with where it came from.
type Applied struct {
	Entry
	Observation string   `json:"observation"` // id of the observation it was drawn from
	Sessions    []string `json:"sessions"`    // every session that supports it
}

// Drop is a candidate that was not written, and why: "duplicate: ...",
// "gate: one-off", "gate: derivable (path)", "gate: obvious", ...
type Drop struct {
	Fact        string `json:"fact"`
	Category    string `json:"category"`
	Observation string `json:"observation"`
	Reason      string `json:"reason"`
}

// Conflict is a candidate that contradicts a recorded fact. The recorded
// fact is left unchanged.
type Conflict struct {
	Fact        string `json:"fact"`
	Observation string `json:"observation"`
	Existing    string `json:"existing"`
	Where       string `json:"where"` // "index entry 3" or "AGENTS.md:12"
	Why         string `json:"why"`
}

// Skip is an input that could not be read.
type Skip struct {
	Source string `json:"source"`
	Reason string `json:"reason"`
}

// SkipOf is the Skip of a source that could not be read because of err.
func SkipOf(source string, err error) Skip { return Skip{Source: source, Reason: errReason(err)} }

// Result is what a tick did.
type Result struct {
	Result     string     `json:"result"` // updated | no-update | blocked | rolled-back
	Reason     string     `json:"reason,omitempty"`
	DryRun     bool       `json:"dry_run,omitempty"`
	Target     string     `json:"target"` // relative to the project root
	Index      string     `json:"index"`
	Sessions   int        `json:"sessions"`   // sessions in the KB after import
	Candidates int        `json:"candidates"` // candidate facts considered
	Applied    []Applied  `json:"applied"`
	Dropped    []Drop     `json:"dropped"`
	Conflicts  []Conflict `json:"conflicts"`
	Skipped    []Skip     `json:"skipped"`
	Snapshot   string     `json:"snapshot,omitempty"` // captured prior state, relative to the KB root
	Diff       string     `json:"diff,omitempty"`
}

func newResult(target string) *Result {
	return &Result{Target: target, Index: IndexFile, Applied: []Applied{},
		Dropped: []Drop{}, Conflicts: []Conflict{}, Skipped: []Skip{}}
}

// Files is where a tick reads and writes.
type Files struct {
	// Project holds the target and IndexFile; its Root is the project root.
	Project fsx.Tree
	// KB is the knowledge base's tree: its root is never a source of
	// derivable facts, and the snapshots and tick records go below it.
	KB fsx.Tree
	// State is the directory of the captured prior states and of
	// TicksFile, inside KB.Root.
	State string
	// Layers are the KB's layer directories, skipped as sources of
	// derivable facts when the KB root is the project root.
	Layers []string
}

// File is an observation file as a tick reads it.
type File struct {
	Path string // slash path relative to the KB root
	Raw  []byte // the file's bytes: a tick's fingerprint is taken over them
	Obs  *observations.Observation
}

// Input is what one tick learns from: the observation files loaded under
// the caller's write lock, and what the caller could not read before.
type Input struct {
	Target        string // the file to maintain, relative to the project root
	DryRun        bool   // compute and show the diff; write neither file nor snapshot
	KeepSnapshots int    // prior states kept for Rollback; 0 = 10
	Observations  []File
	Unparsed      []Skip    // observation files that do not parse
	Sessions      int       // sessions in the KB
	Skipped       []Skip    // transcript sources the import or extraction could not read
	Now           time.Time // clock; zero = time.Now
}

// Run runs one tick: it turns the observations into deduplicated,
// high-signal facts appended to the index and to the kb block of the
// target. Every outcome is a result: updated, no-update with the reason,
// or blocked naming the input that could not be read; the error is for
// failures of the machinery (I/O while writing). The caller holds the KB
// write lock.
func Run(f Files, in Input) (*Result, error) {
	targetAbs, err := fsx.Within(f.Project.Root, filepath.FromSlash(in.Target))
	if err != nil {
		return nil, fmt.Errorf("learn: target %s: %w", in.Target, err)
	}
	indexAbs := filepath.Join(f.Project.Root, filepath.FromSlash(IndexFile))
	now := in.Now
	if now.IsZero() {
		now = time.Now()
	}
	res := newResult(in.Target)
	res.DryRun = in.DryRun
	res.Skipped = append(res.Skipped, in.Skipped...)

	// The baseline.
	base, why := readBaseline(f.Project, targetAbs, in.Target, indexAbs)
	if why != "" {
		res.Result, res.Reason = Blocked, why
		return res, nil
	}
	res.Skipped = append(res.Skipped, in.Unparsed...)
	res.Sessions = in.Sessions
	if in.Sessions == 0 && len(in.Observations) == 0 {
		res.Result = Blocked
		res.Reason = "no transcripts: the KB holds no sessions and none were found in the configured agent directories"
		return res, nil
	}
	fp := fingerprint(in.Observations, in.Target)
	ticks := f.loadTicks()
	if ticks.Targets[in.Target] == fp {
		res.Result, res.Reason = NoUpdate, ReasonNoNewTranscripts
		return res, nil
	}

	// Candidates, dedup, gate.
	cands := candidates(in.Observations, now)
	res.Candidates = len(cands)
	survivors := f.selectFacts(cands, base, targetAbs, indexAbs, ticks.applied(), res)
	if len(survivors) == 0 {
		res.Result, res.Reason = NoUpdate, noUpdateReason(res)
		if !in.DryRun {
			ticks.Targets[in.Target] = fp
			if err := f.saveTicks(ticks); err != nil {
				return nil, err
			}
		}
		return res, nil
	}

	// Render both files.
	var entries []Entry
	for _, s := range survivors {
		entries = append(entries, s.Entry)
		res.Applied = append(res.Applied, s)
	}
	newIndex, err := base.index.render(entries)
	if err != nil {
		return nil, fmt.Errorf("learn: render %s: %w", IndexFile, err)
	}
	newTarget, err := base.renderTarget(entries)
	if err != nil {
		return nil, fmt.Errorf("learn: render %s: %w", in.Target, err)
	}
	res.Result = Updated
	res.Diff = gitx.UnifiedDiff(in.Target, nilIfAbsent(base.target, base.targetExists), newTarget) +
		gitx.UnifiedDiff(IndexFile, nilIfAbsent(base.index.raw, base.index.exists), newIndex)
	if in.DryRun {
		return res, nil
	}
	var hashes []string
	for _, e := range entries {
		hashes = append(hashes, factHash(e.Fact))
	}
	snapDir, err := f.captureState(base, in.Target, hashes, now, in.KeepSnapshots)
	if err != nil {
		return nil, fmt.Errorf("learn: capture prior state: %w", err)
	}
	res.Snapshot = f.kbRel(snapDir)
	writes := []fsx.Write{
		{Path: targetAbs, Data: newTarget, Perm: base.targetPerm, Old: base.target, Existed: base.targetExists},
		{Path: indexAbs, Data: newIndex, Perm: base.indexPerm, Old: base.index.raw, Existed: base.index.exists},
	}
	if err := f.Project.CommitAll(writes); err != nil {
		var half *fsx.HalfWrittenError
		if !errors.As(err, &half) {
			// Nothing changed: the snapshot would restore the same state.
			f.KB.RemoveAll(snapDir)
			var ce *fsx.ChangedError
			if errors.As(err, &ce) {
				// A person edited the file after the baseline was read:
				// their file is kept, and the next tick starts from it.
				res.Result, res.Snapshot, res.Diff = Blocked, "", ""
				res.Reason = fmt.Sprintf("%s changed while kb learn ran; left as it is and nothing written (run kb learn again)", f.projectRel(ce.Path))
				res.Applied = []Applied{}
				return res, nil
			}
		}
		return nil, fmt.Errorf("learn: %w (prior state in %s)", err, res.Snapshot)
	}
	ticks.Targets[in.Target] = fp
	ticks.Applied = append(ticks.Applied, hashes...)
	if err := f.saveTicks(ticks); err != nil {
		return nil, err
	}
	return res, nil
}

// kbRel is the slash path of abs relative to the KB root.
func (f Files) kbRel(abs string) string { return relTo(f.KB.Root, abs) }

// projectRel is the slash path of abs relative to the project root.
func (f Files) projectRel(abs string) string { return relTo(f.Project.Root, abs) }

func relTo(root, abs string) string {
	if r, err := filepath.Rel(root, abs); err == nil {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(abs)
}

func nilIfAbsent(b []byte, exists bool) []byte {
	if !exists {
		return nil
	}
	if b == nil {
		return []byte{}
	}
	return b
}

func errReason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func noUpdateReason(res *Result) string {
	if res.Candidates == 0 {
		return "no candidates: the observations hold no decision, convention, constraint, resolved problem or project knowledge"
	}
	dup, gate := 0, 0
	for _, d := range res.Dropped {
		switch {
		case strings.HasPrefix(d.Reason, "duplicate"):
			dup++
		case strings.HasPrefix(d.Reason, "gate"):
			gate++
		}
	}
	conf := len(res.Conflicts)
	switch {
	case dup > 0 && gate == 0 && conf == 0:
		return ReasonAllDuplicates
	case gate > 0 && dup == 0 && conf == 0:
		return ReasonAllBelowGate
	case conf > 0 && dup == 0 && gate == 0:
		return "all conflict with recorded facts"
	}
	return fmt.Sprintf("no candidate survived: %d duplicate(s), %d below the gate, %d conflict(s)", dup, gate, conf)
}
