package kb

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kbmem/kb/episodes"
	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/fsx"
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

// LoadEpisodes reads every episode file; files that fail to parse are
// reported and skipped.
func (k *KB) LoadEpisodes(ctx context.Context) ([]*EpisodeFile, []Problem, error) {
	dir := filepath.Join(k.Root, LayerEpisodes)
	var out []*EpisodeFile
	var probs []Problem
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || path.Ext(d.Name()) != ".md" || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel := k.Rel(p)
		b, err := fsx.ReadFileNoFollow(p) // the walk never enters a symlink
		if err != nil {
			probs = append(probs, Problem{Path: rel, Msg: err.Error(), Rule: "unreadable"})
			return nil
		}
		f, prob := episodes.ParseFile(rel, b)
		if prob != nil {
			probs = append(probs, *prob)
			return nil
		}
		out = append(out, f)
		return nil
	})
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Episode.Scope.From, out[j].Episode.Scope.From
		if !a.Equal(b) {
			return a.After(b)
		}
		return out[i].Path < out[j].Path
	})
	return out, probs, err
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
	st := &traces.Store{Root: k.Root}
	infos, err := st.Sessions()
	if err != nil {
		return nil, fmt.Errorf("episodes: %w", err)
	}
	sums := make([]episodes.SessionSummary, 0, len(infos))
	for _, info := range infos {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var recs []traces.Record
		_, probs, err := st.ReadFile(info.Path, func(r traces.Record) error { recs = append(recs, r); return nil })
		rep.Problems = append(rep.Problems, probs...)
		if err != nil {
			rep.Problems = append(rep.Problems, Problem{Path: info.Path, Msg: err.Error(), Rule: "trace"})
			continue
		}
		sums = append(sums, episodes.Summarize(info.ID, recs))
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
	eps := episodes.Group(sums, obs, episodes.Options{Notes: k.notesByObservation()})
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

// notesByObservation maps observation ids to the library notes derived
// from them.
func (k *KB) notesByObservation() map[string][]string {
	out := map[string][]string{}
	dir := filepath.Join(k.Root, LayerLibrary)
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(d.Name()) != ".md" {
			return nil
		}
		b, err := fsx.ReadFileNoFollow(p) // a symlink named *.md is not read
		if err != nil {
			return nil
		}
		dd, err := doc.Parse(k.Rel(p), b)
		if err != nil {
			return nil
		}
		for _, id := range dd.Relations["derived_from"] {
			out[id] = append(out[id], NoteID(dd))
		}
		return nil
	})
	return out
}

// ShowEpisode finds an episode by id or unique id prefix.
func (k *KB) ShowEpisode(ctx context.Context, id string) (*EpisodeFile, error) {
	all, _, err := k.LoadEpisodes(ctx)
	if err != nil {
		return nil, err
	}
	return resolveID(all, id, "episode", func(f *EpisodeFile) []string { return []string{f.Episode.ID} })
}
