package gitx

import (
	"path/filepath"

	"github.com/kbmem/kb/internal/fsx"
)

// Reached reports whether the commit tip landed in HEAD: HEAD descends
// from it (a merge), or one of paths (files the commit added) is at HEAD
// (a squash merge). False for an unborn HEAD.
func (r *Repo) Reached(tip string, paths []string) bool {
	_, head, _ := r.Head()
	if head == "" {
		return false
	}
	if ok, err := r.IsAncestor(tip, head); err == nil && ok {
		return true
	}
	for _, p := range paths {
		if _, err := r.FileAt("HEAD", p); err == nil {
			return true
		}
	}
	return false
}

// Base is what a change of the project's files is computed against: the
// work tree (read through Work, rooted at the project root Root), or
// HEAD's commit (Head; nil for an unborn HEAD, where every file is new).
type Base struct {
	WorkTree bool
	Work     fsx.Tree
	Root     string
	Head     *Tree
}

// Read returns the content of the project file p (slash path relative to
// Root), nil when there is none.
func (b Base) Read(p string) []byte {
	var data []byte
	var err error
	switch {
	case b.WorkTree:
		data, err = b.Work.ReadFile(filepath.Join(b.Root, filepath.FromSlash(p)))
	case b.Head == nil:
		return nil
	default:
		data, err = b.Head.ReadFile(p)
	}
	if err != nil {
		return nil
	}
	return data
}

// IsLinkTo reports whether the project file name is a symlink to the same
// file as other in the work tree (resolved inside the project), or any
// symlink at HEAD (whose blob is the link's text, not a file to edit).
func (b Base) IsLinkTo(name, other string) bool {
	if !b.WorkTree {
		return b.Head != nil && b.Head.IsSymlink(name)
	}
	x, err1 := b.Work.Resolve(name)
	y, err2 := b.Work.Resolve(other)
	return err1 == nil && err2 == nil && x == y
}
