package markdown

import (
	"bytes"
	"fmt"
	"github.com/kbmem/kb/internal/doc"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// pathological are one-line bodies goldmark parses in quadratic time
// (measured before boundBody: 400 KB of "[a](" took 25 s, "- 1. " 13 s).
var pathological = map[string]string{
	"link openers":      "[a](",
	"link dest opener":  "[a](b ",
	"brackets":          "[",
	"wiki openers":      "[[",
	"ordered list":      "1. ",
	"block quotes":      "> ",
	"nested list":       "- 1. ",
	"quote list":        "> - ",
	"emphasis":          "* a *a a* ",
	"bold parens":       "** (",
	"angle destination": "[a](<",
}

// A pathological line between normal content: goldmark does not get the
// line (Fallback says so), the normal links on both sides are found, and
// links inside the line are found by the linear scan.
func TestBoundedPathologicalLine(t *testing.T) {
	for name, unit := range pathological {
		t.Run(name, func(t *testing.T) {
			line := strings.Repeat(unit, 100_000/len(unit)) + " [[inside]] and [in](inside.md)"
			src := "---\ntitle: P\n---\nSee [[before]] and [b](before.md).\n\n" + line + "\n\nThen [[after|alias]] and #tag [c](after.md#h).\n"
			d, err := Parse("p.md", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			for _, l := range d.Links {
				got[l.Kind+":"+l.Target] = l.Line
			}
			want := map[string]int{"wiki:before": 4, "markdown:before.md": 4, "wiki:inside": 6, "markdown:inside.md": 6,
				"wiki:after": 8, "markdown:after.md": 8, "tag:tag": 8}
			for k, line := range want {
				if got[k] != line {
					t.Errorf("link %s: line %d, want %d (links %v)", k, got[k], line, got)
				}
			}
			if !reflect.DeepEqual(d.Fallback, []doc.LineRange{{From: 6, To: 6}}) {
				t.Errorf("Fallback = %v, want line 6 only", d.Fallback)
			}
		})
	}
}

// A body over maxMarkdownBytes: goldmark gets at most that much, the links
// past it are still found, with their lines.
func TestBoundedHugeBody(t *testing.T) {
	var b strings.Builder
	b.WriteString("Start [[first]].\n\n")
	for b.Len() < 3*maxMarkdownBytes {
		b.WriteString("Some ordinary prose about the migration, with *emphasis* and `code`.\n\n")
	}
	lines := strings.Count(b.String(), "\n")
	b.WriteString("End [[last]] and [x](last.md) #final\n")
	before := goldmarkBytes.Load()
	d, err := Parse("h.md", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if n := goldmarkBytes.Load() - before; n > maxMarkdownBytes {
		t.Errorf("goldmark got %d bytes, want at most %d", n, maxMarkdownBytes)
	}
	var found []string
	for _, l := range d.Links {
		found = append(found, fmt.Sprintf("%s:%s@%d", l.Kind, l.Target, l.Line))
	}
	for _, w := range []string{"wiki:first@1", fmt.Sprintf("wiki:last@%d", lines+1), fmt.Sprintf("markdown:last.md@%d", lines+1), fmt.Sprintf("tag:final@%d", lines+1)} {
		if !slices.Contains(found, w) {
			t.Errorf("missing %s", w)
		}
	}
	if len(d.Fallback) != 1 || d.Fallback[0].To != lines+1 {
		t.Errorf("Fallback = %v", d.Fallback)
	}
}

// Ordinary notes break no limit: goldmark reads all of them.
func TestBoundedOrdinaryUntouched(t *testing.T) {
	var list strings.Builder
	for i := range 500 { // a long list of links, each item its own paragraph
		fmt.Fprintf(&list, "- [note %d](n%d.md) about **thing %d** and _more_\n", i, i, i)
	}
	for _, src := range append(slices.Clone(fuzzSeeds), list.String(), "> quote [[a]]\n> > nested [[b]]\n") {
		md, regions := boundBody([]byte(src))
		if len(regions) > 0 || !bytes.Equal(md, []byte(src)) {
			t.Errorf("boundBody changed an ordinary body: %v\n%.200q", regions, src)
		}
	}
}

// The linear scanner finds the same wiki and markdown links as goldmark on
// ordinary markdown (outside code), so a note read by it loses no links.
func TestScanLinearAgrees(t *testing.T) {
	src := []byte(`---
title: T
---
# Heading [[h1]]

See [[a]], [[b|B]], [[c#h]], ![[img.png]], [t](x.md), [u](sub/y.md#z), [v](<w.md>),
[ignored](http://e.com/x.md) [[x]] and #tag-one, #two/three, not#tag, #123.
[titled](t.md "a title") [paren](p.md (title)) [sp]( s.md ) [[e|alias with [[nested]]
- item [[d]] and ` + "`[[code]]`" + ` skipped
  - nested [n](n.md)
> quote [q](q.md) and [[r]]
1. [one](one.md)
[bad](has space.md) [x] (y.md) [[]] [[ ]] [](empty.md)
`)
	d, err := Parse("s.md", src)
	if err != nil {
		t.Fatal(err)
	}
	var res bodyScan
	body := []byte(d.Body)
	nl := []int{}
	for i, c := range body {
		if c == '\n' {
			nl = append(nl, i)
		}
	}
	lineOf := func(off int) int { return d.BodyLine + sortSearch(nl, off) }
	scanLinear(body, region{0, len(body), false}, lineOf, &res)
	key := func(l doc.Link) string {
		return fmt.Sprintf("%s|%s|%s|%d|%v", l.Kind, l.Target, l.Heading, l.Line, l.Embed)
	}
	var want, got []string
	for _, l := range d.Links {
		if l.Kind == doc.KindWiki || l.Kind == doc.KindMarkdown {
			want = append(want, key(l))
		}
	}
	for _, l := range res.links {
		if l.Kind == doc.KindWiki || l.Kind == doc.KindMarkdown {
			got = append(got, key(l))
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("linear scan links differ from goldmark's:\n got %v\nwant %v", got, want)
	}
}

func sortSearch(nl []int, off int) int {
	i, _ := slices.BinarySearch(nl, off)
	return i
}

// FuzzBoundBody checks the contract of boundBody: goldmark's copy is a
// prefix of the body in which only whole lines are blanked, and the
// regions are ordered, disjoint, within the body, and cover exactly the
// blanked lines and what follows the cut.
func FuzzBoundBody(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	for _, u := range pathological {
		f.Add([]byte("a [[x]]\n\n" + strings.Repeat(u, 200) + "\n\nb [y](y.md)\n"))
	}
	f.Add([]byte("```\n" + strings.Repeat("[a](", 50) + "\n```\n[[z]]"))
	f.Fuzz(func(t *testing.T, body []byte) {
		md, regions := boundBody(body)
		if len(md) > len(body) || len(md) > maxMarkdownBytes+1<<16 {
			t.Fatalf("md %d bytes of %d", len(md), len(body))
		}
		covered := make([]bool, len(body))
		end := 0
		for _, r := range regions {
			if r.start < end || r.end <= r.start || r.end > len(body) {
				t.Fatalf("bad region %+v after %d (len %d)", r, end, len(body))
			}
			end = r.end
			for i := r.start; i < r.end; i++ {
				covered[i] = true
			}
		}
		for i := range md {
			switch {
			case covered[i] && body[i] != '\n' && md[i] != ' ':
				t.Fatalf("byte %d in a region not blanked", i)
			case !covered[i] && md[i] != body[i]:
				t.Fatalf("byte %d outside regions changed", i)
			}
		}
		for i := len(md); i < len(body); i++ {
			if !covered[i] {
				t.Fatalf("byte %d past the cut not in a region", i)
			}
		}
		// Parsing never fails on the markdown side.
		if _, err := Parse("f.md", body); err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatal(err)
		}
	})
}

// BenchmarkParsePathological parses one-line bodies of growing size: the
// time per byte stays flat (linear), where goldmark alone grows with the
// size (quadratic: 400 KB of "[a](" took 25 s).
func BenchmarkParsePathological(b *testing.B) {
	for _, name := range []string{"link openers", "nested list", "emphasis", "wiki openers"} {
		unit := pathological[name]
		for _, size := range []int{100 << 10, 400 << 10, 1600 << 10} {
			src := []byte(strings.Repeat(unit, size/len(unit)))
			b.Run(fmt.Sprintf("%s/%dKB", strings.ReplaceAll(name, " ", "-"), size>>10), func(b *testing.B) {
				b.SetBytes(int64(len(src)))
				for b.Loop() {
					if _, err := Parse("p.md", src); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
