package library

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kbmem/kb/internal/fsx"
)

// WritePromotion writes a promotion's files into the work tree of the
// project tree, skipping those skip names (the observations, which the
// caller marks promoted through their own format). The library notes,
// under libPrefix, are what marks a graduation done (a re-run never
// proposes a candidate whose note exists), so they are written last: a run
// killed part-way leaves no note whose skill or routing entry is missing,
// and the re-run writes the rest. Each file is replaced only if it is still
// as the plan read it: an AGENTS.md a person edited meanwhile is kept, and
// the error says to plan anew.
func WritePromotion(tree fsx.Tree, files []PromoteFile, skip map[string]bool, libPrefix string) error {
	for _, notesPass := range []bool{false, true} {
		for _, f := range files {
			if skip[f.Path] || strings.HasPrefix(f.Path, libPrefix) != notesPass {
				continue
			}
			abs, err := fsx.Within(tree.Root, filepath.FromSlash(f.Path))
			if err != nil {
				return fmt.Errorf("promote: %w", err)
			}
			if err := tree.Replace(abs, f.New, 0o644, fsx.Unchanged(f.Old, f.Old != nil)); err != nil {
				if errors.Is(err, fsx.ErrChanged) {
					return fmt.Errorf("promote: %s changed while kb promote ran; left as it is (run kb promote --apply again)", f.Path)
				}
				return fmt.Errorf("promote: %w", err)
			}
		}
	}
	return nil
}
