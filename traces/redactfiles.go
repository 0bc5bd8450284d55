package traces

import (
	"context"
	"fmt"
	"regexp"
)

// RedactedFile is one file a manual redaction changed (or would change).
type RedactedFile struct {
	Path        string `json:"path"` // relative to the KB root
	Records     int    `json:"records,omitempty"`
	Occurrences int    `json:"occurrences"`
}

// RedactSessions rewrites, atomically, each session file of files (slash
// paths relative to Root) holding a match of re in any string of a record,
// with the match replaced by marker (ReplaceInRecords); with dryRun it
// only counts. It reports the files that hold a match, those done before
// an error or a cancelled ctx included. The caller holds the write lock.
func (s *Store) RedactSessions(ctx context.Context, files []string, re *regexp.Regexp, marker string, dryRun bool) ([]RedactedFile, error) {
	var out []RedactedFile
	for _, rel := range files {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		_, err := s.Rewrite(rel, func(data []byte) ([]byte, error) {
			redacted, recs, occ := ReplaceInRecords(data, re, marker)
			if occ > 0 {
				out = append(out, RedactedFile{Path: rel, Records: recs, Occurrences: occ})
			}
			if dryRun {
				return data, nil
			}
			return redacted, nil
		})
		if err != nil {
			return out, fmt.Errorf("redact %s: %w", rel, err)
		}
	}
	return out, nil
}
