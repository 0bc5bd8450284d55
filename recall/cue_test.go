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
