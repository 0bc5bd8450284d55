package agents

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/recall"
)

func FuzzParseHookInput(f *testing.F) {
	f.Add([]byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`))
	f.Add([]byte(`{"hook_event_name":"UserPromptSubmit","prompt":"hi"}`))
	f.Add([]byte(`{"hook_event_name":"SessionEnd","transcript_path":"/x"}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := ParseHookInput(b)
		if err == nil && in.HookEventName == "" {
			t.Fatal("accepted an event without a name")
		}
	})
}

// TestAnswerDecides: an established (reviewed, promoted or recurring)
// correction of a high-consequence action
// decides a PreToolUse call in ask and deny mode, with its lesson as the
// reason; an agent's unreviewed note, another kind, another event or the
// context mode only inform.
func TestAnswerDecides(t *testing.T) {
	d, _ := Lookup(ClaudeCode)
	pre := &HookInput{HookEventName: EventPreToolUse, ToolName: "Bash"}
	cor := recall.Item{ID: "cor-1", Kind: recall.KindCorrections, HighConsequence: true, Established: true, Text: "You are about to ... [cor-1]",
		Lesson: "Never force-push main."}
	for _, c := range []struct {
		in       *HookInput
		items    []recall.Item
		decision string
		want     string
	}{
		{pre, []recall.Item{cor}, "ask", "ask"},
		{pre, []recall.Item{cor}, "deny", "deny"},
		{pre, []recall.Item{cor}, "context", ""},
		{&HookInput{HookEventName: EventUserPromptSubmit, Prompt: "x"}, []recall.Item{cor}, "deny", ""},
		{pre, []recall.Item{{ID: "cor-2", Kind: recall.KindCorrections, HighConsequence: true, Unreviewed: true, Text: "t"}}, "deny", ""},
		{pre, []recall.Item{{ID: "pref-1", Kind: recall.KindPreferences, HighConsequence: true, Text: "t"}}, "deny", ""},
		{pre, []recall.Item{{ID: "cor-3", Kind: recall.KindCorrections, Text: "t"}}, "deny", ""},
		// A lesson seen once, never reviewed: it informs, it does not decide.
		{pre, []recall.Item{{ID: "cor-4", Kind: recall.KindCorrections, HighConsequence: true, Text: "t", Lesson: "l"}}, "ask", ""},
	} {
		out := d.Answer(c.in, &recall.Result{Items: c.items}, c.decision)
		if out == nil || out.HookSpecificOutput.HookEventName != c.in.HookEventName || out.HookSpecificOutput.AdditionalContext == "" {
			t.Fatalf("%+v: answer %+v", c, out)
		}
		h := out.HookSpecificOutput
		if h.PermissionDecision != c.want {
			t.Errorf("%s %s %+v: decision %q, want %q", c.in.HookEventName, c.decision, c.items[0], h.PermissionDecision, c.want)
		}
		if c.want != "" && h.PermissionDecisionReason != "kb: Never force-push main. [cor-1]" {
			t.Errorf("reason %q", h.PermissionDecisionReason)
		}
	}
	if out := d.Answer(pre, &recall.Result{Items: []recall.Item{}}, "deny"); out != nil {
		t.Errorf("nothing recalled answered %+v", out)
	}
	// The context is capped whatever the budget let through.
	long := recall.Item{ID: "x", Kind: recall.KindLibrary, Text: strings.Repeat("word ", 4000)}
	if out := d.Answer(pre, &recall.Result{Items: []recall.Item{long}}, "ask"); len(out.HookSpecificOutput.AdditionalContext) > MaxHookContext+len("…") {
		t.Errorf("context of %d characters", len(out.HookSpecificOutput.AdditionalContext))
	}
	b, err := (&HookOutput{HookSpecificOutput: &HookSpecificOutput{HookEventName: EventPreToolUse, AdditionalContext: "run `a && b <x>`"}}).JSON()
	if err != nil || !strings.Contains(string(b), "a && b <x>") || strings.Count(string(b), "\n") != 1 || !strings.HasSuffix(string(b), "}\n") {
		t.Errorf("JSON %q, %v", b, err)
	}
}

// TestCodexNeverAsks: Codex rejects permissionDecision "ask" (its
// pre_tool_use.rs output check; the hook run is marked Failed and its
// additionalContext dropped), so the Codex answer in ask mode carries the
// lesson as context and no decision; deny, which Codex accepts with a
// non-empty reason, still decides.
func TestCodexNeverAsks(t *testing.T) {
	d, _ := Lookup(Codex)
	pre := &HookInput{HookEventName: EventPreToolUse, ToolName: "Bash"}
	cor := recall.Item{ID: "cor-1", Kind: recall.KindCorrections, HighConsequence: true, Established: true, Text: "You are about to ... [cor-1]",
		Lesson: "Never force-push main."}
	out := d.Answer(pre, &recall.Result{Items: []recall.Item{cor}}, "ask")
	if h := out.HookSpecificOutput; h.PermissionDecision != "" || h.PermissionDecisionReason != "" || h.AdditionalContext == "" {
		t.Errorf("codex ask: %+v", h)
	}
	out = d.Answer(pre, &recall.Result{Items: []recall.Item{cor}}, "deny")
	if h := out.HookSpecificOutput; h.PermissionDecision != "deny" || strings.TrimSpace(h.PermissionDecisionReason) == "" {
		t.Errorf("codex deny: %+v", h)
	}
	b, _ := out.JSON()
	for _, bad := range []string{`"ask"`, `"allow"`, `"continue"`, `"stopReason"`, `"suppressOutput"`} {
		if strings.Contains(string(b), bad) {
			t.Errorf("codex answer has %s: %s", bad, b)
		}
	}
}

// TestQueryOfEvents: which events ask recall for what.
func TestQueryOfEvents(t *testing.T) {
	d, _ := Lookup(Codex)
	for _, c := range []struct {
		in   HookInput
		ok   bool
		want recall.Query
	}{
		{HookInput{HookEventName: EventSessionStart, Cwd: "/p"}, true, recall.Query{Standing: true, Cwd: "/p", Project: "/p"}},
		{HookInput{HookEventName: EventUserPromptSubmit, Prompt: "add a column", Cwd: "/p"}, true, recall.Query{Task: "add a column", Cwd: "/p", Project: "/p"}},
		{HookInput{HookEventName: EventUserPromptSubmit, Prompt: "  "}, false, recall.Query{}},
		{HookInput{HookEventName: EventPreToolUse, ToolName: "Bash", ToolInput: []byte(`{"command":"ls"}`), Cwd: "/p"}, true,
			recall.Query{Tool: "Bash", Input: []byte(`{"command":"ls"}`), Cwd: "/p", Project: "/p"}},
		{HookInput{HookEventName: EventPreToolUse}, false, recall.Query{}},
		{HookInput{HookEventName: EventSessionEnd, TranscriptPath: "/t.jsonl"}, false, recall.Query{}},
		{HookInput{HookEventName: EventStop}, false, recall.Query{}},
		{HookInput{HookEventName: "Notification"}, false, recall.Query{}},
	} {
		q, ok := d.Query(&c.in)
		if ok != c.ok || q.Task != c.want.Task || q.Tool != c.want.Tool || string(q.Input) != string(c.want.Input) ||
			q.Standing != c.want.Standing || q.Cwd != c.want.Cwd || q.Project != c.want.Project {
			t.Errorf("%+v: %+v %v, want %+v %v", c.in, q, ok, c.want, c.ok)
		}
	}
	if _, ok := Lookup("cursor"); ok {
		t.Error("an unknown agent has a dialect")
	}
	if _, err := SettingsPath("cursor", "/p", false); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("unknown agent's settings: %v", err)
	}
}

// TestSessionMemory: ids shown are read back per session; an id that is no
// plain file name keeps no memory.
func TestSessionMemory(t *testing.T) {
	root := t.TempDir()
	m := SessionMemory{Tree: fsx.Tree{Root: root}, Dir: filepath.Join(root, ".state", "sessions"), Session: "abc-1"}
	if m.Seen() != nil {
		t.Fatal("memory before anything was shown")
	}
	shown := func(m SessionMemory, event string, ids ...string) error {
		return m.Record(recall.Injection{At: time.Now(), Event: event, IDs: ids})
	}
	if err := shown(m, EventPreToolUse, "cor-1", "pref-2"); err != nil {
		t.Fatal(err)
	}
	if err := shown(m, EventPreToolUse, "cor-3"); err != nil {
		t.Fatal(err)
	}
	if err := shown(m, EventPreToolUse, "cor-3"); err != nil {
		t.Fatal(err)
	}
	if s := m.Seen(); s["cor-1"] != 1 || s["pref-2"] != 1 || s["cor-3"] != 2 || len(s) != 3 {
		t.Errorf("seen = %v", s)
	}
	// A new start (or a compaction) holds only what it was given.
	if err := shown(m, EventSessionStart, "conv-1"); err != nil {
		t.Fatal(err)
	}
	if s := m.Seen(); s["conv-1"] != 1 || len(s) != 1 {
		t.Errorf("after reset: %v", s)
	}
	// A start that showed nothing empties the memory too; the commitment
	// stage sees only the answers that showed something.
	if err := shown(m, EventSessionStart); err != nil {
		t.Fatal(err)
	}
	if s := m.Seen(); len(s) != 0 {
		t.Errorf("after an empty start: %v", s)
	}
	if ins, _, err := m.Injections(); err != nil || len(ins) != 4 || ins[3].IDs[0] != "conv-1" {
		t.Errorf("injections %+v, %v", ins, err)
	}
	for _, bad := range []string{"", "../x", "a/b", "..", strings.Repeat("x", 300)} {
		b := m
		b.Session = bad
		if err := shown(b, EventPreToolUse, "cor-1"); err != nil || b.Seen() != nil {
			t.Errorf("session %q kept memory", bad)
		}
	}
}
