package kb

import (
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbmem/kb/internal/testenv"
)

// The promotion fixture: testdata/promote/scenarios.json (the scenario
// format of /work/shared/eval/make_sessions.py) rendered into Claude Code
// transcripts, one JSONL file a session, by the same rules as that script.

type scenarioFile struct {
	Project  string `json:"project"`
	Sessions []struct {
		ID     string            `json:"id"`
		Start  string            `json:"start"`
		Branch string            `json:"branch"`
		Turns  []json.RawMessage `json:"turns"`
	} `json:"sessions"`
}

const rejectedText = "The user doesn't want to proceed with this tool use. The tool use was rejected " +
	"(eg. if it was a file edit, the new_string was NOT written to the file). " +
	"STOP what you are doing and wait for the user to tell you how to proceed."

// repoRoot is the module root (testenv.ModuleRoot).
func repoRoot(t testing.TB) string { return testenv.ModuleRoot(t) }

// renderScenarios writes the fixture's sessions as Claude Code transcripts
// into dir and returns how many it wrote.
func renderScenarios(t testing.TB, file, dir string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var sc scenarioFile
	if err := json.Unmarshal(b, &sc); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	for i, s := range sc.Sessions {
		start, err := time.Parse("2006-01-02T15:04:05Z", s.Start)
		if err != nil {
			t.Fatalf("%s: session %s: %v", file, s.ID, err)
		}
		lines := renderSession(t, sc.Project, s.ID, s.Branch, start, s.Turns, 1000+i)
		var out strings.Builder
		for _, l := range lines {
			j, err := json.Marshal(l)
			if err != nil {
				t.Fatal(err)
			}
			out.Write(j)
			out.WriteByte('\n')
		}
		if err := os.WriteFile(filepath.Join(dir, s.ID+".jsonl"), []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return len(sc.Sessions)
}

func renderSession(t testing.TB, project, sid, branch string, start time.Time, turns []json.RawMessage, seed int) []map[string]any {
	n := 0
	next := func() string {
		n++
		h := sha1.Sum([]byte(fmt.Sprintf("%d/%s-%d", seed, sid, n)))
		return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
	}
	tm := start
	var parent any
	var lines []map[string]any
	base := func(kind string) map[string]any {
		tm = tm.Add(time.Duration(7+(n*13)%40) * time.Second)
		u := next()
		rec := map[string]any{"parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": project,
			"sessionId": sid, "version": "2.0.14", "gitBranch": branch, "type": kind, "uuid": u,
			"timestamp": tm.UTC().Format("2006-01-02T15:04:05.000Z")}
		parent = u
		return rec
	}
	userText := func(text string) {
		rec := base("user")
		rec["message"] = map[string]any{"role": "user", "content": text}
		lines = append(lines, rec)
	}
	assistant := func(blocks []any, stop string) {
		rec := base("assistant")
		rec["requestId"] = "req_" + strings.ReplaceAll(next(), "-", "")[:24]
		rec["message"] = map[string]any{"id": "msg_" + strings.ReplaceAll(next(), "-", "")[:24], "type": "message",
			"role": "assistant", "model": "claude-sonnet-4-5-20250929", "content": blocks, "stop_reason": stop,
			"stop_sequence": nil, "usage": map[string]any{"input_tokens": 1200, "output_tokens": 180}}
		lines = append(lines, rec)
	}
	toolResult := func(tid, content string, isErr bool) {
		rec := base("user")
		rec["message"] = map[string]any{"role": "user", "content": []any{
			map[string]any{"tool_use_id": tid, "type": "tool_result", "content": content, "is_error": isErr}}}
		if isErr {
			rec["toolUseResult"] = "Error: " + content
		} else {
			rec["toolUseResult"] = map[string]any{"stdout": content, "stderr": "", "interrupted": false}
		}
		lines = append(lines, rec)
	}
	for _, raw := range turns {
		var turn []any
		if err := json.Unmarshal(raw, &turn); err != nil || len(turn) == 0 {
			t.Fatalf("session %s: bad turn %s", sid, raw)
		}
		str := func(i int) string {
			if i < len(turn) {
				s, _ := turn[i].(string)
				return s
			}
			return ""
		}
		switch str(0) {
		case "user":
			userText(str(1))
		case "say":
			assistant([]any{map[string]any{"type": "text", "text": str(1)}}, "end_turn")
		case "tool", "reject":
			tid := "toolu_" + strings.ReplaceAll(next(), "-", "")[:24]
			assistant([]any{map[string]any{"type": "tool_use", "id": tid, "name": str(1), "input": turn[2]}}, "tool_use")
			if str(0) == "tool" {
				toolResult(tid, str(3), false)
			} else {
				toolResult(tid, rejectedText, true)
			}
		case "interrupt":
			userText("[Request interrupted by user for tool use]")
		default:
			t.Fatalf("session %s: unknown turn kind %q", sid, str(0))
		}
	}
	return lines
}
