package observations

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/kbmem/kb/internal/diag"
	"github.com/kbmem/kb/internal/failpoint"
	"github.com/kbmem/kb/internal/fsx"
)

// An extraction run decides everything in memory (which candidate merges
// into which file, the bytes of every file), then commits in three steps:
//
//  1. the journal: every file write and the session markers, written
//     atomically;
//  2. the observation files, each atomically;
//  3. the session markers, then the journal is removed.
//
// A run killed in step 2 or 3 leaves the journal; the next run (or
// `kb doctor --fix`) finishes it before anything else, so the KB ends
// exactly as an uninterrupted run would have left it. Without the journal a
// re-run would merge its candidates into the files the killed run had
// written so far, which is not always the same as merging them into the
// files as they stood before (see docs/reliability.md).

// JournalWrite is one observation file an extraction run writes.
type JournalWrite struct {
	Path string `json:"path"`
	// Before is the sha256 of the file the run merged into ("" when the
	// run creates it); After the sha256 of Content.
	Before  string `json:"before,omitempty"`
	After   string `json:"after"`
	Content []byte `json:"content"`
	// Delete removes the file instead (a fold or retraction, whose
	// tombstone is an earlier write of the same journal): Before is the
	// sha256 of the file as the run found it, After and Content are empty.
	Delete bool `json:"delete,omitempty"`
}

// Journal is an extraction run's writes and the session markers M it
// records once they are done.
type Journal[M any] struct {
	Version int             `json:"version"`
	Started time.Time       `json:"started"`
	Writes  []*JournalWrite `json:"writes"`
	Marks   M               `json:"marks,omitempty"`
}

// JournalFiles is where a journal lives and what it writes to: Tree holds
// the files, Root is the directory the writes' slash paths are relative
// to, Path the journal file (absolute) and Rel its name in problems.
// SaveMarks records the markers of a finished run.
type JournalFiles[M any] struct {
	Tree      fsx.Tree
	Root      string
	Path, Rel string
	SaveMarks func(M) error
}

// Sum is the content hash a journal records.
func Sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// Commit makes a run's result durable: the journal first, then Finish.
// With no writes only the markers are saved.
func (jf JournalFiles[M]) Commit(writes []*JournalWrite, marks M) (written []string, probs []diag.Problem, err error) {
	if len(writes) == 0 {
		return nil, nil, jf.SaveMarks(marks)
	}
	j := &Journal[M]{Version: 1, Started: time.Now().UTC(), Writes: writes, Marks: marks}
	b, err := json.Marshal(j)
	if err != nil {
		return nil, nil, err
	}
	if err := jf.Tree.WriteFile(jf.Path, b, 0o600); err != nil {
		return nil, nil, fmt.Errorf("extract: write journal: %w", err)
	}
	failpoint.Hit("extract.journal")
	return jf.Finish(j)
}

// Finish applies a journal's writes and markers, then removes it.
// A file that is neither as the run found it nor as it would leave it was
// changed since (a person's edit): it is left alone and reported. The
// check is made twice: before the write, and again right before the
// rename that puts the new content in place (fsx.Staged.Commit), so that
// an edit made while the new file was being written and synced is kept
// too.
func (jf JournalFiles[M]) Finish(j *Journal[M]) (written []string, probs []diag.Problem, err error) {
	tree := jf.Tree
	for _, w := range j.Writes {
		abs, err := fsx.Within(jf.Root, filepath.FromSlash(w.Path))
		if err != nil {
			probs = append(probs, diag.Problem{Path: w.Path, Msg: "journal names a path outside the KB: " + err.Error(), Rule: "journal"})
			continue
		}
		cur, rerr := tree.ReadFile(abs)
		if w.Delete {
			switch {
			case errors.Is(rerr, fs.ErrNotExist):
				continue // removed before the interruption
			case rerr != nil:
				return written, probs, fmt.Errorf("extract: %s: %w", w.Path, rerr)
			case Sum(cur) != w.Before:
				probs = append(probs, diag.Problem{Path: w.Path, Msg: "changed since kb extract decided to remove it; left as it is", Rule: "journal"})
				continue
			}
			if err := tree.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return written, probs, fmt.Errorf("remove observation %s: %w", w.Path, err)
			}
			if err := fsx.SyncDir(filepath.Dir(abs)); err != nil {
				return written, probs, fmt.Errorf("remove observation %s: %w", w.Path, err)
			}
			written = append(written, w.Path)
			failpoint.Hit("extract.write")
			continue
		}
		switch {
		case rerr == nil && Sum(cur) == w.After:
			continue // written before the interruption
		case rerr == nil && Sum(cur) == w.Before, errors.Is(rerr, fs.ErrNotExist) && w.Before == "":
		case rerr != nil && !errors.Is(rerr, fs.ErrNotExist):
			return written, probs, fmt.Errorf("extract: %s: %w", w.Path, rerr)
		default:
			probs = append(probs, diag.Problem{Path: w.Path, Msg: "changed since the extraction run that was interrupted; left as it is (run kb extract --rerun to merge again)", Rule: "journal"})
			continue
		}
		if Sum(w.Content) != w.After {
			return written, probs, fmt.Errorf("extract: journal entry for %s is damaged", w.Path)
		}
		if err := tree.Replace(abs, w.Content, 0o644, journalCheck(w)); err != nil {
			if errors.Is(err, fsx.ErrChanged) {
				probs = append(probs, diag.Problem{Path: w.Path, Msg: "changed while kb extract was writing it; left as it is (run kb extract --rerun to merge again)", Rule: "journal"})
				continue
			}
			return written, probs, fmt.Errorf("save observation %s: %w", w.Path, err)
		}
		written = append(written, w.Path)
		failpoint.Hit("extract.write")
	}
	if err := jf.SaveMarks(j.Marks); err != nil {
		return written, probs, err
	}
	failpoint.Hit("extract.marks")
	if err := tree.Remove(jf.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return written, probs, fmt.Errorf("extract: remove journal: %w", err)
	}
	return written, probs, nil
}

// journalCheck accepts a file that is still as the run found it (or still
// absent when the run creates it), or already as the run leaves it.
func journalCheck(w *JournalWrite) fsx.Check {
	return func(cur []byte, exists bool) error {
		switch {
		case !exists && w.Before == "":
		case exists && (Sum(cur) == w.Before || Sum(cur) == w.After):
		default:
			return fsx.ErrChanged
		}
		return nil
	}
}

// Resume finishes a run that was interrupted after its journal was
// written. It reports the files it wrote; with no journal it does
// nothing. A damaged journal (only a hand edit damages it: it is written
// atomically) is discarded and reported, so that the re-extraction that
// follows redoes the run without it. The caller holds the write lock.
func (jf JournalFiles[M]) Resume() (written []string, probs []diag.Problem, err error) {
	b, err := jf.Tree.ReadFile(jf.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("extract: read journal: %w", err)
	}
	j := &Journal[M]{}
	err = json.Unmarshal(b, j)
	if err == nil {
		for _, w := range j.Writes {
			if w != nil && w.Delete && w.Path != "" && w.Before != "" && len(w.Content) == 0 {
				continue
			}
			if w == nil || w.Path == "" || w.After == "" {
				err = errors.New("a write without path or content hash")
				break
			}
			if Sum(w.Content) != w.After {
				err = fmt.Errorf("the content for %s does not match its hash", w.Path)
				break
			}
		}
	}
	if err != nil || j.Version != 1 {
		jf.Tree.Remove(jf.Path)
		msg := "unknown journal version; discarded, the sessions are extracted again"
		if err != nil {
			msg = "damaged journal discarded (" + err.Error() + "); the sessions are extracted again"
		}
		return nil, []diag.Problem{{Path: jf.Rel, Msg: msg, Rule: "journal"}}, nil
	}
	return jf.Finish(j)
}
