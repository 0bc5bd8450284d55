package watch

import (
	"encoding/json"
	"sort"
	"time"
)

// Pending is what a watcher saves between runs: the sessions that received
// records and have not been handed on yet, each with the time of its last
// records, so that a restart neither forgets nor repeats them.
type Pending struct {
	Version  int                  `json:"version"`
	Sessions map[string]time.Time `json:"pending"`
}

// ParsePending decodes saved state. Missing or unreadable data is an empty
// set: a session is pending again when it next grows.
func ParsePending(data []byte) *Pending {
	p := &Pending{Version: 1}
	if len(data) == 0 || json.Unmarshal(data, p) != nil {
		p = &Pending{Version: 1}
	}
	if p.Sessions == nil {
		p.Sessions = map[string]time.Time{}
	}
	return p
}

// JSON is the state to save.
func (p *Pending) JSON() ([]byte, error) { return json.Marshal(p) }

// Touch records that sessions received records at t (or, after a failed
// hand-over, starts their quiet period again).
func (p *Pending) Touch(sessions []string, t time.Time) {
	for _, s := range sessions {
		p.Sessions[s] = t
	}
}

// Quiet lists, sorted, the sessions without records for after at now.
func (p *Pending) Quiet(now time.Time, after time.Duration) []string {
	var quiet []string
	for s, last := range p.Sessions {
		if now.Sub(last) >= after {
			quiet = append(quiet, s)
		}
	}
	sort.Strings(quiet)
	return quiet
}

// Done forgets sessions that were handed on.
func (p *Pending) Done(sessions []string) {
	for _, s := range sessions {
		delete(p.Sessions, s)
	}
}
