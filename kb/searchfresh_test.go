package kb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kbmem/kb/internal/config"
	"github.com/kbmem/kb/internal/index"
	"github.com/kbmem/kb/internal/watch"
)

// searchToRead opens the index as `kb search` does and runs one query of
// the notes: whether it opened read-only, what its sync did, and the paths
// found.
func searchToRead(t *testing.T, k *KB, q string) (readOnly bool, paths []string) {
	t.Helper()
	readOnly, _, paths = searchStats(t, k, q)
	return readOnly, paths
}

func searchStats(t *testing.T, k *KB, q string) (readOnly bool, st SyncStats, paths []string) {
	t.Helper()
	o := SearchOptions{Query: q, Limit: 10}
	x, st, err := k.OpenIndexToRead(context.Background(), o.ReadLayers(), nil)
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
	return x.ix.ReadOnly(), st, paths
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

// Under kb watch's freshness keeper a search stats no file when nothing
// changed, and only the changed ones after an edit; an edit in place that
// keeps the size and the second of the mtime is found by the next search,
// and so is a note added in a new directory or removed.
func TestSearchUnderKeeper(t *testing.T) {
	k := trNewKB(t)
	mt := time.Date(2026, 1, 2, 3, 4, 5, 100, time.UTC)
	note := func(rel, word string, mt time.Time) string {
		p := filepath.Join(k.Root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("---\ntitle: T\ntype: note\n---\nAbout "+word+".\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := note("library/notes/a.md", "zeppelin", mt)
	note("library/notes/b.md", "balloon", mt)
	note("library/notes/c.md", "glider", mt)
	syncIndex(t, k)
	ctx, cancel := context.WithCancel(context.Background())
	stop := k.keepFresh(ctx)
	defer func() { cancel(); stop() }()
	search := func(q string) (SyncStats, []string) {
		t.Helper()
		_, st, paths := searchStats(t, k, q)
		return st, paths
	}
	// The keeper may still be starting: until it answers, searches scan.
	var st SyncStats
	for i := 0; i < 100; i++ {
		if st, _ = search("zeppelin"); st.Scanned == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if st.Scanned != 0 {
		t.Fatalf("searches under the keeper still scan: %+v", st)
	}

	note("library/notes/a.md", "dirigibl", mt.Add(time.Microsecond)) // same size, same second
	st, got := search("dirigibl")
	if len(got) != 1 || got[0] != "library/notes/a.md" {
		t.Fatalf("edit in place not found by the next search: %v", got)
	}
	if st.Scanned != 1 || st.Updated != 1 {
		t.Errorf("sync after one edit: %+v, want the one file only", st)
	}
	if st, _ := search("dirigibl"); st.Scanned != 0 {
		t.Errorf("search after the synced edit: %+v, want no file stat'ed", st)
	}
	note("library/new/deep/d.md", "hovercraft", mt)
	if _, got := search("hovercraft"); len(got) != 1 {
		t.Fatalf("note in a new directory not found: %v", got)
	}
	os.Remove(a)
	if _, got := search("dirigibl"); len(got) != 0 {
		t.Fatalf("removed note still found: %v", got)
	}
	os.RemoveAll(filepath.Join(k.Root, "library", "new"))
	if _, got := search("hovercraft"); len(got) != 0 {
		t.Fatalf("note of a removed directory still found: %v", got)
	}

	// The index emptied behind the keeper's back (a rebuild killed after
	// its reset): no file changed, but the index is at another generation,
	// so the next search scans and finds the notes again.
	if st, _ := search("balloon"); st.Scanned != 0 {
		t.Fatalf("not clean before the reset: %+v", st)
	}
	x, _, err := k.OpenIndex(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.ix.Reset(); err != nil {
		t.Fatal(err)
	}
	x.Close()
	if st, got := search("balloon"); len(got) != 1 || st.Scanned != 2 {
		t.Fatalf("after a reset the keeper did not see: %+v %v, want a full scan finding b.md", st, got)
	}
	if st, _ := search("balloon"); st.Scanned != 0 {
		t.Errorf("after the scan that caught up: %+v, want clean again", st)
	}
}

// A search with an edit to apply while another process only reads the
// index (kb watch compiling the hooks' index holds it shared for seconds
// at 100,000 notes) answers at once from the index as it is, and says so,
// rather than waiting for the reader and failing as busy; once the reader
// is gone, the next search applies the edit.
func TestSearchAnswersAsIsWhileAReaderHoldsTheIndex(t *testing.T) {
	k := trNewKB(t)
	var logged []string
	k.Logf = func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }
	p := filepath.Join(k.Root, LayerLibrary, "notes", "a.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("---\ntitle: A note\ntype: note\n---\nThe zeppelin landed.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, got := searchToRead(t, k, "zeppelin"); len(got) != 1 {
		t.Fatalf("first search: %v", got)
	}
	if err := os.WriteFile(p, []byte("---\ntitle: A note\ntype: note\n---\nThe dirigible landed.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir, err := k.indexDir()
	if err != nil {
		t.Fatal(err)
	}
	reader, err := index.OpenReadOnly(dir) // another process reading
	if err != nil {
		t.Fatal(err)
	}
	old := index.BusyTimeout
	index.BusyTimeout = 50 * time.Millisecond
	defer func() { index.BusyTimeout = old }()
	if ro, got := searchToRead(t, k, "zeppelin"); !ro || len(got) != 1 {
		t.Fatalf("search while a reader holds the index: read-only %v, hits %v; want the index as it is", ro, got)
	}
	if !slices.ContainsFunc(logged, func(s string) bool { return strings.Contains(s, "answering from the index as it is") }) {
		t.Errorf("no notice that the answer is the index as it is: %q", logged)
	}
	reader.Close()
	if _, got := searchToRead(t, k, "dirigible"); len(got) != 1 {
		t.Fatalf("after the reader: hits %v, want the edit applied", got)
	}
}

// A read that stat'ed watch.keeper_files files or more with no keeper
// running starts one (StartKeeper, once per process, with
// watch.keeper_idle); with it running, the next reads stat only what
// changed and find an edit made in place; a KB under the threshold, or
// with it 0, starts none.
func TestReadStartsAKeeperAtScale(t *testing.T) {
	k := trNewKB(t)
	for i := range 4 {
		p := filepath.Join(k.Root, LayerLibrary, "notes", fmt.Sprintf("n%d.md", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("---\ntitle: Note %d\ntype: note\n---\nThe zeppelin number %d.\n", i, i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	searchToRead(t, k, "zeppelin") // indexed
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var idles []time.Duration
	k.StartKeeper = func(idle time.Duration) error {
		idles = append(idles, idle)
		go func() { done <- k.KeepFresh(ctx, idle) }()
		return nil
	}
	t.Cleanup(func() {
		cancel()
		if len(idles) > 0 {
			if err := <-done; err != nil {
				t.Error(err)
			}
		}
	})
	k.Config.Watch.KeeperFiles, k.Config.Watch.KeeperIdle = 5, config.Duration(time.Minute)
	searchToRead(t, k, "zeppelin")
	if len(idles) != 0 {
		t.Fatalf("4 files, keeper_files 5: started a keeper")
	}
	k.Config.Watch.KeeperFiles = 4
	searchToRead(t, k, "zeppelin")
	if !slices.Equal(idles, []time.Duration{time.Minute}) {
		t.Fatalf("keepers started: %v, want one with watch.keeper_idle", idles)
	}
	dir := filepath.Join(k.Root, IndexDir, freshDir)
	for i := 0; i < 500 && !watch.Ask(dir, time.Second).Known; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	searchToRead(t, k, "zeppelin") // the keeper knew nothing yet: this read scans and says done
	p := filepath.Join(k.Root, LayerLibrary, "notes", "n2.md")
	if err := os.WriteFile(p, []byte("---\ntitle: Note 2\ntype: note\n---\nThe dirigible number 2.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, st, got := searchStats(t, k, "dirigible")
	if len(got) != 1 || st.Scanned >= 4 {
		t.Fatalf("after an edit under the keeper: hits %v, scanned %d of 4 files; want the edit found, the others not stat'ed", got, st.Scanned)
	}
	if len(idles) != 1 {
		t.Errorf("keepers started: %d, want 1", len(idles))
	}
}
