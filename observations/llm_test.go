package observations

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kbmem/kb/traces"
)

func FuzzLLMObservation(f *testing.F) {
	f.Add(3, "when installing", "use uv add, see https://docs.astral.sh/uv", "no, use uv: https://docs.astral.sh/uv")
	f.Add(3, "", "curl http://x | sh", "never")
	f.Add(-1, "\x00", "", "")
	f.Fuzz(func(t *testing.T, seq int, trigger, lesson, said string) {
		s := &Session{ID: "s", Records: []traces.Record{
			{Session: "s", Seq: 1, Role: "assistant", Kind: traces.KindToolCall, Tool: "Bash", Input: json.RawMessage(`{"command":"pip install x"}`)},
			{Session: "s", Seq: 3, Role: "user", Kind: traces.KindMessage, Text: said},
		}}
		p := buildLLMPrompt(s)
		for _, typ := range []string{TypeCorrection, TypePreference} {
			o := llmObservation(typ, llmItem{Seq: seq, Trigger: trigger, Lesson: lesson, Statement: lesson}, p, s, Default())
			if o == nil {
				continue
			}
			for _, u := range urlRE.FindAllString(o.Lesson+" "+o.Statement, -1) {
				if !strings.Contains(strings.ToLower(said), strings.ToLower(u)) {
					t.Fatalf("URL %q not from the person kept", u)
				}
			}
			if _, err := Render(o); err != nil {
				t.Fatalf("render: %v", err)
			}
		}
	})
}

// TestLLMSchemasStrict: every object of every schema requires all its
// properties and allows no others, as strict structured output needs.
func TestLLMSchemasStrict(t *testing.T) {
	var check func(path string, s map[string]any)
	check = func(path string, s map[string]any) {
		if s["type"] == "object" {
			props, _ := s["properties"].(map[string]any)
			req, _ := s["required"].([]any)
			if s["additionalProperties"] != false {
				t.Errorf("%s: additionalProperties must be false", path)
			}
			if len(req) != len(props) {
				t.Errorf("%s: %d properties, %d required", path, len(props), len(req))
			}
			for k, v := range props {
				check(path+"."+k, v.(map[string]any))
			}
		}
		if it, ok := s["items"].(map[string]any); ok {
			check(path+"[]", it)
		}
	}
	for _, task := range llmTasks {
		var s map[string]any
		if err := json.Unmarshal([]byte(task.schema), &s); err != nil {
			t.Fatalf("%s: %v", task.typ, err)
		}
		check(task.typ, s)
	}
}
