package doc

import (
	"bytes"
	"github.com/kbmem/kb/internal/testenv"
	"reflect"
	"strings"
	"testing"
)

// fuzzSeeds are the seeds of this package's fuzz tests and of
// internal/markdown's: the two sample notes and testdata/fuzz-seeds.json.
var fuzzSeeds = append([]string{sampleNote, handWritten}, testenv.Strings("testdata/fuzz-seeds.json")...)

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		d, err := ParseFrontmatter("f.md", src)
		if err != nil {
			if strings.Contains(err.Error(), "internal error") {
				t.Fatalf("recovered panic: %v", err)
			}
			return
		}
		lines := 1 + bytes.Count(src, []byte("\n"))
		if d.BodyLine < 1 || d.BodyLine > lines {
			t.Fatalf("BodyLine %d outside 1..%d", d.BodyLine, lines)
		}
		for _, l := range d.Links {
			if l.Line < 1 || l.Line > lines {
				t.Fatalf("link %+v line outside 1..%d", l, lines)
			}
		}
		out, err := Update(src, nil, nil)
		if err != nil {
			t.Fatalf("no-op Update: %v", err)
		}
		if !bytes.Equal(out, src) {
			t.Fatalf("no-op Update changed the file:\n%q\n%q", src, out)
		}
	})
}

// fields decodes the top-level frontmatter generically, without the known
// key checks Parse does.
func fields(t *testing.T, src []byte) map[string]any {
	t.Helper()
	l, err := locate(src)
	if err != nil {
		t.Fatalf("locate: %v\n%q", err, src)
	}
	m := map[string]any{}
	if l.root == nil {
		return m
	}
	budget := maxDecodeNodes
	for i := 0; i+1 < len(l.root.Content); i += 2 {
		v, err := decodeGeneric(l.root.Content[i+1], &budget, 0)
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		m[l.root.Content[i].Value] = v
	}
	return m
}

func FuzzUpdate(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), "status", "active", "tags")
		f.Add([]byte(s), "new key", "2024-01-02", "a")
	}
	f.Add([]byte(handWritten), "description", "multi\nline: x", "weird_key")
	f.Fuzz(func(t *testing.T, src []byte, key, value, del string) {
		if _, err := locate(src); err != nil || key == "" || del == "" || key == del {
			return
		}
		before := fields(t, src)
		set := map[string]any{key: value, del: nil}
		out, err := Update(src, set, nil)
		if err != nil {
			if strings.Contains(err.Error(), "internal error") {
				t.Fatalf("recovered panic: %v", err)
			}
			return
		}
		after := fields(t, out)
		if got, ok := after[key]; !ok || got != value {
			t.Fatalf("key %q = %#v, want %q\n%q", key, got, value, out)
		}
		if _, ok := after[del]; ok {
			t.Fatalf("key %q not deleted\n%q", del, out)
		}
		for k, v := range before {
			if k == key || k == del {
				continue
			}
			if !reflect.DeepEqual(after[k], v) {
				t.Fatalf("untouched key %q changed: %#v -> %#v\n%q\n%q", k, v, after[k], src, out)
			}
		}
		// The body is kept.
		lb, _ := locate(src)
		la, _ := locate(out)
		if !bytes.Equal(src[lb.bodyStart:], out[la.bodyStart:]) {
			t.Fatalf("body changed\n%q\n%q", src, out)
		}
	})
}
