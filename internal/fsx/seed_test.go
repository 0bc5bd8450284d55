package fsx

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSeedKeepsWhatExists: Seed creates the missing files and directories
// (with .gitkeep), leaves an existing file's bytes alone, and a second run
// creates nothing.
func TestSeedKeepsWhatExists(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "b.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := Tree{Root: root}
	files := []SeedFile{{Name: "a.txt", Content: "A"}, {Name: "b.txt", Content: "B"}}
	got, err := tr.Seed(files, []string{"d1", "d2"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.txt", "d1/", "d2/"}; !slices.Equal(got, want) {
		t.Fatalf("created %v, want %v", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "b.txt")); string(b) != "mine" {
		t.Fatalf("b.txt = %q, want it kept", b)
	}
	if _, err := os.Stat(filepath.Join(root, "d2", ".gitkeep")); err != nil {
		t.Fatal(err)
	}
	if again, err := tr.Seed(files, []string{"d1", "d2"}); err != nil || again != nil {
		t.Fatalf("second Seed: %v, %v; want nothing created", again, err)
	}
}
