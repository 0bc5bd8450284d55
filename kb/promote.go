package kb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/gitx"
	"github.com/kbmem/kb/library"
	"github.com/kbmem/kb/observations"
	"github.com/kbmem/kb/team"
)

// Promotion I/O: candidates that earned graduation become library notes
// (and skills, and AGENTS.md routing lines) proposed as a commit on a
// review branch, never written behind the user's back. The pure rules are
// in library/promote.go.

// ErrNotGit is returned by a branch promotion outside a git work tree.
var ErrNotGit = errors.New("not inside a git work tree")

// PromoteOptions choose how `kb promote` delivers.
type PromoteOptions struct {
	DryRun bool      // show what would graduate and the diff; write nothing
	Apply  bool      // write into the work tree instead of committing to a branch
	Now    time.Time // clock; zero = time.Now
}

// PromoteFile is one file a promotion adds or changes.
type PromoteFile = library.PromoteFile

// PromoteResult reports a promotion.
type PromoteResult = library.PromoteResult

// PromoteCovered is a candidate an existing library note already covers.
type PromoteCovered = library.Covered

// Rules returns the graduation rules of kb.yaml.
func (k *KB) Rules() library.Rules {
	p := k.Config.Promote
	return library.Rules{CorrectionMinSessions: p.CorrectionMinSessions, PreferenceMinDecisions: p.PreferenceMinDecisions,
		PreferenceMinSessions: p.PreferenceMinSessions, PreferenceMinConsistency: p.PreferenceMinConsistency,
		ProcedureMinSessions: p.ProcedureMinSessions, DecisionMinImportance: p.DecisionMinImportance,
		DiscoveryMinReferences: p.DiscoveryMinReferences, PatternMinCluster: p.PatternMinCluster}
}

func (k *KB) branchPrefix() string {
	if p := k.Config.Promote.BranchPrefix; p != "" {
		return p
	}
	return "kb/promote-"
}

// kbPrefix is the KB root relative to the project root ("" when they are
// the same), slash-separated.
func (k *KB) kbPrefix() string {
	r, err := filepath.Rel(k.ProjectRoot, k.Root)
	if err != nil || r == "." {
		return ""
	}
	return filepath.ToSlash(r)
}

// projectPath maps a KB-relative path to a project-relative one.
func (k *KB) projectPath(rel string) string { return path.Join(k.kbPrefix(), rel) }

// Promote finds the candidates that earned graduation and proposes them:
// by default as one commit on a new branch <prefix><date>-<n> built from
// HEAD (work tree, index and HEAD untouched), with --apply in the work
// tree, with --dry-run nowhere.
func (k *KB) Promote(ctx context.Context, o PromoteOptions) (*PromoteResult, error) {
	defer k.refreshActivation(ctx) // the next hook answers with what this changed
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	if !o.DryRun {
		l, err := k.LockObservations(ctx)
		if err != nil {
			return nil, err
		}
		defer l.Release()
	} else {
		k.finishPendingExtract(ctx)
	}
	var repo *gitx.Repo
	if r, err := gitx.Open(k.ProjectRoot); err == nil && r.Root() != "" {
		repo = r
	} else if !o.DryRun && !o.Apply {
		return nil, fmt.Errorf("promote: %s is %w; use --apply to write into the files, or --dry-run", k.ProjectRoot, ErrNotGit)
	}
	files, _, err := k.LoadObservations(ctx)
	if err != nil {
		return nil, fmt.Errorf("promote: %w", err)
	}
	res := &PromoteResult{DryRun: o.DryRun, Graduations: []library.Graduation{}, Files: []PromoteFile{}}
	q, notes := k.queue(repo, files)
	res.Pending = q.Pending
	res.Covered = q.Covered
	obs := q.Observations
	if o.Apply && !o.DryRun {
		// Finish a graduation an earlier --apply was stopped in the middle
		// of: its note is in the library (written last), its observation
		// still says candidate.
		if err := k.markDerivedPromoted(files, notes); err != nil {
			return nil, err
		}
	}
	byID := map[string]*ObsFile{}
	for _, f := range files {
		byID[f.Obs.ID] = f
	}
	grads := library.PlanPromotions(library.PlanInput{
		Observations: obs, Rules: k.Rules(), Now: now, NoteIDs: notes.IDs, Gate: k.Gate(),
		Taken: func(rel string) bool {
			if notes.Paths[rel] {
				return true
			}
			_, err := os.Stat(filepath.Join(k.Root, filepath.FromSlash(rel)))
			return err == nil
		},
	})
	if len(grads) == 0 {
		return res, nil
	}
	res.Graduations = grads
	team.Credit(repo, grads, byID, k.projectPath)
	base := gitx.Base{WorkTree: o.Apply || repo == nil, Work: k.projectFiles(), Root: k.ProjectRoot}
	if !base.WorkTree {
		base.Head, _ = repo.HeadTree() // nil for an unborn HEAD: every file is new
	}
	var ids []string
	res.Files, ids, err = k.promotionFiles(base, grads, notes, byID)
	if err != nil {
		return nil, err
	}
	var diff strings.Builder
	for _, f := range res.Files {
		diff.WriteString(gitx.UnifiedDiff(f.Path, f.Old, f.New))
	}
	res.Diff = diff.String()
	switch {
	case o.DryRun:
		return res, nil
	case base.WorkTree:
		if err := k.applyPromotion(res, byID, ids); err != nil {
			return nil, err
		}
		res.Applied = true
		return res, nil
	}
	if err := k.commitPromotion(repo, res, grads, ids, now); err != nil {
		return nil, err
	}
	return res, nil
}

// promotionFiles lists the files a promotion adds or changes
// (library.PromotionFiles) and the promoted observation ids.
func (k *KB) promotionFiles(base gitx.Base, grads []library.Graduation, notes promotedNoteSet, byID map[string]*ObsFile) ([]PromoteFile, []string, error) {
	return library.PromotionFiles(library.FilesInput{Graduations: grads, Holdings: notes, Observations: byID,
		Prefix: k.kbPrefix(), WorkTree: base.WorkTree, Read: base.Read, IsLinkTo: base.IsLinkTo})
}

// commitPromotion commits the promotion's files to a new review branch
// <prefix><date>-<n> built from HEAD, leaving the work tree, the index and
// HEAD alone.
func (k *KB) commitPromotion(repo *gitx.Repo, res *PromoteResult, grads []library.Graduation, ids []string, now time.Time) error {
	changes := make([]gitx.FileChange, 0, len(res.Files))
	var notePaths []string
	for _, f := range res.Files {
		changes = append(changes, gitx.FileChange{Path: f.Path, Content: f.New})
	}
	for _, g := range grads {
		notePaths = append(notePaths, k.projectPath(g.Path))
	}
	prefix := k.branchPrefix() + now.Format("2006-01-02") + "-"
	name, hash, err := repo.CommitToNextBranch(prefix, library.CommitMessage(grads, ids, notePaths), gitx.DefaultSignature(repo), changes)
	if err != nil {
		return fmt.Errorf("promote: %w", err)
	}
	res.Branch, res.Commit = name, hash
	return nil
}

// queue is what a promotion considers (library.BuildQueue), and what the
// library holds.
func (k *KB) queue(repo *gitx.Repo, files []*ObsFile) (library.Queue, promotedNoteSet) {
	notes := k.promotedNotes()
	in := library.QueueInput{Derived: notes.Derived, Notes: notes.Notes, Rules: k.Rules()}
	if repo != nil {
		in.Proposals = k.promotionBranches(repo)
	}
	for _, f := range files {
		in.Observations = append(in.Observations, f.Obs)
	}
	return library.BuildQueue(in), notes
}

// applyPromotion writes a promotion into the work tree. The caller holds
// the lock.
func (k *KB) applyPromotion(res *PromoteResult, byID map[string]*ObsFile, ids []string) error {
	obsPaths := map[string]bool{}
	for _, id := range ids {
		if f := byID[id]; f != nil {
			obsPaths[k.projectPath(f.Path)] = true
		}
	}
	// The library notes last (library.WritePromotion); then the observations.
	if err := library.WritePromotion(k.projectFiles(), res.Files, obsPaths, k.projectPath(LayerLibrary)+"/"); err != nil {
		return err
	}
	for _, id := range ids {
		if f := byID[id]; f != nil {
			if err := k.markPromoted(f); err != nil {
				return err
			}
		}
	}
	return nil
}

// markPromoted sets an observation's status to promoted.
func (k *KB) markPromoted(f *ObsFile) error {
	o := *f.Obs
	o.Status = observations.StatusPromoted
	if _, _, err := k.SaveObservation(&o, f); err != nil {
		return fmt.Errorf("promote: %w", err)
	}
	return nil
}

// promotedNoteSet is what the library already holds.
type promotedNoteSet = library.Holdings

// promotedNotes scans library/ for note ids (ADR numbering, unique paths)
// and the routing lines of notes kb promoted earlier.
func (k *KB) promotedNotes() promotedNoteSet {
	return library.ReadHoldings(k.Root, filepath.Join(k.Root, LayerLibrary), k.kbPrefix())
}

// promotionBranches reads the promotion branches and whether each landed
// in HEAD: merged, or squash-merged (one of its notes is at HEAD).
func (k *KB) promotionBranches(repo *gitx.Repo) []library.Proposal {
	tips, err := repo.BranchTips(k.branchPrefix())
	if err != nil {
		return nil
	}
	var out []library.Proposal
	for _, t := range tips {
		p := library.ParseProposal(t.Name, t.Hash, t.Message)
		p.Landed = repo.Reached(t.Hash, p.Notes)
		out = append(out, p)
	}
	return out
}

// markRejected sets status: rejected surgically. The caller holds the lock.
func (k *KB) markRejected(f *ObsFile, why string, now time.Time) (bool, error) {
	if f.Obs.Status == observations.StatusRejected {
		return false, nil
	}
	out, err := observations.RejectedRaw(f.Raw, why, now)
	if err == nil {
		err = k.replaceObs(f, out)
	}
	if err != nil {
		return false, fmt.Errorf("reject %s: %w", f.Path, err)
	}
	f.Obs.Status = observations.StatusRejected
	return true, nil
}

// replaceObs writes raw over f's file if it is still as read, and keeps
// it as f.Raw.
func (k *KB) replaceObs(f *ObsFile, raw []byte) error {
	abs, err := k.Path(f.Path)
	if err != nil {
		return err
	}
	if err := k.files().Replace(abs, raw, 0o644, fsx.Unchanged(f.Raw, true)); err != nil {
		return err
	}
	f.Raw = raw
	return nil
}

// RejectResult reports `kb promote reject`.
type RejectResult struct {
	ID      string `json:"id"`
	Path    string `json:"path"`
	Changed bool   `json:"changed"`
}

// PromoteReject marks a candidate rejected: it is never proposed again.
func (k *KB) PromoteReject(ctx context.Context, id, why string) (*RejectResult, error) {
	defer k.refreshActivation(ctx) // the next hook answers with what this changed
	var res *RejectResult
	err := k.withObservation(ctx, id, func(f *ObsFile) error {
		changed, err := k.markRejected(f, why, time.Now())
		res = &RejectResult{ID: f.Obs.ID, Path: f.Path, Changed: changed}
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// SyncChange is one observation `kb promote sync` updated.
type SyncChange = library.SyncChange

// SyncResult reports `kb promote sync`.
type SyncResult = library.SyncResult

// PromoteSync reconciles the promotion branches that landed in HEAD with
// the observation files (library.Sync), under the write lock.
func (k *KB) PromoteSync(ctx context.Context) (*SyncResult, error) {
	repo, err := gitx.Open(k.ProjectRoot)
	if err != nil {
		return nil, fmt.Errorf("promote sync: %w", err)
	}
	l, err := k.LockObservations(ctx)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	files, _, err := k.LoadObservations(ctx)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	return library.Sync(library.SyncInput{Proposals: k.promotionBranches(repo), At: repo.FileAt,
		Find:   func(id string) (*ObsFile, error) { return findObs(files, id) },
		Reject: func(f *ObsFile, why string) (bool, error) { return k.markRejected(f, why, now) },
		Promote: func(f *ObsFile) error {
			b, err := doc.SetStatus(f.Raw, observations.StatusPromoted)
			if err == nil {
				err = k.replaceObs(f, b)
			}
			if err != nil {
				return fmt.Errorf("promote sync: %s: %w", f.Path, err)
			}
			f.Obs.Status = observations.StatusPromoted
			return nil
		}})
}

// PromoteExplain measures one observation against its graduation rule.
func (k *KB) PromoteExplain(ctx context.Context, id string) (*library.Explanation, error) {
	files, _, err := k.LoadObservations(ctx)
	if err != nil {
		return nil, err
	}
	f, err := findObs(files, id)
	if err != nil {
		return nil, err
	}
	e := library.ExplainCovered(f.Obs, k.Rules(), k.promotedNotes().Notes)
	return &e, nil
}

// Status is the review queue, the size of each layer, and what arrived
// since the last report (`kb status`).
type Status struct {
	library.Status
	Arrived *Arrived `json:"arrived"`
	// Commitment is how agents acted on the lessons they were shown, per
	// lesson, the most ignored first (recall/commitment.go).
	Commitment []LessonCommitment `json:"commitment"`
}

// Arrived is what a pull brought into the KB's files, and the files with
// conflicts to resolve (team.Arrived).
type Arrived = team.Arrived

// statusFile records the commit `kb status` last reported.
const statusFile = "status.json"

// StaleAfter is how long a candidate may wait before kb status warns that
// nobody reviews the promotion queue.
const StaleAfter = library.StaleAfter

// Status reports the review queue: candidates waiting, the oldest one's
// age, how many would graduate now, open promotion branches, and the file
// count of each layer.
func (k *KB) Status(ctx context.Context) (*Status, error) {
	k.finishPendingExtract(ctx)
	st := &Status{Status: library.Status{Layers: map[string]int{}, PendingBranches: []string{}}}
	for _, l := range Layers {
		ext := ".md"
		if l == LayerTraces {
			ext = ".jsonl"
		}
		st.Layers[l] = fsx.CountFiles(filepath.Join(k.Root, l), ext)
	}
	files, probs, err := k.LoadObservations(ctx)
	if err != nil {
		return nil, err
	}
	st.ObservationErrors = len(probs)
	st.Count(files)
	var repo *gitx.Repo
	if r, err := gitx.Open(k.ProjectRoot); err == nil {
		repo = r
	}
	q, notes := k.queue(repo, files)
	st.PendingBranches = q.Branches
	st.Promotable = len(library.PlanPromotions(library.PlanInput{Observations: q.Observations, Rules: k.Rules(), NoteIDs: notes.IDs, Gate: k.Gate()}))
	st.Judge()
	titles := make(map[string]string, len(files))
	for _, f := range files {
		titles[f.Obs.ID] = f.Obs.Title
	}
	st.Commitment = k.Commitment(titles)
	// A commit that cannot be recorded is reported again next time: no
	// reason to fail the status.
	st.Arrived, _ = team.WhatArrived(k.files(), k.Root, k.ProjectRoot, filepath.Join(k.Root, StateDir, statusFile))
	return st, nil
}

// markDerivedPromoted marks as promoted the candidates a library note kb
// promoted derives from. The caller holds the lock.
func (k *KB) markDerivedPromoted(files []*ObsFile, notes promotedNoteSet) error {
	for _, f := range files {
		if library.IsCandidate(f.Obs) && notes.Derived[f.Obs.ID] {
			if err := k.markPromoted(f); err != nil {
				return err
			}
		}
	}
	return nil
}
