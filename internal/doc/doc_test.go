package doc

import (
	"errors"
	"github.com/kbmem/kb/internal/testenv"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var sampleNote = testenv.File("testdata/sample.md")

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, src string
		line      int
		contains  string
	}{
		{"bad yaml", "---\ntitle: ok\nbad: : x\n---\nbody\n", 3, "invalid YAML"},
		{"tab indent", "---\na: 1\n\tb: 2\n---\n", 3, "invalid YAML"},
		{"unterminated", "---\ntitle: x\nbody without end\n", 1, "no closing"},
		{"only opener", "---", 1, "no closing"},
		{"not mapping", "---\n- a\n- b\n---\n", 2, "not a mapping"},
		{"scalar", "---\njust text\n---\n", 2, "not a mapping"},
		{"tags int", "---\ntitle: x\ntags: 5\n---\n", 3, `"tags"`},
		{"tags map", "---\ntags:\n  a: 1\n---\n", 2, `"tags"`},
		{"tags item map", "---\ntags:\n  - a\n  - b: 1\n---\n", 4, `"tags"`},
		{"nested relation", "---\nrelations:\n  related:\n    x: 1\n---\n", 3, `"related"`},
		{"tag item number", "---\ntags: [a, 2024]\n---\n", 2, "number"},
		{"title list", "---\n\ntitle: [a, b]\n---\n", 3, `"title"`},
		{"relation map", "---\nrelated: {a: b}\n---\n", 2, `"related"`},
		{"relations scalar", "---\nrelations: x\n---\n", 2, `"relations"`},
		{"duplicate key", "---\na: 1\nb: 2\na: 3\n---\n", 4, "already defined at line 2"},
		{"invalid utf8 yaml", "---\na: 1\nb: \xff\n---\n", 3, "UTF-8"},
		{"unknown anchor", "---\na: 1\nb: *nope\n---\n", 3, "anchor"},
		{"crlf bad yaml", "---\r\na: 1\r\nb: [\r\n---\r\n", 3, "invalid YAML"},
		{"bom bad yaml", "\xef\xbb\xbf---\na: b: c\n---\n", 2, "invalid YAML"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseFrontmatter("n.md", []byte(c.src))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want *ParseError", err)
			}
			if pe.Path != "n.md" || pe.Line != c.line || !strings.Contains(pe.Msg, c.contains) {
				t.Errorf("got %q (line %d), want line %d containing %q", err, pe.Line, c.line, c.contains)
			}
			if !strings.HasPrefix(err.Error(), "n.md:") {
				t.Errorf("Error() = %q", err)
			}
		})
	}
}

// handWritten is a note as a person writes it: comments, odd spacing,
// mixed quoting, a block scalar, unknown keys.
var handWritten = testenv.File("testdata/handwritten.md")

func TestUpdateSurgical(t *testing.T) {
	out, err := Update([]byte(handWritten), map[string]any{"status": "active", "updated": "2024-06-30"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	in, got := strings.Split(handWritten, "\n"), strings.Split(string(out), "\n")
	if len(in) != len(got) {
		t.Fatalf("line count changed: %d -> %d\n%s", len(in), len(got), out)
	}
	var changed []string
	for i := range in {
		if in[i] != got[i] {
			changed = append(changed, got[i])
		}
	}
	want := []string{"status: active", "updated: 2024-06-30"}
	if !reflect.DeepEqual(changed, want) {
		t.Errorf("changed lines = %q, want %q\n%s", changed, want, out)
	}
	d, err := ParseFrontmatter("n.md", out)
	if err != nil || d.Status != "active" || d.Updated != "2024-06-30" || d.Title != `Why we "lock" the index` {
		t.Errorf("reparse: %v %+v", err, d)
	}
}

func TestUpdateCases(t *testing.T) {
	cases := []struct {
		name string
		src  string
		set  map[string]any
		body *string
		want string
	}{
		{"no-op", handWritten, nil, nil, handWritten},
		{"same values keep formatting", handWritten, map[string]any{"status": "draft", "id": "lib-0007", "tags": []string{"locking", "index"}, "updated": "2024-01-01"}, nil, handWritten},
		{"replace block list", "---\na: 1\ntags:\n  - x\n  - y\n# keep\nb: 2\n---\nbody\n",
			map[string]any{"tags": []string{"p", "q"}}, nil,
			"---\na: 1\ntags: [p, q]\n# keep\nb: 2\n---\nbody\n"},
		{"delete key keeps neighbors", "---\na: 1 # c1\nb: |\n  line\n  # content\n\nc: 3\n---\n",
			map[string]any{"b": nil, "zz": nil}, nil,
			"---\na: 1 # c1\n\nc: 3\n---\n"},
		{"replace literal block", "---\nb: |\n  line\n  # content\n# real comment\nc: 3\n---\n",
			map[string]any{"b": "new"}, nil,
			"---\nb: new\n# real comment\nc: 3\n---\n"},
		{"append new keys sorted", "---\na: 1\n---\nbody\n",
			map[string]any{"z": "last", "m": map[string]any{"k": "v"}, "l": []string{"x"}}, nil,
			"---\na: 1\nl: [x]\nm:\n  k: v\nz: last\n---\nbody\n"},
		{"create frontmatter", "Body only\n",
			map[string]any{"title": "New: note", "n": 3}, nil,
			"---\nn: 3\ntitle: 'New: note'\n---\n\nBody only\n"},
		{"create frontmatter bom crlf", "\xef\xbb\xbfBody\r\n",
			map[string]any{"id": "x"}, nil,
			"\xef\xbb\xbf---\r\nid: x\r\n---\r\n\r\nBody\r\n"},
		{"crlf replace", "---\r\na: 1\r\nb: 2\r\n---\r\nbody\r\n",
			map[string]any{"a": []string{"x", "z"}, "c": true}, nil,
			"---\r\na: [x, z]\r\nb: 2\r\nc: true\r\n---\r\nbody\r\n"},
		{"body replace", "---\na: 1\n---\n\nold body\n", nil, ptr("new body\n"),
			"---\na: 1\n---\n\nnew body\n"},
		{"body replace no separator", "---\na: 1\n---\nold\n", nil, ptr("new\n"),
			"---\na: 1\n---\n\nnew\n"},
		{"body replace closing at eof", "---\na: 1\n---", nil, ptr("\nnew"),
			"---\na: 1\n---\n\n\nnew"},
		{"body replace no frontmatter", "old\n", nil, ptr("new\n"), "new\n"},
		{"flow mapping falls back", "---\n{a: 1, b: 2}\n---\nbody\n",
			map[string]any{"a": "x"}, nil,
			"---\na: x\nb: 2\n---\nbody\n"},
		{"null frontmatter", "---\nnull\n---\n", map[string]any{"a": "b"}, nil, "---\na: b\n---\n"},
		{"empty frontmatter", "---\n---\n", map[string]any{"a": "b"}, nil, "---\na: b\n---\n"},
		{"fix wrong type", "---\ntags: 5\n---\n", map[string]any{"tags": []string{"five"}}, nil, "---\ntags: [five]\n---\n"},
		{"multiline quoted value", "---\na: \"one\n  # two\"\nb: 1\n---\n", map[string]any{"a": "x"}, nil, "---\na: x\nb: 1\n---\n"},
		{"time value", "---\nupdated: 2020-01-01\n---\n",
			map[string]any{"updated": time.Date(2024, 5, 6, 0, 0, 0, 0, time.UTC), "at": time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)}, nil,
			"---\nupdated: 2024-05-06\nat: 2024-05-06T07:08:09Z\n---\n"},
		{"string needing quotes", "---\na: 1\n---\n", map[string]any{"a": "true", "b": "x: y", "c": "#x", "d": "multi\nline\n"}, nil,
			"---\na: \"true\"\nb: 'x: y'\nc: '#x'\nd: |\n  multi\n  line\n---\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := Update([]byte(c.src), c.set, c.body)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != c.want {
				t.Errorf("got\n%q\nwant\n%q", out, c.want)
			}
			d, err := ParseFrontmatter("x.md", out)
			if err != nil {
				t.Fatalf("reparse: %v", err)
			}
			if c.body != nil && d.Body != *c.body {
				t.Errorf("Body = %q, want %q", d.Body, *c.body)
			}
		})
	}
}

func ptr(s string) *string { return &s }

func TestUpdateErrors(t *testing.T) {
	if _, err := Update([]byte("---\na: [\n---\n"), map[string]any{"a": 1}, nil); err == nil {
		t.Error("invalid YAML: want error")
	}
	if _, err := Update([]byte("---\na: 1\n"), map[string]any{"a": 1}, nil); err == nil {
		t.Error("unterminated: want error")
	}
	if _, err := Update([]byte("---\na: 1\n---\n"), map[string]any{"a": func() {}}, nil); err == nil {
		t.Error("func value: want error")
	}
	if _, err := Update([]byte("---\na: 1\n---\n"), map[string]any{"": 1}, nil); err == nil {
		t.Error("empty key: want error")
	}
	// Deleting an anchor that is still referenced cannot be done.
	if _, err := Update([]byte("---\na: &x 1\nb: *x\n---\n"), map[string]any{"a": nil}, nil); err == nil {
		t.Error("dangling alias: want error")
	}
	// Replacing a value that is an alias works via re-encoding.
	out, err := Update([]byte("---\na: &x 1\nb: *x\n---\n"), map[string]any{"b": 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := ParseFrontmatter("x", out); err != nil || d.Fields["b"] != 2 || d.Fields["a"] != 1 {
		t.Errorf("alias replace: %v %v\n%s", err, d, out)
	}
}

func TestRender(t *testing.T) {
	out, err := Render([]Field{
		{"id", "obs-1"},
		{"type", "correction"},
		{"title", "Don't: drop columns"},
		{"tags", []string{"db", "migration"}},
		{"empty", ""},
		{"nilv", nil},
		{"none", []string{}},
		{"created", time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)},
		{"sources", []string{"claude-code-abc#1-2"}},
		{"meta", map[string]any{"b": 1, "a": []any{map[string]any{"x": 1}}}},
	}, "Body\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "---\nid: obs-1\ntype: correction\ntitle: 'Don''t: drop columns'\ntags: [db, migration]\ncreated: 2024-01-02\nsources: [claude-code-abc#1-2]\nmeta:\n  a:\n    - x: 1\n  b: 1\n---\n\nBody\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	d, err := ParseFrontmatter("x", out)
	if err != nil || d.Body != "Body\n" || d.Title != "Don't: drop columns" || d.Sources[0] != "claude-code-abc#1-2" {
		t.Errorf("reparse %v %+v", err, d)
	}
	if _, err := Render([]Field{{"a", 1}, {"a", 2}}, ""); err == nil {
		t.Error("duplicate key: want error")
	}
	if _, err := Render([]Field{{"", 1}}, ""); err == nil {
		t.Error("empty key: want error")
	}
}

func TestSlug(t *testing.T) {
	cases := map[string]string{
		"Use Bleve for Search!":       "use-bleve-for-search",
		"  --Hello,   World--  ":      "hello-world",
		"Don't panic":                 "dont-panic",
		"Ünïcödé Crème brûlée ßtraße": "unicode-creme-brulee-sstrasse",
		"":                            "untitled",
		".":                           "untitled",
		"..":                          "untitled",
		"日本語":                         "untitled",
		"../../etc/passwd":            "etc-passwd",
		"a/b\\c:d*e?f":                "a-b-c-d-e-f",
		strings.Repeat("word ", 30):   strings.TrimSuffix(strings.Repeat("word-", 12), "-"),
		strings.Repeat("x", 100):      strings.Repeat("x", 60),
	}
	for in, want := range cases {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSharedExamples parses any markdown under ../shared (the design
// workspace) when present: none may crash, and no-op Update is identity.
func TestSharedExamples(t *testing.T) {
	dir := sharedDir(t)
	n := 0
	_ = filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(p, ".md") || n > 500 {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		n++
		if _, err := ParseFrontmatter(p, src); err != nil {
			t.Logf("%v", err)
			return nil
		}
		out, err := Update(src, nil, nil)
		if err != nil || string(out) != string(src) {
			t.Errorf("%s: no-op Update changed the file (%v)", p, err)
		}
		return nil
	})
	t.Logf("parsed %d shared markdown files", n)
}

func sharedDir(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Skip(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("go.mod not found")
		}
		dir = parent
	}
	shared := filepath.Join(dir, "..", "shared")
	if _, err := os.Stat(shared); err != nil {
		t.Skip("../shared not present (only in the dev workspace)")
	}
	return shared
}

func BenchmarkParse(b *testing.B) {
	src := []byte(sampleNote)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := ParseFrontmatter("n.md", src); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUpdate(b *testing.B) {
	src := []byte(handWritten)
	set := map[string]any{"status": "active", "updated": "2024-06-30"}
	for b.Loop() {
		if _, err := Update(src, set, nil); err != nil {
			b.Fatal(err)
		}
	}
}
