package episodes

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/kbmem/kb/internal/fsx"
)

// Applied is what Apply did with a Build.
type Applied struct {
	Written   []string // episode files written
	Unchanged int      // files that already held what the build writes
	Removed   []string // files of episodes that no longer exist
}

// Apply writes a build's files under root through tree (atomically, each
// only when its content changes) and removes the files it retires.
func (b *Build) Apply(tree fsx.Tree, root string) (Applied, error) {
	a := Applied{Written: []string{}}
	for _, w := range b.Write {
		abs, err := fsx.Within(root, filepath.FromSlash(w.Path))
		if err != nil {
			return a, err
		}
		if old, err := tree.ReadFile(abs); err == nil && string(old) == string(w.Content) {
			a.Unchanged++
			continue
		}
		if err := tree.WriteFile(abs, w.Content, 0o644); err != nil {
			return a, fmt.Errorf("episodes: %w", err)
		}
		a.Written = append(a.Written, w.Path)
	}
	for _, rel := range b.Remove {
		abs, err := fsx.Within(root, filepath.FromSlash(rel))
		if err != nil {
			continue
		}
		if err := tree.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return a, fmt.Errorf("episodes: %w", err)
		}
		a.Removed = append(a.Removed, rel)
	}
	return a, nil
}
