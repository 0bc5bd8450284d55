package traces

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportPath: a directory's transcripts are imported, a file in no
// known format is passed over (or, in an agent's own directory, an
// error), and a missing path is an error of the report, not a failure.
func TestImportPath(t *testing.T) {
	s := trStore(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "good.jsonl"), trRead(t, genericFixture), 0o644)
	os.WriteFile(filepath.Join(dir, "other.json"), []byte(`{"colour":"blue"}`), 0o644)
	rep := &ImportReport{}
	s.ImportPath(context.Background(), dir, PathOptions{}, rep)
	s.ImportPath(context.Background(), filepath.Join(dir, "missing.jsonl"), PathOptions{}, rep)
	if rep.Totals.Files != 2 || rep.Totals.Appended == 0 || rep.Totals.Skipped != 1 || rep.Totals.Errors != 1 ||
		!strings.HasPrefix(rep.Skipped[0].Reason, "not a transcript") {
		t.Fatalf("report %+v", rep)
	}
	owned := &ImportReport{}
	s.ImportPath(context.Background(), dir, PathOptions{Owned: func(string) bool { return true }}, owned)
	if owned.Totals.Skipped != 0 || owned.Totals.Errors != 1 || owned.Totals.Unchanged != 1 {
		t.Errorf("in an agent's directory: %+v", owned.Totals)
	}
}
