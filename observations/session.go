package observations

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kbmem/kb/internal/textutil"
	"github.com/kbmem/kb/traces"
)

// ParseTypes validates requested observation types: lower-cased,
// deduplicated, sorted; none requested is every type.
func ParseTypes(req []string) ([]string, error) {
	if len(req) == 0 {
		req = AllTypes
	}
	var out []string
	for _, t := range req {
		t = strings.ToLower(strings.TrimSpace(t))
		if t == "" {
			continue
		}
		if !slices.Contains(AllTypes, t) {
			return nil, fmt.Errorf("unknown observation type %q (known: %s)", t, strings.Join(AllTypes, ", "))
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out, nil
}

// ProcedureView keeps what procedure mining looks at: tool calls,
// rejections without tool output, and what the person typed (the requests
// procedures are anchored to, cut short), so that every session in scope
// can be held at once.
func ProcedureView(s *Session) *Session {
	v := &Session{ID: s.ID}
	for _, r := range s.Records {
		switch {
		case r.Human():
			r.Text = textutil.FirstRunes(r.Text, 600)
			v.Records = append(v.Records, r)
		case r.Kind == traces.KindToolCall:
			v.Records = append(v.Records, r)
		case r.Kind == traces.KindToolResult:
			if r.Has(traces.MarkRejected) || r.IsError {
				r.Output = textutil.FirstRunes(r.Output, 300)
				v.Records = append(v.Records, r)
			}
		}
	}
	return v
}

// AddWorkdir records in cwds the working directory of the session (its
// first record that names one), under the session's id and the id its
// records carry.
func (s *Session) AddWorkdir(cwds map[string]string) {
	for _, r := range s.Records {
		if r.Cwd != "" {
			cwds[s.ID] = r.Cwd
			if r.Session != "" {
				cwds[r.Session] = r.Cwd
			}
			return
		}
	}
}

// SetProjects records the working directories of the observation's source
// sessions (recall keeps a one-off lesson to its project).
func (o *Observation) SetProjects(cwds map[string]string) {
	for _, src := range o.Sources {
		if c := cwds[src.Session]; c != "" && !slices.Contains(o.Projects, c) {
			o.Projects = append(o.Projects, c)
		}
	}
	sort.Strings(o.Projects)
}
