package kb

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

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
	return observations.LoadFiles(ctx, k.Root, filepath.Join(k.Root, LayerObservations))
}

func readObsFile(abs, rel string) (*ObsFile, *Problem) { return observations.ReadFile(abs, rel) }

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
	ts, probs, err := observations.ReadTombstones(k.files(), k.tombstonePath())
	for _, p := range probs {
		k.logf("%s", p)
	}
	return ts, err
}

// Forget deletes an observation and leaves a tombstone. The caller holds
// the write lock.
func (k *KB) Forget(ctx context.Context, id, why string) (*Tombstone, error) {
	defer k.refreshActivation(ctx) // the next hook answers with what this changed
	files, _, err := k.LoadObservations(ctx)
	if err != nil {
		return nil, err
	}
	if f := observations.FileByID(files, id); f != nil {
		return observations.Bury(k.files(), k.Root, k.tombstonePath(), f, why, time.Now())
	}
	return nil, fmt.Errorf("observation %q: %w", id, ErrNotFound)
}
