package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/markdown"
)

func readTree(t *testing.T, root string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// The same n and seed give byte-identical files, whatever the parallelism.
func TestDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	if _, err := generate(300, 7, a); err != nil {
		t.Fatal(err)
	}
	old := runtime.GOMAXPROCS(1)
	_, err := generate(300, 7, b)
	runtime.GOMAXPROCS(old)
	if err != nil {
		t.Fatal(err)
	}
	fa, fb := readTree(t, a), readTree(t, b)
	if len(fa) != 301 { // 300 notes + kb.yaml
		t.Fatalf("got %d files, want 301", len(fa))
	}
	for p, x := range fa {
		if !bytes.Equal(x, fb[p]) {
			t.Fatalf("%s differs between runs", p)
		}
	}
	c := t.TempDir()
	if _, err := generate(300, 8, c); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(fa[RelPath(0)], readTree(t, c)[RelPath(0)]) {
		t.Fatal("another seed gave the same note")
	}
}

// Every note parses as a kb document with the promised shape, and every
// wikilink points at a note of the corpus.
func TestNotesAreValid(t *testing.T) {
	dir := t.TempDir()
	const n = 2500
	m, err := generate(n, 1, dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Notes != n || len(m.MidWords) == 0 || len(m.QueryWords) == 0 {
		t.Fatalf("meta: %+v", m)
	}
	for _, w := range m.MidWords {
		if f := float64(m.DocFreq[w]) / n; f < 0.005 || f > 0.02 {
			t.Errorf("mid word %s in %.3f of notes", w, f)
		}
	}
	perDir := map[string]int{}
	for i := 0; i < n; i++ {
		rel := RelPath(i)
		perDir[filepath.Dir(rel)]++
		b, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		d, err := markdown.Parse(rel, b)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		if d.ID != noteID(i) || d.Title == "" || d.Description == "" || len(d.Tags) == 0 || d.Lifecycle == "" {
			t.Fatalf("%s: incomplete frontmatter: %+v", rel, d)
		}
		if _, err := d.CreatedTime(); err != nil {
			t.Fatalf("%s: created: %v", rel, err)
		}
		if nt := len(strings.Fields(d.Title)); nt < 3 || nt > 7 {
			t.Fatalf("%s: title of %d words", rel, nt)
		}
		words := 0
		for _, f := range strings.Fields(d.Body) {
			if !strings.HasPrefix(f, "#") && !strings.HasPrefix(f, "(see") && !strings.HasPrefix(f, "[[") {
				words++
			}
		}
		// Body words (150-600) plus the title repeated as the H1 and the
		// section headings.
		if words < 150 || words > 700 {
			t.Fatalf("%s: %d body words", rel, words)
		}
		wiki := 0
		for _, l := range d.Links {
			if l.Kind != doc.KindWiki {
				continue
			}
			wiki++
			var j int
			if !strings.HasPrefix(l.Target, "note-") || len(l.Target) != 11 || l.Target == noteID(i) {
				t.Fatalf("%s: bad link target %q", rel, l.Target)
			}
			for _, c := range l.Target[5:] {
				j = j*10 + int(c-'0')
			}
			if j >= n {
				t.Fatalf("%s: link to missing note %q", rel, l.Target)
			}
		}
		if wiki > 5 {
			t.Fatalf("%s: %d wikilinks", rel, wiki)
		}
	}
	for d, c := range perDir {
		if c > 1000 {
			t.Fatalf("%s holds %d files", d, c)
		}
	}
}
