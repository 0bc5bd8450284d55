package gitx

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestWorktrees: from the main worktree or a linked one, Worktrees names
// both, the one asked about first; a removed worktree's directory is left
// out, and outside git only the directory itself is returned.
func TestWorktrees(t *testing.T) {
	if !hasGit() {
		t.Skip("git not installed")
	}
	base := t.TempDir()
	main := filepath.Join(base, "main")
	os.MkdirAll(main, 0o755)
	runGit(t, main, "init", "-q")
	runGit(t, main, "commit", "-q", "--allow-empty", "-m", "init")
	wt := filepath.Join(base, "feature")
	gone := filepath.Join(base, "gone")
	runGit(t, main, "worktree", "add", "-q", wt)
	runGit(t, main, "worktree", "add", "-q", gone)
	os.RemoveAll(gone)
	if got := Worktrees(main); !slices.Equal(got, []string{main, wt}) {
		t.Errorf("from main: %v", got)
	}
	if got := Worktrees(wt); !slices.Equal(got, []string{wt, main}) {
		t.Errorf("from the linked worktree: %v", got)
	}
	plain := t.TempDir()
	if got := Worktrees(plain); !slices.Equal(got, []string{plain}) {
		t.Errorf("outside git: %v", got)
	}
}
