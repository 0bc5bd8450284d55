package links

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/markdown"
)

// parse builds a Node the way the kb package will: from a parsed document.
func parse(t testing.TB, path, src string) Node {
	t.Helper()
	d, err := markdown.Parse(path, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return Node{Path: d.Path, ID: d.ID, Title: d.Title, Type: d.Type, Tags: d.Tags, Links: d.Links}
}

func testGraph(t testing.TB) *Graph {
	t.Helper()
	return Build([]Node{
		parse(t, "library/search-design.md", "---\nid: lib-0001\ntitle: Search Design\ntype: decision\ntags: [search]\n---\n"+
			"See [[Bleve Notes]] and [[lib-0002|the index]] and [sibling](ranking.md#top).\n"+
			"Root link [[episodes/2024-01-01-setup]] and [up](../episodes/2024-01-01-setup.md).\n"+
			"Broken [[nowhere]] and [escape](../../etc/passwd.md) and [[#Local heading]].\n"),
		parse(t, "library/bleve-notes.md", "---\nid: lib-0002\ntitle: Bleve notes\nsupersedes: lib-0000\nrelated: [lib-0001]\n---\nBack to [[search-design]]. #search/bleve\n"),
		parse(t, "library/ranking.md", "---\nid: lib-0003\ntitle: Ranking\n---\nNothing but #perf.\n"),
		parse(t, "episodes/2024-01-01-setup.md", "---\nid: ep-0001\ntitle: Setup\n---\nLinks [[SEARCH DESIGN]] and [[library/ranking]].\n"),
		parse(t, "observations/dup-a/note.md", "---\nid: same\ntitle: Twin\n---\n[[note]]\n"),
		parse(t, "observations/dup-b/note.md", "---\nid: same\ntitle: Twin\n---\n"),
	})
}

func TestResolve(t *testing.T) {
	g := testGraph(t)
	cases := []struct {
		from, target, want string
	}{
		{"library/search-design.md", "lib-0002", "library/bleve-notes.md"},           // id
		{"library/search-design.md", "LIB-0002", "library/bleve-notes.md"},           // id, any case
		{"library/search-design.md", "bleve-notes", "library/bleve-notes.md"},        // file name
		{"library/search-design.md", "Bleve-Notes.md", "library/bleve-notes.md"},     // file name with .md
		{"library/search-design.md", "Bleve Notes", "library/bleve-notes.md"},        // title, any case
		{"library/search-design.md", "ranking.md", "library/ranking.md"},             // relative path
		{"library/search-design.md", "./ranking.md", "library/ranking.md"},           // explicit relative
		{"episodes/2024-01-01-setup.md", "library/ranking", "library/ranking.md"},    // root path, no .md
		{"episodes/2024-01-01-setup.md", "LIBRARY/Ranking.MD", "library/ranking.md"}, // root path, any case
		{"library/search-design.md", "../episodes/2024-01-01-setup.md", "episodes/2024-01-01-setup.md"},
		{"library/search-design.md", "episodes/2024-01-01-setup", "episodes/2024-01-01-setup.md"},
		{"x.md", "dup-a/note", "observations/dup-a/note.md"},                 // partial path suffix
		{"library/search-design.md", "", "library/search-design.md"},         // [[#heading]]
		{"observations/dup-a/note.md", "note", "observations/dup-a/note.md"}, // ambiguous: same dir wins
		{"observations/dup-b/note.md", "note", "observations/dup-b/note.md"},
		{"library/x.md", "same", "observations/dup-a/note.md"}, // ambiguous id: deterministic
	}
	for _, c := range cases {
		got, ok := g.Resolve(c.from, c.target)
		if !ok || got != c.want {
			t.Errorf("Resolve(%q, %q) = %q, %v; want %q", c.from, c.target, got, ok, c.want)
		}
	}
	for _, target := range []string{"nowhere", "../../etc/passwd.md", "../../../library/ranking.md", "/../library/x.md", "..", ".", "/"} {
		if got, ok := g.Resolve("library/search-design.md", target); ok {
			t.Errorf("Resolve(%q) = %q, want unresolved", target, got)
		}
	}
	if all := g.ResolveAll("library/x.md", "Twin"); !reflect.DeepEqual(all, []string{"observations/dup-a/note.md", "observations/dup-b/note.md"}) {
		t.Errorf("ResolveAll(Twin) = %v", all)
	}
}

func TestResolveStageOrder(t *testing.T) {
	// A title that equals another document's id loses to the id; a file
	// name loses to an id but beats a title.
	g := Build([]Node{
		{Path: "a.md", ID: "alpha", Title: "beta"},
		{Path: "beta.md", ID: "b", Title: "gamma"},
		{Path: "c.md", ID: "c", Title: "alpha"},
	})
	for target, want := range map[string]string{"alpha": "a.md", "beta": "beta.md", "gamma": "beta.md"} {
		if got, _ := g.Resolve("z.md", target); got != want {
			t.Errorf("Resolve(%q) = %q, want %q", target, got, want)
		}
	}
}

func TestLookup(t *testing.T) {
	g := testGraph(t)
	for q, want := range map[string]string{
		"library/ranking.md": "library/ranking.md",
		"library/ranking":    "library/ranking.md",
		"Library/Ranking.md": "library/ranking.md",
		"lib-0003":           "library/ranking.md",
		"ranking":            "library/ranking.md",
		"bleve notes":        "library/bleve-notes.md",
		"dup-b/note":         "observations/dup-b/note.md",
	} {
		n, err := g.Lookup(q)
		if err != nil || n.Path != want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", q, n.Path, err, want)
		}
	}
	_, err := g.Lookup("note")
	var le *LookupError
	if !errors.Is(err, ErrAmbiguous) || !errors.As(err, &le) ||
		!reflect.DeepEqual(le.Candidates, []string{"observations/dup-a/note.md", "observations/dup-b/note.md"}) {
		t.Errorf("Lookup(note) = %v", err)
	}
	if !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("message %q", err)
	}
	if _, err := g.Lookup("missing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Lookup(missing) = %v", err)
	}
	if _, err := g.Lookup(""); !errors.Is(err, ErrNotFound) {
		t.Errorf("Lookup(\"\") = %v", err)
	}
}

func edgeStrings(es []Edge) []string {
	var out []string
	for _, e := range es {
		out = append(out, fmt.Sprintf("%s:%d %s %q -> %q", e.From, e.Link.Line, e.Link.Kind, e.Link.Target, e.To))
	}
	return out
}

func TestForwardBacklinksUnresolved(t *testing.T) {
	g := testGraph(t)
	fwd := edgeStrings(g.Forward("library/search-design.md"))
	want := []string{
		`library/search-design.md:5 tag "search" -> ""`,
		`library/search-design.md:7 wiki "Bleve Notes" -> "library/bleve-notes.md"`,
		`library/search-design.md:7 wiki "lib-0002" -> "library/bleve-notes.md"`,
		`library/search-design.md:7 markdown "ranking.md" -> "library/ranking.md"`,
		`library/search-design.md:8 wiki "episodes/2024-01-01-setup" -> "episodes/2024-01-01-setup.md"`,
		`library/search-design.md:8 markdown "../episodes/2024-01-01-setup.md" -> "episodes/2024-01-01-setup.md"`,
		`library/search-design.md:9 wiki "nowhere" -> ""`,
		`library/search-design.md:9 markdown "../../etc/passwd.md" -> ""`,
		`library/search-design.md:9 wiki "" -> "library/search-design.md"`,
	}
	if !reflect.DeepEqual(fwd, want) {
		t.Errorf("Forward:\n%s\nwant\n%s", strings.Join(fwd, "\n"), strings.Join(want, "\n"))
	}
	// Lookup-style argument works too.
	if len(g.Forward("lib-0001")) != len(want) {
		t.Error("Forward by id")
	}

	back := edgeStrings(g.Backlinks("library/search-design.md"))
	wantBack := []string{
		`episodes/2024-01-01-setup.md:5 wiki "SEARCH DESIGN" -> "library/search-design.md"`,
		`library/bleve-notes.md:5 relation "lib-0001" -> "library/search-design.md"`,
		`library/bleve-notes.md:7 wiki "search-design" -> "library/search-design.md"`,
		`library/search-design.md:9 wiki "" -> "library/search-design.md"`,
	}
	if !reflect.DeepEqual(back, wantBack) {
		t.Errorf("Backlinks:\n%s\nwant\n%s", strings.Join(back, "\n"), strings.Join(wantBack, "\n"))
	}
	if g.Backlinks("missing.md") != nil {
		t.Error("Backlinks(missing) not nil")
	}

	un := edgeStrings(g.Unresolved())
	wantUn := []string{
		`library/bleve-notes.md:4 relation "lib-0000" -> ""`,
		`library/search-design.md:9 wiki "nowhere" -> ""`,
		`library/search-design.md:9 markdown "../../etc/passwd.md" -> ""`,
	}
	if !reflect.DeepEqual(un, wantUn) {
		t.Errorf("Unresolved:\n%s\nwant\n%s", strings.Join(un, "\n"), strings.Join(wantUn, "\n"))
	}
	for _, e := range g.Forward("library/bleve-notes.md") {
		if e.Link.Kind == doc.KindRelation && e.Link.Rel == "" {
			t.Errorf("relation edge without Rel: %+v", e)
		}
	}
}

func TestTagged(t *testing.T) {
	g := testGraph(t)
	if got := g.Tagged("search"); !reflect.DeepEqual(got, []string{"library/bleve-notes.md", "library/search-design.md"}) {
		t.Errorf("Tagged(search) = %v (nested search/bleve must count)", got)
	}
	if got := g.Tagged("#SEARCH/Bleve"); !reflect.DeepEqual(got, []string{"library/bleve-notes.md"}) {
		t.Errorf("Tagged(#SEARCH/Bleve) = %v", got)
	}
	if got := g.Tagged("perf"); !reflect.DeepEqual(got, []string{"library/ranking.md"}) {
		t.Errorf("Tagged(perf) = %v", got)
	}
	if got := g.Tagged("sear"); len(got) != 0 {
		t.Errorf("Tagged(sear) = %v, want none", got)
	}
	if got := g.Tagged(""); got != nil {
		t.Errorf("Tagged(\"\") = %v", got)
	}
}

func paths(g *Graph) []string {
	var out []string
	for _, n := range g.Nodes() {
		out = append(out, n.Path)
	}
	return out
}

func TestSubgraph(t *testing.T) {
	// chain a -> b -> c -> d, and e -> a (backlink of a).
	g := Build([]Node{
		{Path: "a.md", Links: []doc.Link{{Kind: "wiki", Target: "b", Line: 1}, {Kind: "wiki", Target: "missing", Line: 2}}},
		{Path: "b.md", Links: []doc.Link{{Kind: "wiki", Target: "c", Line: 1}}},
		{Path: "c.md", Links: []doc.Link{{Kind: "wiki", Target: "d", Line: 1}}},
		{Path: "d.md"},
		{Path: "e.md", Links: []doc.Link{{Kind: "wiki", Target: "a", Line: 1}}},
		{Path: "island.md"},
	})
	cases := []struct {
		from  string
		depth int
		want  []string
	}{
		{"a.md", 0, []string{"a.md"}},
		{"a.md", 1, []string{"a.md", "b.md", "e.md"}},
		{"a.md", 2, []string{"a.md", "b.md", "c.md", "e.md"}},
		{"c.md", 1, []string{"b.md", "c.md", "d.md"}},
		{"a", 1, []string{"a.md", "b.md", "e.md"}}, // lookup by name
		{"a.md", -1, []string{"a.md", "b.md", "c.md", "d.md", "e.md", "island.md"}},
		{"", 2, []string{"a.md", "b.md", "c.md", "d.md", "e.md", "island.md"}},
		{"nope.md", 3, nil},
	}
	for _, c := range cases {
		if got := paths(g.Subgraph(c.from, c.depth)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Subgraph(%q, %d) = %v, want %v", c.from, c.depth, got, c.want)
		}
	}
	sub := g.Subgraph("a.md", 1)
	if got := edgeStrings(sub.Forward("b.md")); len(got) != 0 {
		t.Errorf("edge to excluded c.md kept: %v", got)
	}
	if got := edgeStrings(sub.Unresolved()); len(got) != 1 {
		t.Errorf("subgraph unresolved = %v", got)
	}
	if got := edgeStrings(sub.Backlinks("a.md")); !reflect.DeepEqual(got, []string{`e.md:1 wiki "a" -> "a.md"`}) {
		t.Errorf("subgraph backlinks = %v", got)
	}
}

func TestExportEscaping(t *testing.T) {
	g := Build([]Node{
		{Path: `we"ird\path.md`, Title: "Quote \" back\\slash\nnewline <b>&amp; `tick` #x; %% | pipe", Type: "note",
			Links: []doc.Link{{Kind: "relation", Rel: `rel"x`, Target: "plain", Line: 1}, {Kind: "wiki", Target: "plain", Line: 2}, {Kind: "wiki", Target: "plain", Line: 3}}},
		{Path: "plain.md", ID: "plain"},
	})
	var dot bytes.Buffer
	if err := g.WriteDOT(&dot); err != nil {
		t.Fatal(err)
	}
	want := `digraph kb {
  node [shape=box];
  "plain.md" [label="plain"];
  "we\"ird\\path.md" [label="Quote \" back\\slash\nnewline <b>&amp; ` + "`tick`" + ` #x; %% | pipe", tooltip="note: we\"ird\\path.md"];
  "we\"ird\\path.md" -> "plain.md" [label="rel\"x", style=dashed];
  "we\"ird\\path.md" -> "plain.md";
}
`
	if dot.String() != want {
		t.Errorf("DOT:\n%s\nwant\n%s", dot.String(), want)
	}
	var mm bytes.Buffer
	if err := g.WriteMermaid(&mm); err != nil {
		t.Fatal(err)
	}
	wantMM := "flowchart LR\n" +
		"  n0[\"plain\"]\n" +
		"  n1[\"Quote #quot; back\\slash newline #lt;b#gt;#amp;amp; #96;tick#96; #35;x; #37;#37; #124; pipe\"]\n" +
		"  n1 -.->|\"rel#quot;x\"| n0\n" +
		"  n1 --> n0\n"
	if mm.String() != wantMM {
		t.Errorf("Mermaid:\n%s\nwant\n%s", mm.String(), wantMM)
	}
	// No raw quote may survive inside a Mermaid label.
	for _, line := range strings.Split(mm.String(), "\n") {
		if strings.Count(line, `"`)%2 != 0 {
			t.Errorf("unbalanced quotes in %q", line)
		}
	}
	js := g.JSON()
	b, err := json.Marshal(js)
	if err != nil {
		t.Fatal(err)
	}
	var back GraphJSON
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, js) {
		t.Errorf("JSON round trip: %v", err)
	}
	if len(js.Edges) != 2 || js.Edges[0].Kind != "relation" || js.Edges[0].Rel != `rel"x` || js.Edges[1].Kind != "wiki" {
		t.Errorf("JSON edges = %+v", js.Edges)
	}
	if e := Build(nil).JSON(); e.Edges == nil || len(e.Nodes) != 0 {
		t.Errorf("empty JSON = %+v", e)
	}
}

func TestBuildDedup(t *testing.T) {
	g := Build([]Node{{Path: "a.md", Title: "first"}, {Path: "a.md", Title: "second"}, {Path: ""}})
	if g.Len() != 1 || g.Nodes()[0].Title != "first" {
		t.Errorf("nodes = %+v", g.Nodes())
	}
}

func FuzzResolve(f *testing.F) {
	f.Add("library/a.md\nlibrary/sub/b.md\nc.md", "library/a.md", "b")
	f.Add("a.md\nA.md", "x.md", "a")
	f.Add("x/y.md", "x/z.md", "../../etc/passwd.md")
	f.Add("note.md", "deep/dir/file.md", "../../note.md")
	f.Add("n.md", "n.md", "")
	f.Fuzz(func(t *testing.T, pathList, from, target string) {
		var nodes []Node
		for i, p := range strings.Split(pathList, "\n") {
			nodes = append(nodes, Node{Path: p, ID: fmt.Sprint("id", i), Title: strings.ToUpper(p),
				Links: []doc.Link{{Kind: "wiki", Target: target, Line: 1}}})
		}
		g := Build(nodes)
		got, ok := g.Resolve(from, target)
		if ok {
			if _, exists := g.Node(got); !exists {
				t.Fatalf("Resolve returned %q, not a node", got)
			}
		}
		got2, ok2 := g.Resolve(from, target)
		if got != got2 || ok != ok2 {
			t.Fatal("Resolve not deterministic")
		}
		if all := g.ResolveAll(from, target); ok != (len(all) > 0) || ok && all[0] != got {
			t.Fatalf("ResolveAll %v disagrees with Resolve %q", all, got)
		}
		// A target that climbs out of the root from a root-level file
		// resolves only by id, name or title, never as a path.
		if strings.HasPrefix(target, "../") && !strings.Contains(from, "/") && ok && strings.Contains(target, "/") {
			n, _ := g.Node(got)
			if !strings.EqualFold(n.ID, target) && !strings.EqualFold(n.Title, target) {
				t.Fatalf("escaping target %q resolved to %q", target, got)
			}
		}
		_, _ = g.Lookup(target)
		_ = g.Subgraph(from, 2)
		var buf bytes.Buffer
		_ = g.WriteDOT(&buf)
		_ = g.WriteMermaid(&buf)
	})
}
