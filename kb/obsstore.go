package kb

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/observations"
)

// ObsFile is an observation as stored in observations/<type>/<id>.md; the
// file format is the observations package's.
type ObsFile = observations.File

// Tombstone marks a forgotten observation (observations.Tombstone).
type Tombstone = observations.Tombstone

// TombstoneFile holds one JSON tombstone per line.
const TombstoneFile = observations.TombstoneFile

// ObservationPath is where an observation of this type and id lives.
func ObservationPath(typ, id string) string { return observations.FilePath(typ, id) }

// RenderObservation returns the file content of a new observation.
func RenderObservation(o *observations.Observation) ([]byte, error) { return observations.Render(o) }

// Forgotten reports whether an observation matches a tombstone, by id or
// by dedup key.
func Forgotten(ts []Tombstone, o *observations.Observation) bool {
	return observations.Forgotten(ts, o)
}

// LoadObservations reads every observation file, parsing on all cores.
// Files that fail to parse are reported and skipped.
func (k *KB) LoadObservations(ctx context.Context) ([]*ObsFile, []Problem, error) {
	dir := filepath.Join(k.Root, LayerObservations)
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // a missing or unreadable directory holds nothing
		}
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && path.Ext(d.Name()) == ".md" && !strings.HasPrefix(d.Name(), ".") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	files := make([]*ObsFile, len(paths))
	probs := make([]*Problem, len(paths))
	workers := max(1, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(paths); i += workers {
				if ctx.Err() != nil {
					return
				}
				files[i], probs[i] = readObsFile(paths[i], k.Rel(paths[i]))
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	var out []*ObsFile
	var problems []Problem
	for i := range paths {
		if probs[i] != nil {
			problems = append(problems, *probs[i])
		} else if files[i] != nil {
			out = append(out, files[i])
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, problems, nil
}

func readObsFile(abs, rel string) (*ObsFile, *Problem) {
	b, err := fsx.ReadFileNoFollow(abs) // found by a walk that never enters a symlink
	if err != nil {
		return nil, &Problem{Path: rel, Msg: err.Error(), Rule: "unreadable"}
	}
	return observations.ParseFile(rel, b)
}

// SaveObservation writes an observation atomically: a new file, or an
// update of an existing one. An existing file a person edited keeps its
// text; only bookkeeping fields change, surgically. The caller holds the
// KB write lock. It reports whether the file changed.
func (k *KB) SaveObservation(o *observations.Observation, existing *ObsFile) (string, bool, error) {
	rel, out, changed, err := observations.RenderFile(o, existing)
	if err != nil || !changed {
		return rel, false, err
	}
	abs, err := k.Path(rel)
	if err != nil {
		return rel, false, err
	}
	if err := k.files().WriteFile(abs, out, 0o644); err != nil {
		return rel, false, fmt.Errorf("save observation %s: %w", rel, err)
	}
	return rel, true, nil
}

func (k *KB) tombstonePath() string { return filepath.Join(k.Root, filepath.FromSlash(TombstoneFile)) }

// Tombstones reads the tombstones. Malformed lines are logged and skipped.
func (k *KB) Tombstones() ([]Tombstone, error) {
	b, err := k.files().ReadFile(k.tombstonePath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ts, probs := observations.ParseTombstones(b)
	for _, p := range probs {
		k.logf("%s", p)
	}
	return ts, nil
}

// Forget deletes an observation and leaves a tombstone. The caller holds
// the write lock.
func (k *KB) Forget(ctx context.Context, id, why string) (*Tombstone, error) {
	files, _, err := k.LoadObservations(ctx)
	if err != nil {
		return nil, err
	}
	var f *ObsFile
	for _, x := range files {
		if x.Obs.ID == id || strings.TrimSuffix(path.Base(x.Path), ".md") == id {
			f = x
			break
		}
	}
	if f == nil {
		return nil, fmt.Errorf("observation %q: %w", id, ErrNotFound)
	}
	t := observations.TombstoneOf(f.Obs, why, time.Now())
	old, err := k.files().ReadFile(k.tombstonePath())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	// Tombstone first, then delete: a crash in between leaves a tombstoned
	// file, which the next extract or forget cleans up; never a lost tombstone.
	if err := k.files().WriteFile(k.tombstonePath(), observations.AppendTombstone(old, t), 0o644); err != nil {
		return nil, err
	}
	abs, err := k.Path(f.Path)
	if err != nil {
		return nil, err
	}
	if err := k.files().Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return &t, fsx.SyncDir(filepath.Dir(abs))
}
