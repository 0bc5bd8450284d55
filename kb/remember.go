package kb

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kbmem/kb/internal/textutil"
	"github.com/kbmem/kb/observations"
)

// RememberInput is an observation an agent records explicitly (the MCP
// remember tool): its type, its text, and for a correction when it applies.
type RememberInput struct {
	Type        string   `json:"type"`              // correction, preference, procedure, decision, negative-result, discovery or question
	Text        string   `json:"text"`              // the lesson, preference, steps (one per line), decision, failed approach, fact or question
	Trigger     string   `json:"trigger,omitempty"` // correction: when it applies; procedure: its goal
	ActionTypes []string `json:"action_types,omitempty"`
	Why         string   `json:"why,omitempty"` // consequence, failure or reasons
}

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
	text := strings.TrimSpace(in.Text)
	if text == "" {
		return nil, fmt.Errorf("%w: remember needs a text", ErrInvalidInput)
	}
	now := time.Now().UTC().Truncate(time.Second)
	// The agent's words, not the person's: kept with that provenance and
	// recalled as the agent's note until a person reviews it (kb review).
	o := &observations.Observation{Type: in.Type, Title: truncate(textutil.OneLine(text), 80), Confidence: 0.5, Importance: 0.7,
		Status: observations.StatusCandidate, Lifecycle: observations.LifecycleOf(in.Type),
		Author: observations.AuthorAgent, Origin: observations.OriginMCPRemember,
		Sources: []observations.SourceRef{{Session: "mcp", Time: now}}, Sessions: 1, FirstSeen: now, LastSeen: now}
	why := strings.TrimSpace(in.Why)
	switch in.Type {
	case observations.TypeCorrection:
		o.Lesson, o.Trigger, o.Consequence = text, strings.TrimSpace(in.Trigger), why
		o.ActionTypes = in.ActionTypes
		if len(o.ActionTypes) == 0 {
			tax, err := k.cueTaxonomy()
			if err != nil {
				return nil, err
			}
			o.ActionTypes = tax.ClassifyText(o.Trigger + "\n" + text)
		}
		for _, t := range o.ActionTypes {
			if !observations.IsActionType(t) {
				return nil, fmt.Errorf("%w: action type %q is not domain:verb", ErrInvalidInput, t)
			}
		}
		if len(o.ActionTypes) > 0 {
			o.ActionType = o.ActionTypes[0]
		}
	case observations.TypePreference:
		o.Statement = text
	case observations.TypeProcedure:
		for _, l := range strings.Split(text, "\n") {
			if l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "-*0123456789.)")); l != "" {
				o.Steps = append(o.Steps, l)
			}
		}
		if len(o.Steps) == 0 {
			o.Steps = []string{text}
		}
		o.Goal = truncate(o.Steps[0], 100)
		if t := strings.TrimSpace(in.Trigger); t != "" {
			o.Goal = t
		}
	case observations.TypeDecision:
		o.Chosen = text
		if why != "" {
			o.Reasons = []string{why}
		}
	case observations.TypeNegativeResult:
		o.Approach, o.Failure = text, why
	case observations.TypeDiscovery:
		o.Claim = text
	case observations.TypeQuestion:
		o.Question = text
	default:
		return nil, fmt.Errorf("%w: unknown observation type %q (one of %s)", ErrInvalidInput, in.Type, strings.Join(observations.AllTypes, ", "))
	}
	o.ID = o.MakeID()
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
