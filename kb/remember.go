package kb

import (
	"context"
	"fmt"
	"time"

	"github.com/kbmem/kb/observations"
)

// RememberInput is an observation an agent records explicitly (the MCP
// remember tool): observations.Explicit.
type RememberInput = observations.Explicit

// Remembered is the observation Remember wrote.
type Remembered struct {
	ID      string `json:"id"`
	Path    string `json:"path"`
	Created bool   `json:"created"` // false: the same thing was remembered before and updated
}

// Remember records an explicit observation (source "mcp") under the write
// lock, as the agent's words (author agent, origin mcp-remember): recalled
// as "The agent noted (unreviewed)", never promoted, learned, standing or
// deciding until a person reviews it (Review). Remembering the same thing
// twice updates the first observation.
func (k *KB) Remember(ctx context.Context, in RememberInput) (*Remembered, error) {
	defer k.refreshActivation(ctx) // the next hook answers with what this changed
	tax, err := k.Taxonomy()
	if err != nil {
		return nil, err
	}
	o, err := observations.FromExplicit(in, tax, time.Now())
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidInput, err)
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
	var existing *ObsFile
	for _, f := range files {
		if f.Obs.ID == o.ID {
			existing = f
			break
		}
	}
	if existing != nil {
		observations.Merge(existing.Obs, o)
		rel, _, err := k.SaveObservation(existing.Obs, existing)
		if err != nil {
			return nil, err
		}
		return &Remembered{ID: existing.Obs.ID, Path: rel}, nil
	}
	rel, _, err := k.SaveObservation(o, nil)
	if err != nil {
		return nil, err
	}
	return &Remembered{ID: o.ID, Path: rel, Created: true}, nil
}
