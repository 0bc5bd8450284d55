package recall

import (
	"encoding/json"
	"testing"

	"github.com/kbmem/kb/observations"
)

func FuzzCue(f *testing.F) {
	f.Add("Bash", `{"command":"git push --force"}`, "push it")
	f.Add("Edit", `{"file_path":"a/gen/x.pb.go","new_string":"x"}`, "")
	f.Add("", `not json`, "ALTER TABLE t DROP COLUMN c")
	f.Add("apply_patch", `"*** Begin Patch\n*** Update File: a.go\n+x\n*** End Patch"`, "")
	f.Fuzz(func(t *testing.T, tool, input, task string) {
		c := buildCue(observations.Default(), Query{Tool: tool, Input: json.RawMessage(input), Task: task, Cwd: "/p"})
		cd := &candidate{types: []string{"git:push-force"}, phrases: []string{"push it"}, text: task}
		c.match(cd)
		if cd.relevance < 0 {
			t.Fatalf("negative relevance")
		}
	})
}

// A change asked for in production is a change of production; a question
// about it, words about it, or a change in staging is not.
func TestChangesProduction(t *testing.T) {
	for _, c := range []struct {
		task string
		want bool
	}{
		{"bump the ack deadline on the prod alerts subscription to 60s, alerts are redelivered", true},
		{"support says the invoice was paid, just flip it to PAID in the production db", true},
		{"please restart the live worker", true},
		{"write the release notes for what went to prod", false},
		{"bump the ack deadline on the staging subscription and then on prod", false},
		{"the prod dashboard is slow", false},
	} {
		if got := changesProduction(c.task); got != c.want {
			t.Errorf("changesProduction(%q) = %v, want %v", c.task, got, c.want)
		}
	}
}

// A clause after a dash or a colon starts a request too.
func TestChangesProductionAfterADash(t *testing.T) {
	if !changesProduction("last night's ingest on the production Airflow died halfway — re-run it") {
		t.Error("a request after a dash")
	}
}
