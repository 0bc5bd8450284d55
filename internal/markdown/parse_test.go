package markdown

import (
	"github.com/kbmem/kb/internal/testenv"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kbmem/kb/internal/doc"
)

// The sample notes and fuzz seeds are internal/doc's (its testdata).
var (
	sampleNote  = testenv.File("../doc/testdata/sample.md")
	handWritten = testenv.File("../doc/testdata/handwritten.md")
	fuzzSeeds   = append([]string{sampleNote, handWritten}, testenv.Strings("../doc/testdata/fuzz-seeds.json")...)
)

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

	want := []doc.Link{
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
			var g, w doc.Link
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
	wantLinks := []doc.Link{{Kind: "tag", Target: "a", Line: 4}, {Kind: "wiki", Target: "x", Line: 7}, {Kind: "tag", Target: "t", Line: 8}}
	if !reflect.DeepEqual(d.Links, wantLinks) {
		t.Errorf("links %+v", d.Links)
	}
	if !reflect.DeepEqual(d.Tags, []string{"a", "t"}) {
		t.Errorf("tags %v", d.Tags)
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

func TestParseFrontmatterSkipsBody(t *testing.T) {
	src := []byte("---\nid: a\ntitle: A\ntags: [x]\n---\n# A\n\nSee [[B]] and #y.\n")
	full, err := Parse("a.md", src)
	if err != nil {
		t.Fatal(err)
	}
	head, err := doc.ParseFrontmatter("a.md", src)
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
	if _, err := doc.ParseFrontmatter("bad.md", []byte("---\nid: [unclosed\n---\n")); err == nil {
		t.Error("a broken frontmatter parsed")
	}
}

// FuzzLinks checks link extraction on arbitrary bodies.
func FuzzLinks(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Add("[[a]] [[b|c]] [[d#e]] [[f#g|h]] ![[i]] [j](k.md) [l](m.md#n) [o](http://p/q.md)")
	f.Fuzz(func(t *testing.T, body string) {
		d, err := Parse("l.md", []byte(body))
		if err != nil {
			if strings.Contains(err.Error(), "internal error") {
				t.Fatalf("recovered panic: %v", err)
			}
			return
		}
		lines := 1 + strings.Count(body, "\n")
		for _, l := range d.Links {
			if l.Line < 1 || l.Line > lines {
				t.Fatalf("link %+v line outside 1..%d", l, lines)
			}
			switch l.Kind {
			case doc.KindWiki:
				if strings.Contains(l.Target, "]]") || strings.ContainsAny(l.Target, "\n|#") {
					t.Fatalf("bad wiki target %q", l.Target)
				}
			case doc.KindMarkdown:
				if !strings.HasSuffix(strings.ToLower(l.Target), ".md") || strings.HasPrefix(l.Target, "/") {
					t.Fatalf("bad markdown target %q", l.Target)
				}
			case doc.KindTag:
				if l.Target == "" || strings.HasPrefix(l.Target, "#") || strings.ContainsAny(l.Target, " \t\n,") {
					t.Fatalf("bad tag %q", l.Target)
				}
			case doc.KindRelation:
			default:
				t.Fatalf("unknown kind %q", l.Kind)
			}
		}
	})
}
