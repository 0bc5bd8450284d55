package traces

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const geminiFixture = "../testdata/transcripts/gemini/session-2025-12-10T08-00-a1b2c3d4.jsonl"

func TestGeminiJSONLFixture(t *testing.T) {
	data := trRead(t, geminiFixture)
	recs, end, probs := trParse(t, NewGemini(), data, "g.jsonl", Pos{})
	if len(probs) != 1 || probs[0].Line != 8 {
		t.Errorf("problems %v, want one at line 8", probs)
	}
	last := bytes.LastIndexByte(data, '\n') + 1
	if end.Offset != int64(last) || end.Line != 12 {
		t.Errorf("end %+v, want offset %d line 12 (partial last line not consumed)", end, last)
	}
	type want struct {
		role, kind, text string
		line             int
		marks            []string
	}
	wants := []want{
		{RoleSystem, KindMeta, "", 1, nil},
		{RoleUser, KindMessage, "list the files", 2, nil},
		{RoleAssistant, KindMessage, "Planning\n\nUse ls.", 4, []string{MarkThinking}},
		{RoleAssistant, KindMessage, "I'll list them.", 4, nil},
		{RoleAssistant, KindMeta, "", 5, nil}, // tokens arriving later
		{RoleAssistant, KindToolCall, "", 6, nil},
		{RoleTool, KindToolResult, "a.txt\nb.txt", 7, nil},
		{RoleAssistant, KindToolCall, "", 7, nil},
		{RoleTool, KindToolResult, "", 7, []string{MarkRejected}},
		{RoleSystem, KindMessage, "Request cancelled.", 9, nil},
		{RoleSystem, KindSummary, "Listed files in the project", 10, nil},
		{RoleSystem, KindMeta, "rewind to message m3", 11, nil},
		{RoleUser, KindMessage, "/stats", 12, []string{MarkSlash}},
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
		if r.Role != w.role || r.Kind != w.kind || r.Text+r.Output != w.text || r.Source.Line != w.line || !reflect.DeepEqual(r.Marks, w.marks) {
			t.Errorf("record %d: got %s/%s line %d %q %v, want %s/%s line %d %q %v", i, r.Role, r.Kind, r.Source.Line, r.Text+r.Output, r.Marks, w.role, w.kind, w.line, w.text, w.marks)
		}
		if r.Session != "a1b2c3d4-0000-4000-8000-000000000001" || r.Agent != AgentGemini {
			t.Errorf("record %d: session %q agent %q", i, r.Session, r.Agent)
		}
	}
	if call := recs[5]; call.Tool != "run_shell_command" || call.CallID != "c1" || string(call.Input) != `{"command":"ls"}` || call.Model != "gemini-2.5-pro" {
		t.Errorf("tool call %+v", call)
	}
	if string(recs[4].Extra["tokens"]) == "" || string(recs[0].Extra["projectHash"]) != `"abc123"` {
		t.Errorf("tokens or project hash lost: %v / %v", recs[4].Extra, recs[0].Extra)
	}
	if recs[6].CallID != "c1" || recs[6].IsError || string(recs[6].Extra["status"]) != `"success"` {
		t.Errorf("tool result %+v", recs[6])
	}
	if recs[9].Extra["type"] == nil {
		t.Error("info type lost")
	}

	// Resume at every line boundary gives the records of one pass.
	for cut := 1; cut < len(data); cut++ {
		if data[cut-1] != '\n' {
			continue
		}
		first, mid, _ := trParse(t, NewGemini(), data[:cut], "g.jsonl", Pos{})
		second, end2, _ := trParse(t, NewGemini(), data, "g.jsonl", trJSON(t, mid))
		if got := append(first, second...); !reflect.DeepEqual(trMarshal(t, got), trMarshal(t, recs)) {
			t.Fatalf("resume at %d (%+v): %d records, one pass %d", cut, mid, len(got), len(recs))
		}
		if end2.Offset != end.Offset || end2.Line != end.Line {
			t.Fatalf("resume end %+v, one pass %+v", end2, end)
		}
	}
}

// geminiCounts are what a message list must yield.
func geminiExpect(t *testing.T, msgs []map[string]any) (want map[string]int) {
	t.Helper()
	want = map[string]int{}
	for _, m := range msgs {
		switch m["type"] {
		case "user":
			want["user/message"]++
		case "gemini":
			th, _ := m["thoughts"].([]any)
			want["thinking"] += len(th)
			if c, _ := m["content"].(string); c != "" {
				want["assistant/message"]++
			}
			tc, _ := m["toolCalls"].([]any)
			want["assistant/tool_call"] += len(tc)
			want["tool/tool_result"] += len(tc)
		default:
			want["system/message"]++
		}
	}
	return want
}

func geminiCount(recs []Record) map[string]int {
	got := map[string]int{}
	for _, r := range recs {
		switch {
		case r.Has(MarkThinking):
			got["thinking"]++
		case r.Kind == KindMeta:
		default:
			got[r.Role+"/"+r.Kind]++
		}
	}
	return got
}

// The real session parses with every message, thought, tool call and
// result accounted for, and its JSONL rendering gives the same records.
func TestGeminiReal(t *testing.T) {
	dir := filepath.Join(trShared(t), "gemini-cli")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json*"))
	if len(files) == 0 {
		t.Skip("no gemini transcripts")
	}
	for _, path := range files {
		data := trRead(t, path)
		recs, end, probs := trParse(t, NewGemini(), data, path, Pos{})
		if len(probs) != 0 {
			t.Errorf("%s: problems %v", path, probs)
		}
		var doc struct {
			SessionID string           `json:"sessionId"`
			Messages  []map[string]any `json:"messages"`
		}
		if strings.HasSuffix(path, ".json") {
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			if end.Offset != 0 {
				t.Errorf("whole-document end offset %d, want 0", end.Offset)
			}
		}
		want := geminiExpect(t, doc.Messages)
		if got := geminiCount(recs); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: records %v, messages say %v", path, got, want)
		}
		for _, r := range recs {
			if r.Session != doc.SessionID {
				t.Errorf("session %q, want %q", r.Session, doc.SessionID)
			}
			if r.Kind == KindToolResult && r.Output == "" {
				t.Errorf("empty tool output for %s", r.CallID)
			}
		}

		// The same conversation as JSONL (what the CLI writes when it
		// migrates a .json session): identical message records.
		var raw map[string]json.RawMessage
		json.Unmarshal(data, &raw)
		var msgs []json.RawMessage
		json.Unmarshal(raw["messages"], &msgs)
		delete(raw, "messages")
		var jl bytes.Buffer
		b, _ := json.Marshal(raw)
		jl.Write(b)
		jl.WriteByte('\n')
		for _, m := range msgs {
			var c bytes.Buffer
			json.Compact(&c, m)
			jl.Write(c.Bytes())
			jl.WriteByte('\n')
		}
		lrecs, lend, lprobs := trParse(t, NewGemini(), jl.Bytes(), path, Pos{})
		if len(lprobs) != 0 || lend.Offset != int64(jl.Len()) {
			t.Errorf("jsonl: problems %v end %+v", lprobs, lend)
		}
		strip := func(rs []Record) []string {
			var out []string
			for _, r := range rs {
				if r.Kind == KindMeta {
					continue
				}
				r.Source.Line = 0
				b, _ := json.Marshal(r)
				out = append(out, string(b))
			}
			return out
		}
		if a, b := strip(recs), strip(lrecs); !reflect.DeepEqual(a, b) {
			t.Errorf("json and jsonl forms differ: %d vs %d records", len(a), len(b))
		}
	}
}

func TestGeminiBadInput(t *testing.T) {
	for _, in := range []string{"", "   \n", "{", `{"sessionId":"x","messages":`, `{"sessionId":"x","messages":{}}`, `{"sessionId":"x","messages":[1,"a",{"type":"user"}]}`} {
		_, _, err := NewGemini().Parse(strings.NewReader(in), "x.json", Pos{}, func(Record) error { return nil })
		if err != nil {
			t.Errorf("%q: %v", in, err)
		}
	}
	if _, _, err := NewGemini().Parse(strings.NewReader(`{"a":1, "b": [1,
2]}`), "x.json", Pos{}, func(Record) error { return nil }); err == nil {
		t.Error("a JSON document that is no chat should be an error")
	}
}

func FuzzGemini(f *testing.F) {
	f.Add(trRead(f, geminiFixture), 100)
	f.Add(trRead(f, filepath.Join(authorsDir, "session-2026-01-07T08-00-9e000000.json")), 0)
	f.Add([]byte(`{"sessionId":"s","messages":[{"id":"1","type":"gemini","content":[{"text":"a"},{"inlineData":{}}],"toolCalls":[{"id":"c","status":"error","result":"boom"}]}]}`), 0)
	f.Add([]byte("{\"sessionId\":\"s\",\"projectHash\":\"p\"}\n{\"id\":\"1\",\"type\":\"gemini\",\"thoughts\":5}\n{\"$set\":[]}\n"), 30)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		var recs []Record
		end, _, err := NewGemini().Parse(bytes.NewReader(data), "f.jsonl", Pos{}, func(r Record) error {
			recs = append(recs, r)
			return nil
		})
		if err != nil {
			return // not a Gemini chat at all
		}
		if end.Offset < 0 || end.Offset > int64(len(data)) {
			t.Fatalf("end %d outside %d", end.Offset, len(data))
		}
		for _, r := range recs {
			if r.Session == "" || r.Agent != AgentGemini || !containsString(Authors, r.Author) {
				t.Fatalf("bad record %+v", r)
			}
			if _, err := json.Marshal(r); err != nil {
				t.Fatal(err)
			}
		}
		if cut > 0 && cut < len(data) && data[cut-1] == '\n' {
			_, mid, _, _ := geminiParseQuiet(data[:cut])
			if mid.Offset > 0 {
				NewGemini().Parse(bytes.NewReader(data[mid.Offset:]), "f.jsonl", trJSON(t, mid), func(Record) error { return nil })
			}
		}
	})
}

func geminiParseQuiet(data []byte) ([]Record, Pos, []Problem, error) {
	var recs []Record
	end, probs, err := NewGemini().Parse(bytes.NewReader(data), "f.jsonl", Pos{}, func(r Record) error {
		recs = append(recs, r)
		return nil
	})
	return recs, end, probs, err
}
