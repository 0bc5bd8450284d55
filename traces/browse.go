package traces

import (
	"regexp"
	"strings"
	"time"
)

// SessionSummary is one line of `kb sessions`: a SessionInfo as shown.
type SessionSummary struct {
	ID          string    `json:"id"`
	Agent       string    `json:"agent"`
	Path        string    `json:"path"`
	Start       time.Time `json:"start,omitzero"`
	End         time.Time `json:"end,omitzero"`
	DurationS   float64   `json:"duration_s"`
	Messages    int       `json:"messages"`
	ToolCalls   int       `json:"tool_calls"`
	Branch      string    `json:"branch,omitempty"`
	Cwd         string    `json:"cwd,omitempty"`
	FirstPrompt string    `json:"first_prompt,omitempty"`
	Source      string    `json:"source,omitempty"`
}

// Summary is the summary of a session.
func Summary(s SessionInfo) SessionSummary {
	sum := SessionSummary{ID: s.ID, Agent: s.Agent, Path: s.Path, Start: s.Start, End: s.End,
		Messages: s.Messages, ToolCalls: s.ToolCalls, Branch: s.Branch, Cwd: s.Cwd,
		FirstPrompt: s.FirstPrompt, Source: s.Source}
	if !s.Start.IsZero() && s.End.After(s.Start) {
		sum.DurationS = s.End.Sub(s.Start).Seconds()
	}
	return sum
}

// Summaries lists the sessions, oldest first: those of agent (any when
// "", case ignored) that ended (or, with no end, started) at or after
// since (any when zero).
func (s *Store) Summaries(agent string, since time.Time) ([]SessionSummary, error) {
	all, err := s.Sessions()
	if err != nil {
		return nil, err
	}
	out := []SessionSummary{}
	for _, si := range all {
		if agent != "" && !strings.EqualFold(si.Agent, agent) {
			continue
		}
		last := si.End
		if last.IsZero() {
			last = si.Start
		}
		if !since.IsZero() && last.Before(since) {
			continue
		}
		out = append(out, Summary(si))
	}
	return out, nil
}

// TraceOptions select the records of ReadTrace.
type TraceOptions struct {
	From, To int            // Seq range, inclusive; 0 = open
	Grep     *regexp.Regexp // only records whose text, tool, input or output match
}

// Trace is a session with the selected records.
type Trace struct {
	Session  SessionSummary `json:"session"`
	Records  []Record       `json:"records"`
	Problems []Problem      `json:"problems,omitempty"`
}

// ReadTrace reads the records of a session file that o selects.
func (s *Store) ReadTrace(info SessionInfo, o TraceOptions) (*Trace, error) {
	tr := &Trace{Session: Summary(info), Records: []Record{}}
	_, probs, err := s.ReadFile(info.Path, func(rec Record) error {
		if o.From > 0 && rec.Seq < o.From || o.To > 0 && rec.Seq > o.To {
			return nil
		}
		if o.Grep != nil && !o.Grep.MatchString(rec.Text) && !o.Grep.MatchString(rec.Output) &&
			!o.Grep.MatchString(rec.Tool) && !o.Grep.Match(rec.Input) {
			return nil
		}
		tr.Records = append(tr.Records, rec)
		return nil
	})
	tr.Problems = probs
	if err != nil {
		return nil, err
	}
	return tr, nil
}
