package observations

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kbmem/kb/internal/testenv"
	"github.com/kbmem/kb/traces"
)

// loadClaudeSession parses a Claude Code transcript with the traces parser
// and numbers the records the way the trace store does.
func loadClaudeSession(file string) (*Session, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := &Session{ID: strings.TrimSuffix(filepath.Base(file), ".jsonl")}
	_, _, err = traces.NewClaudeCode().Parse(f, file, traces.Pos{}, func(r traces.Record) error {
		r.Seq = len(s.Records) + 1
		s.Records = append(s.Records, r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", file, err)
	}
	return s, nil
}

// sharedDir finds ../shared next to the repository root, or skips.
func sharedDir(t testing.TB) string {
	return testenv.Shared(t)
}
