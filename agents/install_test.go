package agents

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHookInstallClaudeCode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ".claude", "settings.json")
	orig := `{
  "permissions": {"allow": ["Bash(go test:*)"]},
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh <x> & y"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]
  },
  "zzz": 1
}`
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	o := Installation{Agent: ClaudeCode, Path: p}
	r, err := Install(o)
	if err != nil || !r.Changed || len(r.Added) != 4 {
		t.Fatalf("install: %+v, %v", r, err)
	}
	first, _ := os.ReadFile(p)
	var m struct {
		Permissions map[string]any
		Zzz         int
		Hooks       map[string][]struct {
			Matcher string
			Hooks   []struct {
				Type, Command string
				Timeout       int
			}
		}
	}
	if err := json.Unmarshal(first, &m); err != nil {
		t.Fatal(err)
	}
	if m.Zzz != 1 || m.Permissions == nil || len(m.Hooks["Stop"]) != 1 || len(m.Hooks["PreToolUse"]) != 2 {
		t.Fatalf("merged = %s", first)
	}
	if g := m.Hooks["PreToolUse"][1]; g.Matcher != "Bash|Edit|Write|MultiEdit|NotebookEdit" || g.Hooks[0].Command != "kb hook claude-code" || g.Hooks[0].Timeout != hookTimeout {
		t.Errorf("kb group = %+v", g)
	}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "SessionEnd"} {
		if len(m.Hooks[ev]) != 1 {
			t.Errorf("%s = %+v", ev, m.Hooks[ev])
		}
	}
	if !strings.Contains(string(first), "./check.sh <x> & y") || strings.Index(string(first), "permissions") > strings.Index(string(first), "zzz") {
		t.Errorf("existing content changed: %s", first)
	}
	// Idempotent.
	r, err = Install(o)
	if err != nil || r.Changed {
		t.Fatalf("second install: %+v, %v", r, err)
	}
	if again, _ := os.ReadFile(p); !bytes.Equal(again, first) {
		t.Errorf("second install changed the file")
	}
	// Uninstall removes only kb's entries.
	r, err = Uninstall(o)
	if err != nil || !r.Changed || len(r.Removed) != 4 {
		t.Fatalf("uninstall: %+v, %v", r, err)
	}
	after, _ := os.ReadFile(p)
	var back map[string]any
	var want map[string]any
	json.Unmarshal(after, &back)
	json.Unmarshal([]byte(orig), &want)
	if !jsonEqual(back, want) {
		t.Errorf("after uninstall:\n%s\nwant\n%s", after, orig)
	}
	// ... and keeps the order of the keys it did not touch.
	if a := string(after); strings.Index(a, `"matcher"`) > strings.Index(a, `"./check.sh`) || strings.Index(a, `"type"`) > strings.Index(a, `"./check.sh`) {
		t.Errorf("uninstall reordered keys:\n%s", after)
	}
	// A file that is not JSON is refused, not overwritten.
	os.WriteFile(p, []byte("{oops"), 0o644)
	if _, err := Install(o); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("bad file: %v", err)
	}
}

// TestHookInstallAbsolutePath: the hook command names the kb binary by
// its absolute path (quoted when it needs it), so the hook does not depend
// on the agent's PATH; an earlier install with a bare "kb" (or another
// path) is pointed at the new binary, not doubled, and uninstall removes
// it whatever path it names.
func TestHookInstallAbsolutePath(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".claude", "settings.json")
	if _, err := Install(Installation{Agent: ClaudeCode, Path: p}); err != nil {
		t.Fatal(err)
	}
	exe := "/opt/my tools/kb"
	r, err := Install(Installation{Agent: ClaudeCode, Path: p, Exe: exe})
	if err != nil || !r.Changed || len(r.Added) != 4 {
		t.Fatalf("reinstall: %+v %v", r, err)
	}
	b, _ := os.ReadFile(p)
	if n := strings.Count(string(b), `"command":`); n != 4 || !strings.Contains(string(b), `"'/opt/my tools/kb' hook claude-code"`) {
		t.Errorf("%d commands:\n%s", n, b)
	}
	if r, err := Install(Installation{Agent: ClaudeCode, Path: p, Exe: exe}); err != nil || r.Changed {
		t.Errorf("third install: %+v %v", r, err)
	}
	if r, err := Uninstall(Installation{Agent: ClaudeCode, Path: p, Exe: "/usr/local/bin/kb"}); err != nil || len(r.Removed) != 4 {
		t.Errorf("uninstall by another path: %+v %v", r, err)
	}
	for c, want := range map[string]bool{"kb hook codex": true, "/x/kb hook codex": true, `"/a b/kb" hook codex`: true,
		"/p/bin/kb-run hook codex": true, "kb hook claude-code": false, "notkb hook codex": false, "kb index": false} {
		if got := isKBHook(c, Codex, "kb hook codex"); got != want {
			t.Errorf("isKBHook(%q) = %v", c, got)
		}
	}
}

// TestCodexEvents: Codex gets the events every Codex with hooks has
// (codex-rs hooks HookEventsToml); the transcript is queued on Stop, since
// SessionEnd exists only from 0.145 on.
func TestCodexEvents(t *testing.T) {
	d, _ := Lookup(Codex)
	var evs []string
	for _, g := range hookGroups(d, "kb hook codex") {
		evs = append(evs, g.event)
	}
	if strings.Join(evs, ",") != "SessionStart,UserPromptSubmit,PreToolUse,Stop" || !d.Ends(EventStop) || !d.Ends(EventSessionEnd) {
		t.Errorf("codex events %v", evs)
	}
	c, _ := Lookup(ClaudeCode)
	if c.Ends(EventStop) || !c.Ends(EventSessionEnd) {
		t.Errorf("claude code ends on %v", c.EndEvents)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func TestHookInstallCodexNewFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".codex", "hooks.json")
	r, err := Install(Installation{Agent: Codex, Path: p})
	if err != nil || !r.Changed {
		t.Fatal(r, err)
	}
	b, _ := os.ReadFile(p)
	if !strings.Contains(string(b), `"command": "kb hook codex"`) {
		t.Errorf("codex hooks = %s", b)
	}
	if r, err := Uninstall(Installation{Agent: Codex, Path: p}); err != nil || !r.Changed {
		t.Fatal(r, err)
	}
	if b, _ := os.ReadFile(p); strings.TrimSpace(string(b)) != "{}" {
		t.Errorf("after uninstall: %s", b)
	}
}

func FuzzInstall(f *testing.F) {
	f.Add([]byte(`{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"kb hook claude-code"}]}]}}`))
	f.Add([]byte(`{"hooks":null}`))
	f.Add([]byte(`{"hooks":{"PreToolUse":{}}}`))
	f.Add([]byte(`{"a":[1,2,{"b":null}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "settings.json")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		o := Installation{Agent: ClaudeCode, Path: p}
		if _, err := Install(o); err != nil {
			return
		}
		first, _ := os.ReadFile(p)
		if !json.Valid(first) {
			t.Fatalf("wrote invalid JSON: %s", first)
		}
		if r, err := Install(o); err != nil || r.Changed {
			t.Fatalf("not idempotent: %+v %v", r, err)
		}
		if _, err := Uninstall(o); err != nil {
			t.Fatal(err)
		}
	})
}

// TestCheckInstalled: a hook whose kb binary is gone is reported with the
// way to fix it; one that runs is not; a missing settings file is fine.
func TestCheckInstalled(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "settings.json")
	if got := CheckInstalled(ClaudeCode, p); len(got) != 0 {
		t.Errorf("missing file: %v", got)
	}
	exe := filepath.Join(dir, "bin", "kb")
	os.MkdirAll(filepath.Dir(exe), 0o755)
	os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755)
	if _, err := Install(Installation{Agent: ClaudeCode, Path: p, Exe: exe}); err != nil {
		t.Fatal(err)
	}
	if got := CheckInstalled(ClaudeCode, p); len(got) != 0 {
		t.Errorf("working hook reported: %v", got)
	}
	os.Remove(exe)
	got := CheckInstalled(ClaudeCode, p)
	if len(got) != 1 || !strings.Contains(got[0], exe+", which no longer exists") || !strings.Contains(got[0], "kb hook install claude-code") {
		t.Errorf("gone binary: %v", got)
	}
	os.WriteFile(p, []byte("{oops"), 0o644)
	if got := CheckInstalled(ClaudeCode, p); len(got) != 1 || !strings.Contains(got[0], "not JSON") {
		t.Errorf("bad file: %v", got)
	}
}

// TestHookInstallEntryPoint: with the hook entry point beside kb, install
// writes "<kb-hook> <agent>" for Claude Code and Codex; an earlier
// "kb hook <agent>" install is pointed at it, not doubled, and uninstall
// removes either form.
func TestHookInstallEntryPoint(t *testing.T) {
	for _, agent := range []string{ClaudeCode, Codex} {
		d, _ := Lookup(agent)
		p := filepath.Join(t.TempDir(), d.Settings)
		if _, err := Install(Installation{Agent: agent, Path: p, Exe: "/usr/local/bin/kb"}); err != nil {
			t.Fatal(err)
		}
		fast := Installation{Agent: agent, Path: p, Exe: "/usr/local/bin/kb", HookExe: "/usr/local/bin/kb-hook"}
		r, err := Install(fast)
		if err != nil || !r.Changed {
			t.Fatalf("%s: upgrade: %+v %v", agent, r, err)
		}
		b, _ := os.ReadFile(p)
		if n, m := strings.Count(string(b), `"command":`), strings.Count(string(b), `"/usr/local/bin/kb-hook `+agent+`"`); n != len(d.Events) || m != n {
			t.Errorf("%s: %d commands, %d of the entry point:\n%s", agent, n, m, b)
		}
		if r, err := Install(fast); err != nil || r.Changed {
			t.Errorf("%s: second install: %+v %v", agent, r, err)
		}
		if r, err := Uninstall(Installation{Agent: agent, Path: p}); err != nil || len(r.Removed) != len(d.Events) {
			t.Errorf("%s: uninstall: %+v %v", agent, r, err)
		}
	}
	for c, want := range map[string]bool{"kb-hook codex": true, "/x/kb-hook codex": true, `"/a b/kb-hook" codex`: true,
		"kb-hook claude-code": false, "notkb-hook codex": false} {
		if got := isKBHook(c, Codex, "kb hook codex"); got != want {
			t.Errorf("isKBHook(%q) = %v", c, got)
		}
	}
}
