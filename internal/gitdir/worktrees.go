package gitdir

import (
	"os"
	"path/filepath"
	"strings"
)

// Worktrees returns projectRoot and every linked git worktree of the same
// repository (and the main worktree when projectRoot is a linked one), read
// from <git common dir>/worktrees/*/gitdir. Outside git it returns just
// projectRoot. Worktrees whose directory no longer exists are left out.
func Worktrees(projectRoot string) []string {
	root, err := filepath.Abs(projectRoot)
	if err != nil {
		return []string{projectRoot}
	}
	out := []string{root}
	seen := map[string]bool{root: true}
	addDir := func(d string) {
		d = filepath.Clean(d)
		if seen[d] {
			return
		}
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return
		}
		seen[d] = true
		out = append(out, d)
	}
	common := commonDir(root)
	if common == "" {
		return out
	}
	if filepath.Base(common) == ".git" {
		addDir(filepath.Dir(common)) // the main worktree
	}
	ents, err := os.ReadDir(filepath.Join(common, "worktrees"))
	if err != nil {
		return out
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(common, "worktrees", e.Name(), "gitdir"))
		if err != nil {
			continue
		}
		gd := strings.TrimSpace(string(b))
		if gd == "" {
			continue
		}
		if !filepath.IsAbs(gd) {
			gd = filepath.Join(common, "worktrees", e.Name(), gd)
		}
		addDir(filepath.Dir(gd)) // gitdir names <worktree>/.git
	}
	return out
}

// commonDir returns the git common directory of the work tree at root,
// or "" when root has no .git.
func commonDir(root string) string {
	dotgit := filepath.Join(root, ".git")
	st, err := os.Stat(dotgit)
	if err != nil {
		return ""
	}
	if st.IsDir() {
		return dotgit
	}
	b, err := os.ReadFile(dotgit)
	if err != nil || !strings.HasPrefix(string(b), "gitdir:") {
		return ""
	}
	gd := strings.TrimSpace(strings.TrimPrefix(string(b), "gitdir:"))
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(root, gd)
	}
	cd, err := os.ReadFile(filepath.Join(gd, "commondir"))
	if err != nil {
		return gd
	}
	c := strings.TrimSpace(string(cd))
	if !filepath.IsAbs(c) {
		c = filepath.Join(gd, c)
	}
	return filepath.Clean(c)
}

// TopLevel returns the top of the work tree containing dir: the nearest
// directory at or above dir that holds a .git directory, or a .git file
// pointing at a linked worktree's git dir. It reports false if there is
// none. The path is absolute but symlinks are not resolved.
func TopLevel(dir string) (string, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for d := abs; ; {
		if isDotGit(filepath.Join(d, ".git")) {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// isDotGit reports whether p is a .git directory (with a HEAD) or a .git
// file of the form "gitdir: <path>".
func isDotGit(p string) bool {
	fi, err := os.Stat(p)
	if err != nil {
		return false
	}
	if fi.IsDir() {
		_, err := os.Stat(filepath.Join(p, "HEAD"))
		return err == nil
	}
	if !fi.Mode().IsRegular() || fi.Size() > 4096 {
		return false
	}
	b, err := os.ReadFile(p)
	return err == nil && strings.HasPrefix(string(b), "gitdir:")
}
