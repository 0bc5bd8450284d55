package traces

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/kbmem/kb/internal/fsx"
)

// QueueFile lists transcripts waiting for import, one JSON object a line,
// under the state directory: a SessionEnd hook appends to it without the
// KB lock and returns at once; a drain takes it whole.
const QueueFile = "queue.jsonl"

type queueEntry struct {
	Path string    `json:"path"`
	At   time.Time `json:"at"`
}

// QueuePath is the queue file of the store.
func (s *Store) QueuePath() string { return filepath.Join(s.Root, stateDir, QueueFile) }

// Enqueue durably records that the transcript at abs (an absolute path) is
// to be imported by the next drain: one fsynced O_APPEND line, no lock.
func (s *Store) Enqueue(abs string, at time.Time) error {
	line, err := json.Marshal(queueEntry{Path: abs, At: at.UTC()})
	if err != nil {
		return err
	}
	return s.files().Append(s.QueuePath(), append(line, '\n'))
}

// TakeQueue sets the queue aside (an atomic rename, so that transcripts
// enqueued meanwhile wait for the next drain) and returns the transcripts
// in it, each once, in the order first queued, with a problem for each
// malformed line (a torn append). A queue set aside by a drain that did
// not finish is taken again first. done removes it once the caller has
// imported what it holds; until then a crash loses nothing.
func (s *Store) TakeQueue() (paths []string, probs []Problem, done func() error, err error) {
	queue := s.QueuePath()
	draining := queue + ".draining"
	tree := s.files()
	done = func() error {
		if err := tree.Remove(draining); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return fsx.SyncDir(filepath.Dir(draining))
	}
	if _, err := os.Lstat(draining); errors.Is(err, fs.ErrNotExist) {
		if err := tree.Rename(queue, draining); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, nil, func() error { return nil }, nil
			}
			return nil, nil, nil, err
		}
	} else if err != nil {
		return nil, nil, nil, err
	}
	b, err := tree.ReadFile(draining)
	if err != nil {
		return nil, nil, nil, err
	}
	for i, line := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e queueEntry
		if err := json.Unmarshal(line, &e); err != nil || e.Path == "" {
			probs = append(probs, Problem{Path: stateDir + "/" + QueueFile, Line: i + 1, Msg: "skipping malformed queue entry", Rule: "parse"})
			continue
		}
		if !slices.Contains(paths, e.Path) {
			paths = append(paths, e.Path)
		}
	}
	return paths, probs, done, nil
}
