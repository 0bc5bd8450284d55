package gitdir

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kbmem/kb/internal/testenv"
)

// TestWorktrees: from the main worktree or a linked one, Worktrees names
// both, the one asked about first; a removed worktree's directory is left
// out, and outside git only the directory itself is returned.
func TestWorktrees(t *testing.T) {
	base := t.TempDir()
	main := filepath.Join(base, "main")
	os.MkdirAll(main, 0o755)
	testenv.Git(t, main, "init", "-q")
	testenv.Git(t, main, "commit", "-q", "--allow-empty", "-m", "init")
	wt := filepath.Join(base, "feature")
	gone := filepath.Join(base, "gone")
	testenv.Git(t, main, "worktree", "add", "-q", wt)
	testenv.Git(t, main, "worktree", "add", "-q", gone)
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
