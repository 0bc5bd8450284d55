package agents

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeFile(t testing.TB, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestClaudeCodeAndCodexDirs: a project's Claude Code directories are one
// per worktree of its repository, named as Claude Code names them; its
// Codex rollouts are those whose first line's cwd lies in one of them.
func TestClaudeCodeAndCodexDirs(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CODEX_HOME", "")
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	base := t.TempDir()
	main := filepath.Join(base, "my.proj")
	run := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	os.MkdirAll(main, 0o755)
	run(main, "init", "-q")
	run(main, "commit", "-q", "--allow-empty", "-m", "init")
	wt := filepath.Join(base, "wt-feature")
	run(main, "worktree", "add", "-q", wt)

	want := []string{
		filepath.Join(home, ".claude", "projects", EncodeClaudeProject(main)),
		filepath.Join(home, ".claude", "projects", EncodeClaudeProject(wt)),
	}
	if got := ClaudeCodeDirs(main); !slices.Equal(got, want) {
		t.Errorf("ClaudeCodeDirs(main) = %v, want %v", got, want)
	}
	if got := ClaudeCodeDirs(wt); len(got) != 2 || got[0] != want[1] || got[1] != want[0] {
		t.Errorf("ClaudeCodeDirs(worktree) = %v", got)
	}
	if !strings.Contains(want[0], "-my-proj") || strings.Contains(filepath.Base(want[0]), ".") {
		t.Errorf("encoding: %s", want[0])
	}

	day := filepath.Join(home, ".codex", "sessions", "2025", "12", "01")
	meta := func(cwd string) string {
		return `{"timestamp":"2025-12-01T10:00:00Z","type":"session_meta","payload":{"id":"x","cwd":"` + cwd + `"}}` + "\n"
	}
	writeFile(t, filepath.Join(day, "rollout-a.jsonl"), meta(main))
	writeFile(t, filepath.Join(day, "rollout-b.jsonl"), meta(filepath.Join(wt, "sub")))
	writeFile(t, filepath.Join(day, "rollout-c.jsonl"), meta("/elsewhere"))
	writeFile(t, filepath.Join(day, "rollout-d.jsonl"), meta(main+"-other"))
	writeFile(t, filepath.Join(day, "notes.jsonl"), meta(main))
	got := CodexFiles(main)
	if len(got) != 2 || filepath.Base(got[0]) != "rollout-a.jsonl" || filepath.Base(got[1]) != "rollout-b.jsonl" {
		t.Errorf("CodexFiles = %v", got)
	}
	t.Setenv("CODEX_HOME", filepath.Join(home, "elsewhere"))
	if got := CodexFiles(main); len(got) != 0 {
		t.Errorf("CODEX_HOME ignored: %v", got)
	}
}

// TestSources: kb.yaml's trace entries resolve to places, "auto" to the
// agent's own, each path once.
func TestSources(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CODEX_HOME", "")
	project := t.TempDir()
	got := Sources(project, SourceEntries{
		ClaudeCode: []string{"auto", "~/cc", "auto"},
		Codex:      []string{" AUTO "},
		Extra:      []string{"logs", "~/cc"},
	})
	want := []string{
		filepath.Join(ClaudeProjectsDir(), EncodeClaudeProject(project)),
		filepath.Join(home, "cc"),
		filepath.Join(home, ".codex", "sessions"),
		filepath.Join(project, "logs"),
	}
	var paths []string
	for _, s := range got {
		paths = append(paths, s.Path)
	}
	if !slices.Equal(paths, want) {
		t.Fatalf("sources %v, want %v", paths, want)
	}
	if got[2].Keep == nil || got[2].Keep(filepath.Join(home, "notes.jsonl")) || got[0].Keep != nil {
		t.Error("only the automatic Codex source filters its files, to rollouts")
	}
}
