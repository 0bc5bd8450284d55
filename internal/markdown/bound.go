package markdown

import (
	"bytes"
	"github.com/kbmem/kb/internal/doc"
	"strings"
)

// goldmark's work is not linear on every input: a line of 400 KB of "[a]("
// takes it 25 s (each unclosed link destination is scanned to the end of
// the paragraph), "1. 1. 1. ..." or "> > > ..." 11 s (each nesting level
// re-examines the rest of the line), and 1 MB of "* a *a a* " 8 s
// (unmatched emphasis delimiters are compared pairwise). scanBody
// therefore gives goldmark only what it parses in linear time, and reads
// the rest with scanLinear, a single pass that finds the same kinds of
// links and tags:
//
//   - at most maxMarkdownBytes of a body, cut at a line end;
//   - no line with more than maxNesting block-container markers (list
//     items, block quotes) at its start;
//   - no paragraph past the line where it reaches maxOpenDest link
//     destinations that do not close on their line, maxBrackets '[', or
//     maxDelims runs of '*' or '_'.
//
// A paragraph here is a run of non-blank lines, cut also before a list
// item or heading line (which start a new block for goldmark too): an
// over-estimate of goldmark's paragraphs, which is the safe side.
//
// Lines that break a rule are blanked (spaces, newlines kept) in the copy
// goldmark parses, so offsets and line numbers hold, and scanned linearly.
// A blanked line ends a paragraph for goldmark, so what it still sees of a
// paragraph is within the limits. Normal notes break none of the rules;
// a single-paragraph line of 3,000 wiki links breaks the bracket rule and
// is read by the linear scanner, which finds the same links.
const (
	maxMarkdownBytes = 1 << 20
	maxNesting       = 16
	maxOpenDest      = 32
	maxBrackets      = 2048
	maxDelims        = 256
	// maxWikiInner bounds the text between [[ and ]]: a longer run is
	// not a wiki link, and no opener looks further than this for "]]".
	maxWikiInner = 1024
)

// region is a byte range of a body that goldmark does not see.
type region struct {
	start, end int
	code       bool // inside a fenced code block: no links
}

// boundBody returns what goldmark may parse (body itself when every line
// is within the limits) and the regions to scan linearly.
func boundBody(body []byte) ([]byte, []region) {
	var (
		regions  []region
		md       []byte // copy with blanked lines, made on the first one
		fence    []byte // the open fence's marker, nil outside one
		open     int    // unclosed link destinations in this paragraph
		brackets int
		delims   int
		paraBad  bool
		cut      = -1 // where goldmark's part ends
	)
	add := func(s, e int, code bool) {
		if n := len(regions); n > 0 && regions[n-1].end == s && regions[n-1].code == code {
			regions[n-1].end = e
		} else {
			regions = append(regions, region{s, e, code})
		}
	}
	blank := func(s, e int, code bool) {
		if md == nil {
			md = bytes.Clone(body[:min(len(body), maxMarkdownBytes)])
		}
		add(s, e, code)
		for i := s; i < e; i++ {
			if md[i] != '\n' {
				md[i] = ' '
			}
		}
	}
	for s := 0; s < len(body); {
		e := bytes.IndexByte(body[s:], '\n')
		if e < 0 {
			e = len(body)
		} else {
			e += s + 1
		}
		line := body[s:e]
		code := fence != nil
		// A fence line opens or closes a code block, which also ends a
		// paragraph; it is never blanked (goldmark must see the block).
		f := fenceMarker(line)
		if f != nil {
			switch {
			case fence == nil:
				fence = f
			case f[0] == fence[0] && len(f) >= len(fence) && len(bytes.TrimSpace(line)) == len(f):
				fence = nil
			}
		}
		switch {
		case cut >= 0 || e > maxMarkdownBytes:
			if cut < 0 {
				cut = s
			}
			add(s, e, code)
		case f != nil || len(bytes.TrimSpace(line)) == 0:
			open, brackets, delims, paraBad = 0, 0, 0, false
		default:
			if startsBlock(line) {
				open, brackets, delims, paraBad = 0, 0, 0, false
			}
			if !paraBad {
				c := countInline(line)
				open += c.open
				brackets += c.brackets
				delims += c.delims
				paraBad = open > maxOpenDest || brackets > maxBrackets || delims > maxDelims
			}
			if paraBad || nesting(line) > maxNesting {
				blank(s, e, code)
			}
		}
		s = e
	}
	switch {
	case md == nil && cut < 0:
		return body, nil
	case md == nil:
		return body[:cut], regions
	case cut >= 0:
		return md[:cut], regions
	}
	return md, regions
}

// fenceMarker returns the ``` or ~~~ run opening a fenced code block line
// (up to three spaces of indent), or nil.
func fenceMarker(line []byte) []byte {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	if i >= len(line) || (line[i] != '`' && line[i] != '~') {
		return nil
	}
	c, j := line[i], i
	for j < len(line) && line[j] == c {
		j++
	}
	if j-i < 3 || (c == '`' && bytes.IndexByte(line[j:], '`') >= 0) {
		return nil
	}
	return line[i:j]
}

// nesting counts the block-container markers at the start of a line: '>'
// and list markers ("-", "*", "+", "1." or "1)" followed by a space). It
// stops counting past maxNesting.
func nesting(line []byte) int {
	d, i := 0, 0
	for d <= maxNesting {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i >= len(line) {
			return d
		}
		switch c := line[i]; {
		case c == '>':
			d++
			i++
		case (c == '-' || c == '*' || c == '+') && i+1 < len(line) && (line[i+1] == ' ' || line[i+1] == '\t'):
			d++
			i += 2
		case c >= '0' && c <= '9':
			j := i
			for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j+1 >= len(line) || (line[j] != '.' && line[j] != ')') || (line[j+1] != ' ' && line[j+1] != '\t') {
				return d
			}
			d++
			i = j + 2
		default:
			return d
		}
	}
	return d
}

// startsBlock reports whether a line starts a new block, ending the
// paragraph before it: a bullet list item or an ATX heading, after up to
// three spaces and any block-quote markers. (An indented "- x" can be a
// paragraph's continuation, so four spaces do not count.)
func startsBlock(line []byte) bool {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	for i < len(line) && line[i] == '>' {
		i++
		for i < len(line) && i < 3 && line[i] == ' ' {
			i++
		}
	}
	if i+1 >= len(line) {
		return false
	}
	switch c := line[i]; c {
	case '-', '*', '+', '#':
		j := i + 1
		for c == '#' && j < len(line) && j-i < 6 && line[j] == '#' {
			j++
		}
		return j < len(line) && (line[j] == ' ' || line[j] == '\t') && len(bytes.TrimSpace(line[j:])) > 0
	}
	return false
}

// inlineCounts are what countInline finds in a line.
type inlineCounts struct {
	open     int // "](" whose destination does not close with ')' before a space or the line end
	brackets int // '['
	delims   int // runs of '*' or '_'
}

// countInline counts a line's inline openers. Each byte is looked at a
// bounded number of times: the end found for one link destination serves
// every later opener before it.
func countInline(line []byte) inlineCounts {
	var c inlineCounts
	stop := -1 // index of the first stop byte at or after the last search
	for i := 0; i < len(line); i++ {
		switch b := line[i]; b {
		case '[':
			c.brackets++
		case '*', '_':
			if i == 0 || line[i-1] != b {
				c.delims++
			}
		case ']':
			if i+1 >= len(line) || line[i+1] != '(' {
				continue
			}
			from := i + 2
			if stop < from {
				stop = destStop(line, from)
			}
			if stop >= len(line) || line[stop] != ')' {
				c.open++
			}
		}
	}
	return c
}

// destStop returns the index of the first ')', space, tab or line end at
// or after from (len(line) when none).
func destStop(line []byte, from int) int {
	for j := from; j < len(line); j++ {
		switch line[j] {
		case ')', ' ', '\t', '\n', '\r':
			return j
		}
	}
	return len(line)
}

// scanLinear finds links and tags in body[r.start:r.end] in one pass, for
// the regions goldmark does not see: [[wiki]] and ![[embed]] links,
// [text](path.md) links (text taken as written), and #tags, outside
// `code spans`. Fenced code yields nothing.
func scanLinear(body []byte, r region, lineOf func(int) int, res *bodyScan) {
	if r.code {
		return
	}
	for s := r.start; s < r.end; {
		e := bytes.IndexByte(body[s:r.end], '\n')
		if e < 0 {
			e = r.end
		} else {
			e += s
		}
		scanLine(body, s, e, lineOf, res)
		s = e + 1
	}
}

// scanLine is scanLinear on one line body[s:e] (without its newline).
func scanLine(body []byte, s, e int, lineOf func(int) int, res *bodyScan) {
	line := body[s:e]
	var (
		opener    = -1 // last '[' that may open [text](dest)
		dm        destMemo
		wikiClose = -1 // memo: the first "]]" at or after the last search (len(line): none)
		wikiBad   = -1 // memo: the last '[', ']' or '\r' between that search and wikiClose
		inCode    = false
	)
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == '`' {
			inCode = !inCode
			continue
		}
		if inCode {
			continue
		}
		switch c {
		case '#':
			res.tags = append(res.tags, inlineTags(body, s+i, s+i+1, func(t string, off int) {
				res.links = append(res.links, doc.Link{Kind: doc.KindTag, Target: t, Line: lineOf(off)})
			})...)
		case '[':
			embed := i > 0 && line[i-1] == '!'
			if i+1 < len(line) && line[i+1] == '[' {
				from := i + 2
				if from > wikiClose {
					// Searches start past the last "]]" found, so the
					// line is scanned once however many openers it has.
					wikiClose = len(line)
					if k := bytes.Index(line[from:], []byte("]]")); k >= 0 {
						wikiClose = from + k
					}
					wikiBad = -1
					if k := bytes.LastIndexAny(line[from:wikiClose], "[]\r"); k >= 0 {
						wikiBad = from + k
					}
				}
				if wikiClose < len(line) && wikiClose > from && wikiClose-from <= maxWikiInner && wikiBad < from {
					if n := parseWikiInner(string(line[from:wikiClose])); n != nil {
						res.links = append(res.links, doc.Link{Kind: doc.KindWiki, Target: n.target, Heading: n.heading, Alias: n.alias, Line: lineOf(s + i), Embed: embed})
						i = wikiClose + 1
						opener = -1
						continue
					}
				}
			}
			opener = i
		case ']':
			if opener < 0 || i+1 >= len(line) || line[i+1] != '(' {
				continue
			}
			dest, after, ok := dm.dest(line, i+2)
			closeAt := -1
			if ok {
				closeAt = linkTail(line, after)
			}
			if closeAt < 0 {
				opener = -1
				continue
			}
			if l, ok := markdownLink(string(dest)); ok {
				l.Alias = strings.TrimSpace(string(line[opener+1 : i]))
				l.Line = lineOf(s + opener)
				res.links = append(res.links, l)
			}
			opener = -1
			i = closeAt
		}
	}
}

// destMemo finds link destinations in one line in linear time: the end
// found for one destination, and the last byte that disqualifies it,
// serve every later destination that starts before that end.
type destMemo struct {
	from, stop, bad int // [from, stop) searched; bad: last '[', ']', '(' or '<' in it, or -1
	set             bool
}

// dest returns the destination starting at line[from] ("<...>" or a run
// without spaces, parentheses or brackets) and the index after it.
func (m *destMemo) dest(line []byte, from int) (dest []byte, after int, ok bool) {
	for lim := min(len(line), from+maxWikiInner); from < lim && (line[from] == ' ' || line[from] == '\t'); {
		from++
	}
	if from >= len(line) {
		return nil, 0, false
	}
	if line[from] == '<' {
		lim := min(len(line), from+1+maxWikiInner)
		k := bytes.IndexAny(line[from+1:lim], "<>")
		if k < 0 || line[from+1+k] != '>' {
			return nil, 0, false
		}
		return line[from+1 : from+1+k], from + k + 2, true
	}
	if !m.set || from < m.from || from > m.stop {
		m.set, m.from, m.stop, m.bad = true, from, destStop(line, from), -1
		if k := bytes.LastIndexAny(line[from:m.stop], "[]()<"); k >= 0 {
			m.bad = from + k
		}
	}
	if m.bad >= from {
		return nil, 0, false
	}
	return line[from:m.stop], m.stop, true
}

// linkTail reads what may follow a destination: spaces, an optional
// "title", 'title' or (title), spaces, then ')'. It returns the index of
// the ')' or -1. It looks at most maxWikiInner bytes ahead.
func linkTail(line []byte, i int) int {
	lim := min(len(line), i+maxWikiInner)
	skip := func() {
		for i < lim && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
	}
	skip()
	if i < lim && (line[i] == '"' || line[i] == '\'' || line[i] == '(') {
		closer := line[i]
		if closer == '(' {
			closer = ')'
		}
		k := bytes.IndexByte(line[i+1:lim], closer)
		if k < 0 {
			return -1
		}
		i += k + 2
		skip()
	}
	if i < lim && line[i] == ')' {
		return i
	}
	return -1
}
