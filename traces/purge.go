package traces

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"sync/atomic"

	"github.com/kbmem/kb/internal/fsx"
)

// NewRedactingStore is a Store over root that redacts what it stores with
// the detector rd and the patterns of earlier purges (PurgedPatterns; a
// purge file that does not parse is told to logf and ignored). count, if
// set, is increased by the number of secrets replaced, session memory
// included.
func NewRedactingStore(root string, rd Detector, count *atomic.Int64, logf func(string, ...any)) (*Store, error) {
	st := &Store{Root: root}
	manual, err := st.PurgedPatterns()
	if err != nil {
		logf("%v; ignored", err)
	}
	st.Redactor = NewRedactor(rd, manual, count)
	if count != nil {
		st.Remembered = func(n int) { count.Add(int64(n)) }
	}
	return st, nil
}

// Purge is what Store.Purge removes, and where.
type Purge struct {
	Pattern  *regexp.Regexp
	Marker   string   // what replaces each match
	Sessions []string // the session files (slash paths, as Find gives them); nil = every session
	Files    []string // other files that may quote it (absolute paths under the root), cleaned too
	DryRun   bool     // report, change nothing
	// Write writes a cleaned file of Files (atomically, keeping its mode).
	Write func(abs string, data []byte) error
}

// Purge replaces every match of p.Pattern in the session files (see
// RedactSessions) and in p.Files with p.Marker, and remembers the pattern
// so that later imports redact it too. It returns the files it changed (or
// would change), sessions first.
func (s *Store) Purge(ctx context.Context, p Purge) ([]RedactedFile, error) {
	files := p.Sessions
	if files == nil {
		files = s.Files()
	}
	done, err := s.RedactSessions(ctx, files, p.Pattern, p.Marker, p.DryRun)
	if err != nil {
		return done, err
	}
	for _, abs := range p.Files {
		data, err := fsx.ReadFileNoFollow(abs) // the caller's walk never enters a symlink
		if err != nil {
			continue
		}
		n := len(p.Pattern.FindAllIndex(data, -1))
		if n == 0 {
			continue
		}
		rel, err := filepath.Rel(s.Root, abs)
		if err != nil {
			rel = abs
		}
		rel = filepath.ToSlash(rel)
		done = append(done, RedactedFile{Path: rel, Occurrences: n})
		if p.DryRun {
			continue
		}
		if err := p.Write(abs, p.Pattern.ReplaceAllLiteral(data, []byte(p.Marker))); err != nil {
			return done, fmt.Errorf("redact %s: %w", rel, err)
		}
	}
	if p.DryRun {
		return done, nil
	}
	if err := s.AddPurgedPattern(p.Pattern); err != nil {
		return done, fmt.Errorf("redact: remember pattern: %w", err)
	}
	return done, nil
}
