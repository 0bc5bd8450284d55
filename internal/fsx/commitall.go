package fsx

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Write is one file of a multi-file update (see Tree.CommitAll): its new
// content, or with Remove its removal, and what the caller read there
// before: Old, and Existed false when there was no file. The file is
// replaced only if it still holds that, and is restored to it when the
// update fails half-way.
type Write struct {
	Path    string
	Data    []byte
	Remove  bool
	Perm    os.FileMode
	Old     []byte
	Existed bool
}

// HalfWrittenError says a CommitAll failed half-way and could not be
// undone: some files hold their new content, some their old one. The
// caller keeps whatever it needs to restore them by hand (kb learn keeps
// its captured prior state for `kb learn --rollback`).
type HalfWrittenError struct{ Err error }

func (e *HalfWrittenError) Error() string { return e.Err.Error() }
func (e *HalfWrittenError) Unwrap() error { return e.Err }

// CommitAll updates the files together or not at all. Every new content
// goes to a synced temp file first (in the tree's temp area, see Tree);
// then the renames (or removals) happen in order, each right after a last
// check that the file is still as the caller read it, so that a person's
// edit made since is never overwritten (a *ChangedError, nothing changed).
// If one fails, those already done are restored to their old content (each
// only if it still holds what CommitAll wrote); if a restore fails too, the
// error is a *HalfWrittenError.
func (t Tree) CommitAll(ws []Write) error {
	staged := make([]*Staged, len(ws))
	cleanup := func() {
		for _, st := range staged {
			if st != nil {
				st.Abort()
			}
		}
	}
	for i, w := range ws {
		if w.Remove {
			continue
		}
		st, err := t.Stage(w.Path, w.Perm, func(wr io.Writer) error {
			_, err := wr.Write(w.Data)
			return err
		})
		if err != nil {
			cleanup()
			return fmt.Errorf("write %s: %w", w.Path, err)
		}
		staged[i] = st
	}
	for i, w := range ws {
		var err error
		if w.Remove {
			err = t.removeUnchanged(w)
		} else {
			err = staged[i].Commit(Unchanged(w.Old, w.Existed))
			staged[i] = nil
		}
		if err != nil {
			cleanup()
			var rerr []error
			for j := i - 1; j >= 0; j-- {
				rerr = append(rerr, t.restore(ws[j]))
			}
			if e := errors.Join(rerr...); e != nil {
				return &HalfWrittenError{fmt.Errorf("replace %s: %w; restoring the files written before failed too: %v", w.Path, err, e)}
			}
			return fmt.Errorf("replace %s: %w (nothing changed)", w.Path, err)
		}
	}
	var serr []error
	for _, w := range ws {
		if w.Remove {
			if err := SyncDir(filepath.Dir(w.Path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				serr = append(serr, err)
			}
		}
	}
	return errors.Join(serr...)
}

// removeUnchanged removes w.Path if it still holds w.Old (a file already
// gone counts as removed when none was expected either).
func (t Tree) removeUnchanged(w Write) error {
	unchanged := Unchanged(w.Old, w.Existed)
	cur, rerr := t.ReadFile(w.Path)
	var err error
	switch {
	case errors.Is(rerr, fs.ErrNotExist):
		err = unchanged(nil, false)
	case rerr != nil:
		err = rerr
	default:
		err = unchanged(cur, true)
	}
	if errors.Is(err, ErrChanged) {
		return &ChangedError{Path: w.Path}
	}
	if err != nil {
		return err
	}
	if err := t.Remove(w.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// restore undoes a write of CommitAll that went through, if the file still
// holds what CommitAll wrote.
func (t Tree) restore(w Write) error {
	mine := Unchanged(w.Data, !w.Remove)
	if !w.Existed {
		cur, err := t.ReadFile(w.Path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if mine(cur, true) != nil {
			return &ChangedError{Path: w.Path}
		}
		return t.Remove(w.Path)
	}
	return t.Replace(w.Path, w.Old, w.Perm, mine)
}
