package kb

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kbmem/kb/internal/failpoint"
	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/library"
	"github.com/kbmem/kb/observations"
)

// TestLearnKeepsAnEditMadeBeforeTheRename edits AGENTS.md at the point
// between kb learn's synced temp file and its rename: the tick is blocked,
// the person's file kept, nothing else written, and the next tick learns
// on top of the edit.
func TestLearnKeepsAnEditMadeBeforeTheRename(t *testing.T) {
	proj, k := lnProject(t)
	lnSave(t, k, lnObs(observations.TypeCorrection, lnRecurring, 0.5, "sess-a", "sess-b"))
	agents := filepath.Join(proj, "AGENTS.md")
	lnWrite(t, proj, "AGENTS.md", "# Rules\n")
	edited := "# Rules\n\n- Release on Tuesdays.\n"
	var hits []string
	remove := failpoint.OnHit("fsx.replace", func(note string) {
		hits = append(hits, note)
		if len(hits) == 1 {
			lnWrite(t, proj, "AGENTS.md", edited)
		}
	})
	res := lnLearn(t, k, LearnOptions{})
	remove()
	if len(hits) != 1 || hits[0] != agents {
		t.Fatalf("checked replaces %v, want just %s", hits, agents)
	}
	if res.Result != LearnBlocked || !strings.Contains(res.Reason, "AGENTS.md changed while kb learn ran") || len(res.Applied) != 0 || res.Snapshot != "" {
		t.Errorf("result %+v", res)
	}
	if got := string(lnRead(t, agents)); got != edited {
		t.Errorf("AGENTS.md = %q", got)
	}
	if lnRead(t, filepath.Join(proj, LearnIndexFile)) != nil {
		t.Errorf("index.json written although the tick was blocked")
	}
	if n := len(k.learnFiles().Snapshots()); n != 0 {
		t.Errorf("%d snapshot(s) kept for a tick that changed nothing", n)
	}
	res = lnLearn(t, k, LearnOptions{})
	if got := string(lnRead(t, agents)); res.Result != LearnUpdated || !strings.HasPrefix(got, edited) || !strings.Contains(got, lnRecurring) {
		t.Errorf("next tick %s:\n%s", res.Result, got)
	}
}

// TestLearnWritesThroughALinkInside: a person's AGENTS.md that is a
// symlink to a file of the project stays a link, and the file it names
// gets kb's section.
func TestLearnWritesThroughALinkInside(t *testing.T) {
	proj, k := lnProject(t)
	lnSave(t, k, lnObs(observations.TypeCorrection, lnRecurring, 0.5, "sess-a", "sess-b"))
	lnWrite(t, proj, "docs/AGENTS.md", "# Rules\n")
	if err := os.Symlink(filepath.Join("docs", "AGENTS.md"), filepath.Join(proj, "AGENTS.md")); err != nil {
		t.Skip(err)
	}
	if res := lnLearn(t, k, LearnOptions{}); res.Result != LearnUpdated {
		t.Fatalf("result %+v", res)
	}
	if fi, err := os.Lstat(filepath.Join(proj, "AGENTS.md")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("AGENTS.md is no longer a symlink")
	}
	if got := string(lnRead(t, filepath.Join(proj, "docs", "AGENTS.md"))); !strings.Contains(got, lnRecurring) {
		t.Errorf("docs/AGENTS.md:\n%s", got)
	}
}

// TestHookInstallRefusesSettingsLinkedOut: a project's
// .claude/settings.json linked to the user's own settings is neither read
// (its content would be copied into a file git commits) nor written.
func TestHookInstallRefusesSettingsLinkedOut(t *testing.T) {
	base := t.TempDir()
	proj, home := filepath.Join(base, "proj"), filepath.Join(base, "home")
	lnWrite(t, home, ".claude/settings.json", `{"env": {"API_KEY": "secret"}}`+"\n")
	if err := os.MkdirAll(filepath.Join(proj, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(proj, ".claude", "settings.json")
	if err := os.Symlink(filepath.Join(home, ".claude", "settings.json"), p); err != nil {
		t.Skip(err)
	}
	_, err := InstallHooks(HookInstall{Agent: AgentClaudeCode, Path: p, Root: proj})
	if !errors.Is(err, fsx.ErrOutsideRoot) || !strings.Contains(err.Error(), ".claude/settings.json is a symlink") {
		t.Fatalf("err = %v, want the link refused by name", err)
	}
	if got := string(lnRead(t, filepath.Join(home, ".claude", "settings.json"))); got != `{"env": {"API_KEY": "secret"}}`+"\n" {
		t.Errorf("the user's settings changed: %s", got)
	}
	// The user's own settings, linked to a dotfiles directory: written
	// through, the link kept.
	dot := filepath.Join(base, "dotfiles", "claude.json")
	lnWrite(t, filepath.Dir(dot), "claude.json", "{}\n")
	up := filepath.Join(home, ".codex", "hooks.json")
	os.MkdirAll(filepath.Dir(up), 0o755)
	if err := os.Symlink(dot, up); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallHooks(HookInstall{Agent: AgentCodex, Path: up}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(up); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the user's settings link was replaced by a file")
	}
	if got := string(lnRead(t, dot)); !strings.Contains(got, "kb hook codex") {
		t.Errorf("dotfiles target: %s", got)
	}
}

// TestPromoteApplyWithClaudeLinkedToAgents: the common CLAUDE.md ->
// AGENTS.md stays a link, and the one file gets one block.
func TestPromoteApplyWithClaudeLinkedToAgents(t *testing.T) {
	t.Parallel()
	proj, k := newProject(t)
	loadFixture(t, k)
	if err := os.Symlink("AGENTS.md", filepath.Join(proj, "CLAUDE.md")); err != nil {
		t.Skip(err)
	}
	res, err := k.Promote(context.Background(), PromoteOptions{Apply: true})
	if err != nil || !res.Applied {
		t.Fatalf("apply: %+v %v", res, err)
	}
	if fi, err := os.Lstat(filepath.Join(proj, "CLAUDE.md")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("CLAUDE.md is no longer a symlink")
	}
	if agents := string(lnRead(t, filepath.Join(proj, "AGENTS.md"))); strings.Count(agents, library.BlockBegin) != 1 {
		t.Errorf("AGENTS.md:\n%s", agents)
	}
}

// TestPromoteApplyKeepsAnEditOfAgents edits AGENTS.md right before kb
// promote --apply renames its new content into place: the edit is kept,
// the run fails naming the file, and the re-run completes on top of it.
func TestPromoteApplyKeepsAnEditOfAgents(t *testing.T) {
	proj, k := newProject(t)
	loadFixture(t, k)
	agents := filepath.Join(proj, "AGENTS.md")
	var edited string
	remove := failpoint.OnHit("fsx.replace", func(note string) {
		if note == agents && edited == "" {
			edited = string(lnRead(t, agents)) + "\nA line the person added meanwhile.\n"
			lnWrite(t, proj, "AGENTS.md", edited)
		}
	})
	_, err := k.Promote(context.Background(), PromoteOptions{Apply: true})
	remove()
	if err == nil || !strings.Contains(err.Error(), "AGENTS.md changed while kb promote ran") {
		t.Fatalf("apply: %v, want the edit reported", err)
	}
	if got := string(lnRead(t, agents)); got != edited {
		t.Fatalf("AGENTS.md:\n%s", got)
	}
	if _, err := k.Promote(context.Background(), PromoteOptions{Apply: true}); err != nil {
		t.Fatal(err)
	}
	if got := string(lnRead(t, agents)); !strings.Contains(got, "A line the person added meanwhile.") || !strings.Contains(got, library.BlockBegin) {
		t.Errorf("AGENTS.md after the re-run:\n%s", got)
	}
}
