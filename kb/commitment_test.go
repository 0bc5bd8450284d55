package kb

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// cmLine is one Claude Code transcript line of session at time at.
func cmLine(session, uuid string, at time.Time, fields map[string]any) string {
	f := maps.Clone(fields)
	f["sessionId"], f["cwd"] = session, rcProject
	return strings.TrimSuffix(ccLine(uuid, at.UTC().Format(time.RFC3339Nano), f), "\n")
}

// cmCall is a tool_use line.
func cmCall(session, uuid string, at time.Time, tool string, input map[string]any) string {
	b, _ := json.Marshal(input)
	return cmLine(session, uuid, at, ccToolUse("toolu_"+uuid, tool, b))
}

// The commitment stage end to end: hooks show lessons to two sessions
// (the injection log), the sessions' transcripts come in, and kb status
// counts, per lesson, the session whose agent did what the lesson
// prohibits anyway and the one that followed it.
func TestCommitmentFollowedAndIgnored(t *testing.T) {
	ctx := context.Background()
	k := rcKB(t)
	k.Config.Recall.PreToolUse = "context"
	npm := rcCorrection(t, k, "Bash `npm install lodash`", "Do not use npm in this repo; use pnpm instead.", []string{"pkg:install", "pkg:npm"},
		"6f1c0d3e-aaaa-bbbb-cccc-000000000001", "6f1c0d3e-aaaa-bbbb-cccc-000000000002")
	println := rcCorrection(t, k, "Edit `api/rates.go`", "Never leave fmt.Println in Go code; log through slog.", []string{"code:edit"})
	syncIndex(t, k)

	t0 := time.Now().UTC()
	hook := func(session, tool string, input map[string]any) {
		t.Helper()
		out := rcHook(t, k, map[string]any{"hook_event_name": "PreToolUse", "session_id": session, "cwd": rcProject,
			"tool_name": tool, "tool_input": input})
		if out == nil {
			t.Fatalf("%s: %s %v: nothing shown", session, tool, input)
		}
	}
	ignoring, following := "11111111-2222-3333-4444-000000000001", "11111111-2222-3333-4444-000000000002"
	npmCall := map[string]any{"command": "npm install lodash"}
	printEdit := map[string]any{"file_path": rcProject + "/api/ledger.go", "old_string": "a", "new_string": "\tfmt.Println(total)\n"}
	hook(ignoring, "Bash", npmCall)
	hook(ignoring, "Edit", printEdit)
	hook(following, "Bash", npmCall)

	// The transcripts: the proposed calls (before the hooks answered), then
	// what each agent did after it saw the lessons.
	dir := t.TempDir()
	write := func(session string, lines ...string) string {
		p := filepath.Join(dir, session+".jsonl")
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	before, after := t0.Add(-time.Second), t0.Add(time.Minute)
	a := write(ignoring,
		cmLine(ignoring, "u1", before.Add(-time.Second), ccUser("add lodash and log the ledger total")),
		cmCall(ignoring, "a1", before, "Bash", npmCall),
		cmCall(ignoring, "a2", before, "Edit", printEdit),
		cmCall(ignoring, "a3", after, "Bash", map[string]any{"command": "npm install lodash --save"}),
		cmCall(ignoring, "a4", after.Add(time.Second), "Edit", map[string]any{"file_path": rcProject + "/api/report.go", "old_string": "b", "new_string": "\tfmt.Println(report)\n"}))
	b := write(following,
		cmLine(following, "u1", before.Add(-time.Second), ccUser("add lodash")),
		cmCall(following, "b1", before, "Bash", npmCall),
		cmCall(following, "b2", after, "Bash", map[string]any{"command": "pnpm add lodash"}))
	if _, err := k.Import(ctx, []string{a, b}, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Extract(ctx, ExtractOptions{}); err != nil {
		t.Fatal(err)
	}
	st, err := k.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]LessonCommitment{}
	for _, lc := range st.Commitment {
		by[lc.ID] = lc
	}
	got := func(id string) string {
		lc := by[id]
		return fmt.Sprintf("sessions %d followed %d ignored %d untested %d", lc.Sessions, lc.Followed, lc.Ignored, lc.Untested)
	}
	if g := got(npm.ID); g != "sessions 2 followed 1 ignored 1 untested 0" {
		t.Errorf("npm lesson: %s (%+v)", g, st.Commitment)
	}
	if g := got(println.ID); g != "sessions 1 followed 0 ignored 1 untested 0" {
		t.Errorf("fmt.Println lesson: %s (%+v)", g, st.Commitment)
	}
	if lc := by[npm.ID]; lc.Title == "" || lc.LastIgnored == "" || lc.Reword {
		t.Errorf("npm lesson: %+v", lc)
	}

	// Judged once: a second run over unchanged logs and traces changes
	// nothing; a third ignoring session flags the lesson for rewording.
	if _, err := k.Extract(ctx, ExtractOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	again, _ := k.Status(ctx)
	if fmt.Sprint(again.Commitment) != fmt.Sprint(st.Commitment) {
		t.Errorf("judged again:\n%+v\n%+v", again.Commitment, st.Commitment)
	}
	third := "11111111-2222-3333-4444-000000000003"
	t1 := time.Now().UTC()
	hook(third, "Bash", npmCall)
	c := write(third, cmCall(third, "c1", t1.Add(-time.Second), "Bash", npmCall),
		cmCall(third, "c2", t1.Add(time.Minute), "Bash", map[string]any{"command": "cd web && npm ci"}))
	if _, err := k.Import(ctx, []string{c}, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Extract(ctx, ExtractOptions{}); err != nil {
		t.Fatal(err)
	}
	st, _ = k.Status(ctx)
	for _, lc := range st.Commitment {
		if lc.ID == npm.ID && (lc.Ignored != 2 || !lc.Reword) {
			t.Errorf("after a second ignoring session: %+v", lc)
		}
	}
}
