package kb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kbmem/kb/learn"
	"github.com/kbmem/kb/traces"
)

// The continual-learning tick (kb learn): the facade imports the
// transcripts, extracts observations from new sessions, takes the write
// lock and hands the observation files to package learn, which owns the
// rules (candidates, dedup, gate, the index and the learned block of
// AGENTS.md, snapshots and rollback).

// Results and reasons of a learn tick, and the files it maintains.
const (
	LearnUpdated    = learn.Updated
	LearnNoUpdate   = learn.NoUpdate
	LearnBlocked    = learn.Blocked
	LearnRolledBack = learn.RolledBack

	ReasonNoNewTranscripts = learn.ReasonNoNewTranscripts
	ReasonAllDuplicates    = learn.ReasonAllDuplicates
	ReasonAllBelowGate     = learn.ReasonAllBelowGate

	LearnIndexFile = learn.IndexFile
	LearnBlock     = learn.Block
	LearnBegin     = learn.Begin
	LearnEnd       = learn.End

	// learnStateDir, under StateDir, holds the captured prior states and
	// the tick records.
	learnStateDir = "learn"
)

// Index categories.
const (
	CategoryDecision         = learn.CategoryDecision
	CategoryConvention       = learn.CategoryConvention
	CategoryConstraint       = learn.CategoryConstraint
	CategoryResolvedProblem  = learn.CategoryResolvedProblem
	CategoryProjectKnowledge = learn.CategoryProjectKnowledge
)

// What a learn tick reports.
type (
	LearnEntry    = learn.Entry
	LearnApplied  = learn.Applied
	LearnDrop     = learn.Drop
	LearnConflict = learn.Conflict
	LearnSkip     = learn.Skip
	LearnResult   = learn.Result
)

// LearnOptions configure Learn.
type LearnOptions struct {
	Target   string   // file to maintain, relative to the project root ("" = learn.target of kb.yaml)
	DryRun   bool     // compute and show the diff; write neither file nor snapshot
	Rollback bool     // restore the latest captured prior state instead of learning
	Sources  []string // more transcript files or directories to import first
}

// LearnTick is Learn with the defaults of kb.yaml: what `kb watch
// --learn-every` runs.
func (k *KB) LearnTick(ctx context.Context) (*LearnResult, error) {
	return k.Learn(ctx, LearnOptions{})
}

// learnTargetName is learn.target of kb.yaml, AGENTS.md by default.
func (k *KB) learnTargetName() string {
	if k.Config.Learn.Target != "" {
		return k.Config.Learn.Target
	}
	return "AGENTS.md"
}

// learnFiles is where package learn reads and writes for this KB.
func (k *KB) learnFiles() learn.Files {
	return learn.Files{Project: k.projectFiles(), KB: k.files(), State: filepath.Join(k.Root, StateDir, learnStateDir), Layers: Layers}
}

// Learn runs one continual-learning tick (or, with o.Rollback, undoes the
// last one). It imports the configured transcript sources and o.Sources,
// extracts observations from new sessions, and turns the observations into
// deduplicated, high-signal facts appended to the index and to kb's section
// of the target. Every outcome is a result: updated, no-update with the
// reason, or blocked naming the input that could not be read; the error is
// for failures of the machinery (lock, I/O while writing).
func (k *KB) Learn(ctx context.Context, o LearnOptions) (*LearnResult, error) {
	target := o.Target
	if target == "" {
		target = k.learnTargetName()
	}
	targetRel, err := learn.ResolveTarget(k.ProjectRoot, target)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidInput, err)
	}
	if o.Rollback {
		l, err := k.Lock(ctx)
		if err != nil {
			return nil, err
		}
		defer l.Release()
		return learn.Rollback(k.learnFiles(), targetRel, o.DryRun)
	}
	skipped, err := k.learnInputs(ctx, o.Sources)
	if err != nil {
		return nil, err
	}
	l, err := k.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	files, probs, err := k.LoadObservations(ctx)
	if err != nil {
		return nil, fmt.Errorf("learn: read observations: %w", err)
	}
	sessions, err := (&traces.Store{Root: k.Root}).Sessions()
	if err != nil {
		return nil, fmt.Errorf("learn: list sessions: %w", err)
	}
	in := learn.Input{Target: targetRel, DryRun: o.DryRun, KeepSnapshots: k.Config.Learn.KeepSnapshots,
		Observations: learnObservations(files), Sessions: len(sessions), Skipped: skipped}
	for _, p := range probs {
		in.Unparsed = append(in.Unparsed, LearnSkip{Source: p.String(), Reason: "observation file does not parse"})
	}
	return learn.Run(k.learnFiles(), in)
}

// learnInputs imports the agent directories and the named sources, then
// extracts observations from the sessions not extracted yet. It returns
// the sources that could not be read.
func (k *KB) learnInputs(ctx context.Context, extra []string) ([]LearnSkip, error) {
	var skipped []LearnSkip
	sources := k.TraceSources(true, true, true)
	for _, s := range extra {
		abs, err := filepath.Abs(s)
		if err != nil {
			skipped = append(skipped, LearnSkip{Source: s, Reason: err.Error()})
			continue
		}
		if _, err := os.Stat(abs); err != nil {
			skipped = append(skipped, learn.SkipOf(abs, err))
			continue
		}
		sources = append(sources, Source{Kind: "sources", Path: abs})
	}
	rep, err := k.ImportSources(ctx, sources, ImportOptions{})
	var partial *PartialImportError
	if err != nil && !errors.As(err, &partial) {
		return nil, fmt.Errorf("learn: import transcripts: %w", err)
	}
	skipped = append(skipped, learn.SkipsOfImport(rep)...)
	// Extraction here is local only: a tick makes no remote calls, so the
	// LLM extractors stay off whatever kb.yaml says.
	local := *k
	local.Config.Extract.LLM = false
	xr, err := local.Extract(ctx, ExtractOptions{})
	if err != nil {
		return nil, fmt.Errorf("learn: extract: %w", err)
	}
	for _, p := range xr.Problems {
		if p.Rule == "unreadable" {
			skipped = append(skipped, LearnSkip{Source: p.Path, Reason: p.Msg})
		}
	}
	return skipped, nil
}

// learnObservations is what package learn reads of the observation files.
func learnObservations(files []*ObsFile) []learn.File { return learn.FilesOf(files) }
