package links

import (
	"fmt"
	"testing"

	"github.com/kbmem/kb/internal/doc"
)

// benchNodes makes n documents in 100 folders, each with a wiki link by
// name, a markdown link by relative path, a relation by id (one in ten
// broken) and a tag.
func benchNodes(n int) []Node {
	nodes := make([]Node, n)
	for i := range nodes {
		j, k := (i*7919+1)%n, (i*104729+3)%n
		target := fmt.Sprintf("id-%d", (i*31+5)%n)
		if i%10 == 0 {
			target = fmt.Sprintf("missing-%d", i)
		}
		nodes[i] = Node{
			Path:  fmt.Sprintf("library/f%02d/note-%d.md", i%100, i),
			ID:    fmt.Sprintf("id-%d", i),
			Title: fmt.Sprintf("Note number %d", i),
			Tags:  []string{fmt.Sprintf("topic-%d", i%50)},
			Links: []doc.Link{
				{Kind: doc.KindWiki, Target: fmt.Sprintf("note-%d", j), Line: 10},
				{Kind: doc.KindMarkdown, Target: fmt.Sprintf("../f%02d/note-%d.md", k%100, k), Line: 11},
				{Kind: doc.KindRelation, Rel: "related", Target: target, Line: 3},
			},
		}
	}
	return nodes
}

func BenchmarkBuild100k(b *testing.B) {
	nodes := benchNodes(100_000)
	b.ReportAllocs()
	for b.Loop() {
		g := Build(nodes)
		if g.Len() != len(nodes) {
			b.Fatal("lost nodes")
		}
	}
}

func BenchmarkResolve(b *testing.B) {
	g := Build(benchNodes(100_000))
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := g.Resolve("library/f01/note-1.md", "Note Number 4242"); !ok {
			b.Fatal("unresolved")
		}
	}
}

func TestBenchNodesResolve(t *testing.T) {
	g := Build(benchNodes(1000))
	un := g.Unresolved()
	if len(un) != 100 {
		t.Errorf("unresolved = %d, want 100", len(un))
	}
	if got := len(g.Backlinks("library/f01/note-1.md")); got == 0 {
		t.Error("no backlinks")
	}
}
