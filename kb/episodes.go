package kb

import (
	"context"
	"fmt"

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
	defer k.refreshActivation(ctx) // the next hook answers with what this changed
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
	done, err := plan.Apply(k.files(), k.Root)
	rep.Written, rep.Unchanged, rep.Removed = done.Written, done.Unchanged, done.Removed
	if err != nil {
		return nil, err
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
