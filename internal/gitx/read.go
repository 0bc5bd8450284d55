package gitx

import (
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Tree is the files of one commit, read from the object store (the work
// tree plays no part). Its methods are safe for concurrent use.
type Tree struct {
	r   *Repo
	t   *object.Tree
	rev string // as named in errors
}

// HeadTree returns the tree of HEAD's commit, or nil and no error when
// HEAD is unborn (a repository without commits).
func (r *Repo) HeadTree() (*Tree, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, h, err := r.head()
	if err != nil {
		return nil, err
	}
	if h.IsZero() {
		return nil, nil
	}
	c, err := object.GetCommit(r.repo.Storer, h)
	if err != nil {
		return nil, fmt.Errorf("HEAD: commit %s: %w", h, err)
	}
	t, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("HEAD: tree: %w", err)
	}
	return &Tree{r: r, t: t, rev: "HEAD"}, nil
}

// ReadFile returns the content of path (slash-separated, relative to the
// work tree top); for a symlink, the link's target text. A path that is
// not a file of the tree gives ErrNotFound.
func (t *Tree) ReadFile(path string) ([]byte, error) {
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	return t.r.fileIn(t.t, path, path+" at "+t.rev)
}

// IsSymlink reports whether path is a symlink in the tree.
func (t *Tree) IsSymlink(path string) bool {
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	e, err := t.t.FindEntry(strings.Trim(path, "/"))
	return err == nil && e.Mode == filemode.Symlink
}

// BranchTip is a local branch and the commit it points at.
type BranchTip struct {
	Name    string // short name
	Hash    string // the tip commit
	Message string // its message
}

// BranchTips returns the local branches starting with prefix ("" for all),
// sorted by name, with their tip commits. A branch whose ref or commit
// cannot be read is left out.
func (r *Repo) BranchTips(prefix string) ([]BranchTip, error) {
	names, err := r.Branches(prefix)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []BranchTip
	for _, n := range names {
		ref, err := r.repo.Reference(plumbing.NewBranchReferenceName(n), true)
		if err != nil {
			continue
		}
		c, err := object.GetCommit(r.repo.Storer, ref.Hash())
		if err != nil {
			continue
		}
		out = append(out, BranchTip{Name: n, Hash: c.Hash.String(), Message: c.Message})
	}
	return out, nil
}

// IsAncestor reports whether the commit ancestor is reachable from rev
// (rev itself included): a branch whose tip is an ancestor of HEAD is
// merged. A revision that does not resolve gives ErrNotFound.
func (r *Repo) IsAncestor(ancestor, rev string) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, err := r.commitAt(ancestor)
	if err != nil {
		return false, err
	}
	b, err := r.commitAt(rev)
	if err != nil {
		return false, err
	}
	return a.IsAncestor(b)
}

// commitAt resolves rev to its commit. Caller holds r.mu.
func (r *Repo) commitAt(rev string) (*object.Commit, error) {
	h, err := r.repo.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return nil, fmt.Errorf("revision %q: %w (%v)", rev, ErrNotFound, err)
	}
	c, err := object.GetCommit(r.repo.Storer, *h)
	if err != nil {
		return nil, fmt.Errorf("revision %q: commit %s: %w", rev, h, err)
	}
	return c, nil
}
