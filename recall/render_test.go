package recall

import "testing"

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
