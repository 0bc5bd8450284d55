package kb

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/kbmem/kb/episodes"
	"github.com/kbmem/kb/observations"
	"github.com/kbmem/kb/traces"
)

// EpisodesReport says what `kb episodes build` did.
type EpisodesReport struct {
	Sessions  int       `json:"sessions"`
	Episodes  int       `json:"episodes"`
	Written   []string  `json:"written"`           // created or changed
	Unchanged int       `json:"unchanged"`         //
	Kept      []string  `json:"kept,omitempty"`    // edited by a person: left alone
	Removed   []string  `json:"removed,omitempty"` // kb-written episodes whose sessions regrouped
	Problems  []Problem `json:"problems,omitempty"`
}

// EpisodeFile is an episode as stored in episodes/<id>.md.
type EpisodeFile = episodes.File

// LoadEpisodes reads every episode file (episodes.Load); files that fail
// to parse are reported and skipped.
func (k *KB) LoadEpisodes(ctx context.Context) ([]*EpisodeFile, []Problem, error) {
	return episodes.Load(ctx, k.Root)
}

// BuildEpisodes groups every session into episodes and writes them. It is
// idempotent, never overwrites or removes an episode a person edited, and
// skips a new episode that shares sessions with an edited one.
func (k *KB) BuildEpisodes(ctx context.Context) (*EpisodesReport, error) {
	l, err := k.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	rep := &EpisodesReport{Written: []string{}}
	sums, probs, err := episodes.SummarizeStore(ctx, &traces.Store{Root: k.Root})
	rep.Problems = append(rep.Problems, probs...)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("episodes: %w", err)
	}
	rep.Sessions = len(sums)
	files, probs, err := k.LoadObservations(ctx)
	if err != nil {
		return nil, err
	}
	rep.Problems = append(rep.Problems, probs...)
	obs := make([]*observations.Observation, 0, len(files))
	for _, f := range files {
		obs = append(obs, f.Obs)
	}
	eps := episodes.Group(sums, obs, episodes.Options{Notes: k.promotedNotes().NotesOf})
	rep.Episodes = len(eps)
	existing, eprobs, err := k.LoadEpisodes(ctx)
	if err != nil {
		return nil, err
	}
	rep.Problems = append(rep.Problems, eprobs...)
	plan, err := episodes.PlanBuild(eps, existing)
	if err != nil {
		return nil, err
	}
	rep.Kept = plan.Kept
	for _, w := range plan.Write {
		abs, err := k.Path(w.Path)
		if err != nil {
			return nil, err
		}
		if old, err := k.files().ReadFile(abs); err == nil && string(old) == string(w.Content) {
			rep.Unchanged++
			continue
		}
		if err := k.files().WriteFile(abs, w.Content, 0o644); err != nil {
			return nil, fmt.Errorf("episodes: %w", err)
		}
		rep.Written = append(rep.Written, w.Path)
	}
	for _, rel := range plan.Remove {
		abs, err := k.Path(rel)
		if err != nil {
			continue
		}
		if err := k.files().Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("episodes: %w", err)
		}
		rep.Removed = append(rep.Removed, rel)
	}
	return rep, nil
}

// ShowEpisode finds an episode by id or unique id prefix.
func (k *KB) ShowEpisode(ctx context.Context, id string) (*EpisodeFile, error) {
	all, _, err := k.LoadEpisodes(ctx)
	if err != nil {
		return nil, err
	}
	return resolveID(all, id, "episode", func(f *EpisodeFile) []string { return []string{f.Episode.ID} })
}
