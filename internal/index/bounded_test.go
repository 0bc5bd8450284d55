package index

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func turnDocs(session string, from, to int, word string) []Doc {
	var docs []Doc
	for i := from; i < to; i++ {
		docs = append(docs, Doc{ID: fmt.Sprintf("%s#%d", session, i), Layer: "traces", Session: session, Seq: i, Body: word})
	}
	return docs
}

// A file indexed in parts: the first replaces, the next append; until the
// last part the file is recorded incomplete, with its progress.
func TestApplyParts(t *testing.T) {
	ix, dir := openNew(t)
	const p = "traces/big.jsonl"
	final := Stamp{Mtime: 7, Size: 300}
	mustApply(t, ix, Change{Path: p, Stamp: final, Docs: turnDocs("big", 0, 5, "alpha"), Partial: true, Progress: Progress{Done: 100, Tail: 1}})
	if got := ix.Stamps()[p]; got == final {
		t.Fatalf("partial file stamped complete: %+v", got)
	}
	if pr, ok := ix.Progress(p); !ok || pr.Done != 100 {
		t.Fatalf("progress after part 1 = %+v %v", pr, ok)
	}
	mustApply(t, ix, Change{Path: p, Stamp: final, Docs: turnDocs("big", 5, 10, "beta"), Append: true, Partial: true, Progress: Progress{Done: 200, Tail: 2}})
	mustApply(t, ix, Change{Path: p, Stamp: final, Docs: turnDocs("big", 10, 12, "gamma"), Append: true, Progress: Progress{Done: 300, Tail: 3}})
	if n, _ := ix.Count(); n != 12 {
		t.Fatalf("Count = %d, want 12 (appended parts keep the earlier ones)", n)
	}
	if got := ix.Stamps()[p]; got != final {
		t.Fatalf("stamp after last part = %+v, want %+v", got, final)
	}
	ix.Close()
	ix2, info, err := Open(dir)
	if err != nil || info.Rebuilt {
		t.Fatalf("reopen: %+v %v", info, err)
	}
	defer ix2.Close()
	if pr, _ := ix2.Progress(p); pr != (Progress{Done: 300, Tail: 3}) {
		t.Errorf("progress after reopen = %+v", pr)
	}
	// A replace (the file was rewritten) drops the docs it no longer has.
	mustApply(t, ix2, Change{Path: p, Stamp: Stamp{Mtime: 8, Size: 10}, Docs: turnDocs("big", 0, 2, "delta")})
	if n, _ := ix2.Count(); n != 2 {
		t.Errorf("Count after replace = %d, want 2", n)
	}
	if _, ok := ix2.Progress(p); ok {
		t.Error("progress kept after a replace without one")
	}
}

// crashAfterBatch leaves the index as a process killed during an Apply
// would: the journal written and one batch committed, the stamps not.
func crashAfterBatch(t *testing.T, ix *Index, j journal, docs []Doc) {
	t.Helper()
	j.Gen = ix.gen + 1
	if err := writeJournal(ix.dir, j); err != nil {
		t.Fatal(err)
	}
	b := ix.bi.NewBatch()
	b.SetInternal([]byte(genKey), []byte(strconv.FormatUint(j.Gen, 10)))
	for i := range docs {
		d := docs[i]
		if err := b.IndexAdvanced(ix.an.buildDocument(&d)); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.bi.Batch(b); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestOpenResumesInterruptedApply(t *testing.T) {
	ix, dir := openNew(t)
	const p = "traces/big.jsonl"
	mustApply(t, ix,
		file("library/keep.md", note("keep", "note", "Keep", "kept words")),
		file("library/edit.md", note("edit", "note", "Edit", "old words")),
		Change{Path: p, Stamp: Stamp{1, 1}, Docs: turnDocs("big", 0, 5, "alpha"), Partial: true, Progress: Progress{Done: 50, Tail: 9}})
	// Killed while appending part 2 of the trace and replacing edit.md.
	docs := turnDocs("big", 5, 8, "beta")
	for i := range docs {
		docs[i].Path = p
	}
	crashAfterBatch(t, ix, journal{Replace: []string{"library/edit.md"}, Append: []string{p}}, docs)

	ix2, info, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix2.Close()
	if info.Rebuilt {
		t.Fatalf("rebuilt after an interrupted update with a journal: %s", info.Reason)
	}
	if !reflect.DeepEqual(info.Resumed, []string{"library/edit.md", p}) {
		t.Errorf("Resumed = %v", info.Resumed)
	}
	if n, _ := ix2.Count(); n != 10 {
		t.Errorf("Count = %d, want 10 (2 notes, 5 turns, 3 committed before the kill)", n)
	}
	st := ix2.Stamps()
	if st["library/keep.md"] == incomplete {
		t.Error("untouched file marked incomplete")
	}
	if st["library/edit.md"] != incomplete {
		t.Error("replaced file not marked incomplete")
	}
	if pr, _ := ix2.Progress(p); pr.Done != 50 {
		t.Errorf("appended file lost its progress: %+v", pr)
	}
	// The resumed state is on disk: a second Open agrees without a journal.
	if _, err := os.Stat(filepath.Join(dir, journalFile)); !os.IsNotExist(err) {
		t.Errorf("journal left after resume: %v", err)
	}
	ix2.Close()
	ix3, info, err := Open(dir)
	if err != nil || info.Rebuilt || len(info.Resumed) > 0 {
		t.Fatalf("second open: %+v %v", info, err)
	}
	ix3.Close()
}

// Without a journal of the right generation, a generation mismatch is
// unexplained: the index is rebuilt, as before.
func TestOpenRebuildsWithoutJournal(t *testing.T) {
	ix, dir := openNew(t)
	mustApply(t, ix, file("library/a.md", note("a", "note", "A", "words")))
	crashAfterBatch(t, ix, journal{Replace: []string{"library/b.md"}}, []Doc{note("b", "note", "B", "words")})
	os.Remove(filepath.Join(dir, journalFile))
	ix2, info, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix2.Close()
	if !info.Rebuilt || !strings.HasPrefix(info.Reason, "interrupted update") {
		t.Fatalf("OpenInfo = %+v, want a rebuild", info)
	}
}

// A read-only open of an interrupted index works (answers from what was
// committed) and writes nothing.
func TestOpenReadOnlyAfterInterruptedApply(t *testing.T) {
	ix, dir := openNew(t)
	mustApply(t, ix, file("library/a.md", note("a", "note", "A", "words")))
	crashAfterBatch(t, ix, journal{Replace: []string{"library/b.md"}}, []Doc{note("b", "note", "B", "words")})
	before, _ := os.ReadFile(filepath.Join(dir, stampsFile))
	ro, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := ro.Count(); n != 2 {
		t.Errorf("Count = %d, want 2", n)
	}
	if ro.Stamps()["library/b.md"] != incomplete {
		t.Error("read-only open does not show the interrupted file as incomplete")
	}
	ro.Close()
	after, _ := os.ReadFile(filepath.Join(dir, stampsFile))
	if string(before) != string(after) {
		t.Error("read-only open rewrote the stamps")
	}
}

func TestBodyCapped(t *testing.T) {
	ix, _ := openNew(t)
	body := strings.Repeat("ünïcode words ", MaxBody/8) + "tailword"
	mustApply(t, ix, file("library/huge.md", note("huge", "note", "Huge", body)))
	d, ok := ix.Get("huge")
	if !ok {
		t.Fatal("not indexed")
	}
	if len(d.Body) > MaxBody || !strings.HasPrefix(body, d.Body) || !strings.HasPrefix(d.Body, "ünïcode") {
		t.Errorf("stored body is %d bytes, want a prefix of at most %d", len(d.Body), MaxBody)
	}
	if d.Truncated != int64(len(body)) {
		t.Errorf("Truncated = %d, want %d", d.Truncated, len(body))
	}
	wantIDs(t, ix, Query{Text: "truncated:>0"}, "huge")
	wantIDs(t, ix, Query{Text: "tailword"})
	if s, n := CapBody("short"); s != "short" || n != 0 {
		t.Errorf("CapBody(short) = %q %d", s, n)
	}
}

// Batches are bounded by bytes: many large docs are committed in several
// batches, not one (seen through the segment count bleve reports).
func TestBatchBytesBound(t *testing.T) {
	ix, _ := openNew(t)
	var docs []Doc
	for i := range 40 {
		docs = append(docs, note(fmt.Sprintf("n%d", i), "note", "N", strings.Repeat("x", 512<<10)))
	}
	var changes []Change
	for i, d := range docs {
		changes = append(changes, file(fmt.Sprintf("library/n%d.md", i), d))
	}
	before := batches.Load()
	mustApply(t, ix, changes...)
	if got, want := batches.Load()-before, int64(40*(512<<10)/batchBytes); got < want {
		t.Errorf("%d batches for 20 MiB of docs, want at least %d", got, want)
	}
	if n, _ := ix.Count(); n != 40 {
		t.Fatalf("Count = %d", n)
	}
	if got := docBytes(&docs[0]); got < 512<<10 {
		t.Errorf("docBytes = %d", got)
	}
}
