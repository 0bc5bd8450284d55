package index

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kbmem/kb/internal/fsx"
)

// journalFile names, inside the index directory, the files one Apply is
// about to change. It is written (atomically) before the Apply's first
// batch and removed after its stamps are written. A process killed in
// between leaves bleve one generation ahead of the stamps file; Open then
// reads the journal and resumes instead of rebuilding: the files the Apply
// replaced or removed are marked incomplete (the next sync indexes them
// again, looking up and deleting whatever docs of theirs were committed),
// and the files it appended to keep their last recorded progress (the next
// sync appends the same docs again, under the same ids). Without a journal
// of the right generation the mismatch is unexplained and the index is
// rebuilt, as before journals existed.
const journalFile = "journal"

type journal struct {
	Gen     uint64   `json:"gen"`
	Replace []string `json:"replace,omitempty"` // files replaced or removed
	Append  []string `json:"append,omitempty"`  // files appended to (Change.Append)
}

func writeJournal(dir string, j journal) error {
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	return fsx.WriteFile(filepath.Join(dir, journalFile), b, 0o644)
}

// readJournal returns the journal, or ok=false when there is none or it is
// unreadable (a torn write cannot happen, fsx writes atomically; garbage is
// treated as no journal, which makes the caller rebuild).
func readJournal(dir string) (j journal, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, journalFile))
	if errors.Is(err, fs.ErrNotExist) {
		return j, false, nil
	}
	if err != nil {
		return j, false, fmt.Errorf("index: %w", err)
	}
	if json.Unmarshal(b, &j) != nil || j.Gen == 0 {
		return journal{}, false, nil
	}
	return j, true, nil
}

// removeJournal drops the journal of a completed Apply. A failure (or a
// crash before the removal reaches the disk) leaves a journal whose
// generation the stamps file has already reached, which Open ignores.
func removeJournal(dir string) {
	_ = os.Remove(filepath.Join(dir, journalFile))
}

// resume sets, over the stamps of the last completed Apply, the state a
// resumed sync starts from, and returns the entries it set.
func (j journal) resume(s *stampSet) []stampEntry {
	var out []stampEntry
	set := func(p string) {
		e := stampEntry{Path: p, Stamp: incomplete}
		s.set(e)
		out = append(out, e)
	}
	for _, p := range j.Replace {
		set(p)
	}
	// Appended files keep their stamps and progress: the docs committed
	// past the recorded progress are produced again with the same ids. One
	// without a stamp (never the case for kb's parts, which start with a
	// replace) must still have its docs looked up.
	for _, p := range j.Append {
		if _, _, ok := s.lookup(p); !ok {
			set(p)
		}
	}
	return out
}
