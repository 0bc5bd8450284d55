package observations

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kbmem/kb/internal/textutil"
)

// Explicit is an observation an agent records explicitly (the MCP remember
// tool): its type, its text, and for a correction when it applies.
type Explicit struct {
	Type        string   `json:"type"`              // correction, preference, procedure, decision, negative-result, discovery or question
	Text        string   `json:"text"`              // the lesson, preference, steps (one per line), decision, failed approach, fact or question
	Trigger     string   `json:"trigger,omitempty"` // correction: when it applies; procedure: its goal
	ActionTypes []string `json:"action_types,omitempty"`
	Why         string   `json:"why,omitempty"` // consequence, failure or reasons
}

// FromExplicit is the observation of an explicit note taken at now: the
// agent's words, not the person's (author agent, origin mcp-remember, one
// source "mcp"), kept with that provenance and recalled as the agent's
// note until a person reviews it. A correction without action types gets
// those tax finds in its trigger and lesson. Its id is the one the same
// note always gets, so that remembering it twice updates the first.
func FromExplicit(in Explicit, tax *Taxonomy, now time.Time) (*Observation, error) {
	text := strings.TrimSpace(in.Text)
	if text == "" {
		return nil, errors.New("remember needs a text")
	}
	now = now.UTC().Truncate(time.Second)
	o := &Observation{Type: in.Type, Title: textutil.Truncate(strings.Join(strings.Fields(text), " "), 80), Confidence: 0.5, Importance: 0.7,
		Status: StatusCandidate, Lifecycle: LifecycleOf(in.Type),
		Author: AuthorAgent, Origin: OriginMCPRemember,
		Sources: []SourceRef{{Session: "mcp", Time: now}}, Sessions: 1, FirstSeen: now, LastSeen: now}
	why := strings.TrimSpace(in.Why)
	switch in.Type {
	case TypeCorrection:
		o.Lesson, o.Trigger, o.Consequence = text, strings.TrimSpace(in.Trigger), why
		o.ActionTypes = in.ActionTypes
		if len(o.ActionTypes) == 0 && tax != nil {
			o.ActionTypes = tax.ClassifyText(o.Trigger + "\n" + text)
		}
		for _, t := range o.ActionTypes {
			if !typeRE.MatchString(t) {
				return nil, fmt.Errorf("action type %q is not domain:verb", t)
			}
		}
		if len(o.ActionTypes) > 0 {
			o.ActionType = o.ActionTypes[0]
		}
	case TypePreference:
		o.Statement = text
	case TypeProcedure:
		for _, l := range strings.Split(text, "\n") {
			if l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "-*0123456789.)")); l != "" {
				o.Steps = append(o.Steps, l)
			}
		}
		if len(o.Steps) == 0 {
			o.Steps = []string{text}
		}
		o.Goal = textutil.Truncate(o.Steps[0], 100)
		if t := strings.TrimSpace(in.Trigger); t != "" {
			o.Goal = t
		}
	case TypeDecision:
		o.Chosen = text
		if why != "" {
			o.Reasons = []string{why}
		}
	case TypeNegativeResult:
		o.Approach, o.Failure = text, why
	case TypeDiscovery:
		o.Claim = text
	case TypeQuestion:
		o.Question = text
	default:
		return nil, fmt.Errorf("unknown observation type %q (one of %s)", in.Type, strings.Join(AllTypes, ", "))
	}
	o.ID = o.MakeID()
	return o, nil
}
