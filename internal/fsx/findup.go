package fsx

import "path/filepath"

// FindUp walks from dir up to the filesystem root and returns the first
// directory for which match gives a result, or false.
func FindUp(dir string, match func(dir string) (string, bool)) (string, bool) {
	for {
		if r, ok := match(dir); ok {
			return r, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}
