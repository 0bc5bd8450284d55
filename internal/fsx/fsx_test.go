package fsx

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFileReplacesAtomically(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "a.md")
	if err := WriteFile(p, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if string(b) != "two" {
		t.Fatalf("content %q", b)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode())
	}
	if ents, _ := os.ReadDir(filepath.Dir(p)); len(ents) != 1 {
		t.Fatalf("temp files left: %v", ents)
	}
}

func TestWriteWithFailureKeepsOldContent(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a")
	if err := WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteWith(p, 0o644, func(w io.Writer) error {
		w.Write([]byte("half of the new"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Fatalf("content %q after a failed write", b)
	}
	if ents, _ := os.ReadDir(filepath.Dir(p)); len(ents) != 1 {
		t.Fatalf("temp file left: %v", ents)
	}
}

func TestAppendAfterTornLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := Append(p, []byte("{\"a\":1}\n")); err != nil {
		t.Fatal(err)
	}
	// A crash cut the next append short.
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.Write([]byte(`{"b":`))
	f.Close()
	if err := Append(p, []byte("{\"c\":3}\n")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	want := "{\"a\":1}\n{\"b\":\n{\"c\":3}\n"
	if string(b) != want {
		t.Fatalf("got %q, want %q", b, want)
	}
}

func TestWithin(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(root, "library"), 0o755)
	if err := os.Symlink(outside, filepath.Join(root, "library", "escape")); err != nil {
		t.Skip("symlinks unsupported:", err)
	}
	for _, rel := range []string{"library/a.md", "library/new/dir/b.md", "."} {
		if _, err := Within(root, rel); err != nil {
			t.Errorf("Within(%q) = %v", rel, err)
		}
	}
	for _, rel := range []string{"../x", "library/../../x", "/etc/passwd", "library/escape/secret.md", "library/escape"} {
		if p, err := Within(root, rel); !errors.Is(err, ErrOutsideRoot) {
			t.Errorf("Within(%q) = %q, %v; want ErrOutsideRoot", rel, p, err)
		}
	}
	if p, err := Within(root, filepath.Join(root, "library", "a.md")); err != nil || !strings.HasPrefix(p, root) {
		t.Errorf("absolute inside: %q %v", p, err)
	}
}
