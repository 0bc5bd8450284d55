package doc

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Field is one frontmatter key and value for Render.
type Field struct {
	Key   string
	Value any
}

// Update rewrites a document's frontmatter keys and, if body is not nil, its
// body. A nil value in set deletes the key. Every byte outside the changed
// keys stays identical: a present key is replaced by rewriting exactly the
// lines its node spans (key line through the last line of its value, not
// trailing comments or blank lines), new keys are appended at the end of the
// frontmatter in sorted order, and a frontmatter block is created if the file
// has none. Values are encoded with yaml.v3: strings quoted only when
// needed, dates plain, short scalar lists in flow style, maps in block
// style. CRLF files get CRLF lines.
//
// When the key cannot be edited line by line (a flow-style mapping, an
// alias to an anchor elsewhere), the frontmatter is re-encoded from its YAML
// tree, which keeps comments but not formatting. The result is re-parsed and
// checked before it is returned. Errors are *ParseError for unparsable input
// (Path empty) and plain errors for unencodable values.
func Update(src []byte, set map[string]any, body *string) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("update frontmatter: internal error: %v", r)
		}
	}()
	l, err := locate(src)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		if k == "" {
			return nil, errors.New("update frontmatter: empty key")
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)

	enc := make(map[string]*encoded, len(keys))
	for _, k := range keys {
		if set[k] == nil {
			continue
		}
		e, err := encodePair(k, set[k], l.crlf)
		if err != nil {
			return nil, err
		}
		enc[k] = e
	}

	var newData []byte
	dataChanged := false
	switch {
	case !l.hasFM:
		if len(enc) > 0 {
			var b bytes.Buffer
			for _, k := range keys {
				if e := enc[k]; e != nil {
					b.Write(e.text)
				}
			}
			newData = b.Bytes()
			dataChanged = true
		}
	default:
		newData, dataChanged, err = editLines(src, l, keys, enc)
		if err != nil {
			newData, err = reencode(l, keys, enc)
			if err != nil {
				return nil, err
			}
			dataChanged = true
		}
	}

	nl := "\n"
	if l.crlf {
		nl = "\r\n"
	}
	build := func(data []byte) []byte {
		var b bytes.Buffer
		b.Grow(len(src) + len(data) + 64)
		if !l.hasFM {
			b.Write(src[:l.bom])
			if dataChanged {
				b.WriteString("---" + nl)
				b.Write(data)
				b.WriteString("---" + nl + nl)
			}
			if body != nil {
				b.WriteString(*body)
			} else {
				b.Write(src[l.bom:])
			}
			return b.Bytes()
		}
		b.Write(src[:l.dataStart])
		if dataChanged {
			b.Write(data)
		} else {
			b.Write(src[l.dataStart:l.dataEnd])
		}
		if body == nil {
			b.Write(src[l.dataEnd:])
			return b.Bytes()
		}
		b.Write(src[l.dataEnd:l.bodyStart])
		if l.closeEnd > 0 && src[l.closeEnd-1] != '\n' {
			b.WriteString(nl) // the closing --- was the last line, unterminated
		}
		if l.bodyStart == l.closeEnd {
			b.WriteString(nl) // the blank line Parse strips from Body
		}
		b.WriteString(*body)
		return b.Bytes()
	}
	out = build(newData)
	if verr := verifyUpdate(out, keys, enc); verr != nil {
		if !l.hasFM || !dataChanged {
			return nil, fmt.Errorf("update frontmatter: %w", verr)
		}
		// Line editing produced something unexpected: re-encode instead.
		data, rerr := reencode(l, keys, enc)
		if rerr != nil {
			return nil, rerr
		}
		out = build(data)
		if verr := verifyUpdate(out, keys, enc); verr != nil {
			return nil, fmt.Errorf("update frontmatter: %w", verr)
		}
	}
	return out, nil
}

// encoded is a key: value pair rendered as YAML lines, and the value node as
// yaml.v3 parses those lines back.
type encoded struct {
	text  []byte
	value *yaml.Node // key's value parsed from text
	node  *yaml.Node // value node used to produce text
}

// encodePair renders key: value as YAML lines ending in a newline.
func encodePair(key string, value any, crlf bool) (e *encoded, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, err = nil, fmt.Errorf("encode frontmatter key %q: %v", key, r)
		}
	}()
	vn, err := valueNode(value)
	if err != nil {
		return nil, fmt.Errorf("encode frontmatter key %q: %w", key, err)
	}
	kn := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}
	m := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{kn, vn}}
	text, err := marshalNode(m)
	if err != nil {
		return nil, fmt.Errorf("encode frontmatter key %q: %w", key, err)
	}
	var back yaml.Node
	if err := yaml.Unmarshal(text, &back); err != nil || back.Kind != yaml.DocumentNode || len(back.Content) != 1 ||
		back.Content[0].Kind != yaml.MappingNode || len(back.Content[0].Content) != 2 {
		return nil, fmt.Errorf("encode frontmatter key %q: value does not round-trip", key)
	}
	if crlf {
		text = bytes.ReplaceAll(text, []byte("\n"), []byte("\r\n"))
	}
	return &encoded{text: text, value: back.Content[0].Content[1], node: vn}, nil
}

func marshalNode(n *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// valueNode converts a Go value to a yaml node with kb's styles.
func valueNode(v any) (*yaml.Node, error) {
	switch x := v.(type) {
	case *yaml.Node:
		quoteUnprintable(x)
		return x, nil
	case time.Time:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!timestamp", Value: formatTime(x)}, nil
	case string:
		if looksLikeTime(x) {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!timestamp", Value: x}, nil
		}
	}
	n := &yaml.Node{}
	if err := n.Encode(quoteUnprintableStrings(v)); err != nil {
		return nil, err
	}
	styleNode(n)
	quoteUnprintable(n)
	return n, nil
}

// quoteUnprintableStrings is v with each string yaml.v3 cannot write so
// that it reads it back (a control character, a block that opens with a
// line break; in maps and lists, as frontmatter values hold them) as a
// double-quoted node.
func quoteUnprintableStrings(v any) any {
	switch x := v.(type) {
	case string:
		if needsQuotes(x) {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Style: yaml.DoubleQuotedStyle, Value: x}
		}
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = quoteUnprintableStrings(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = quoteUnprintableStrings(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = quoteUnprintableStrings(e)
		}
		return out
	case []map[string]any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = quoteUnprintableStrings(e)
		}
		return out
	}
	return v
}

// needsQuotes reports whether s must be written double-quoted to be read
// back: it holds a control character, or a line break in a form yaml.v3's
// block scalars lose.
func needsQuotes(s string) bool {
	if !utf8.ValidString(s) {
		return false // yaml.v3 writes it as !!binary, which reads back
	}
	return strings.IndexFunc(s, unprintable) >= 0 || strings.ContainsAny(s, "\n\r") && !roundTrips(s)
}

// roundTrips reports whether yaml.v3 reads back the string it writes for
// s: it does not for a block scalar that opens with a line break
// ("\n**Do:** ..." comes back as an alias).
func roundTrips(s string) bool {
	b, err := yaml.Marshal(map[string]string{"k": s})
	if err != nil {
		return false
	}
	var back map[string]string
	return yaml.Unmarshal(b, &back) == nil && back["k"] == s
}

// quoteUnprintable double-quotes every string scalar of n that needsQuotes
// ("\x15**Do:**" or "\n**Do:**" in a merge conflict's text, FuzzGitMerge);
// quoted, the encoder escapes what it would write raw.
func quoteUnprintable(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && n.Style != yaml.DoubleQuotedStyle && (n.Tag == "" || n.Tag == "!!str") && needsQuotes(n.Value) {
		n.Style = yaml.DoubleQuotedStyle
	}
	for _, c := range n.Content {
		quoteUnprintable(c)
	}
}

func formatTime(t time.Time) string {
	if t.Location() == time.UTC && t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
		return t.Format("2006-01-02")
	}
	return t.Format(time.RFC3339)
}

// looksLikeTime reports whether yaml.v3 would read s, written plain, as the
// same timestamp text (YYYY-MM-DD or RFC 3339).
func looksLikeTime(s string) bool {
	if len(s) < 10 || len(s) > 40 || strings.TrimSpace(s) != s {
		return false
	}
	for _, layout := range []string{"2006-01-02", time.RFC3339Nano} {
		if t, err := time.Parse(layout, s); err == nil && t.Year() >= 1000 {
			var n yaml.Node
			if yaml.Unmarshal([]byte("v: "+s), &n) == nil && len(n.Content) == 1 && len(n.Content[0].Content) == 2 {
				v := n.Content[0].Content[1]
				return v.ShortTag() == "!!timestamp" && v.Value == s
			}
		}
	}
	return false
}

// styleNode sets flow style on short lists of scalars and block style on
// everything else.
func styleNode(n *yaml.Node) {
	switch n.Kind {
	case yaml.DocumentNode, yaml.MappingNode:
		n.Style &^= yaml.FlowStyle
		for _, c := range n.Content {
			styleNode(c)
		}
	case yaml.SequenceNode:
		n.Style &^= yaml.FlowStyle
		width := 2
		flow := true
		for _, c := range n.Content {
			styleNode(c)
			if c.Kind != yaml.ScalarNode || strings.ContainsAny(c.Value, "\n\r") {
				flow = false
			}
			width += len(c.Value) + 4
		}
		if flow && width <= 72 {
			n.Style |= yaml.FlowStyle
		}
	}
}

// unprintable reports whether r cannot stand unescaped in a YAML scalar: a
// control character other than tab and line breaks.
func unprintable(r rune) bool {
	return r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r >= 0x7f && r < 0xa0 || r == 0xfeff
}

// editLines replaces or deletes the lines of existing keys and appends new
// keys. It fails when a key's lines cannot be delimited exactly.
func editLines(src []byte, l *layout, keys []string, enc map[string]*encoded) ([]byte, bool, error) {
	data := src[l.dataStart:l.dataEnd]
	starts := lineStarts(data)
	lineOff := func(line int) int { // byte offset of 1-based data line; len(data) past the end
		if line-1 < len(starts) {
			return starts[line-1]
		}
		return len(data)
	}
	type edit struct {
		from, to int
		text     []byte
	}
	var edits []edit
	var appendText []byte
	for _, k := range keys {
		i := l.pair(k)
		e := enc[k]
		if i < 0 {
			if e != nil {
				appendText = append(appendText, e.text...)
			}
			continue
		}
		if e != nil && l.root.Content[i+1].Kind != yaml.AliasNode && sameNode(l.root.Content[i+1], e.value, 0) {
			continue // already has this value: keep its formatting
		}
		first, last, err := keySpan(data, starts, l.root, i)
		if err != nil {
			return nil, false, err
		}
		ed := edit{from: lineOff(first), to: lineOff(last + 1)}
		if e != nil {
			ed.text = e.text
			if ed.to == len(data) && ed.to > 0 && data[ed.to-1] != '\n' {
				// Cannot happen (data ends before a delimiter line); keep the
				// line structure intact anyway.
				ed.text = bytes.TrimRight(ed.text, "\r\n")
			}
		}
		edits = append(edits, ed)
	}
	if len(edits) == 0 && len(appendText) == 0 {
		return data, false, nil
	}
	sort.Slice(edits, func(a, b int) bool { return edits[a].from < edits[b].from })
	var b bytes.Buffer
	pos := 0
	for _, ed := range edits {
		if ed.from < pos {
			return nil, false, errors.New("overlapping keys")
		}
		b.Write(data[pos:ed.from])
		b.Write(ed.text)
		pos = ed.to
	}
	b.Write(data[pos:])
	if len(appendText) > 0 {
		if b.Len() > 0 && !bytes.HasSuffix(b.Bytes(), []byte("\n")) {
			b.WriteString("\n")
		}
		b.Write(appendText)
	}
	return b.Bytes(), true, nil
}

func lineStarts(data []byte) []int {
	starts := []int{0}
	for i, c := range data {
		if c == '\n' && i+1 < len(data) {
			starts = append(starts, i+1)
		}
	}
	if len(data) == 0 {
		return nil
	}
	return starts
}

// keySpan finds the data lines [first, last] that hold the pair at root
// index i: from the key's line to the last line of its value, excluding
// trailing blank and comment lines. It checks the span by parsing it alone.
func keySpan(data []byte, starts []int, root *yaml.Node, i int) (int, int, error) {
	if root.Style&yaml.FlowStyle != 0 {
		return 0, 0, errors.New("flow-style mapping")
	}
	k, v := root.Content[i], root.Content[i+1]
	first := k.Line
	if i > 0 && maxLine(root.Content[i-1]) >= first {
		return 0, 0, errors.New("key shares a line with the previous value")
	}
	upper := len(starts)
	if i+2 < len(root.Content) {
		upper = root.Content[i+2].Line - 1
	}
	lower := maxLine(v)
	if lower < first {
		lower = first
	}
	if first < 1 || upper > len(starts) || lower > upper {
		return 0, 0, errors.New("cannot delimit key")
	}
	// pred reports whether lines first..last alone hold exactly this pair.
	// It is false below the value's true last line and true from there up
	// to upper (the lines in between are comments or blank), so binary
	// search finds the end in O(log n) parses.
	pred := func(last int) bool {
		end := len(data)
		if last < len(starts) {
			end = starts[last]
		}
		var n yaml.Node
		if yaml.Unmarshal(data[starts[first-1]:end], &n) != nil {
			return false
		}
		if len(n.Content) != 1 || n.Content[0].Kind != yaml.MappingNode || len(n.Content[0].Content) != 2 {
			return false
		}
		return sameNode(n.Content[0].Content[0], k, 0) && sameNode(n.Content[0].Content[1], v, 0)
	}
	if !pred(upper) {
		return 0, 0, errors.New("cannot delimit key")
	}
	lo, hi := lower, upper
	for lo < hi {
		mid := lo + (hi-lo)/2
		if pred(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return first, hi, nil
}

// maxLine is the largest start line of any node under n (aliases not
// followed).
func maxLine(n *yaml.Node) int {
	m := n.Line
	for _, c := range n.Content {
		if l := maxLine(c); l > m {
			m = l
		}
	}
	return m
}

// sameNode compares two YAML trees by value (kind, tag, text, anchors), not
// by position, style or comments.
func sameNode(a, b *yaml.Node, depth int) bool {
	if a == nil || b == nil {
		return a == b
	}
	if depth > 1000 {
		return false
	}
	if a.Kind != b.Kind || a.ShortTag() != b.ShortTag() || a.Value != b.Value || a.Anchor != b.Anchor || len(a.Content) != len(b.Content) {
		return false
	}
	for i := range a.Content {
		if !sameNode(a.Content[i], b.Content[i], depth+1) {
			return false
		}
	}
	return true
}

// reencode rebuilds the whole frontmatter from its YAML tree with the
// changes applied.
func reencode(l *layout, keys []string, enc map[string]*encoded) ([]byte, error) {
	root := &yaml.Node{Kind: yaml.MappingNode}
	if l.root != nil {
		root.Content = append(root.Content, l.root.Content...)
		root.HeadComment, root.LineComment, root.FootComment = l.root.HeadComment, l.root.LineComment, l.root.FootComment
	}
	for _, k := range keys {
		i := -1
		for j := 0; j+1 < len(root.Content); j += 2 {
			if root.Content[j].Value == k {
				i = j
				break
			}
		}
		e := enc[k]
		switch {
		case i >= 0 && e == nil:
			root.Content = append(root.Content[:i:i], root.Content[i+2:]...)
		case i >= 0:
			root.Content[i+1] = e.node
		case e != nil:
			root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}, e.node)
		}
	}
	if len(root.Content) == 0 {
		return nil, nil
	}
	styleTop(root)
	text, err := marshalNode(root)
	if err != nil {
		return nil, fmt.Errorf("update frontmatter: re-encode: %w", err)
	}
	if l.crlf {
		text = bytes.ReplaceAll(text, []byte("\n"), []byte("\r\n"))
	}
	return text, nil
}

// styleTop makes the top-level mapping block style (a flow-style mapping in
// the source would otherwise stay on one line).
func styleTop(n *yaml.Node) { n.Style &^= yaml.FlowStyle }

// verifyUpdate re-parses out and checks every key in set.
func verifyUpdate(out []byte, keys []string, enc map[string]*encoded) error {
	l, err := locate(out)
	if err != nil {
		return fmt.Errorf("result does not parse: %w", err)
	}
	for _, k := range keys {
		i := l.pair(k)
		e := enc[k]
		switch {
		case e == nil && i >= 0:
			return fmt.Errorf("key %q still present", k)
		case e != nil && i < 0:
			return fmt.Errorf("key %q missing", k)
		case e != nil && !sameNode(l.root.Content[i+1], e.value, 0):
			return fmt.Errorf("key %q does not read back", k)
		}
	}
	return nil
}

// Render writes a new document: "---\n", the non-empty fields in the given
// order, "---\n", a blank line, then body. Empty values (nil, "", empty
// lists and maps, zero times) are omitted. Duplicate or empty keys are an
// error.
func Render(fields []Field, body string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("---\n")
	seen := make(map[string]bool, len(fields))
	for _, f := range fields {
		if f.Key == "" {
			return nil, errors.New("render: empty frontmatter key")
		}
		if seen[f.Key] {
			return nil, fmt.Errorf("render: duplicate frontmatter key %q", f.Key)
		}
		seen[f.Key] = true
		if isEmpty(f.Value) {
			continue
		}
		e, err := encodePair(f.Key, f.Value, false)
		if err != nil {
			return nil, fmt.Errorf("render: %w", err)
		}
		b.Write(e.text)
	}
	b.WriteString("---\n\n")
	b.WriteString(body)
	return b.Bytes(), nil
}

func isEmpty(v any) bool {
	if v == nil {
		return true
	}
	switch x := v.(type) {
	case string:
		return x == ""
	case time.Time:
		return x.IsZero()
	case *yaml.Node:
		return x == nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Map, reflect.Array:
		return rv.Len() == 0
	case reflect.Pointer, reflect.Interface:
		return rv.IsNil()
	}
	return false
}
