package doc

import (
	"io/fs"
	"path/filepath"
	"strings"
)

// MarkdownFiles lists the markdown files under dir: regular *.md files,
// neither they nor a directory on the way named with a leading dot. The
// walk never enters a symlink; a missing or unreadable directory holds
// nothing.
func MarkdownFiles(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && p != dir && strings.HasPrefix(d.Name(), ".") {
			return fs.SkipDir
		}
		if d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".md") && !strings.HasPrefix(d.Name(), ".") {
			out = append(out, p)
		}
		return nil
	})
	return out
}
