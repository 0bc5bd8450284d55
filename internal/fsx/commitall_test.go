package fsx

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeT(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readT(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The files are replaced together or not at all: when the second rename
// fails the first is restored, and no temp file is left.
func TestCommitAllRestores(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "AGENTS.md")
	writeT(t, a, "old")
	blocker := filepath.Join(dir, "index.json")
	writeT(t, filepath.Join(blocker, "child"), "x") // a non-empty directory cannot be replaced by a file
	err := Tree{Root: dir}.CommitAll([]Write{
		{Path: a, Data: []byte("new"), Perm: 0o644, Old: []byte("old"), Existed: true},
		{Path: blocker, Data: []byte("{}"), Perm: 0o644},
	})
	if err == nil {
		t.Fatal("no error")
	}
	var half *HalfWrittenError
	if errors.As(err, &half) {
		t.Errorf("restored, yet a half-written error: %v", err)
	}
	if got := readT(t, a); got != "old" {
		t.Errorf("AGENTS.md = %q after a failed update", got)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), TempPrefix) {
			t.Errorf("temp file left: %s", e.Name())
		}
	}
}

// A file a person edited after it was read is left as it is, and the
// files committed before it are restored: nothing changed.
func TestCommitAllKeepsAnEdit(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	writeT(t, a, "a-old")
	writeT(t, b, "b-edited")
	err := Tree{Root: dir}.CommitAll([]Write{
		{Path: a, Data: []byte("a-new"), Perm: 0o644, Old: []byte("a-old"), Existed: true},
		{Path: c, Data: []byte("c-new"), Perm: 0o644},
		{Path: b, Data: []byte("b-new"), Perm: 0o644, Old: []byte("b-old"), Existed: true},
	})
	var ce *ChangedError
	if !errors.As(err, &ce) || ce.Path != b {
		t.Fatalf("err = %v, want a *ChangedError for %s", err, b)
	}
	if got := readT(t, a); got != "a-old" {
		t.Errorf("a = %q, not restored", got)
	}
	if got := readT(t, b); got != "b-edited" {
		t.Errorf("b = %q: the edit was overwritten", got)
	}
	if _, err := os.Stat(c); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("c was created and not removed again: %v", err)
	}
}

// Remove takes a file away only if it still holds what was read; a
// successful update leaves every file as asked.
func TestCommitAllRemove(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "sub", "b")
	writeT(t, a, "a-old")
	writeT(t, b, "b-old")
	tr := Tree{Root: dir}
	if err := tr.CommitAll([]Write{
		{Path: a, Data: []byte("a-new"), Perm: 0o600, Old: []byte("a-old"), Existed: true},
		{Path: b, Remove: true, Old: []byte("b-old"), Existed: true},
	}); err != nil {
		t.Fatal(err)
	}
	if got := readT(t, a); got != "a-new" {
		t.Errorf("a = %q", got)
	}
	if fi, err := os.Stat(a); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("a: %v %v", fi, err)
	}
	if _, err := os.Stat(b); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("b not removed: %v", err)
	}
	// A removal of a file that changed meanwhile is refused and undoes
	// the writes before it.
	writeT(t, b, "b-edited")
	err := tr.CommitAll([]Write{
		{Path: a, Data: []byte("a-newer"), Perm: 0o644, Old: []byte("a-new"), Existed: true},
		{Path: b, Remove: true, Old: []byte("b-old"), Existed: true},
	})
	if !errors.Is(err, ErrChanged) {
		t.Fatalf("err = %v, want ErrChanged", err)
	}
	if got := readT(t, a); got != "a-new" {
		t.Errorf("a = %q, not restored", got)
	}
	if got := readT(t, b); got != "b-edited" {
		t.Errorf("b = %q", got)
	}
}
