package kb

import (
	"context"
	"fmt"
	"time"

	"github.com/kbmem/kb/observations"
)

// AgentNote is an observation the agent wrote (assistant text, MCP
// remember), as `kb status` and `kb review` list it.
type AgentNote = observations.AgentNote

// AgentNotes lists the agent-written observations no person has reviewed.
func (k *KB) AgentNotes(ctx context.Context) ([]AgentNote, error) {
	files, _, err := k.LoadObservations(ctx)
	if err != nil {
		return nil, err
	}
	return observations.AgentNotes(files), nil
}

// ReviewResult reports `kb review ID`.
type ReviewResult struct {
	AgentNote
	Changed bool `json:"changed"`
}

// Review records that a person reviewed an agent-written observation and
// lets it count like their own: it may then be promoted, learned into
// AGENTS.md, put in a new session's standing context and decide a
// PreToolUse call. It stays labelled as the agent's words. Reviewing it
// again changes nothing; an observation of the person's own is an error.
func (k *KB) Review(ctx context.Context, id string, now time.Time) (*ReviewResult, error) {
	defer k.refreshActivation(ctx) // the next hook answers with what this changed
	var res *ReviewResult
	err := k.withObservation(ctx, id, func(f *ObsFile) error {
		o := f.Obs
		if !o.AgentAuthored() {
			return fmt.Errorf("%w: %s holds the person's own words; only an agent-written observation needs a review", ErrInvalidInput, o.ID)
		}
		res = &ReviewResult{AgentNote: f.NoteOf()}
		if o.Reviewed.IsZero() {
			o.Reviewed = now.UTC().Truncate(time.Second)
			var err error
			if _, res.Changed, err = k.SaveObservation(o, f); err != nil {
				return err
			}
		}
		res.Reviewed = o.Reviewed
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// withObservation runs fn on the observation id names (an id, a unique
// prefix or a file name), holding the KB write lock.
func (k *KB) withObservation(ctx context.Context, id string, fn func(*ObsFile) error) error {
	l, err := k.LockObservations(ctx)
	if err != nil {
		return err
	}
	defer l.Release()
	files, _, err := k.LoadObservations(ctx)
	if err != nil {
		return err
	}
	f, err := findObs(files, id)
	if err != nil {
		return err
	}
	return fn(f)
}
