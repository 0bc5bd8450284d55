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

// A trigger that names a moment of the conversation leads the item in its
// own words; one that names an action reads "BEFORE ...".
func TestTriggerLead(t *testing.T) {
	for trig, want := range map[string]string{
		"when asked to add the export button":        "WHEN asked to add the export button",
		"after the agent's answer “I'll add a flag”": "AFTER the agent's answer “I'll add a flag”",
		"running `git push --force`":                 "",
	} {
		got, ok := triggerLead(trig)
		if got != want || ok != (want != "") {
			t.Errorf("triggerLead(%q) = %q, %v", trig, got, ok)
		}
	}
}
