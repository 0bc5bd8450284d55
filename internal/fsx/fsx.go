// Package fsx owns kb's file-level durability primitives: atomic replacement
// of whole files (restic's sequence: temp file in the target directory,
// write, fsync, close, rename, fsync the directory), fsynced appends for
// append-only trace files, and path containment checks that keep every read
// and write inside a KB root.
package fsx

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// TempPrefix starts the name of every temporary file fsx creates, so that
// `kb doctor` can find orphans left by a crash.
const TempPrefix = ".kb-tmp-"

// WriteFile atomically replaces path with data: readers see either the old
// content or the new, never a mix, and a crash at any point leaves one of the
// two. Missing parent directories are created.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return WriteWith(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteWith is WriteFile for content produced by a writer function.
func WriteWith(path string, perm os.FileMode, fill func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, TempPrefix+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = fill(f); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	return SyncDir(dir)
}

// SyncDir fsyncs a directory so that a rename or create inside it is durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}

// Append writes data at the end of path (created if missing) with O_APPEND
// and fsyncs it. It never truncates or rewrites existing bytes. If the file
// does not end in a newline (a crash cut the last append short), a newline is
// written first so the torn line stays an isolated, reportable line and the
// new records start clean. A symlink as the last component is refused
// (O_NOFOLLOW): appends go only to files kb created, never through a link a
// cloned repository committed (.state/hook.log -> ~/.bashrc). Tree.Append
// also checks the directories on the way.
func Append(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	created := false
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		created = true
	}
	if err := refuseLink(path); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|oNoFollow, 0o644)
	if err != nil {
		return err
	}
	if !created {
		if torn, err := endsTorn(path); err == nil && torn {
			data = append([]byte{'\n'}, data...)
		}
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if created {
		return SyncDir(filepath.Dir(path))
	}
	return nil
}

func endsTorn(path string) (bool, error) {
	f, err := OpenNoFollow(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return false, err
	}
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, st.Size()-1); err != nil {
		return false, err
	}
	return b[0] != '\n', nil
}

// ErrOutsideRoot is returned when a path would resolve outside its root.
var ErrOutsideRoot = errors.New("path escapes the KB root")

// Within joins rel onto root and guarantees the result stays inside root,
// lexically and after resolving symlinks of the existing part of the path.
// Absolute rel paths are accepted only if they already lie inside root.
func Within(root, rel string) (string, error) {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	var p string
	if filepath.IsAbs(rel) {
		p = filepath.Clean(rel)
	} else {
		p = filepath.Join(absRoot, rel)
	}
	if !inside(absRoot, p) {
		return "", fmt.Errorf("%s: %w", rel, ErrOutsideRoot)
	}
	realRoot, err := filepath.EvalSymlinks(absRoot)
	if err != nil {
		return p, nil
	}
	// Resolve the longest existing prefix of p.
	probe := p
	var tail []string
	for {
		if real, err := filepath.EvalSymlinks(probe); err == nil {
			full := filepath.Join(append([]string{real}, tail...)...)
			if !inside(realRoot, full) {
				return "", fmt.Errorf("%s: %w (through a symlink)", rel, ErrOutsideRoot)
			}
			return p, nil
		}
		parent := filepath.Dir(probe)
		if parent == probe {
			return p, nil
		}
		tail = append([]string{filepath.Base(probe)}, tail...)
		probe = parent
	}
}

// Inside reports whether the path p is root or lies below it, by their
// names (no link is resolved).
func Inside(root, p string) bool { return inside(root, p) }

func inside(root, p string) bool {
	if p == root {
		return true
	}
	r, err := filepath.Rel(root, p)
	if err != nil {
		return false
	}
	return r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}
