package library

import (
	"time"

	"github.com/kbmem/kb/observations"
)

// ADRDraftPlan is an ADR drafted from observations: the note to create and
// the ids of the observations it was assembled from.
type ADRDraftPlan struct {
	Note         *Created
	Observations []string
}

// PlanADRDraft assembles an ADR from decisions and negative results
// (ADRSources or ADRSourcesOfSession): numbered after the library's ADR
// ids, and past any number whose file taken reports as existing.
func PlanADRDraft(decisions, negatives []*observations.Observation, noteIDs []string, taken func(rel string) bool, now time.Time) ADRDraftPlan {
	num := NextADRNumber(noteIDs)
	var c *Created
	for {
		c = DraftADR(num, decisions, negatives, now)
		if taken == nil || !taken(c.RelPath) {
			break
		}
		num++
	}
	p := ADRDraftPlan{Note: c}
	for _, x := range append(append([]*observations.Observation{}, decisions...), negatives...) {
		p.Observations = append(p.Observations, x.ID)
	}
	return p
}
