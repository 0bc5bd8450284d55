package gitx

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// FileChange is one file to write or delete in CommitToBranch.
type FileChange struct {
	// Path is slash-separated and relative to the work tree top.
	Path string
	// Content is the new file content (ignored when Delete is set).
	Content []byte
	// Delete removes the file, or the whole directory at Path. Deleting a
	// path that does not exist is a no-op.
	Delete bool
	// Mode selects the git file mode: os.ModeSymlink for a symlink (Content
	// is the link target), any execute bit for an executable, else a
	// regular file. Zero keeps the mode of an existing file and makes new
	// files regular.
	Mode os.FileMode
}

// CommitToBranch creates branch name holding one commit that applies
// changes, in order, on top of HEAD's tree (or on an empty tree when HEAD
// is unborn); the commit's parent is HEAD's commit, if any. It writes only
// objects and the new ref: the work tree, the index and HEAD stay exactly
// as they were. Directories left empty by deletes disappear. It fails with
// ErrBranchExists if the branch exists and returns the new commit's hash.
func (r *Repo) CommitToBranch(name, message string, author Signature, changes []FileChange) (string, error) {
	refName := plumbing.NewBranchReferenceName(name)
	if name == "" || name == "HEAD" || refName.Validate() != nil {
		return "", fmt.Errorf("commit to branch %q: %w", name, ErrInvalidBranch)
	}
	if strings.TrimSpace(message) == "" {
		return "", fmt.Errorf("commit to branch %q: empty commit message", name)
	}
	if !strings.HasSuffix(message, "\n") {
		message += "\n"
	}

	r.mu.Lock()
	defer r.mu.Unlock()

	if _, err := r.repo.Storer.Reference(refName); err == nil {
		return "", fmt.Errorf("commit to branch %q: %w", name, ErrBranchExists)
	} else if !errors.Is(err, plumbing.ErrReferenceNotFound) {
		return "", fmt.Errorf("commit to branch %q: %w", name, err)
	}

	_, headHash, err := r.head()
	if err != nil {
		return "", fmt.Errorf("commit to branch %q: %w", name, err)
	}
	var parents []plumbing.Hash
	var baseTree plumbing.Hash
	if !headHash.IsZero() {
		c, err := object.GetCommit(r.repo.Storer, headHash)
		if err != nil {
			return "", fmt.Errorf("commit to branch %q: HEAD commit %s: %w", name, headHash, err)
		}
		parents = []plumbing.Hash{headHash}
		baseTree = c.TreeHash
	}

	treeHash, err := buildTree(r.repo.Storer, baseTree, changes)
	if err != nil {
		return "", fmt.Errorf("commit to branch %q: %w", name, err)
	}
	sig := author.object()
	commit := &object.Commit{
		Author:       sig,
		Committer:    sig,
		Message:      message,
		TreeHash:     treeHash,
		ParentHashes: parents,
	}
	obj := r.repo.Storer.NewEncodedObject()
	if err := commit.Encode(obj); err != nil {
		return "", fmt.Errorf("commit to branch %q: encode commit: %w", name, err)
	}
	commitHash, err := r.repo.Storer.SetEncodedObject(obj)
	if err != nil {
		return "", fmt.Errorf("commit to branch %q: store commit: %w", name, err)
	}
	if err := r.repo.Storer.SetReference(plumbing.NewHashReference(refName, commitHash)); err != nil {
		return "", fmt.Errorf("commit to branch %q: set ref: %w", name, err)
	}
	return commitHash.String(), nil
}

// treeNode is a directory being edited. Entries whose sub is nil are
// untouched and keep their hash.
type treeNode struct {
	entries map[string]*treeEntry
}

type treeEntry struct {
	mode filemode.FileMode
	hash plumbing.Hash
	sub  *treeNode // loaded (and possibly edited) subtree of a directory
}

type treeBuilder struct {
	s storer.EncodedObjectStorer
}

// buildTree applies changes to the tree base (zero hash: empty tree),
// stores every new blob and tree in s and returns the new root tree hash.
func buildTree(s storer.EncodedObjectStorer, base plumbing.Hash, changes []FileChange) (plumbing.Hash, error) {
	b := treeBuilder{s: s}
	root, err := b.load(base)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	for _, c := range changes {
		if err := b.apply(root, c); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	h, _, err := b.write(root, true)
	return h, err
}

func (b *treeBuilder) load(h plumbing.Hash) (*treeNode, error) {
	n := &treeNode{entries: map[string]*treeEntry{}}
	if h.IsZero() {
		return n, nil
	}
	t, err := object.GetTree(b.s, h)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	for _, e := range t.Entries {
		n.entries[e.Name] = &treeEntry{mode: e.Mode, hash: e.Hash}
	}
	return n, nil
}

// splitPath validates a FileChange path and returns its components. It
// follows git's verify_path: no control characters or backslashes, no
// empty, "." or ".." components, and nothing that a case-insensitive,
// HFS+ or NTFS file system would read as ".git".
func splitPath(p string) ([]string, error) {
	if p == "" || strings.HasPrefix(p, "/") || strings.ContainsRune(p, '\\') {
		return nil, fmt.Errorf("%w: %q", ErrInvalidPath, p)
	}
	for i := 0; i < len(p); i++ {
		if p[i] < 0x20 || p[i] == 0x7f {
			return nil, fmt.Errorf("%w: %q has a control character", ErrInvalidPath, p)
		}
	}
	parts := strings.Split(p, "/")
	for _, part := range parts {
		if part == "" || part == "." || part == ".." || isDotGitLike(part) {
			return nil, fmt.Errorf("%w: %q", ErrInvalidPath, p)
		}
	}
	return parts, nil
}

// isDotGitLike reports whether a path component names the git directory
// on some file system: ".git" in any case, with HFS+-ignored code points,
// with NTFS-trimmed trailing dots or spaces, or as the 8.3 name "git~1".
func isDotGitLike(part string) bool {
	stripped := strings.Map(func(r rune) rune {
		switch {
		case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e,
			r >= 0x206a && r <= 0x206f, r == 0xfeff:
			return -1
		}
		return r
	}, part)
	stripped = strings.ToLower(strings.TrimRight(stripped, ". "))
	return stripped == ".git" || stripped == "git~1"
}

func (b *treeBuilder) apply(root *treeNode, c FileChange) error {
	parts, err := splitPath(c.Path)
	if err != nil {
		return err
	}
	n := root
	for i, part := range parts[:len(parts)-1] {
		e := n.entries[part]
		switch {
		case e == nil:
			if c.Delete {
				return nil
			}
			e = &treeEntry{mode: filemode.Dir, sub: &treeNode{entries: map[string]*treeEntry{}}}
			n.entries[part] = e
		case e.mode != filemode.Dir:
			if c.Delete {
				return nil
			}
			return fmt.Errorf("%w: %s: %s is a file", ErrPathConflict, c.Path, strings.Join(parts[:i+1], "/"))
		case e.sub == nil:
			sub, err := b.load(e.hash)
			if err != nil {
				return err
			}
			e.sub = sub
		}
		n = e.sub
	}
	name := parts[len(parts)-1]
	old := n.entries[name]
	if c.Delete {
		delete(n.entries, name)
		return nil
	}
	if old != nil && old.mode == filemode.Dir {
		return fmt.Errorf("%w: %s is a directory", ErrPathConflict, c.Path)
	}
	mode, err := gitMode(c.Mode, old)
	if err != nil {
		return fmt.Errorf("%s: %w", c.Path, err)
	}
	obj := b.s.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	obj.SetSize(int64(len(c.Content)))
	w, err := obj.Writer()
	if err != nil {
		return fmt.Errorf("blob for %s: %w", c.Path, err)
	}
	if _, err := w.Write(c.Content); err != nil {
		w.Close()
		return fmt.Errorf("blob for %s: %w", c.Path, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("blob for %s: %w", c.Path, err)
	}
	h, err := b.s.SetEncodedObject(obj)
	if err != nil {
		return fmt.Errorf("store blob for %s: %w", c.Path, err)
	}
	n.entries[name] = &treeEntry{mode: mode, hash: h}
	return nil
}

func gitMode(m os.FileMode, old *treeEntry) (filemode.FileMode, error) {
	switch {
	case m == 0 && old != nil && old.mode != filemode.Submodule:
		return old.mode, nil
	case m == 0:
		return filemode.Regular, nil
	case m&os.ModeSymlink != 0:
		return filemode.Symlink, nil
	case m&os.ModeType != 0:
		return filemode.Empty, fmt.Errorf("unsupported file mode %v", m)
	case m&0o111 != 0:
		return filemode.Executable, nil
	default:
		return filemode.Regular, nil
	}
}

// write stores n (and its edited subtrees) and returns its hash; empty
// reports an empty directory, which the parent drops. The root is written
// even when empty.
func (b *treeBuilder) write(n *treeNode, isRoot bool) (plumbing.Hash, bool, error) {
	type kv struct {
		key string // git's sort key: directories sort as "name/"
		e   object.TreeEntry
	}
	list := make([]kv, 0, len(n.entries))
	for name, e := range n.entries {
		h := e.hash
		if e.sub != nil {
			sh, empty, err := b.write(e.sub, false)
			if err != nil {
				return plumbing.ZeroHash, false, err
			}
			if empty {
				continue
			}
			h = sh
		}
		key := name
		if e.mode == filemode.Dir {
			key += "/"
		}
		list = append(list, kv{key, object.TreeEntry{Name: name, Mode: e.mode, Hash: h}})
	}
	if len(list) == 0 && !isRoot {
		return plumbing.ZeroHash, true, nil
	}
	sort.Slice(list, func(i, j int) bool { return list[i].key < list[j].key })
	t := &object.Tree{Entries: make([]object.TreeEntry, len(list))}
	for i := range list {
		t.Entries[i] = list[i].e
	}
	obj := b.s.NewEncodedObject()
	if err := t.Encode(obj); err != nil {
		return plumbing.ZeroHash, false, fmt.Errorf("encode tree: %w", err)
	}
	h, err := b.s.SetEncodedObject(obj)
	if err != nil {
		return plumbing.ZeroHash, false, fmt.Errorf("store tree: %w", err)
	}
	return h, len(list) == 0, nil
}
