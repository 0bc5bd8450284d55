package traces

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	cxFixtureSID    = "019ad000-0000-7000-8000-000000000001"
	cxFixture       = "../testdata/transcripts/codex/rollout-2025-12-01T10-00-00-" + cxFixtureSID + ".jsonl"
	cxLegacyFixture = "../testdata/transcripts/codex/legacy/rollout-2025-05-20T09-00-00-6a1f3c2e-9d4b-4e7a-8c5f-2b3d4e5f6a7b.jsonl"
)

func TestCodexFixture(t *testing.T) {
	recs, end, probs := parseAll(t, NewCodex(), cxFixture, Pos{})
	if len(probs) != 0 {
		t.Fatal(probs)
	}
	accountLines(t, cxFixture, recs)
	if st, _ := os.Stat(cxFixture); end.Offset != st.Size() {
		t.Errorf("end %d, size %d", end.Offset, st.Size())
	}
	one := func(line int) Record {
		t.Helper()
		rs := findRecords(recs, func(r Record) bool { return r.Source.Line == line })
		if len(rs) != 1 {
			t.Fatalf("line %d: %d records", line, len(rs))
		}
		return rs[0]
	}
	for _, r := range recs {
		if r.Session != cxFixtureSID || r.Agent != AgentCodex || r.Cwd != "/home/dev/demo" || r.Branch != "main" || r.Time.IsZero() {
			t.Errorf("line %d: session %q cwd %q branch %q", r.Source.Line, r.Session, r.Cwd, r.Branch)
		}
	}
	if r := one(1); r.Kind != KindMeta || !strings.Contains(string(r.Extra["payload"]), "base_instructions") {
		t.Errorf("session_meta: %+v", r)
	}
	for _, l := range []int{2, 3, 4} {
		if r := one(l); !r.Has(MarkInjected) || r.Human() {
			t.Errorf("line %d not injected: %+v", l, r)
		}
	}
	// The typed text: line 5 (response_item) merged into line 6 (event_msg).
	human := findRecords(recs, func(r Record) bool { return r.Human() })
	var texts []string
	for _, r := range human {
		texts = append(texts, r.Text)
	}
	want := []string{"run the tests and fix what fails", "now refactor it", "no, don't refactor; add a test instead"}
	if strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Fatalf("human texts %q", texts)
	}
	if string(human[0].Extra["merged_lines"]) != "[5]" || human[0].Source.Line != 6 {
		t.Errorf("merge: line %d extra %s", human[0].Source.Line, human[0].Extra["merged_lines"])
	}
	if r := one(9); r.Kind != KindMeta || r.Text != "" || !strings.Contains(string(r.Extra["payload"]), "Running the test suite") {
		t.Errorf("agent_reasoning echo: %+v", r)
	}
	if r := one(11); !r.Has(MarkThinking) || r.Text != "**Running the test suite**" || r.Model != "gpt-5.1-codex" || !strings.Contains(string(r.Extra["payload"]), "encrypted_content") {
		t.Errorf("reasoning: %+v", r)
	}
	if r := one(12); r.Kind != KindToolCall || r.Tool != "shell" || r.CallID != "call_test1" || !json.Valid(r.Input) || !strings.HasPrefix(string(r.Input), `{"command"`) {
		t.Errorf("function_call: %+v", r)
	}
	if r := one(13); r.Kind != KindToolResult || !r.IsError || r.Output != "--- FAIL: TestAdd\nFAIL\n" || !strings.Contains(string(r.Extra["output_meta"]), `"exit_code":1`) {
		t.Errorf("function_call_output: %+v", r)
	}
	if r := one(14); r.Tool != "apply_patch" || !strings.HasPrefix(string(r.Input), `"*** Begin Patch`) {
		t.Errorf("custom_tool_call: %+v", r)
	}
	if r := one(15); r.IsError || !strings.HasPrefix(r.Output, "Success.") {
		t.Errorf("custom_tool_call_output: %+v", r)
	}
	if r := one(16); string(r.Input) != `"not json {"` {
		t.Errorf("non-JSON arguments: %s", r.Input)
	}
	if r := one(17); !r.IsError {
		t.Errorf("Exit code: 2 not an error: %+v", r)
	}
	if r := one(18); r.Tool != "local_shell" || r.CallID != "call_ls1" || !strings.Contains(string(r.Input), "go") {
		t.Errorf("local_shell_call: %+v", r)
	}
	if r := one(19); r.Tool != "web_search" || !strings.Contains(string(r.Input), "go test flags") {
		t.Errorf("web_search_call: %+v", r)
	}
	if r := one(20); r.Kind != KindMeta || r.Text != "" {
		t.Errorf("agent_message echo: %+v", r)
	}
	if r := one(21); r.Role != RoleAssistant || r.Kind != KindMessage || r.Text != "Fixed `add.go`; tests pass." {
		t.Errorf("assistant: %+v", r)
	}
	if r := one(26); !r.Has(MarkInterrupt) || r.Human() || r.Model != "gpt-5.1-codex-max" {
		t.Errorf("turn_aborted: %+v", r)
	}
	if r := one(27); !r.Has(MarkInjected) {
		t.Errorf("<turn_aborted> context: %+v", r)
	}
	if r := one(29); r.Kind != KindSummary || !r.Has(MarkCompaction) || !strings.HasPrefix(r.Text, "Summary:") || r.Extra["payload"] == nil {
		t.Errorf("compacted: %+v", r)
	}
	if r := one(30); r.Kind != KindMeta || !strings.Contains(string(r.Extra["payload"]), "whatever") {
		t.Errorf("unknown type: %+v", r)
	}
}

func TestCodexLegacyFixture(t *testing.T) {
	recs, _, probs := parseAll(t, NewCodex(), cxLegacyFixture, Pos{})
	if len(probs) != 0 {
		t.Fatal(probs)
	}
	accountLines(t, cxLegacyFixture, recs)
	for _, r := range recs {
		if r.Session != "6a1f3c2e-9d4b-4e7a-8c5f-2b3d4e5f6a7b" || r.Branch != "dev" {
			t.Errorf("line %d: session %q branch %q", r.Source.Line, r.Session, r.Branch)
		}
	}
	if r := recs[0]; r.Kind != KindMeta || !strings.Contains(string(r.Extra["instructions"]), "pnpm") {
		t.Errorf("legacy header: %+v", r)
	}
	human := findRecords(recs, func(r Record) bool { return r.Human() })
	if len(human) != 1 || human[0].Text != "what does main.go do?" {
		t.Errorf("legacy human: %+v", human)
	}
	calls := findRecords(recs, func(r Record) bool { return r.Kind == KindToolCall || r.Kind == KindToolResult })
	if len(calls) != 2 || calls[1].Output != "package main\n\nfunc main() {}\n" || calls[1].IsError {
		t.Errorf("legacy tool call: %+v", calls)
	}
	checkResume(t, NewCodex(), cxLegacyFixture, lineCuts(t, cxLegacyFixture, 100))
}

// TestCodexResumeEveryLine splits the fixture at every line boundary,
// including between the two copies of the user text.
func TestCodexResumeEveryLine(t *testing.T) {
	checkResume(t, NewCodex(), cxFixture, lineCuts(t, cxFixture, 1000))
}

func TestCodexPendingAtEnd(t *testing.T) {
	data, err := os.ReadFile(cxFixture)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	head := bytes.Join(lines[:5], nil) // ends with the response_item user text
	recs, end, _ := parseBytes(t, NewCodex(), head, cxFixture)
	if end.Line != 4 || end.Offset != int64(len(bytes.Join(lines[:4], nil))) {
		t.Errorf("pending user text consumed: end %+v", end)
	}
	if len(recs) != 4 {
		t.Errorf("%d records", len(recs))
	}
	// An unpaired user item followed by something else is emitted as is,
	// and a late event_msg twin becomes meta (no duplicate human text).
	odd := string(lines[4]) + string(lines[6]) + string(lines[5])
	recs, _, _ = parseBytes(t, NewCodex(), []byte(odd), "x.jsonl")
	human := findRecords(recs, func(r Record) bool { return r.Human() })
	if len(human) != 1 || human[0].Source.Line != 1 || recs[2].Kind != KindMeta {
		t.Errorf("non-adjacent twins: %+v", recs)
	}
}

func TestCodexBadInput(t *testing.T) {
	input := strings.Join([]string{
		`{"timestamp":"2025-12-01T10:00:00Z","type":"session_meta","payload":{"id":"S"}}`,
		`{"timestamp":"x","type":"response_item","payload":"not an object"}`,
		`{"type":"response_item","payload":{"type":"function_call","arguments":{"a":1}}}`,
		`{"type":"response_item","payload":{"type":"function_call_output","output":[{"type":"input_text","text":"a"}]}}`,
		`{"type":"event_msg","payload":{"type":"user_message","message":12}}`,
		"{\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"\xff\"}]}}",
		`{broken`,
		`{"type":"event_msg","payload":{"type":"user_message","message":"tail`,
	}, "\n")
	recs, end, probs := parseBytes(t, NewCodex(), []byte(input), "bad.jsonl")
	if len(probs) != 1 || probs[0].Line != 7 {
		t.Fatalf("problems %v", probs)
	}
	if end.Line != 7 {
		t.Errorf("end %+v", end)
	}
	accountOK := map[int]bool{}
	for _, r := range recs {
		accountOK[r.Source.Line] = true
		if r.Session != "S" {
			t.Errorf("line %d: session %q", r.Source.Line, r.Session)
		}
		if _, err := json.Marshal(r); err != nil {
			t.Errorf("line %d: %v", r.Source.Line, err)
		}
	}
	for l := 1; l <= 6; l++ {
		if !accountOK[l] {
			t.Errorf("line %d dropped", l)
		}
	}
}

func TestCodexReal(t *testing.T) {
	root := filepath.Join(sharedTranscripts(t), "codex")
	files := jsonlFiles(t, root)
	if len(files) < 2 {
		t.Fatalf("only %d codex files", len(files))
	}
	for _, f := range files {
		recs, end, probs := parseAll(t, NewCodex(), f, Pos{})
		for _, pr := range probs {
			t.Errorf("problem in real file: %v", pr)
		}
		accountLines(t, f, recs)
		if st, _ := os.Stat(f); end.Offset != st.Size() {
			t.Errorf("%s: end %d, size %d", f, end.Offset, st.Size())
		}
		// Human text is never duplicated.
		seen := map[string]int{}
		for _, r := range recs {
			if r.Human() {
				seen[r.Text]++
			}
			if r.Session == "" || r.Model == "" && r.Source.Line > 5 {
				t.Errorf("%s:%d: session %q model %q", f, r.Source.Line, r.Session, r.Model)
			}
		}
		for text, n := range seen {
			if n > 1 {
				t.Errorf("%s: human text %.60q appears %d times", f, text, n)
			}
		}
		if len(seen) == 0 {
			t.Errorf("%s: no human text", f)
		}
		checkResume(t, NewCodex(), f, lineCuts(t, f, 60))
	}

	recs, _, _ := parseAll(t, NewCodex(), filepath.Join(root, "agtrace-samples", "codex_session.jsonl"), Pos{})
	human := findRecords(recs, func(r Record) bool { return r.Human() })
	if len(human) != 2 || human[0].Text != "add myapp directory and create myapp/hoge.py which shows result of print(1+1)." || human[1].Text != "cd to myapp and run python hoge.py" {
		t.Errorf("agtrace human prompts: %+v", human)
	}
	if env := findRecords(recs, func(r Record) bool { return strings.HasPrefix(r.Text, "<environment_context>") }); len(env) != 1 || !env[0].Has(MarkInjected) {
		t.Errorf("environment_context: %+v", env)
	}
	if errs := findRecords(recs, func(r Record) bool { return r.Kind == KindToolResult && r.IsError }); len(errs) != 2 {
		t.Errorf("tool results with exit code 1: %d", len(errs))
	}
	if r := recs[0]; r.Session != "019b04ae-b1c6-7c72-a134-a4c2de66058c" || r.Branch != "codex" {
		t.Errorf("session meta: %+v", r)
	}
	assistant := findRecords(recs, func(r Record) bool { return r.Role == RoleAssistant && r.Kind == KindMessage && !r.Has(MarkThinking) })
	if len(assistant) != 2 {
		t.Errorf("assistant messages (agent_message echoes must not double them): %d", len(assistant))
	}
}

func BenchmarkCodex(b *testing.B) {
	path := filepath.Join(sharedTranscripts(b), "codex", "rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl")
	benchParse(b, NewCodex(), path)
}

func FuzzCodex(f *testing.F) {
	for _, p := range []string{cxFixture, cxLegacyFixture, filepath.Join(authorsDir, "rollout-2026-01-06T09-00-00-019b0000-0000-7000-8000-00000000a001.jsonl")} {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
			for _, ln := range bytes.Split(data, []byte("\n")) {
				f.Add(append(ln, '\n'))
			}
		}
	}
	f.Add([]byte(`{"type":"response_item","payload":{"type":"function_call_output","output":"{\"output\":1,\"metadata\":[]}"}}` + "\n"))
	f.Add([]byte(`{"type":"response_item","payload":{"type":"message","role":"user","content":"x"}}` + "\n" + `{"type":"event_msg","payload":{"type":"user_message","message":"x"}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		end, _, err := NewCodex().Parse(bytes.NewReader(data), "fuzz.jsonl", Pos{}, func(r Record) error {
			if _, err := json.Marshal(r); err != nil {
				t.Fatalf("record does not marshal: %v", err)
			}
			if !containsString(Authors, r.Author) {
				t.Fatalf("record without a known author: %+v", r)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if end.Offset < 0 || end.Offset > int64(len(data)) {
			t.Fatalf("end offset %d of %d", end.Offset, len(data))
		}
	})
}

// Codex's refusal text, bare, is the person declining the approval prompt;
// the same words as a command's wrapped output are that command's.
func TestCodexRefusalMarked(t *testing.T) {
	head := `{"timestamp":"2025-12-01T10:00:00.000Z","type":"session_meta","payload":{"id":"019ad000-0000-7000-8000-0000000000ad","cwd":"/w"}}` + "\n"
	out := func(v string) string {
		return `{"timestamp":"2025-12-01T10:00:01.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":` + v + `}}` + "\n"
	}
	for v, want := range map[string]bool{
		`"exec command rejected by user"`: true,
		`"patch rejected by user"`:        true,
		`"{\"output\":\"exec command rejected by user\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.1}}"`: false,
		`"Exit code: 0\nWall time: 0.1 seconds\nOutput:\nexec command rejected by user"`:                           false,
	} {
		recs, _, _ := trParse(t, NewCodex(), []byte(head+out(v)), "rollout.jsonl", Pos{})
		got := false
		for _, r := range recs {
			if r.Kind == KindToolResult && r.Has(MarkRejected) {
				got = true
				if r.Who() != AuthorPersonChoice {
					t.Errorf("%s: author %q", v, r.Who())
				}
			}
		}
		if got != want {
			t.Errorf("output %s: rejected %v, want %v", v, got, want)
		}
	}
}

// Codex's IDE extension and desktop app put the active file, the open tabs
// and attached files above the person's words, under "## My request for
// Codex:": the record's text is the words, in the current format (both
// twins) and the mid-2025 one, and the context stays in Extra; a message
// that quotes the mark inside the person's own text is left whole.
func TestCodexClientContext(t *testing.T) {
	composed := "# Context from my IDE setup:\n\n## Active file: index.html\n\n## Open tabs:\n- index.html: index.html\n\n## My request for Codex:\nそこじゃない。戻して。\n"
	js, _ := json.Marshal(composed)
	current := `{"timestamp":"2025-12-01T10:00:00.000Z","type":"session_meta","payload":{"id":"019ad000-0000-7000-8000-0000000000ae","cwd":"/w"}}` + "\n" +
		`{"timestamp":"2025-12-01T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":` + string(js) + `}]}}` + "\n" +
		`{"timestamp":"2025-12-01T10:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":` + string(js) + `,"images":[]}}` + "\n"
	legacy := `{"id":"6602b094-3ed7-407e-b89b-ddeec34e1b9a","timestamp":"2025-08-29T08:15:46.693Z","instructions":null}` + "\n" +
		`{"type":"message","id":null,"role":"user","content":[{"type":"input_text","text":` + string(js) + `}]}` + "\n"
	for name, in := range map[string]string{"current": current, "legacy": legacy} {
		recs, _, _ := trParse(t, NewCodex(), []byte(in), "rollout.jsonl", Pos{})
		human := findRecords(recs, func(r Record) bool { return r.Human() })
		if len(human) != 1 || human[0].Text != "そこじゃない。戻して。" {
			t.Fatalf("%s: person's records %+v", name, human)
		}
		if !strings.Contains(string(human[0].Extra["client_context"]), "Active file: index.html") {
			t.Errorf("%s: client context lost: %s", name, human[0].Extra)
		}
	}
	if text, _ := cxRequest("why does the doc say \"## My request for Codex:\" here?", nil); !strings.HasPrefix(text, "why") {
		t.Errorf("quoted mark: %q", text)
	}
}
