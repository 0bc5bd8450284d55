package reliability

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentDirNothingSkippedSilently (issue 12, the newcomer's run): in
// ~/.claude/projects a session whose first line is over 64 KB, with its
// session id after the long text, must be imported, not called "not a
// transcript" and skipped with exit 0; a file there kb cannot read must fail
// the import by name (the rest imported); empty transcripts and the
// .meta.json companions stay quiet. The SessionEnd hook's path (queue, then
// kb extract --queue, detached) must write a failed import to the hook log.
func TestAgentDirNothingSkippedSilently(t *testing.T) {
	k := newKB(t)
	proj := filepath.Join(k.Home, ".claude", "projects", "-home-dev-app")
	sid := "7d1e2f3a-0000-4000-8000-00000000beef"
	long := `{"type":"queue-operation","operation":"enqueue","timestamp":"2025-11-17T09:59:00.000Z","content":"` +
		strings.Repeat("pasted build log line ", 80<<10/22) + `","sessionId":"` + sid + `"}` + "\n" +
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/app","sessionId":"` + sid +
		`","version":"2.0.42","type":"user","message":{"role":"user","content":"why does the build fail?"},"uuid":"u1","timestamp":"2025-11-17T10:00:00.000Z"}` + "\n"
	writeAll(t, filepath.Join(proj, sid+".jsonl"), long)
	writeAll(t, filepath.Join(proj, "0f0f0f0f-0000-4000-8000-000000000000.jsonl"), "")
	sub := filepath.Join(proj, sid, "subagents")
	writeAll(t, filepath.Join(sub, "agent-a1b2.jsonl"), `{"parentUuid":null,"isSidechain":true,"sessionId":"`+sid+
		`","type":"user","message":{"role":"user","content":"search the logs"},"uuid":"s1","timestamp":"2025-11-17T10:00:05.000Z"}`+"\n")
	writeAll(t, filepath.Join(sub, "agent-a1b2.meta.json"), `{"agentType":"general-purpose","description":"search"}`)
	bad := filepath.Join(proj, "1e1e1e1e-0000-4000-8000-0000000000ba.jsonl")
	writeAll(t, bad, "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")

	r := k.run(t, nil, "import", "--json", proj)
	var rep struct {
		Files []struct {
			File     string `json:"file"`
			Appended int    `json:"appended"`
			Error    string `json:"error"`
		} `json:"files"`
		Skipped []struct {
			File string `json:"file"`
		} `json:"skipped"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatalf("kb import --json: %v\n%s", err, r)
	}
	if r.Code != 1 {
		t.Errorf("kb import exited %d, want 1 (a file failed)\n%s", r.Code, r.Stdout)
	}
	failed, appended := map[string]string{}, 0
	for _, f := range rep.Files {
		if f.Error != "" {
			failed[f.File] = f.Error
		}
		appended += f.Appended
	}
	if len(failed) != 1 || !strings.Contains(failed[bad], "not a transcript") {
		t.Errorf("failed files %v, want only %s", failed, bad)
	}
	if len(rep.Skipped) != 0 {
		t.Errorf("skipped in an agent's directory: %+v", rep.Skipped)
	}
	if appended != 4 { // the queued prompt, the message, the sub-agent's message and its meta
		t.Errorf("appended %d records, want 4\n%s", appended, r.Stdout)
	}
	if show := k.run(t, nil, "trace", "show", sid, "--json"); show.Code != 0 || !strings.Contains(show.Stdout, "pasted build log line") {
		t.Errorf("the session with the long first line was not imported:\n%s", show)
	}

	// SessionEnd: the hook queues the transcript; the drain it starts runs
	// with no terminal, so a failed import must reach the hook log.
	ev, _ := json.Marshal(map[string]any{"hook_event_name": "SessionEnd", "session_id": "x", "transcript_path": bad, "cwd": k.Root})
	// The drain the hook would start is run here instead, so that the test
	// knows when it is done.
	hook := exec.Command(kbBin, "--kb", k.Root, "hook", "claude-code")
	hook.Env = append(kbEnv(k.Home), "KB_HOOK_NO_DRAIN=1")
	hook.Stdin = bytes.NewReader(ev)
	if out, err := hook.CombinedOutput(); err != nil {
		t.Fatalf("hook: %v\n%s", err, out)
	}
	k.run(t, nil, "--quiet", "extract", "--queue")
	log, err := os.ReadFile(filepath.Join(k.Root, ".state", "hook.log"))
	if err != nil || !strings.Contains(string(log), "SessionEnd error: import failed") || !strings.Contains(string(log), bad) {
		t.Errorf("hook log after a failed SessionEnd import: %q %v", log, err)
	}
}

// writeAll writes a file, creating its directories.
func writeAll(t *testing.T, p, s string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	write(t, p, s)
}
