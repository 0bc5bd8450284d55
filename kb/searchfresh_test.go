package kb

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbmem/kb/internal/index"
)

// searchToRead opens the index as `kb search` does and runs one query of
// the notes: whether it opened read-only, and the paths found.
func searchToRead(t *testing.T, k *KB, q string) (readOnly bool, paths []string) {
	t.Helper()
	o := SearchOptions{Query: q, Limit: 10}
	x, _, err := k.OpenIndexToRead(context.Background(), o.ReadLayers(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	res, err := x.Search(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		paths = append(paths, h.Path)
	}
	return x.ix.ReadOnly(), paths
}

// A read-only command opens the index read-only only when no file of the
// layers it reads changed since the last sync; an edit in place that keeps
// the file's size, with an mtime in the same second, is still seen by the
// next search (the stamps record nanoseconds), and a trace appended to
// meanwhile does not make a notes search write.
func TestSearchOpensReadOnlyOnlyWhenFresh(t *testing.T) {
	k := trNewKB(t)
	p := filepath.Join(k.Root, LayerLibrary, "notes", "a.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	const before = "---\ntitle: A note\ntype: note\n---\nThe zeppelin landed.\n"
	if err := os.WriteFile(p, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	mt := time.Date(2026, 1, 2, 3, 4, 5, 100, time.UTC)
	if err := os.Chtimes(p, mt, mt); err != nil {
		t.Fatal(err)
	}
	if ro, got := searchToRead(t, k, "zeppelin"); ro || len(got) != 1 {
		t.Fatalf("first search (new file): read-only %v, hits %v; want a writable open that indexes it", ro, got)
	}
	if ro, got := searchToRead(t, k, "zeppelin"); !ro || len(got) != 1 {
		t.Fatalf("search of an unchanged KB: read-only %v, hits %v; want read-only, 1 hit", ro, got)
	}

	// Same size, same second: only the nanoseconds differ.
	after := strings.Replace(before, "zeppelin", "dirigibl", 1)
	if len(after) != len(before) {
		t.Fatal("test edit changes the size")
	}
	if err := os.WriteFile(p, []byte(after), 0o644); err != nil {
		t.Fatal(err)
	}
	mt2 := mt.Add(time.Microsecond)
	if err := os.Chtimes(p, mt2, mt2); err != nil {
		t.Fatal(err)
	}
	if ro, got := searchToRead(t, k, "dirigibl"); ro || len(got) != 1 {
		t.Fatalf("search after an in-place edit: read-only %v, hits %v; want the edit indexed", ro, got)
	}
	if _, got := searchToRead(t, k, "zeppelin"); len(got) != 0 {
		t.Fatalf("old text still found after the edit: %v", got)
	}

	// A layer the search does not read changed: still read-only, and the
	// trace is left for a command that reads traces.
	writeSession(t, k, "s1", 0, 3, "hovercraft")
	if ro, _ := searchToRead(t, k, "dirigibl"); !ro {
		t.Fatal("a trace appended made a notes search open the index to write")
	}
	x, _, err := k.OpenIndexToRead(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if x.ix.ReadOnly() {
		t.Error("a search of every layer opened read-only with a trace not indexed")
	}
	x.Close()

	// A read-only Searcher cannot write.
	x, _, err = k.OpenIndexToRead(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if !x.ix.ReadOnly() {
		t.Fatal("not read-only after a full sync")
	}
	if _, err := x.Rebuild(context.Background(), nil); !errors.Is(err, index.ErrReadOnly) {
		t.Errorf("Rebuild of a read-only Searcher: %v, want ErrReadOnly", err)
	}
}
