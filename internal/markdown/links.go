package markdown

import (
	"bytes"
	"fmt"
	"github.com/kbmem/kb/internal/doc"
	"net/url"
	"sort"
	"strings"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// mdParser is CommonMark plus an inline parser for Obsidian [[wiki links]].
// goldmark parsers keep no per-parse state, so one is shared.
var mdParser = parser.NewParser(
	parser.WithBlockParsers(parser.DefaultBlockParsers()...),
	parser.WithInlineParsers(append(parser.DefaultInlineParsers(),
		util.Prioritized(wikiParser{}, 199))...), // before the link parser (200)
	parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
)

var kindWiki = ast.NewNodeKind("KBWikiLink")

// wikiNode is an inline [[target#heading|alias]] or ![[embed]].
type wikiNode struct {
	ast.BaseInline
	target, heading, alias string
	embed                  bool
}

func (n *wikiNode) Kind() ast.NodeKind { return kindWiki }

func (n *wikiNode) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"Target": n.target, "Heading": n.heading, "Alias": n.alias}, nil)
}

type wikiParser struct{}

func (wikiParser) Trigger() []byte { return []byte{'[', '!'} }

// wikiMemo remembers, for one parse, where the next "]]" is: every '[' of a
// line would otherwise search the rest of the line for it, which is
// quadratic in a line of openers. Offsets are absolute in the source.
type wikiMemo struct {
	from  int // where the last search started
	close int // the "]]" it found; the line's end when none
	bad   int // the last '[', ']', '\n' or '\r' in [from, close), or -1
}

var wikiMemoKey = parser.NewContextKey()

func (wikiParser) Parse(_ ast.Node, block text.Reader, pc parser.Context) ast.Node {
	line, seg := block.PeekLine()
	start := 2
	embed := false
	if bytes.HasPrefix(line, []byte("![[")) {
		start, embed = 3, true
	} else if !bytes.HasPrefix(line, []byte("[[")) {
		return nil
	}
	var end int
	if seg.Padding != 0 {
		// Offsets within line are not source offsets: no memo, and a
		// bounded search.
		end = bytes.Index(line[start:min(len(line), start+maxWikiInner+2)], []byte("]]"))
		if end <= 0 || bytes.ContainsAny(line[start:start+end], "[]\n\r") {
			return nil
		}
	} else {
		abs := seg.Start + start
		m, _ := pc.Get(wikiMemoKey).(*wikiMemo)
		if m == nil {
			m = &wikiMemo{close: -1}
			pc.Set(wikiMemoKey, m)
		}
		if abs < m.from || abs > m.close {
			m.from, m.close, m.bad = abs, seg.Start+len(line), -1
			if k := bytes.Index(line[start:], []byte("]]")); k >= 0 {
				m.close = abs + k
			}
			if k := bytes.LastIndexAny(line[start:m.close-seg.Start], "[]\n\r"); k >= 0 {
				m.bad = abs + k
			}
		}
		end = m.close - abs
		if m.close >= seg.Start+len(line) || end <= 0 || end > maxWikiInner || m.bad >= abs {
			return nil
		}
	}
	inner := line[start : start+end]
	n := parseWikiInner(string(inner))
	if n == nil {
		return nil
	}
	n.embed = embed
	block.Advance(start + end + 2)
	return n
}

// parseWikiInner splits "target#heading|alias" (doc.SplitWiki).
func parseWikiInner(s string) *wikiNode {
	target, heading, alias, ok := doc.SplitWiki(s)
	if !ok {
		return nil
	}
	return &wikiNode{target: target, heading: heading, alias: alias}
}

type bodyScan struct {
	links    []doc.Link
	tags     []string
	fallback []region // what goldmark did not see
}

// goldmarkBytes counts the bytes given to goldmark (for tests).
var goldmarkBytes atomic.Int64

// scanBody extracts links and inline tags from a markdown body. firstLine is
// the file line of body[0].
func scanBody(body []byte, firstLine int) (res bodyScan, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &doc.ParseError{Line: firstLine, Msg: fmt.Sprintf("markdown: internal error: %v", r)}
		}
	}()
	if len(body) == 0 {
		return res, nil
	}
	var nl []int // offsets of '\n'
	for i, c := range body {
		if c == '\n' {
			nl = append(nl, i)
		}
	}
	lineOf := func(off int) int {
		return firstLine + sort.SearchInts(nl, off)
	}
	// goldmark sees only what it parses in linear time; the rest (most
	// notes have none) is scanned linearly. See boundBody.
	md, rest := boundBody(body)
	goldmarkBytes.Add(int64(len(md)))
	root := mdParser.Parse(text.NewReader(md))
	lastPos := 0
	err = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.CodeSpan, *ast.CodeBlock, *ast.FencedCodeBlock, *ast.HTMLBlock, *ast.RawHTML, *ast.AutoLink:
			return ast.WalkSkipChildren, nil
		case *wikiNode:
			pos := n.Pos()
			if pos < 0 {
				pos = lastPos
			}
			res.links = append(res.links, doc.Link{Kind: doc.KindWiki, Target: n.target, Heading: n.heading, Alias: n.alias, Line: lineOf(pos), Embed: n.embed})
		case *ast.Link:
			pos := n.Pos()
			if pos < 0 {
				pos = lastPos
			}
			if l, ok := markdownLink(string(n.Destination)); ok {
				l.Alias = strings.TrimSpace(inlineText(n, md))
				l.Line = lineOf(pos)
				res.links = append(res.links, l)
			}
		case *ast.Text:
			lastPos = n.Segment.Start
			res.tags = append(res.tags, inlineTags(md, n.Segment.Start, n.Segment.Stop, func(t string, off int) {
				res.links = append(res.links, doc.Link{Kind: doc.KindTag, Target: t, Line: lineOf(off)})
			})...)
		}
		return ast.WalkContinue, nil
	})
	for _, r := range rest {
		scanLinear(body, r, lineOf, &res)
	}
	res.fallback = rest
	return res, err
}

// inlineText concatenates the text under n.
func inlineText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
			if c.SoftLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.CodeSpan:
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				if tt, ok := t.(*ast.Text); ok {
					b.Write(tt.Segment.Value(src))
				}
			}
			return ast.WalkSkipChildren, nil
		case *wikiNode:
			if c.alias != "" {
				b.WriteString(c.alias)
			} else {
				b.WriteString(c.target)
			}
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// markdownLink keeps relative links to .md files.
func markdownLink(dest string) (doc.Link, bool) {
	dest = strings.TrimSpace(dest)
	if dest == "" || strings.HasPrefix(dest, "/") || strings.HasPrefix(dest, `\`) || strings.HasPrefix(dest, "#") {
		return doc.Link{}, false
	}
	frag := ""
	if i := strings.IndexByte(dest, '#'); i >= 0 {
		dest, frag = dest[:i], dest[i+1:]
	}
	if i := strings.IndexByte(dest, '?'); i >= 0 {
		dest = dest[:i]
	}
	// A scheme (http:, mailto:, file:, C:) means not a relative path.
	if i := strings.IndexByte(dest, ':'); i >= 0 && !strings.ContainsAny(dest[:i], "/") {
		return doc.Link{}, false
	}
	if p, err := url.PathUnescape(dest); err == nil {
		dest = p
	}
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	if !strings.HasSuffix(strings.ToLower(dest), ".md") || strings.HasPrefix(dest, "/") {
		return doc.Link{}, false
	}
	return doc.Link{Kind: doc.KindMarkdown, Target: dest, Heading: frag}, true
}

// inlineTags finds #tags in body[start:stop]: '#' at the start of a line or
// after whitespace, then letters, digits, '-', '_' or '/', not all digits.
// The tag may run past stop (goldmark splits text at punctuation).
func inlineTags(body []byte, start, stop int, found func(tag string, off int)) []string {
	var tags []string
	for i := start; i < stop; i++ {
		if body[i] != '#' {
			continue
		}
		if i > 0 {
			switch body[i-1] {
			case ' ', '\t', '\n', '\r':
			default:
				continue
			}
		}
		j := i + 1
		digitsOnly := true
		for j < len(body) {
			r, n := utf8.DecodeRune(body[j:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '/') {
				break
			}
			if !unicode.IsDigit(r) {
				digitsOnly = false
			}
			j += n
		}
		tag := string(body[i+1 : j])
		if tag == "" || digitsOnly {
			continue
		}
		tags = append(tags, tag)
		found(tag, i)
		i = j - 1
	}
	return tags
}
