package library

import (
	"testing"

	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/links"
	"github.com/kbmem/kb/internal/markdown"
)

func TestLint(t *testing.T) {
	parse := func(path, src string) *doc.Document {
		d, err := markdown.Parse(path, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	docs := []*doc.Document{
		parse("library/a.md", "---\nid: a\ntype: note\ntitle: A\nlifecycle: forever\n---\nSee [[b]] and [[nowhere]].\n"),
		parse("library/b.md", "---\nid: A\ntype: note\ntitle: B\n---\n"),
		parse("library/c.md", "no frontmatter\n"),
		parse("library/d.md", "---\nid: d\ntitle: D\n---\n"),
	}
	var nodes []links.Node
	for _, d := range docs {
		nodes = append(nodes, links.Node{Path: d.Path, ID: d.IDOrName(), Title: d.Title, Links: d.Links})
	}
	rules := map[string]int{}
	for _, p := range Lint(docs, links.Build(nodes)) {
		rules[p.Rule]++
		if p.Line == 0 || p.Path == "" {
			t.Errorf("problem without a place: %+v", p)
		}
	}
	want := map[string]int{"value": 1, "duplicate-id": 2, "broken-link": 1, "required": 2}
	for r, n := range want {
		if rules[r] != n {
			t.Errorf("%s: %d problems, want %d (all: %v)", r, rules[r], n, rules)
		}
	}
}
