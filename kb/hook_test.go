package kb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kbmem/kb/internal/index"
	"github.com/kbmem/kb/observations"
)

// rcHook answers a hook event after bringing the index up to date (a hook
// itself never syncs it, see TestHookNeverIndexes).
func rcHook(t *testing.T, k *KB, ev map[string]any) *HookOutput {
	t.Helper()
	syncIndex(t, k)
	raw, _ := json.Marshal(ev)
	b, err := k.HandleHook(context.Background(), AgentClaudeCode, raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) == 0 {
		return nil
	}
	var out HookOutput
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("hook output %s: %v", b, err)
	}
	if out.HookSpecificOutput == nil || out.HookSpecificOutput.AdditionalContext == "" {
		t.Fatalf("empty answer printed: %s", b)
	}
	if n := len(out.HookSpecificOutput.AdditionalContext); n > 10000 {
		t.Fatalf("context of %d characters", n)
	}
	return &out
}

func rcPushForceKB(t *testing.T, mode string) *KB {
	k := rcKB(t)
	k.Config.Recall.PreToolUse = mode
	// Recurring (two sessions): it may decide a call and stands at every start.
	rcCorrection(t, k, "force-pushing a branch", "Never force-push main; open a revert PR instead.", []string{"git:push-force", "git:push"},
		"6f1c0d3e-aaaa-bbbb-cccc-000000000001", "6f1c0d3e-aaaa-bbbb-cccc-000000000002")
	rcCorrection(t, k, "committing", "Use conventional commits: type(scope): summary.", []string{"git:commit"})
	return k
}

func TestHookPreToolUse(t *testing.T) {
	for _, mode := range []string{"ask", "deny", "context"} {
		k := rcPushForceKB(t, mode)
		out := rcHook(t, k, map[string]any{"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/p",
			"tool_name": "Bash", "tool_input": map[string]any{"command": "git push --force origin main"}})
		if out == nil {
			t.Fatalf("%s: no answer", mode)
		}
		h := out.HookSpecificOutput
		if h.HookEventName != "PreToolUse" || !strings.Contains(h.AdditionalContext, "You are about to run `git push --force origin main`") {
			t.Errorf("%s: %+v", mode, h)
		}
		want := mode
		if mode == "context" {
			want = ""
		}
		if h.PermissionDecision != want {
			t.Errorf("%s: decision %q", mode, h.PermissionDecision)
		}
		if want != "" && !strings.Contains(h.PermissionDecisionReason, "Never force-push main") {
			t.Errorf("%s: reason %q", mode, h.PermissionDecisionReason)
		}
		// A low-consequence match: context only, never a decision.
		out = rcHook(t, k, map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": "git commit -m 'x'"}})
		if out == nil || out.HookSpecificOutput.PermissionDecision != "" {
			t.Errorf("%s: commit answer %+v", mode, out)
		}
	}
}

func TestHookNoMatchNoOutput(t *testing.T) {
	k := rcPushForceKB(t, "ask")
	for _, ev := range []map[string]any{
		{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": "git status"}},
		{"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": map[string]any{"file_path": "/p/main.go"}},
		{"hook_event_name": "UserPromptSubmit", "prompt": "what does the reconcile job do?"},
		{"hook_event_name": "UserPromptSubmit", "prompt": ""},
		{"hook_event_name": "Notification", "message": "hi"},
	} {
		if out := rcHook(t, k, ev); out != nil {
			t.Errorf("%v answered %+v", ev, out.HookSpecificOutput)
		}
	}
}

func TestHookPromptAndSessionStart(t *testing.T) {
	k := rcPushForceKB(t, "ask")
	out := rcHook(t, k, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "commit these changes please"})
	if out == nil || out.HookSpecificOutput.HookEventName != "UserPromptSubmit" ||
		!strings.Contains(out.HookSpecificOutput.AdditionalContext, "BEFORE committing: Use conventional commits") {
		t.Fatalf("prompt: %+v", out)
	}
	if out.HookSpecificOutput.PermissionDecision != "" {
		t.Errorf("a prompt got a permission decision")
	}
	out = rcHook(t, k, map[string]any{"hook_event_name": "SessionStart", "source": "startup"})
	if out == nil || out.HookSpecificOutput.HookEventName != "SessionStart" {
		t.Fatalf("session start: %+v", out)
	}
	// The recurring correction stands; the one-off waits for its moment.
	ctx := out.HookSpecificOutput.AdditionalContext
	if !strings.Contains(ctx, "Never force-push main") || strings.Contains(ctx, "conventional commits") {
		t.Errorf("standing context = %q", ctx)
	}
}

// TestHookDecisionNeedsEvidence: a high-consequence correction seen once
// informs the agent and decides nothing; recurring, it asks.
func TestHookDecisionNeedsEvidence(t *testing.T) {
	k := rcKB(t)
	k.Config.Recall.PreToolUse = "ask"
	rcCorrection(t, k, "deinitialising a submodule", "Never delete the vendor submodule directory recursively; ask first.", []string{"fs:delete-recursive"})
	ev := map[string]any{"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/p", "tool_name": "Bash", "tool_input": map[string]any{"command": "rm -rf vendor/lib"}}
	out := rcHook(t, k, ev)
	if out == nil || !strings.Contains(out.HookSpecificOutput.AdditionalContext, "Never delete the vendor submodule") {
		t.Fatalf("one-off: %+v", out)
	}
	if out.HookSpecificOutput.PermissionDecision != "" {
		t.Errorf("a one-off lesson decided the call: %q", out.HookSpecificOutput.PermissionDecision)
	}
	rcCorrection(t, k, "deleting a directory", "Never rm -rf a directory you did not create; list it and ask.", []string{"fs:delete-recursive"}, "s-1", "s-2")
	ev["session_id"] = "s2"
	if out = rcHook(t, k, ev); out == nil || out.HookSpecificOutput.PermissionDecision != "ask" {
		t.Errorf("recurring: %+v", out)
	}
}

func TestHookSessionEndEnqueues(t *testing.T) {
	k := rcKB(t)
	tr := filepath.Join(t.TempDir(), "s1.jsonl")
	if out := rcHook(t, k, map[string]any{"hook_event_name": "SessionEnd", "transcript_path": tr, "reason": "exit"}); out != nil {
		t.Fatalf("SessionEnd answered %+v", out)
	}
	b, err := os.ReadFile(filepath.Join(k.Root, StateDir, QueueFile))
	if err != nil || !strings.Contains(string(b), tr) {
		t.Fatalf("queue = %q, %v", b, err)
	}
}

func TestRunHookFailsOpen(t *testing.T) {
	// No KB anywhere: no output, an error for the caller, nothing written.
	dir := t.TempDir()
	var out bytes.Buffer
	ev := `{"hook_event_name":"PreToolUse","cwd":"` + dir + `","tool_name":"Bash","tool_input":{"command":"git push -f"}}`
	if err := RunHook(context.Background(), AgentClaudeCode, strings.NewReader(ev), &out, HookRunOptions{Find: FindOptions{Cwd: dir}}); !errors.Is(err, ErrNoKB) || out.Len() > 0 {
		t.Errorf("no KB: err %v, out %q", err, out.String())
	}
	// A KB found from the event's cwd, bad input: logged, no output.
	k := rcPushForceKB(t, "ask")
	for _, in := range []string{"not json", `{"tool_name":"Bash"}`, `{"hook_event_name":"PreToolUse","cwd":` + string(mustJSON(k.Root)) + `,"tool_input":[1,2]}`} {
		out.Reset()
		if err := RunHook(context.Background(), AgentClaudeCode, strings.NewReader(in), &out, HookRunOptions{Find: FindOptions{Dir: k.Root}}); out.Len() > 0 {
			t.Errorf("%q: printed %q (err %v)", in, out.String(), err)
		}
	}
	log, err := os.ReadFile(filepath.Join(k.Root, StateDir, "hook.log"))
	if err != nil || strings.Count(string(log), "\n") < 2 || !strings.Contains(string(log), "bad-input") {
		t.Errorf("hook.log = %q, %v", log, err)
	}
	// The KB found through the event's cwd, and a real answer.
	syncIndex(t, k)
	out.Reset()
	ev = `{"hook_event_name":"PreToolUse","cwd":` + string(mustJSON(k.Root)) + `,"tool_name":"Bash","tool_input":{"command":"git push -f"}}`
	if err := RunHook(context.Background(), AgentClaudeCode, strings.NewReader(ev), &out, HookRunOptions{Find: FindOptions{}}); err != nil || !strings.Contains(out.String(), `"permissionDecision":"ask"`) {
		t.Errorf("answer %q, %v", out.String(), err)
	}
	// A broken kb.yaml: logged, no output.
	if err := os.WriteFile(filepath.Join(k.Root, ConfigFile), []byte("recall: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := RunHook(context.Background(), AgentClaudeCode, strings.NewReader(ev), &out, HookRunOptions{Find: FindOptions{}}); err == nil || out.Len() > 0 {
		t.Errorf("broken config: %q, %v", out.String(), err)
	}
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

// BenchmarkRecallPreToolUse measures one PreToolUse recall against 10,000
// observations, index already built (the per-call sync is a stat walk).
func BenchmarkRecallPreToolUse(b *testing.B) {
	k := rcKB(b)
	types := observations.Default().Types()
	words := strings.Fields("alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega ledger rates importer client store balance account payment invoice")
	for i := 0; i < 10000; i++ {
		typ := types[i%len(types)]
		o := &observations.Observation{Type: observations.TypeCorrection, Trigger: "doing " + typ + " " + words[i%len(words)],
			Lesson:      "Lesson " + words[(i*7)%len(words)] + " " + words[(i*3)%len(words)] + " number " + strings.Repeat("x", i%5),
			ActionTypes: []string{typ}, Importance: float64(i%10) / 10, Sessions: 1 + i%4}
		o.ID = fmt.Sprintf("cor-bench-%05d", i)
		if i%3 == 1 {
			o.Type, o.Statement, o.Trigger, o.Lesson = observations.TypePreference, "Prefer "+words[i%len(words)], "", ""
		}
		// Written without fsync: setting up 10,000 files is not what is measured.
		out, err := RenderObservation(o)
		if err != nil {
			b.Fatal(err)
		}
		p := filepath.Join(k.Root, filepath.FromSlash(ObservationPath(o.Type, o.ID)))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, out, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	x, _, err := k.OpenIndex(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	x.Close()
	// No session id: a session's memory leaves its later calls nothing new
	// to show, and the benchmark calls the hook again and again (as
	// bench/hooks.sh's events do).
	raw := []byte(`{"hook_event_name":"PreToolUse","session_id":"","cwd":"/p","tool_name":"Bash","tool_input":{"command":"git push --force origin main"}}`)
	// hook: what one PreToolUse costs in-process (open + sync + recall + close).
	b.Run("hook", func(b *testing.B) {
		durs := make([]time.Duration, 0, b.N)
		for i := 0; i < b.N; i++ {
			start := time.Now()
			out, err := k.HandleHook(ctx, AgentClaudeCode, raw)
			durs = append(durs, time.Since(start))
			if err != nil || len(out) == 0 {
				b.Fatalf("%s %v", out, err)
			}
		}
		slices.Sort(durs)
		b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "p50-ms")
	})
	// open: the index open and the stat-walk sync alone.
	b.Run("open", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			x, _, err := k.OpenIndex(ctx, nil)
			if err != nil {
				b.Fatal(err)
			}
			x.Close()
		}
	})
	// recall: matching and ranking on an open index.
	b.Run("recall", func(b *testing.B) {
		x, _, err := k.OpenIndex(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer x.Close()
		tool, in := rcBash("git push --force origin main")
		for i := 0; i < b.N; i++ {
			r, err := x.Recall(ctx, RecallQuery{Tool: tool, Input: in})
			if err != nil || len(r.Items) == 0 {
				b.Fatalf("%+v %v", r, err)
			}
		}
	})
}

// A writer holding the search index does not keep a hook from answering:
// hooks read the activation index, which a writer replaces atomically.
func TestRunHookAnswersWhileIndexBusy(t *testing.T) {
	k := rcPushForceKB(t, "ask")
	x, _, err := k.OpenIndex(context.Background(), nil) // a writer holds the index
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	var out bytes.Buffer
	ev := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push -f"}}`
	err = RunHook(context.Background(), AgentClaudeCode, strings.NewReader(ev), &out, HookRunOptions{Find: FindOptions{Dir: k.Root}})
	if err != nil || !strings.Contains(out.String(), "Never force-push main") {
		t.Fatalf("busy index: err %v, out %q", err, out.String())
	}
}

// TestHookSessionMemory: a lesson shown once in a session is not shown
// again on the next call of the same kind; another session sees it, and a
// call that writes what the lesson prohibits gets it every time.
func TestHookSessionMemory(t *testing.T) {
	k := rcPushForceKB(t, "context")
	rcCorrection(t, k, "editing `api/rates.go`", "Never leave fmt.Println in Go code; log through slog.", []string{"code:edit"})
	commit := func(session string) *HookOutput {
		return rcHook(t, k, map[string]any{"hook_event_name": "PreToolUse", "session_id": session, "cwd": "/p",
			"tool_name": "Bash", "tool_input": map[string]any{"command": "git commit -m 'x'"}})
	}
	if out := commit("s1"); out == nil || !strings.Contains(out.HookSpecificOutput.AdditionalContext, "conventional commits") {
		t.Fatalf("first commit: %+v", out)
	}
	if out := commit("s1"); out != nil {
		t.Errorf("repeated in the same session: %+v", out.HookSpecificOutput)
	}
	if out := commit("s2"); out == nil {
		t.Errorf("another session did not see it")
	}
	edit := func() *HookOutput {
		return rcHook(t, k, map[string]any{"hook_event_name": "PreToolUse", "session_id": "s1", "cwd": "/p",
			"tool_name": "Edit", "tool_input": map[string]any{"file_path": "/p/api/ledger.go", "old_string": "a", "new_string": "\tfmt.Println(total)\n"}})
	}
	for i := 0; i < 2; i++ {
		if out := edit(); out == nil || !strings.Contains(out.HookSpecificOutput.AdditionalContext, "fmt.Println") {
			t.Errorf("edit %d writing what the lesson prohibits: %+v", i, out)
		}
	}
	// A compaction (SessionStart again) empties the context: the standing
	// lessons come again, and a lesson shown before it is shown once more.
	start := map[string]any{"hook_event_name": "SessionStart", "session_id": "s1", "cwd": "/p", "source": "compact"}
	for i := 0; i < 2; i++ {
		if out := rcHook(t, k, start); out == nil || !strings.Contains(out.HookSpecificOutput.AdditionalContext, "Never force-push main") {
			t.Errorf("SessionStart %d: %+v", i, out)
		}
	}
	if out := commit("s1"); out == nil {
		t.Errorf("after the compaction the commit lesson was not shown again")
	}
}

// While a writer holds the search index, kb recall answers from the
// activation index, as hooks do, instead of failing as busy.
func TestRecallWhileIndexBusy(t *testing.T) {
	k := rcPushForceKB(t, "ask")
	x, _, err := k.OpenIndex(context.Background(), nil) // a writer holds the index
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	old := index.BusyTimeout
	index.BusyTimeout = 50 * time.Millisecond
	defer func() { index.BusyTimeout = old }()
	tool, in := rcBash("git push --force origin main")
	r, err := k.Recall(context.Background(), RecallQuery{Tool: tool, Input: in})
	if err != nil || len(r.Items) == 0 || !strings.Contains(r.Items[0].Text, "Never force-push main") {
		t.Fatalf("busy index: %+v %v", r, err)
	}
}
