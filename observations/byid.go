package observations

import (
	"path/filepath"
	"strings"
)

// FileByID is the file of observation id (its id, or its file name
// without .md) among files, or nil.
func FileByID(files []*File, id string) *File {
	for _, f := range files {
		if f.Obs.ID == id || strings.TrimSuffix(filepath.Base(f.Path), ".md") == id {
			return f
		}
	}
	return nil
}
