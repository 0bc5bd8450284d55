package gitx

import (
	"bytes"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"
)

// FuzzBuildTree feeds arbitrary paths to the tree builder: it must never
// panic, and a path it accepts must read back with its content.
func FuzzBuildTree(f *testing.F) {
	for _, s := range []string{"a.md", "a/b/c.md", "/abs", "a/../b", "a//b", ".git/x", "a/.GIT", "", "ü/ñ.md", "a\x00b", "a\\b", "x/", "."} {
		f.Add(s, "x/y.md", []byte("content"))
	}
	f.Fuzz(func(t *testing.T, p1, p2 string, content []byte) {
		s := memory.NewStorage()
		h, err := buildTree(s, plumbing.ZeroHash, []FileChange{
			{Path: p2, Content: []byte("other")},
			{Path: p1, Content: content},
		})
		if err != nil {
			return
		}
		tree, err := object.GetTree(s, h)
		if err != nil {
			t.Fatal(err)
		}
		file, err := tree.File(p1)
		if err != nil {
			t.Fatalf("accepted path %q not found: %v", p1, err)
		}
		got, err := file.Contents()
		if err != nil || !bytes.Equal([]byte(got), content) {
			t.Fatalf("content of %q = %q, want %q", p1, got, content)
		}
		// Deleting it again leaves the other file alone.
		h2, err := buildTree(s, h, []FileChange{{Path: p1, Delete: true}})
		if err != nil {
			t.Fatal(err)
		}
		tree2, _ := object.GetTree(s, h2)
		if _, err := tree2.File(p1); err == nil {
			t.Fatalf("%q still present after delete", p1)
		}
		if p1 != p2 && !strings.HasPrefix(p2, p1+"/") {
			if _, err := tree2.File(p2); err != nil {
				t.Fatalf("%q lost after deleting %q", p2, p1)
			}
		}
	})
}

// FuzzUnifiedDiff: never panics; different contents give a diff.
func FuzzUnifiedDiff(f *testing.F) {
	f.Add("a.md", []byte("a\nb\n"), []byte("a\nc\n"))
	f.Add("bin", []byte{0, 1, 2}, []byte{0, 1, 3})
	f.Add("", []byte(""), []byte("x"))
	f.Add("p", []byte("no newline"), []byte("no newline\n"))
	f.Fuzz(func(t *testing.T, path string, old, new []byte) {
		d := UnifiedDiff(path, old, new)
		if !bytes.Equal(old, new) && d == "" {
			t.Fatalf("no diff for %q -> %q", old, new)
		}
	})
}
