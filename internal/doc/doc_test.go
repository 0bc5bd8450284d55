package doc

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

const sampleNote = `---
id: lib-0001
type: decision
title: "Use bleve for search"
description: Why the index is bleve and not sqlite FTS.
tags: [search, Index]
lifecycle: knowledge
status: draft
created: 2024-03-01
updated: 2024-03-02T10:00:00Z
sources:
  - claude-code-abc123#12-40
  - codex-xyz#3
supersedes: lib-0000
related:
  - notes/other.md
  - lib-0042
relations:
  contradicts: [lib-0099]
custom_key: {nested: 1}
---

# Use bleve

We chose bleve, see [[bleve-notes]] and [[Search Design#Ranking|ranking]].
Also ![[diagram.png]] and [the old plan](../plans/old%20plan.md#why).
External [site](https://example.com/x.md) and [img](pic.png) are ignored.
Tags inline: #perf and #search/ranking but not #123 or a#b or ` + "`#code`" + `.

` + "```" + `
[[not-a-link]] #notatag
` + "```" + `

    [[indented-code]]

Inline ` + "`[[code-span]]`" + ` too.
#index again, and [[bleve-notes]] twice.
`

func TestParseSample(t *testing.T) {
	d, err := Parse("library/use-bleve.md", []byte(sampleNote))
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %#v, want %#v", name, got, want)
		}
	}
	check("ID", d.ID, "lib-0001")
	check("Type", d.Type, "decision")
	check("Title", d.Title, "Use bleve for search")
	check("Description", d.Description, "Why the index is bleve and not sqlite FTS.")
	check("Lifecycle", d.Lifecycle, "knowledge")
	check("Status", d.Status, "draft")
	check("Created", d.Created, "2024-03-01")
	check("Updated", d.Updated, "2024-03-02T10:00:00Z")
	check("Sources", d.Sources, []string{"claude-code-abc123#12-40", "codex-xyz#3"})
	check("Relations", d.Relations, map[string][]string{
		"supersedes":  {"lib-0000"},
		"related":     {"notes/other.md", "lib-0042"},
		"contradicts": {"lib-0099"},
	})
	check("Tags", d.Tags, []string{"search", "Index", "perf", "search/ranking"})
	check("HasFrontmatter", d.HasFrontmatter, true)
	check("BodyLine", d.BodyLine, 23)
	check("Fields[custom_key]", d.Fields["custom_key"], map[string]any{"nested": 1})
	check("Fields[created]", d.Fields["created"], "2024-03-01")
	check("KeyLine(status)", d.KeyLine("status"), 8)
	check("KeyLine(missing)", d.KeyLine("nope"), 0)
	if !strings.HasPrefix(d.Body, "# Use bleve\n") {
		t.Errorf("Body starts %q", d.Body[:20])
	}
	if ct, err := d.CreatedTime(); err != nil || !ct.Equal(time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("CreatedTime = %v, %v", ct, err)
	}
	if ut, err := d.UpdatedTime(); err != nil || ut.Hour() != 10 {
		t.Errorf("UpdatedTime = %v, %v", ut, err)
	}

	want := []Link{
		{Kind: "tag", Target: "search", Line: 6},
		{Kind: "tag", Target: "Index", Line: 6},
		{Kind: "relation", Target: "lib-0000", Rel: "supersedes", Line: 14},
		{Kind: "relation", Target: "notes/other.md", Rel: "related", Line: 16},
		{Kind: "relation", Target: "lib-0042", Rel: "related", Line: 17},
		{Kind: "relation", Target: "lib-0099", Rel: "contradicts", Line: 19},
		{Kind: "wiki", Target: "bleve-notes", Line: 25},
		{Kind: "wiki", Target: "Search Design", Heading: "Ranking", Alias: "ranking", Line: 25},
		{Kind: "wiki", Target: "diagram.png", Line: 26, Embed: true},
		{Kind: "markdown", Target: "../plans/old plan.md", Heading: "why", Alias: "the old plan", Line: 26},
		{Kind: "tag", Target: "perf", Line: 28},
		{Kind: "tag", Target: "search/ranking", Line: 28},
		{Kind: "tag", Target: "index", Line: 37},
		{Kind: "wiki", Target: "bleve-notes", Line: 37},
	}
	if !reflect.DeepEqual(d.Links, want) {
		t.Errorf("Links:\n got %+v\nwant %+v", d.Links, want)
		for i := range max(len(d.Links), len(want)) {
			var g, w Link
			if i < len(d.Links) {
				g = d.Links[i]
			}
			if i < len(want) {
				w = want[i]
			}
			if g != w {
				t.Logf("%d: got %+v want %+v", i, g, w)
			}
		}
	}
}

func TestParseNoFrontmatter(t *testing.T) {
	d, err := Parse("a.md", []byte("Just text with [[link]].\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d.HasFrontmatter || d.BodyLine != 1 || d.Body != "Just text with [[link]].\n" || len(d.Fields) != 0 {
		t.Errorf("got %+v", d)
	}
	if len(d.Links) != 1 || d.Links[0].Line != 1 {
		t.Errorf("links %+v", d.Links)
	}
	// A thematic break later in the file is not frontmatter.
	d, err = Parse("b.md", []byte("text\n\n---\nmore\n"))
	if err != nil || d.HasFrontmatter {
		t.Errorf("thematic break: %v %+v", err, d)
	}
	// Empty file.
	d, err = Parse("c.md", nil)
	if err != nil || d.Body != "" || d.BodyLine != 1 {
		t.Errorf("empty: %v %+v", err, d)
	}
}

func TestParseBOMAndCRLF(t *testing.T) {
	src := "\xef\xbb\xbf---\r\ntitle: Hello\r\ntags:\r\n  - a\r\n---\r\n\r\nBody [[x]]\r\nline #t\r\n"
	d, err := Parse("crlf.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != "Hello" || d.BodyLine != 7 || d.Body != "Body [[x]]\r\nline #t\r\n" {
		t.Errorf("got title %q bodyline %d body %q", d.Title, d.BodyLine, d.Body)
	}
	if d.KeyLine("tags") != 3 {
		t.Errorf("KeyLine(tags) = %d", d.KeyLine("tags"))
	}
	wantLinks := []Link{{Kind: "tag", Target: "a", Line: 4}, {Kind: "wiki", Target: "x", Line: 7}, {Kind: "tag", Target: "t", Line: 8}}
	if !reflect.DeepEqual(d.Links, wantLinks) {
		t.Errorf("links %+v", d.Links)
	}
	if !reflect.DeepEqual(d.Tags, []string{"a", "t"}) {
		t.Errorf("tags %v", d.Tags)
	}
}

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
			_, err := Parse("n.md", []byte(c.src))
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

func TestParseLenient(t *testing.T) {
	cases := map[string]string{
		"empty frontmatter":   "---\n---\nbody\n",
		"comment only":        "---\n# nothing\n---\n",
		"null frontmatter":    "---\nnull\n---\n",
		"closing at eof":      "---\na: 1\n---",
		"invalid utf8 body":   "---\na: 1\n---\n\xff\xfe [[\xff]] #\xff\n",
		"scalar tags":         "---\ntags: alpha, beta gamma\n---\n",
		"null values":         "---\ntitle:\ntags:\nrelated:\n---\n",
		"numeric id":          "---\nid: 42\n---\n",
		"nested wiki bracket": "[[a [b]]] [[]] [[|x]] [[#heading]]\n",
	}
	for name, src := range cases {
		if _, err := Parse(name, []byte(src)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	d, _ := Parse("x", []byte("---\ntags: alpha, beta gamma\nid: 42\n---\n"))
	if !reflect.DeepEqual(d.Tags, []string{"alpha", "beta", "gamma"}) || d.ID != "42" {
		t.Errorf("tags %v id %q", d.Tags, d.ID)
	}
	d, err := Parse("x", []byte("---\nrelated:\n  - \"[[Other Note|alias]]\"\n  - [[Bare Link]]\nsupersedes: '[[old#h]]'\n---\n"))
	if err != nil || !reflect.DeepEqual(d.Relations, map[string][]string{"related": {"Other Note", "Bare Link"}, "supersedes": {"old"}}) {
		t.Errorf("wiki relations: %v %v", err, d.Relations)
	}
	d, _ = Parse("x", []byte("[[#heading]] [[note#^block]]\n"))
	if len(d.Links) != 2 || d.Links[0].Target != "" || d.Links[0].Heading != "heading" || d.Links[1].Heading != "^block" {
		t.Errorf("links %+v", d.Links)
	}
}

func TestLinkExtraction(t *testing.T) {
	body := strings.Join([]string{
		"[a](rel/a.md) [b](<with space.md>) [c](C.MD) [d](http://x.com/a.md)",       // 1
		"[e](mailto:x@y.md) [f](/abs/path.md) [g](#frag) [h](dir/) [i](x.md?q=1#h)", // 2
		"[ref][r] `[[no]]` \\[[escaped]] [[a|b|c]]",                                 // 3
		"",
		"[r]: target/ref.md",
		"",
		"| col | [[tbl\\|alias]] |", // 7
		"|-----|---|",
		"",
		"~~~",
		"[[fenced]]",
		"~~~",
		"<div>[[html-block]]</div>",
		"",
		"text <span>[[inline-html-is-fine]]</span> and #tag-1 and #_x and #über.", // 15
	}, "\n")
	d, err := Parse("n.md", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range d.Links {
		got = append(got, l.Kind+":"+l.Target+"#"+l.Heading+"|"+l.Alias+"@"+strconv.Itoa(l.Line))
	}
	want := []string{
		"markdown:rel/a.md#|a@1",
		"markdown:with space.md#|b@1",
		"markdown:C.MD#|c@1",
		"markdown:x.md#h|i@2",
		"markdown:target/ref.md#|ref@3",
		"wiki:a#|b|c@3",
		"wiki:tbl#|alias@7",
		"wiki:inline-html-is-fine#|@15",
		"tag:tag-1#|@15",
		"tag:_x#|@15",
		"tag:über#|@15",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("links:\n got %q\nwant %q", got, want)
	}
}

// handWritten is a note as a person writes it: comments, odd spacing,
// mixed quoting, a block scalar, unknown keys.
const handWritten = `---
# Hand-written note, please keep my comments.
id:   lib-0007      # stable id
title: 'Why we "lock" the index'
status: draft   # draft | active | superseded
description: >
  Folded text that
  spans lines.

tags:
  - locking   # primary
  -   index
weird_key:    {a: 1,   b: [x,y]}
updated: 2024-01-01
# trailing comment

---

Body stays *exactly* the same.
`

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
	d, err := Parse("n.md", out)
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
			d, err := Parse("x.md", out)
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
	if d, err := Parse("x", out); err != nil || d.Fields["b"] != 2 || d.Fields["a"] != 1 {
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
	d, err := Parse("x", out)
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
		if _, err := Parse(p, src); err != nil {
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
		if _, err := Parse("n.md", src); err != nil {
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

func TestParseFrontmatterSkipsBody(t *testing.T) {
	src := []byte("---\nid: a\ntitle: A\ntags: [x]\n---\n# A\n\nSee [[B]] and #y.\n")
	full, err := Parse("a.md", src)
	if err != nil {
		t.Fatal(err)
	}
	head, err := ParseFrontmatter("a.md", src)
	if err != nil {
		t.Fatal(err)
	}
	if head.ID != full.ID || head.Title != full.Title || head.Body != full.Body || head.BodyLine != full.BodyLine || len(head.Fields) != len(full.Fields) {
		t.Errorf("fields differ: %+v vs %+v", head, full)
	}
	// Frontmatter tags are links too; the body's [[B]] and #y are not read.
	if len(head.Links) != 1 || head.Links[0].Kind != "tag" || len(full.Links) != 3 {
		t.Errorf("links: head %v, full %v", head.Links, full.Links)
	}
	if _, err := ParseFrontmatter("bad.md", []byte("---\nid: [unclosed\n---\n")); err == nil {
		t.Error("a broken frontmatter parsed")
	}
}
