package recall

import (
	"slices"
	"testing"
)

// A lesson the session was shown comes back only when the call repeats
// what it prohibits, and then up to MaxSpecificShows shows in all; an
// established high-consequence lesson, which decides the call, every time.
func TestUnseenBoundsRepeats(t *testing.T) {
	items := func() *Result {
		return &Result{Items: []Item{
			{ID: "new"},
			{ID: "plain"},
			{ID: "specific-once", Specific: true},
			{ID: "specific-often", Specific: true},
			{ID: "decides", Specific: true, Established: true, HighConsequence: true},
		}}
	}
	r := items()
	r.Unseen(map[string]int{"plain": 1, "specific-once": 1, "specific-often": MaxSpecificShows, "decides": 10})
	if got := r.IDs(); !slices.Equal(got, []string{"new", "specific-once", "decides"}) {
		t.Errorf("kept %q", got)
	}
	r = items()
	r.Unseen(nil)
	if len(r.Items) != 5 {
		t.Errorf("a session that saw nothing kept %d items", len(r.Items))
	}
}
