package kb

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbmem/kb/internal/index"
	"github.com/kbmem/kb/traces"
)

// writeSession appends records seq from..to-1 of session s to its trace
// file and returns the file's path.
func writeSession(t testing.TB, k *KB, s string, from, to int, word string) string {
	t.Helper()
	p := filepath.Join(k.Root, LayerTraces, "2025", "01", "generic-"+s+".jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for i := from; i < to; i++ {
		r := traces.Record{Session: s, Seq: i, Agent: "generic", Role: traces.RoleUser, Kind: traces.KindMessage,
			Text: fmt.Sprintf("turn %d about %s", i, word), Time: time.Date(2025, 1, 1, 0, 0, i%60, 0, time.UTC)}
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b.Bytes()); err != nil {
		t.Fatal(err)
	}
	return p
}

// syncIndex brings the index up to date, as any kb command that reads it
// does.
func syncIndex(t testing.TB, k *KB) SyncStats {
	t.Helper()
	x, st, err := k.OpenIndex(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	return st
}

func traceHits(t testing.TB, k *KB, q string) int {
	t.Helper()
	x, _, err := k.OpenIndex(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	res, err := x.Search(SearchOptions{Query: q, Layers: []string{LayerTraces}, Limit: 10000})
	if err != nil {
		t.Fatal(err)
	}
	return int(res.Total)
}

// smallParts makes a session file's parts 40 turns for the test.
func smallParts(t *testing.T) {
	old := partDocs
	partDocs = 40
	t.Cleanup(func() { partDocs = old })
}

// A session file is indexed in parts and, as it grows, only what was
// appended is read; a rewritten file is read again whole.
func TestSyncTraceIncremental(t *testing.T) {
	smallParts(t)
	k := trNewKB(t)
	p := writeSession(t, k, "s1", 0, 100, "alpha")
	if st := syncIndex(t, k); st.Docs != 100 {
		t.Fatalf("first sync indexed %d docs, want 100", st.Docs)
	}
	writeSession(t, k, "s1", 100, 130, "beta")
	if st := syncIndex(t, k); st.Docs != 30 || st.Updated != 1 {
		t.Fatalf("after an append: %d docs, %d updated; want 30 and 1 (only the appended records)", st.Docs, st.Updated)
	}
	if n := traceHits(t, k, "alpha"); n != 100 {
		t.Errorf("alpha: %d hits, want 100", n)
	}
	if n := traceHits(t, k, "beta"); n != 30 {
		t.Errorf("beta: %d hits, want 30", n)
	}
	// A torn last line (the agent still writing) is left for later.
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0o644)
	f.WriteString(`{"session":"s1","seq":130,"agent":"generic","role":"user","kind":"message","text":"gam`)
	f.Close()
	if st := syncIndex(t, k); st.Docs != 0 {
		t.Fatalf("torn line indexed: %d docs", st.Docs)
	}
	f, _ = os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0o644)
	f.WriteString(`ma words"}` + "\n")
	f.Close()
	if st := syncIndex(t, k); st.Docs != 1 {
		t.Fatalf("completed line: %d docs, want 1", st.Docs)
	}
	if n := traceHits(t, k, "gamma"); n != 1 {
		t.Errorf("gamma: %d hits, want 1", n)
	}
	// Rewritten (as kb trace redact does): every record read again, and
	// the text that is gone is gone from the index.
	b, _ := os.ReadFile(p)
	b = bytes.ReplaceAll(b, []byte("alpha"), []byte("delta-longer"))
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if st := syncIndex(t, k); st.Docs != 131 {
		t.Fatalf("after a rewrite: %d docs, want 131", st.Docs)
	}
	if n := traceHits(t, k, "alpha"); n != 0 {
		t.Errorf("alpha after the rewrite: %d hits, want 0", n)
	}
	if n := traceHits(t, k, "delta-longer"); n != 100 {
		t.Errorf("delta-longer: %d hits, want 100", n)
	}
}

// A huge note is indexed with its body capped; the file keeps everything
// and the index says the body was cut.
func TestSyncHugeNoteCapped(t *testing.T) {
	k := trNewKB(t)
	var b strings.Builder
	b.WriteString("---\ntitle: Huge\ntype: reference\n---\nStart [[other]].\n\n")
	for b.Len() < 3*index.MaxBody {
		b.WriteString("ordinary words about the search index and its budget\n\n")
	}
	b.WriteString("zzfinalword [[last-link]]\n")
	p := filepath.Join(k.Root, LayerLibrary, "huge.md")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	x, _, err := k.OpenIndex(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	d, ok := x.ix.Get("library/huge.md")
	if !ok {
		t.Fatal("huge note not indexed")
	}
	if len(d.Body) > index.MaxBody || d.Truncated <= int64(index.MaxBody) {
		t.Errorf("stored body %d bytes, Truncated %d: want at most %d and the full size", len(d.Body), d.Truncated, index.MaxBody)
	}
	// The links past the cap are still in the graph.
	found := false
	for _, l := range d.Links {
		found = found || l == "last-link"
	}
	if !found {
		t.Errorf("link past the body cap lost: %v", d.Links)
	}
}

// Progress is reported in KiB of the changed files, part by part, so a
// single large session shows how far it got.
func TestSyncProgressInBytes(t *testing.T) {
	smallParts(t)
	k := trNewKB(t)
	p := writeSession(t, k, "s1", 0, 200, "alpha")
	st, _ := os.Stat(p)
	var calls [][2]int
	x, _, err := k.OpenIndex(context.Background(), func(done, total int) { calls = append(calls, [2]int{done, total}) })
	if err != nil {
		t.Fatal(err)
	}
	x.Close()
	want := int(st.Size() >> 10)
	if len(calls) < 5 || calls[len(calls)-1] != [2]int{want, want} {
		t.Fatalf("progress calls %v, want one per part ending at %d/%d", calls, want, want)
	}
	for i := 1; i < len(calls); i++ {
		if calls[i][0] < calls[i-1][0] || calls[i][1] != want {
			t.Fatalf("progress not monotonic in KiB: %v", calls)
		}
	}
}
