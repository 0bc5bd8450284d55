package fsx

import (
	"io/fs"
	"path/filepath"
	"strings"
)

// CountFiles counts the files under dir whose name ends in ext; what
// cannot be read is not counted.
func CountFiles(dir, ext string) int {
	n := 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), ext) {
			n++
		}
		return nil
	})
	return n
}
