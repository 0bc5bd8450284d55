package traces

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

const genericFixture = "../testdata/transcripts/generic/chat.jsonl"

func TestGenericFixture(t *testing.T) {
	data := trRead(t, genericFixture)
	recs, end, probs := trParse(t, NewGeneric(), data, "chat.jsonl", Pos{})
	var probLines []int
	for _, p := range probs {
		probLines = append(probLines, p.Line)
	}
	if !reflect.DeepEqual(probLines, []int{11, 12, 13}) {
		t.Errorf("problem lines %v, want [11 12 13]: %v", probLines, probs)
	}
	if last := bytes.LastIndexByte(data, '\n') + 1; end.Offset != int64(last) || end.Line != 13 {
		t.Errorf("end %+v, want offset %d line 13", end, last)
	}
	type want struct {
		session, role, kind, text string
		line                      int
	}
	wants := []want{
		{"demo-1", RoleSystem, KindMessage, "You are a helpful assistant.", 1},
		{"demo-1", RoleUser, KindMessage, "Rename foo to bar in main.go", 2},
		{"demo-1", RoleAssistant, KindToolCall, "", 3},
		{"demo-1", RoleAssistant, KindToolCall, "", 3},
		{"demo-1", RoleTool, KindToolResult, "ok", 4},
		{"demo-1", RoleTool, KindToolResult, "go build: ok", 5},
		{"demo-1", RoleAssistant, KindMessage, "Done.", 6},
		{"demo-2", RoleUser, KindMessage, "<environment>injected</environment>", 8},
		{"demo-2", RoleUser, KindMessage, "now add tests", 9},
		{"demo-2", RoleAssistant, KindToolCall, "", 10},
		{"demo-2", RoleUser, KindMessage, "bad time", 13},
	}
	if len(recs) != len(wants) {
		for _, r := range recs {
			b, _ := json.Marshal(r)
			t.Logf("%s", b)
		}
		t.Fatalf("%d records, want %d", len(recs), len(wants))
	}
	for i, w := range wants {
		r := recs[i]
		if r.Session != w.session || r.Role != w.role || r.Kind != w.kind || r.Text+r.Output != w.text || r.Source.Line != w.line {
			t.Errorf("record %d: got %s %s/%s %q line %d, want %s %s/%s %q line %d", i, r.Session, r.Role, r.Kind, r.Text+r.Output, r.Source.Line, w.session, w.role, w.kind, w.text, w.line)
		}
	}
	if recs[0].Agent != "my-agent" || recs[1].Agent != "my-agent" {
		t.Errorf("agents %q %q", recs[0].Agent, recs[1].Agent)
	}
	if !recs[1].Time.Equal(time.Unix(1740823201, 0)) || !recs[2].Time.Equal(time.UnixMilli(1740823202500)) {
		t.Errorf("times %v %v", recs[1].Time, recs[2].Time)
	}
	if c := recs[2]; c.Tool != "edit" || c.CallID != "call_1" || string(c.Input) != `{"path":"main.go","old":"foo","new":"bar"}` {
		t.Errorf("call 1 %+v", c)
	}
	if c := recs[3]; c.Tool != "shell" || string(c.Input) != `"not json"` {
		t.Errorf("call 2 input %s", c.Input)
	}
	if r := recs[4]; r.CallID != "call_1" || r.Tool != "edit" {
		t.Errorf("result %+v", r)
	}
	if r := recs[6]; r.Extra["usage"] == nil || r.Extra["content"] == nil {
		t.Errorf("extra lost: %v", r.Extra)
	}
	if r := recs[7]; r.Human() || !r.Has(MarkInjected) {
		t.Errorf("injected mark lost: %+v", r)
	}
	if r := recs[8]; !r.Human() || r.Kind != KindMessage || string(r.Extra["orig_seq"]) != "7" || r.Seq != 0 {
		t.Errorf("record-shaped line: %+v", r)
	}
	if r := recs[9]; r.Session != "demo-2" || r.Tool != "write" || r.CallID != "t1" {
		t.Errorf("record-shaped call: %+v", r)
	}
	if r := recs[10]; r.Extra["timestamp"] == nil || !r.Time.IsZero() {
		t.Errorf("bad timestamp kept: %+v", r)
	}

	// Resume at every line boundary.
	for cut := 1; cut < len(data); cut++ {
		if data[cut-1] != '\n' {
			continue
		}
		first, mid, _ := trParse(t, NewGeneric(), data[:cut], "chat.jsonl", Pos{})
		second, _, _ := trParse(t, NewGeneric(), data, "chat.jsonl", trJSON(t, mid))
		if got := append(first, second...); !reflect.DeepEqual(trMarshal(t, got), trMarshal(t, recs)) {
			t.Fatalf("resume at %d: %d records, one pass %d", cut, len(got), len(recs))
		}
	}
}

// A session file written by the store reads back through the generic
// parser as the same records.
func TestGenericReadsStoredRecords(t *testing.T) {
	in := Record{Session: "s", Seq: 3, Time: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), Agent: AgentCodex, Role: RoleAssistant,
		Kind: KindToolCall, Tool: "shell", Input: json.RawMessage(`{"cmd":"ls"}`), CallID: "c", Marks: []string{MarkSidechain},
		Source: Source{File: "orig.jsonl", Line: 9}, Extra: map[string]json.RawMessage{"k": json.RawMessage(`[1]`)}}
	b, _ := json.Marshal(in)
	recs, _, probs := trParse(t, NewGeneric(), append(b, '\n'), "s.jsonl", Pos{})
	if len(probs) != 0 || len(recs) != 1 {
		t.Fatalf("%v %v", recs, probs)
	}
	got := recs[0]
	if got.Tool != "shell" || got.Agent != AgentCodex || !got.Time.Equal(in.Time) || got.Source.Line != 1 || string(got.Extra["orig_seq"]) != "3" || got.Extra["orig_source"] == nil {
		t.Errorf("got %+v", got)
	}
}

func FuzzGeneric(f *testing.F) {
	f.Add(trRead(f, genericFixture))
	f.Add([]byte(`{"role":"user","content":"<user_instructions>\nBe brief.\n</user_instructions>"}` + "\n" + `{"role":"user","content":"## User Input\n\n$ARGUMENTS"}` + "\n"))
	f.Add([]byte("{\"role\":\"assistant\",\"tool_calls\":null}\n{\"role\":\"tool\",\"content\":{}}\n{\"kind\":\"x\",\"input\":\"{\"}\n"))
	f.Add([]byte("{\"role\":\"user\",\"content\":[1,{\"text\":2}],\"ts\":1e300}\n{\"role\":\"assistant\",\"tool_calls\":[{\"function\":\"x\"}]}\n"))
	f.Add([]byte("{\"role\":\"assistant\",\"ts\":700000000000} \n"))
	f.Add([]byte("{\"text\":\"x\",\"ts\":\"0000-01-01T00:00:00-01:00\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, end, _ := trParse(t, NewGeneric(), data, "f.jsonl", Pos{})
		if end.Offset < 0 || end.Offset > int64(len(data)) {
			t.Fatalf("end %d outside %d", end.Offset, len(data))
		}
		for _, r := range recs {
			if r.Session == "" || r.Agent == "" || r.Kind == "" || r.Role == "" || !containsString(Authors, r.Author) {
				t.Fatalf("incomplete record %+v", r)
			}
			if _, err := json.Marshal(r); err != nil {
				t.Fatalf("record does not encode: %v", err)
			}
		}
	})
}
