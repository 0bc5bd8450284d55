package library

import (
	"time"

	"github.com/kbmem/kb/observations"
)

// Status is the review queue and the size of each layer (`kb status`).
type Status struct {
	Layers            map[string]int `json:"layers"` // files per layer
	Candidates        int            `json:"candidates"`
	Promoted          int            `json:"promoted"`
	Rejected          int            `json:"rejected"`
	Superseded        int            `json:"superseded"` // a later observation of the same person and scope contradicts them
	Promotable        int            `json:"promotable"` // graduations `kb promote` would propose now
	OldestCandidate   time.Time      `json:"oldest_candidate,omitzero"`
	OldestAgeDays     float64        `json:"oldest_age_days"`
	PendingBranches   []string       `json:"pending_branches"`
	ObservationErrors int            `json:"observation_errors,omitempty"`
	// NeedsReview are the observations the agent wrote that no person has
	// reviewed: they are recalled as the agent's notes and nothing more
	// until `kb review ID`.
	NeedsReview []observations.AgentNote `json:"needs_review"`
	// Stale is set when graduations are ready and the oldest candidate has
	// waited more than StaleAfter: the pipeline runs but nobody reviews.
	Stale bool `json:"stale"`
}

// StaleAfter is how long a candidate may wait before kb status warns that
// nobody reviews the promotion queue (design: "The ephemeral computation
// trap").
const StaleAfter = 14 * 24 * time.Hour

// Count adds the observations' statuses to st: candidates (and the oldest
// one's first sighting), promoted, rejected, superseded, and the agent's
// notes waiting for review.
func (st *Status) Count(files []*observations.File) {
	st.NeedsReview = observations.AgentNotes(files)
	for _, f := range files {
		o := f.Obs
		switch {
		case IsCandidate(o):
			st.Candidates++
			t := o.FirstSeen
			if !t.IsZero() && (st.OldestCandidate.IsZero() || t.Before(st.OldestCandidate)) {
				st.OldestCandidate = t
			}
		case o.Status == observations.StatusPromoted:
			st.Promoted++
		case o.Status == observations.StatusRejected:
			st.Rejected++
		case o.Status == observations.StatusSuperseded:
			st.Superseded++
		}
	}
	if !st.OldestCandidate.IsZero() {
		st.OldestAgeDays = float64(int(time.Since(st.OldestCandidate).Hours()/24*10)) / 10
	}
}

// Judge sets what the queue says once Promotable and PendingBranches are
// known: stale when graduations are ready, no branch proposes them and the
// oldest candidate waited more than StaleAfter.
func (st *Status) Judge() {
	st.Stale = st.Promotable > 0 && len(st.PendingBranches) == 0 && !st.OldestCandidate.IsZero() &&
		time.Since(st.OldestCandidate) > StaleAfter
}

// ExplainCovered is Explain, with an eligible candidate that a library
// note already says made ineligible (kb promote does not add a second
// note).
func ExplainCovered(o *observations.Observation, r Rules, notes []Note) Explanation {
	e := Explain(o, r)
	if e.Checks == nil {
		e.Checks = []Check{}
	}
	if e.Eligible {
		if n := Covering(o, notes); n != nil {
			e.Eligible = false
			e.Note = "already said by library note " + n.ID + " (" + n.Path + "): kb promote does not add a second note"
		}
	}
	return e
}
