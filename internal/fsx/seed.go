package fsx

import (
	"os"
	"path/filepath"
)

// SeedFile is a file Seed creates when it is missing.
type SeedFile struct {
	Name    string // slash path under the tree's root
	Content string
}

// Seed creates under the tree's root, in order, the files and then the
// directories that do not exist yet (each directory kept in git by an empty
// .gitkeep), and returns the names of what it created, a directory's with a
// trailing "/". What exists is kept as it is, so a second Seed creates
// nothing. An error stops it: what it created so far stays, and a re-run
// creates the rest.
func (t Tree) Seed(files []SeedFile, dirs []string) ([]string, error) {
	var created []string
	for _, f := range files {
		p := filepath.Join(t.Root, filepath.FromSlash(f.Name))
		if _, err := os.Stat(p); err == nil {
			continue
		}
		if err := t.WriteFile(p, []byte(f.Content), 0o644); err != nil {
			return created, err
		}
		created = append(created, f.Name)
	}
	for _, d := range dirs {
		p := filepath.Join(t.Root, filepath.FromSlash(d))
		if _, err := os.Stat(p); err == nil {
			continue
		}
		if err := t.MkdirAll(p); err != nil {
			return created, err
		}
		if err := t.WriteFile(filepath.Join(p, ".gitkeep"), nil, 0o644); err != nil {
			return created, err
		}
		created = append(created, d+"/")
	}
	return created, nil
}
