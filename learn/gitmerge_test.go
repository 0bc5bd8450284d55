package learn

import (
	"bytes"
	"strings"
	"testing"
)

func TestGitMergeIndex(t *testing.T) {
	base := []byte(`{"version": 1, "updated": "2026-03-01T00:00:00Z", "entries": [{"fact": "f0", "source_session": "s0", "date": "2026-03-01", "category": "decision"}]}`)
	a := []byte(`{"version": 1, "updated": "2026-03-02T00:00:00Z", "entries": [{"fact": "f0", "source_session": "s0", "date": "2026-03-01", "category": "decision"}, {"fact": "fa", "source_session": "sa", "date": "2026-03-02", "category": "decision"}]}`)
	b := []byte(`{"version": 1, "updated": "2026-03-03T00:00:00Z", "entries": [{"fact": "f0", "source_session": "s0", "date": "2026-03-01", "category": "decision"}, {"fact": "fb", "source_session": "sb", "date": "2026-03-03", "category": "decision"}]}`)
	for _, pair := range [][2][]byte{{a, b}, {b, a}} {
		out, notes, err := GitMergeIndex(base, pair[0], pair[1])
		if err != nil || len(notes) > 0 {
			t.Fatalf("%v %v", err, notes)
		}
		ix, err := parseIndex(out)
		if err != nil {
			t.Fatal(err)
		}
		if len(ix.facts) != 3 || !strings.Contains(string(out), `"updated": "2026-03-03T00:00:00Z"`) {
			t.Errorf("merged:\n%s", out)
		}
	}
	if out, _, _ := GitMergeIndex(a, a, a); !bytes.Equal(out, a) {
		t.Error("merge(x,x,x) != x")
	}
	if _, _, err := GitMergeIndex(base, a, []byte("{")); err == nil {
		t.Error("a damaged side merged")
	}
}

func FuzzGitMergeIndex(f *testing.F) {
	f.Add([]byte(`{"entries":[]}`), []byte(`{"entries":[{"fact":"a","source_session":"s"}]}`), []byte(`{"x":1,"entries":[{"fact":"b"}]}`))
	f.Add([]byte(``), []byte(`{"updated":"2026-01-01T00:00:00Z"}`), []byte(`{"updated":"x"}`))
	f.Fuzz(func(t *testing.T, o, a, b []byte) {
		out, _, err := GitMergeIndex(o, a, b)
		_, ea := parseIndex(a)
		_, eb := parseIndex(b)
		if ea == nil && eb == nil && err != nil {
			t.Fatalf("both parse, the merge failed: %v", err)
		}
		// When both sides parse, so does the merge. (A side nobody changed
		// is taken as it is, parsing or not, as git itself would.)
		if err == nil && ea == nil && eb == nil {
			if _, err := parseIndex(out); err != nil {
				t.Fatalf("merged index does not parse: %v", err)
			}
		}
	})
}
