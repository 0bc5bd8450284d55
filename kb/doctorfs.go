package kb

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/kbmem/kb/internal/fsx"
)

// The filesystem checks of `kb doctor`: symlinks that lead out of the KB
// or the project, and temp files an interrupted write left behind.
//
// What --fix does with an escaping symlink depends on whose it is:
//   - under .state/ or as .index (kb's own derived data, ignored by git and
//     rebuilt on demand), the link itself is removed: kb never created it,
//     nothing of the person's is lost, and the target is never touched;
//   - anywhere else (the layers, kb.yaml, AGENTS.md, .continual-learning/,
//     .claude/) it is reported and left alone: kb refuses to read or write
//     through it, and the person decides.

// derivedPath reports whether a KB-relative slash path is kb's own derived
// data.
func derivedPath(rel string) bool {
	return rel == StateDir || strings.HasPrefix(rel, StateDir+"/") || rel == IndexDir
}

// escapingLinks lists the symlinks in kb's own areas of the KB (.state/,
// .index, kb.yaml, .gitignore) that lead out of the KB, with the error
// that names each. The layers are left to lint (scan reports every link
// there).
func (k *KB) escapingLinks() []linkFinding {
	tree := k.files()
	var out []linkFinding
	check := func(abs string) {
		fi, err := os.Lstat(abs)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return
		}
		if _, err := tree.Resolve(abs); errors.Is(err, fsx.ErrOutsideRoot) {
			out = append(out, linkFinding{rel: k.Rel(abs), err: err})
		}
	}
	for _, name := range []string{ConfigFile, ".gitignore", IndexDir, StateDir} {
		check(filepath.Join(k.Root, name))
	}
	state := filepath.Join(k.Root, StateDir)
	if fi, err := os.Lstat(state); err == nil && fi.IsDir() {
		filepath.WalkDir(state, func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == state {
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 {
				check(p)
			}
			return nil
		})
	}
	return out
}

type linkFinding struct {
	rel string // relative to the KB root
	err error
}

// removeDerivedLinks removes the escaping links under .state/ and .index
// (the links, never their targets), so that doctor --fix can take the lock
// that lives in .state/. It returns what it removed.
func (k *KB) removeDerivedLinks() []linkFinding {
	var done []linkFinding
	for _, f := range k.escapingLinks() {
		if derivedPath(f.rel) && k.files().Remove(filepath.Join(k.Root, filepath.FromSlash(f.rel))) == nil {
			done = append(done, f)
		}
	}
	return done
}

// projectLinks lists the places in the project root kb writes (the learn
// target, CLAUDE.md, .continual-learning/, .claude/skills/) that are
// symlinks leading out of the project: kb refuses to write through them.
func (k *KB) projectLinks() []linkFinding {
	if k.ProjectRoot == "" || k.ProjectRoot == k.Root {
		return nil
	}
	tree := k.projectFiles()
	target := k.learnTargetName()
	var out []linkFinding
	seen := map[string]bool{}
	for _, rel := range []string{target, "AGENTS.md", "CLAUDE.md", path.Dir(LearnIndexFile), LearnIndexFile, ".claude", ".claude/skills"} {
		abs := filepath.Join(k.ProjectRoot, filepath.FromSlash(rel))
		if seen[abs] {
			continue
		}
		seen[abs] = true
		fi, err := os.Lstat(abs)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		if _, err := tree.Resolve(abs); errors.Is(err, fsx.ErrOutsideRoot) {
			out = append(out, linkFinding{rel: k.Rel(abs), err: err})
		}
	}
	return out
}

// strayTemps lists the temp files of fsx (TempPrefix) an interrupted write
// left: anywhere under the KB but .git and .index (this includes TmpDir),
// and in the places of the project root kb writes, where `git add -A`
// would otherwise commit them. kb stages those writes in TmpDir, so temp
// files land in the project only when TmpDir is on another filesystem (or
// from a kb older than TmpDir).
func (k *KB) strayTemps() []string {
	var temps []string
	filepath.WalkDir(k.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == ".git" || p == filepath.Join(k.Root, IndexDir)) {
			return fs.SkipDir
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), fsx.TempPrefix) {
			temps = append(temps, p)
		}
		return nil
	})
	if k.ProjectRoot == "" || k.ProjectRoot == k.Root {
		return temps
	}
	dirs := map[string]bool{k.ProjectRoot: true}
	if target := k.learnTargetName(); !filepath.IsAbs(target) {
		dirs[filepath.Join(k.ProjectRoot, filepath.Dir(filepath.FromSlash(target)))] = true
	}
	dirs[filepath.Join(k.ProjectRoot, filepath.FromSlash(path.Dir(LearnIndexFile)))] = true
	dirs[filepath.Join(k.ProjectRoot, ".claude")] = true
	tree := k.projectFiles()
	for dir := range dirs {
		if _, err := tree.Resolve(dir); err != nil || fsx.Inside(k.Root, dir) {
			continue // outside the project (reported as a link), or walked above
		}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if !e.IsDir() && strings.HasPrefix(e.Name(), fsx.TempPrefix) {
				temps = append(temps, filepath.Join(dir, e.Name()))
			}
		}
	}
	// Skills: .claude/skills/<name>/SKILL.md.
	skills := filepath.Join(k.ProjectRoot, ".claude", "skills")
	if _, err := tree.Resolve(skills); err == nil {
		filepath.WalkDir(skills, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), fsx.TempPrefix) {
				temps = append(temps, p)
			}
			return nil
		})
	}
	return temps
}
