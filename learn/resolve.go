package learn

import (
	"fmt"
	"path/filepath"

	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/observations"
)

// ResolveTarget returns the target file (absolute, or relative to the
// project root) as a slash path relative to projectRoot, refusing a path
// out of the project, the project root itself and the learn index.
func ResolveTarget(projectRoot, target string) (string, error) {
	if filepath.IsAbs(target) {
		r, err := filepath.Rel(projectRoot, target)
		if err != nil {
			return "", fmt.Errorf("target %s is outside the project %s", target, projectRoot)
		}
		target = r
	}
	if _, err := fsx.Within(projectRoot, filepath.Clean(target)); err != nil {
		return "", fmt.Errorf("target %s: %v", target, err)
	}
	rel := filepath.ToSlash(filepath.Clean(target))
	if rel == "." || rel == IndexFile {
		return "", fmt.Errorf("target %q is not a file kb learn may maintain", target)
	}
	return rel, nil
}

// FilesOf is what a tick reads of the observation files.
func FilesOf(files []*observations.File) []File {
	out := make([]File, 0, len(files))
	for _, f := range files {
		out = append(out, File{Path: f.Path, Raw: f.Raw, Obs: f.Obs})
	}
	return out
}
