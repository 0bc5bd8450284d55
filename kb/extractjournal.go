package kb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/kbmem/kb/internal/failpoint"
	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/lock"
)

// An extraction run decides everything in memory (which candidate merges
// into which file, the bytes of every file), then commits in three steps:
//
//  1. the journal (.state/extract-journal.json): every file write and the
//     session markers, written atomically;
//  2. the observation files, each atomically;
//  3. the session markers, then the journal is removed.
//
// A run killed in step 2 or 3 leaves the journal; the next run (or
// `kb doctor --fix`) finishes it before anything else, so the KB ends
// exactly as an uninterrupted run would have left it. Without the journal a
// re-run would merge its candidates into the files the killed run had
// written so far, which is not always the same as merging them into the
// files as they stood before (see docs/reliability.md).
const journalFile = "extract-journal.json"

// obsWrite is one observation file an extraction run writes.
type obsWrite struct {
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

type extractJournal struct {
	Version int                      `json:"version"`
	Started time.Time                `json:"started"`
	Writes  []*obsWrite              `json:"writes"`
	Marks   map[string]extractedMark `json:"marks,omitempty"`
}

func (k *KB) journalPath() string { return filepath.Join(k.Root, StateDir, journalFile) }

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// commitExtract makes a run's result durable (see journalFile). Files whose
// content would not change are left out of the journal.
func (k *KB) commitExtract(writes []*obsWrite, marks map[string]extractedMark) (written []string, probs []Problem, err error) {
	if len(writes) == 0 {
		return nil, nil, k.saveMarks(marks)
	}
	j := &extractJournal{Version: 1, Started: time.Now().UTC(), Writes: writes, Marks: marks}
	b, err := json.Marshal(j)
	if err != nil {
		return nil, nil, err
	}
	if err := k.files().WriteFile(k.journalPath(), b, 0o600); err != nil {
		return nil, nil, fmt.Errorf("extract: write journal: %w", err)
	}
	failpoint.Hit("extract.journal")
	return k.finishJournal(j)
}

// finishJournal applies a journal's writes and markers, then removes it.
// A file that is neither as the run found it nor as it would leave it was
// changed since (a person's edit): it is left alone and reported. The
// check is made twice: before the write, and again right before the
// rename that puts the new content in place (fsx.Staged.Commit), so that
// an edit made while the new file was being written and synced is kept
// too.
func (k *KB) finishJournal(j *extractJournal) (written []string, probs []Problem, err error) {
	tree := k.files()
	for _, w := range j.Writes {
		abs, err := k.Path(w.Path)
		if err != nil {
			probs = append(probs, Problem{Path: w.Path, Msg: "journal names a path outside the KB: " + err.Error(), Rule: "journal"})
			continue
		}
		cur, rerr := tree.ReadFile(abs)
		if w.Delete {
			switch {
			case errors.Is(rerr, fs.ErrNotExist):
				continue // removed before the interruption
			case rerr != nil:
				return written, probs, fmt.Errorf("extract: %s: %w", w.Path, rerr)
			case sum(cur) != w.Before:
				probs = append(probs, Problem{Path: w.Path, Msg: "changed since kb extract decided to remove it; left as it is", Rule: "journal"})
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
		case rerr == nil && sum(cur) == w.After:
			continue // written before the interruption
		case rerr == nil && sum(cur) == w.Before, errors.Is(rerr, fs.ErrNotExist) && w.Before == "":
		case rerr != nil && !errors.Is(rerr, fs.ErrNotExist):
			return written, probs, fmt.Errorf("extract: %s: %w", w.Path, rerr)
		default:
			probs = append(probs, Problem{Path: w.Path, Msg: "changed since the extraction run that was interrupted; left as it is (run kb extract --rerun to merge again)", Rule: "journal"})
			continue
		}
		if sum(w.Content) != w.After {
			return written, probs, fmt.Errorf("extract: journal entry for %s is damaged", w.Path)
		}
		if err := tree.Replace(abs, w.Content, 0o644, journalCheck(w)); err != nil {
			if errors.Is(err, fsx.ErrChanged) {
				probs = append(probs, Problem{Path: w.Path, Msg: "changed while kb extract was writing it; left as it is (run kb extract --rerun to merge again)", Rule: "journal"})
				continue
			}
			return written, probs, fmt.Errorf("save observation %s: %w", w.Path, err)
		}
		written = append(written, w.Path)
		failpoint.Hit("extract.write")
	}
	if err := k.saveMarks(j.Marks); err != nil {
		return written, probs, err
	}
	failpoint.Hit("extract.marks")
	if err := tree.Remove(k.journalPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return written, probs, fmt.Errorf("extract: remove journal: %w", err)
	}
	return written, probs, nil
}

// journalCheck accepts a file that is still as the run found it (or still
// absent when the run creates it), or already as the run leaves it.
func journalCheck(w *obsWrite) fsx.Check {
	return func(cur []byte, exists bool) error {
		switch {
		case !exists && w.Before == "":
		case exists && (sum(cur) == w.Before || sum(cur) == w.After):
		default:
			return fsx.ErrChanged
		}
		return nil
	}
}

// saveMarks records sessions as extracted.
func (k *KB) saveMarks(marks map[string]extractedMark) error {
	if len(marks) == 0 {
		return nil
	}
	st := k.loadExtracted()
	for id, m := range marks {
		st.Sessions[id] = m
	}
	return k.saveExtracted(st)
}

// resumeExtract finishes an extraction run that was interrupted after its
// journal was written. It reports the files it wrote; with no journal it
// does nothing. The caller holds the write lock.
func (k *KB) resumeExtract() (written []string, probs []Problem, err error) {
	b, err := k.files().ReadFile(k.journalPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("extract: read journal: %w", err)
	}
	j := &extractJournal{}
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
			if sum(w.Content) != w.After {
				err = fmt.Errorf("the content for %s does not match its hash", w.Path)
				break
			}
		}
	}
	if err != nil || j.Version != 1 {
		// Written atomically, so only a hand edit damages it. The
		// re-extraction that follows redoes the run without it.
		k.files().Remove(k.journalPath())
		msg := "unknown journal version; discarded, the sessions are extracted again"
		if err != nil {
			msg = "damaged journal discarded (" + err.Error() + "); the sessions are extracted again"
		}
		return nil, []Problem{{Path: StateDir + "/" + journalFile, Msg: msg, Rule: "journal"}}, nil
	}
	return k.finishJournal(j)
}

// LockObservations takes the KB write lock for a command that changes
// observation files, after finishing an interrupted extraction run: the
// command then works on the state that run would have left, and the run's
// journal never finds a file changed under it.
func (k *KB) LockObservations(ctx context.Context) (*lock.Lock, error) {
	l, err := k.Lock(ctx)
	if err != nil {
		return nil, err
	}
	written, probs, err := k.resumeExtract()
	if err != nil {
		l.Release()
		return nil, err
	}
	if len(written) > 0 {
		k.logf("finished an interrupted kb extract run: %d observation file(s) written", len(written))
	}
	for _, p := range probs {
		k.logf("%s: %s", p.Path, p.Msg)
	}
	return l, nil
}

// finishPendingExtract lets a reading command (promote --dry-run, status)
// see the state an interrupted extraction would have left: if a journal
// is pending, it takes the write lock long enough to finish it. A lock it
// cannot get, or a failure, leaves the reader with the files as they are.
func (k *KB) finishPendingExtract(ctx context.Context) {
	if _, err := os.Stat(k.journalPath()); err != nil {
		return
	}
	if l, err := k.LockObservations(ctx); err == nil {
		l.Release()
	}
}
