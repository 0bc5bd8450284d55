package kb

import (
	"context"
	"os"
	"path/filepath"

	"github.com/kbmem/kb/internal/lock"
	"github.com/kbmem/kb/observations"
)

// An extraction run's write journal (.state/extract-journal.json) is
// observations.Journal: the run's file writes and session markers, so that
// a killed run is finished before anything else (see observations.Resume).
const journalFile = "extract-journal.json"

type (
	obsWrite       = observations.JournalWrite
	extractJournal = observations.Journal[map[string]extractedMark]
)

func (k *KB) journalPath() string { return filepath.Join(k.Root, StateDir, journalFile) }

func (k *KB) journal() observations.JournalFiles[map[string]extractedMark] {
	return observations.JournalFiles[map[string]extractedMark]{Tree: k.files(), Root: k.Root,
		Path: k.journalPath(), Rel: StateDir + "/" + journalFile, SaveMarks: k.saveMarks}
}

func sum(b []byte) string { return observations.Sum(b) }

// commitExtract makes a run's result durable (see journalFile). Files whose
// content would not change are left out of the journal.
func (k *KB) commitExtract(writes []*obsWrite, marks map[string]extractedMark) (written []string, probs []Problem, err error) {
	return k.journal().Commit(writes, marks)
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
// journal was written. The caller holds the write lock.
func (k *KB) resumeExtract() (written []string, probs []Problem, err error) {
	return k.journal().Resume()
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
