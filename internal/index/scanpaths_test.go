package index

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// ScanPaths reads only the paths it is given: a file is stat'ed, a
// directory scanned whole, a path gone is covered (its indexed files are
// removed by SyncPaths); hidden paths and paths outside the layers are
// left out, as Scan leaves them out.
func TestScanPaths(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"library/a.md", "library/d/b.md", "library/d/e/c.md", "library/.hidden/x.md", "traces/t.jsonl", "other/o.md", "library/notes.txt"} {
		abs := filepath.Join(root, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(abs), 0o755)
		if err := os.WriteFile(abs, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	o := ScanOptions{Root: root, Layers: []string{"library", "traces"}, StreamLayer: "traces", SymlinkMsg: func(string) string { return "link" }}
	abs := func(p string) string { return filepath.Join(root, filepath.FromSlash(p)) }
	files, covered := ScanPaths(o, []string{abs("library/a.md"), abs("library/d"), abs("library/gone.md"), abs("library/.hidden/x.md"),
		abs("other/o.md"), abs("traces/t.jsonl"), abs("library/notes.txt"), abs("library/a.md"), filepath.Dir(root)})
	var rels []string
	for _, f := range files {
		rels = append(rels, f.Rel)
		if f.Stamp.Size != 1 || f.Abs != abs(f.Rel) {
			t.Errorf("%s: %+v", f.Rel, f)
		}
	}
	if want := []string{"library/a.md", "library/d/b.md", "library/d/e/c.md", "traces/t.jsonl"}; !reflect.DeepEqual(rels, want) {
		t.Errorf("files = %v, want %v", rels, want)
	}
	if want := []string{"library/a.md", "library/d", "library/gone.md", "traces/t.jsonl", "library/notes.txt", "library/a.md"}; !reflect.DeepEqual(covered, want) {
		t.Errorf("covered = %v, want %v", covered, want)
	}
}
