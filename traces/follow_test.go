package traces

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readRecordLine keeps lines up to max and skips longer ones whole.
func TestReadRecordLine(t *testing.T) {
	src := "short\n" + strings.Repeat("x", 300) + "\nlast"
	r := newReader(src, 16)
	for _, want := range []struct {
		b        string
		n        int
		complete bool
	}{{"short\n", 6, true}, {"", 301, true}, {"", 4, false}} {
		b, n, complete, _ := readRecordLine(r, 100)
		if string(b) != want.b || n != want.n || complete != want.complete {
			t.Errorf("got %q %d %v, want %q %d %v", b, n, complete, want.b, want.n, want.complete)
		}
	}
}

func newReader(s string, size int) *bufio.Reader {
	return bufio.NewReaderSize(strings.NewReader(s), size)
}

// TestFollow: a reader continues after the mark of an earlier one when the
// file only grew, and starts over when the bytes before the mark changed
// (a purge rewrote the file); marks count lines and offsets across both.
func TestFollow(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	first := `{"session":"s","seq":0,"kind":"meta"}` + "\n" + `{"session":"s","seq":1,"kind":"message","text":"hi"}` + "\n"
	os.WriteFile(p, []byte(first+`{"session":"s","se`), 0o644)
	read := func(m Mark) (seqs []int, last Mark, resumed bool) {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fo, err := Follow(f, "s.jsonl", m)
		if err != nil {
			t.Fatal(err)
		}
		last = fo.Start()
		if _, err := fo.Lines(1<<20, func(l Line) bool {
			if l.Rec != nil {
				seqs = append(seqs, l.Rec.Seq)
			}
			last = l.After
			return true
		}); err != nil {
			t.Fatal(err)
		}
		return seqs, last, fo.Resumed()
	}
	seqs, m, resumed := read(Mark{})
	if len(seqs) != 2 || resumed || m.Offset != int64(len(first)) || m.Lines != 2 {
		t.Fatalf("first read: %v %+v %v", seqs, m, resumed)
	}
	// The torn line is finished and one more appended: only those are read.
	os.WriteFile(p, []byte(first+`{"session":"s","seq":2}`+"\n"+`{"session":"s","seq":3}`+"\n"), 0o644)
	seqs, m2, resumed := read(m)
	if !resumed || len(seqs) != 2 || seqs[0] != 2 || m2.Lines != 4 {
		t.Fatalf("after appending: %v %+v %v", seqs, m2, resumed)
	}
	// Rewritten before the mark: read again from the start.
	os.WriteFile(p, []byte(strings.Replace(first, "hi", "[REDACTED]", 1)+`{"session":"s","seq":2}`+"\n"), 0o644)
	if seqs, _, resumed := read(m2); resumed || len(seqs) != 3 {
		t.Fatalf("after a rewrite: %v %v", seqs, resumed)
	}
}
