package fsx

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/kbmem/kb/internal/failpoint"
)

// Tree confines kb's file operations to one directory tree: the KB root,
// or the project root for the files kb keeps there (AGENTS.md,
// .continual-learning/, skills). A KB arrives by git clone, so any of its
// paths may be a symlink its author committed: .state/hook.log pointing at
// the user's shell rc file, library/ pointing at their home directory.
//
// Every path given to a Tree method must lie under Root, lexically and once
// its symlinks are resolved. A symlink that stays inside is followed (a
// person's CLAUDE.md -> AGENTS.md keeps working, and a write goes to the
// file it names rather than replacing the link); one that leads out is
// refused with an *EscapeError naming it, before anything is read, created
// or written. Appends refuse a symlink as their last component altogether:
// kb appends only to files it created itself. The last component is opened
// with O_NOFOLLOW where the platform has it, so a link swapped in after the
// check is not followed either.
//
// Temp files of atomic writes go to Tmp when it is set (kb's own
// .state/tmp/, ignored by git and cleaned by `kb doctor --fix`) and sits
// on the target's filesystem, so that the final rename stays atomic; else,
// or when the rename still crosses a mount, beside the target (see
// Staged.Commit).
type Tree struct {
	Root string // absolute
	Tmp  string // temp directory inside Root; "" puts temp files beside their target
}

// EscapeError is a path kb refused because it leads out of its tree.
type EscapeError struct {
	Root   string // the tree's root
	Path   string // the path asked for
	Link   string // the symlink that leads out, relative to Root; "" when Path itself lies outside
	Target string // where the link leads
}

func (e *EscapeError) Error() string {
	if e.Link == "" {
		return fmt.Sprintf("%s: %v (%s)", e.Path, ErrOutsideRoot, e.Root)
	}
	return fmt.Sprintf("%s is a symlink to %s, outside %s: kb does not follow it", filepath.ToSlash(e.Link), e.Target, e.Root)
}

func (e *EscapeError) Unwrap() error { return ErrOutsideRoot }

// ErrSymlink is returned for an append to a path whose last component is a
// symlink.
var ErrSymlink = errors.New("is a symlink; kb appends only to regular files it created")

// ErrChanged is returned by Commit (and Replace) when the target changed
// after the caller read it: the person's file is kept and the new content
// dropped.
var ErrChanged = errors.New("changed since kb read it; left as it is")

// ChangedError names the file that changed.
type ChangedError struct{ Path string }

func (e *ChangedError) Error() string { return e.Path + ": " + ErrChanged.Error() }
func (e *ChangedError) Unwrap() error { return ErrChanged }

// maxLinks bounds the symlinks followed resolving one path.
const maxLinks = 40

// Resolve returns the real path of p inside the tree: every symlink on the
// way resolved, each one checked to stay inside Root. Components that do
// not exist yet are kept as they are. p may be absolute (inside Root) or
// relative to Root.
func (t Tree) Resolve(p string) (string, error) {
	absRoot, err := filepath.Abs(t.Root)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(absRoot, p)
	}
	p = filepath.Clean(p)
	realRoot, err := filepath.EvalSymlinks(absRoot)
	if errors.Is(err, fs.ErrNotExist) {
		if !inside(absRoot, p) {
			return "", &EscapeError{Root: absRoot, Path: p}
		}
		return p, nil // nothing exists yet, so no link either
	}
	if err != nil {
		return "", err
	}
	// p may be spelled from the root as given or from its real path (what
	// Resolve returns, when the root itself is reached through a link).
	var rel string
	switch {
	case inside(absRoot, p):
		rel, _ = filepath.Rel(absRoot, p)
	case inside(realRoot, p):
		rel, _ = filepath.Rel(realRoot, p)
	default:
		return "", &EscapeError{Root: absRoot, Path: p}
	}
	links := 0
	real, err := resolveIn(realRoot, realRoot, splitPath(rel), &links)
	if err != nil {
		var ee *EscapeError
		if errors.As(err, &ee) {
			ee.Root, ee.Path = absRoot, p
		}
		return "", err
	}
	return real, nil
}

// resolveIn walks parts from dir (a real directory path), following
// symlinks; each link's full resolution must lie inside root.
func resolveIn(root, dir string, parts []string, links *int) (string, error) {
	cur := dir
	for i, name := range parts {
		switch name {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, name)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			out := filepath.Join(append([]string{next}, parts[i+1:]...)...)
			if !inside(root, out) {
				return "", &EscapeError{Target: out}
			}
			return out, nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if *links++; *links > maxLinks {
			return "", &fs.PathError{Op: "resolve", Path: next, Err: syscall.ELOOP}
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		dest := target
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(cur, dest)
		}
		dest = filepath.Clean(dest)
		linkRel, _ := filepath.Rel(root, next)
		var real string
		if inside(root, dest) {
			r, _ := filepath.Rel(root, dest)
			real, err = resolveIn(root, root, splitPath(r), links)
		} else {
			// The target lies outside lexically; its real place might
			// still be inside (an absolute path through a symlinked
			// home), so resolve it as the system would.
			real, err = filepath.EvalSymlinks(dest)
			if errors.Is(err, fs.ErrNotExist) {
				real, err = dest, nil
			}
		}
		var ee *EscapeError
		if errors.As(err, &ee) {
			if ee.Link != "" {
				return "", err // a link further on leads out: name that one
			}
			return "", &EscapeError{Link: linkRel, Target: target}
		}
		if err != nil {
			return "", err
		}
		if !inside(root, real) {
			return "", &EscapeError{Link: linkRel, Target: target}
		}
		cur = real
	}
	if !inside(root, cur) {
		return "", &EscapeError{Target: cur}
	}
	return cur, nil
}

func splitPath(rel string) []string {
	if rel == "." || rel == "" {
		return nil
	}
	return strings.Split(rel, string(filepath.Separator))
}

// ReadFile reads a file of the tree.
func (t Tree) ReadFile(p string) ([]byte, error) {
	f, err := t.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// Open opens a file of the tree for reading.
func (t Tree) Open(p string) (*os.File, error) {
	real, err := t.Resolve(p)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(real, os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		return nil, relabel(err, p)
	}
	return f, nil
}

// Stat stats a file of the tree (the file a symlink inside names).
func (t Tree) Stat(p string) (fs.FileInfo, error) {
	real, err := t.Resolve(p)
	if err != nil {
		return nil, err
	}
	fi, err := os.Lstat(real)
	return fi, relabel(err, p)
}

// ReadDir lists a directory of the tree.
func (t Tree) ReadDir(p string) ([]fs.DirEntry, error) {
	real, err := t.Resolve(p)
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(real)
	return ents, relabel(err, p)
}

// MkdirAll creates a directory of the tree and its parents.
func (t Tree) MkdirAll(p string) error {
	real, err := t.Resolve(p)
	if err != nil {
		return err
	}
	return os.MkdirAll(real, 0o755)
}

// Remove removes a file or an empty directory of the tree. A symlink as
// the last component is removed itself, never what it points at.
func (t Tree) Remove(p string) error {
	dir, base, err := t.resolveParent(p)
	if err != nil {
		return err
	}
	return relabel(os.Remove(filepath.Join(dir, base)), p)
}

// RemoveAll removes a directory of the tree and everything in it (links
// inside it are removed, not followed).
func (t Tree) RemoveAll(p string) error {
	dir, base, err := t.resolveParent(p)
	if err != nil {
		return err
	}
	return os.RemoveAll(filepath.Join(dir, base))
}

// Rename moves a file within the tree. The last component of either path
// is taken as it is (a symlink is moved, or replaced, itself).
func (t Tree) Rename(from, to string) error {
	fd, fb, err := t.resolveParent(from)
	if err != nil {
		return err
	}
	td, tb, err := t.resolveParent(to)
	if err != nil {
		return err
	}
	return os.Rename(filepath.Join(fd, fb), filepath.Join(td, tb))
}

// resolveParent resolves p's directory and returns it with p's last
// component, unresolved.
func (t Tree) resolveParent(p string) (dir, base string, err error) {
	abs := p
	if !filepath.IsAbs(abs) {
		root, err := filepath.Abs(t.Root)
		if err != nil {
			return "", "", err
		}
		abs = filepath.Join(root, abs)
	}
	abs = filepath.Clean(abs)
	base = filepath.Base(abs)
	dir, err = t.Resolve(filepath.Dir(abs))
	if err == nil && (base == "." || base == ".." || base == string(filepath.Separator)) {
		err = fmt.Errorf("%s: not a file of the tree", p)
	}
	return dir, base, err
}

// Append is the package's Append for a file of the tree: the directories
// on the way may be symlinks that stay inside, the file itself may not be
// a symlink at all.
func (t Tree) Append(p string, data []byte) error {
	dir, base, err := t.resolveParent(p)
	if err != nil {
		return err
	}
	full := filepath.Join(dir, base)
	if fi, err := os.Lstat(full); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if _, err := t.Resolve(full); err != nil {
			return err // names where the link leads
		}
		return fmt.Errorf("%s %w", p, ErrSymlink)
	}
	return relabel(Append(full, data), p)
}

// WriteFile is the package's WriteFile for a file of the tree.
func (t Tree) WriteFile(p string, data []byte, perm os.FileMode) error {
	return t.Replace(p, data, perm, nil)
}

// Replace writes data atomically to p if check, called with the file's
// current content right before the rename, accepts it (see Commit).
func (t Tree) Replace(p string, data []byte, perm os.FileMode, check Check) error {
	st, err := t.Stage(p, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		return err
	}
	return st.Commit(check)
}

// Check inspects a target right before it is replaced: cur is its content
// (nil and exists false when there is none). A non-nil error aborts the
// replacement.
type Check func(cur []byte, exists bool) error

// Unchanged is the Check that the target still holds old (or, with
// existed false, still does not exist).
func Unchanged(old []byte, existed bool) Check {
	return func(cur []byte, exists bool) error {
		if exists != existed || (exists && !bytes.Equal(cur, old)) {
			return ErrChanged
		}
		return nil
	}
}

// Staged is a new content written and synced to a temp file, not yet in
// place.
type Staged struct {
	tree   Tree
	path   string // as given
	target string // resolved
	tmp    string
	perm   os.FileMode
	done   bool
}

// Stage writes the new content of p to a synced temp file. Nothing is
// visible at p until Commit; Abort (or a failed Commit) removes the temp
// file.
func (t Tree) Stage(p string, perm os.FileMode, fill func(io.Writer) error) (*Staged, error) {
	target, err := t.Resolve(p)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(target); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory", p)
	}
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	tmpDir := dir
	if t.Tmp != "" {
		if td, err := t.Resolve(t.Tmp); err == nil && os.MkdirAll(td, 0o755) == nil && sameDevice(td, dir) {
			tmpDir = td
		}
	}
	tmp, err := writeTemp(tmpDir, filepath.Base(target), perm, fill)
	if err != nil {
		return nil, err
	}
	return &Staged{tree: t, path: p, target: target, tmp: tmp, perm: perm}, nil
}

// writeTemp creates, fills, chmods, syncs and closes a temp file in dir.
func writeTemp(dir, base string, perm os.FileMode, fill func(io.Writer) error) (name string, err error) {
	f, err := os.CreateTemp(dir, TempPrefix+base+"-*")
	if err != nil {
		return "", err
	}
	name = f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(name)
		}
	}()
	if err = fill(f); err != nil {
		return "", err
	}
	if err = f.Chmod(perm); err != nil {
		return "", err
	}
	if err = f.Sync(); err != nil {
		return "", err
	}
	return name, f.Close()
}

// Abort drops the staged content.
func (s *Staged) Abort() {
	if !s.done {
		s.done = true
		os.Remove(s.tmp)
	}
}

// Commit renames the staged content into place. With check, the target is
// read again right before the rename and check decides: a refusal drops
// the staged content and returns a *ChangedError (or check's own error),
// so that an edit a person made after kb read the file is never
// overwritten. (The window left is between this read and the rename, a
// few microseconds, instead of the whole write and fsync.)
func (s *Staged) Commit(check Check) (err error) {
	if s.done {
		return errors.New("fsx: staged content already committed or aborted")
	}
	defer func() {
		if err != nil {
			s.Abort()
		}
	}()
	if check != nil {
		failpoint.HitNote("fsx.replace", s.target)
		cur, rerr := s.tree.ReadFile(s.target)
		exists := rerr == nil
		if rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			return rerr
		}
		if cerr := check(cur, exists); cerr != nil {
			if errors.Is(cerr, ErrChanged) {
				return &ChangedError{Path: s.path}
			}
			return cerr
		}
	}
	dir := filepath.Dir(s.target)
	err = os.Rename(s.tmp, s.target)
	if err != nil && filepath.Dir(s.tmp) != dir {
		// The temp area is on another mount after all (a bind mount
		// has the same device number): copy beside the target.
		var tmp2 string
		tmp2, err = copyTemp(s.tmp, dir, filepath.Base(s.target), s.perm)
		if err == nil {
			os.Remove(s.tmp)
			s.tmp = tmp2
			err = os.Rename(s.tmp, s.target)
		}
	}
	if err != nil {
		return err
	}
	s.done = true
	return SyncDir(dir)
}

func copyTemp(src, dir, base string, perm os.FileMode) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	return writeTemp(dir, base, perm, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}

// relabel puts the caller's path into a PathError from an operation on the
// resolved path, so that messages name the file as the caller knows it.
func relabel(err error, p string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: p, Err: pe.Err}
	}
	return err
}

// ReadFileNoFollow reads a file found by a walk that never descends into
// symlinks (filepath.WalkDir): only the last component needs guarding, and
// O_NOFOLLOW does that (a regular file swapped for a link after the walk is
// not followed).
func ReadFileNoFollow(p string) ([]byte, error) {
	f, err := OpenNoFollow(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// OpenNoFollow opens p for reading, refusing a symlink as its last
// component where the platform can (elsewhere it checks with Lstat first).
func OpenNoFollow(p string) (*os.File, error) {
	if err := refuseLink(p); err != nil {
		return nil, err
	}
	return os.OpenFile(p, os.O_RDONLY|oNoFollow, 0)
}

// WriteNoFollow overwrites p in place (not atomically: for advisory notes
// such as the lock's holder), refusing a symlink as its last component.
func WriteNoFollow(p string, data []byte, perm os.FileMode) error {
	if err := refuseLink(p); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|oNoFollow, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// OpenLog opens p (inside the tree) for appending, creating it, for a log
// handed to a child process as its output; with truncate the file is
// emptied first. A symlink as its last component is refused (O_NOFOLLOW)
// and a directory on the way that leads out of the tree is refused by name.
func (t Tree) OpenLog(p string, truncate bool) (*os.File, error) {
	dir, base, err := t.resolveParent(p)
	if err != nil {
		return nil, err
	}
	full := filepath.Join(dir, base)
	if err := refuseLink(full); err != nil {
		return nil, err
	}
	flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND | oNoFollow
	if truncate {
		flags |= os.O_TRUNC
	}
	f, err := os.OpenFile(full, flags, 0o644)
	if err != nil {
		return nil, relabel(err, p)
	}
	return f, nil
}

// refuseLink is O_NOFOLLOW where the platform has no such flag: an Lstat
// before the open (racy, but the open itself cannot do better there).
func refuseLink(p string) error {
	if oNoFollow != 0 {
		return nil
	}
	if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return &fs.PathError{Op: "open", Path: p, Err: ErrSymlink}
	}
	return nil
}
