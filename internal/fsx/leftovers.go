package fsx

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// What a crash or a cloned repository can leave in a tree, for kb doctor:
// symlinks leading out of it and temp files of interrupted writes.

// Escape is a symlink that leads out of a Tree's root.
type Escape struct {
	Path string // absolute
	Err  error  // the error that names it (ErrOutsideRoot)
}

// EscapingLinks lists the symlinks leading out of t's root among paths
// and under the directories walk (walked without following links), each
// path once, in order.
func (t Tree) EscapingLinks(paths []string, walk ...string) []Escape {
	var out []Escape
	seen := map[string]bool{}
	check := func(abs string) {
		if seen[abs] {
			return
		}
		seen[abs] = true
		fi, err := os.Lstat(abs)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return
		}
		if _, err := t.Resolve(abs); errors.Is(err, ErrOutsideRoot) {
			out = append(out, Escape{Path: abs, Err: err})
		}
	}
	for _, p := range paths {
		check(p)
	}
	for _, dir := range walk {
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
			continue
		}
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && p != dir && d.Type()&fs.ModeSymlink != 0 {
				check(p)
			}
			return nil
		})
	}
	return out
}

// TempsUnder lists the temp files (TempPrefix) under dir, recursively;
// skip, if set, keeps the walk out of the directories it names.
func TempsUnder(dir string, skip func(path string, d fs.DirEntry) bool) []string {
	var temps []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && skip != nil && skip(p, d) {
			return fs.SkipDir
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), TempPrefix) {
			temps = append(temps, p)
		}
		return nil
	})
	return temps
}

// TempsIn lists the temp files (TempPrefix) directly in dir.
func TempsIn(dir string) []string {
	var temps []string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if !e.IsDir() && strings.HasPrefix(e.Name(), TempPrefix) {
			temps = append(temps, filepath.Join(dir, e.Name()))
		}
	}
	return temps
}
