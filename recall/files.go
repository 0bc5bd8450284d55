package recall

import (
	"errors"
	"path/filepath"

	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/observations"
)

// Files is recall's Reader over a KB's files: a path (a slash path
// relative to Root, as hits give it) stays inside the KB, and no symbolic
// link is followed out of it.
type Files struct{ Root string }

func (f Files) read(rel string) ([]byte, error) {
	abs, err := fsx.Within(f.Root, filepath.FromSlash(rel))
	if err != nil {
		return nil, err
	}
	return fsx.ReadFileNoFollow(abs) // abs is within Root: no link out on the way
}

// Observation reads and parses an observation file.
func (f Files) Observation(rel string) (*observations.Observation, error) {
	b, err := f.read(rel)
	if err != nil {
		return nil, err
	}
	return ParseObservation(rel, b)
}

// ParseObservation parses the bytes b of the observation file rel, as
// Observation does.
func ParseObservation(rel string, b []byte) (*observations.Observation, error) {
	of, prob := observations.ParseFile(rel, b)
	if prob != nil {
		return nil, errors.New(prob.String())
	}
	return of.Obs, nil
}

// Document reads and parses a frontmatter document.
func (f Files) Document(rel string) (*doc.Document, error) {
	b, err := f.read(rel)
	if err != nil {
		return nil, err
	}
	return doc.ParseFrontmatter(rel, b)
}
