package doc

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/kbmem/kb/internal/textutil"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kbmem/kb/internal/diag"
	"gopkg.in/yaml.v3"
)

// ParseError reports a document that cannot be parsed. Line is the 1-based
// line in the file (counting the frontmatter), 0 when unknown.
type ParseError = diag.Problem

var bom = []byte("\xef\xbb\xbf")

// layout is where the parts of a file are. All offsets index the full source
// (BOM included).
type layout struct {
	bom       int  // 0 or 3
	hasFM     bool // a --- block was found
	dataStart int  // first byte of the YAML between the delimiters
	dataEnd   int  // first byte of the closing delimiter line
	closeEnd  int  // first byte after the closing delimiter line
	bodyStart int  // closeEnd plus one blank separator line, if present
	dataLine  int  // file line of the first YAML line
	crlf      bool // the frontmatter uses CRLF line endings
	root      *yaml.Node
}

// errNotMapping etc. are messages shared by Parse and Update.
const (
	msgUnterminated = "frontmatter starts with --- but has no closing --- line"
	msgNotMapping   = "frontmatter is not a mapping of keys to values"
)

// unmarshalYAML decodes a frontmatter block into a *yaml.Node, so that
// positions survive; a panic of the decoder is an error.
func unmarshalYAML(data []byte, node *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: internal error: %v", r)
		}
	}()
	return yaml.Unmarshal(data, node)
}

// closingDelimiter finds the line that closes a frontmatter block in rest,
// whose first line (open bytes) opened it: the first line after it that is
// "---" once trimmed of white space, as adrg/frontmatter found it (kb used
// it before; its init cost every hook process gopkg.in/yaml.v2's). It
// returns the YAML between the two and where the closing line ends; false
// when no line closes the block.
func closingDelimiter(rest []byte, open int) (data []byte, end int, ok bool) {
	for pos := open; pos < len(rest); {
		next := len(rest)
		if i := bytes.IndexByte(rest[pos:], '\n'); i >= 0 {
			next = pos + i + 1
		}
		if string(bytes.TrimSpace(rest[pos:next])) == "---" {
			return rest[open:pos], next, true
		}
		pos = next
	}
	return nil, 0, false
}

// locate splits src into BOM, frontmatter and body and parses the YAML. The
// error, if any, is a *ParseError with an empty Path.
func locate(src []byte) (*layout, error) {
	l := &layout{}
	if bytes.HasPrefix(src, bom) {
		l.bom = len(bom)
	}
	rest := src[l.bom:]
	first := rest
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		first = rest[:i+1]
	}
	l.crlf = bytes.HasSuffix(first, []byte("\r\n"))
	if strings.TrimRight(string(first), " \t\r\n") != "---" {
		// No frontmatter: the whole file is body.
		l.dataStart, l.dataEnd, l.closeEnd, l.bodyStart = l.bom, l.bom, l.bom, l.bom
		return l, nil
	}
	l.hasFM = true
	l.dataStart = l.bom + len(first)
	l.dataLine = 2

	data, end, ok := closingDelimiter(rest, len(first))
	if !ok {
		return nil, &ParseError{Line: 1, Msg: msgUnterminated}
	}
	var node yaml.Node
	if err := unmarshalYAML(data, &node); err != nil {
		return nil, yamlParseError(err, data, l.dataLine)
	}
	body := rest[end:]
	l.dataEnd = l.dataStart + len(data)
	l.closeEnd = l.bom + end
	l.bodyStart = l.closeEnd
	switch {
	case bytes.HasPrefix(body, []byte("\r\n")):
		l.bodyStart += 2
	case bytes.HasPrefix(body, []byte("\n")):
		l.bodyStart++
	}
	if err := l.setRoot(&node); err != nil {
		return nil, err
	}
	return l, nil
}

// setRoot checks the YAML document and keeps its top-level mapping.
func (l *layout) setRoot(node *yaml.Node) error {
	if node.Kind == 0 || len(node.Content) == 0 {
		return nil // empty or comment-only frontmatter
	}
	root := node
	if root.Kind == yaml.DocumentNode {
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return nil
	}
	if root.Kind != yaml.MappingNode {
		return &ParseError{Line: l.fileLine(root.Line), Msg: msgNotMapping}
	}
	seen := make(map[string]int, len(root.Content)/2)
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i]
		if k.Kind != yaml.ScalarNode {
			return &ParseError{Line: l.fileLine(k.Line), Msg: "frontmatter key is not a plain string"}
		}
		if prev, dup := seen[k.Value]; dup {
			return &ParseError{Line: l.fileLine(k.Line), Msg: fmt.Sprintf("frontmatter key %q is already defined at line %d", k.Value, l.fileLine(prev))}
		}
		seen[k.Value] = k.Line
	}
	l.root = root
	return nil
}

// fileLine converts a 1-based line inside the YAML data to a file line.
func (l *layout) fileLine(yamlLine int) int {
	if yamlLine <= 0 {
		return l.dataLine
	}
	return l.dataLine + yamlLine - 1
}

// pair returns the index in root.Content of key's key node, or -1.
func (l *layout) pair(key string) int {
	if l.root == nil {
		return -1
	}
	for i := 0; i+1 < len(l.root.Content); i += 2 {
		if l.root.Content[i].Value == key {
			return i
		}
	}
	return -1
}

var yamlLineRE = textutil.Lazy(`line (\d+)`)

// yamlParseError turns a yaml.v3 error into a ParseError at the right file
// line. yaml.v3 reports some errors without a line; for those the line is
// found by looking for the offending bytes.
func yamlParseError(err error, data []byte, dataLine int) *ParseError {
	msg := err.Error()
	line := 0
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		if n, convErr := strconv.Atoi(m[1]); convErr == nil {
			line = n
		}
	}
	if line == 0 {
		line = guessErrorLine(msg, data)
	}
	if line <= 0 {
		line = 1
	}
	return &ParseError{Line: dataLine + line - 1, Msg: "invalid YAML frontmatter: " + strings.TrimPrefix(msg, "yaml: ")}
}

var anchorRE = textutil.Lazy(`unknown anchor '([^']*)'`)

func guessErrorLine(msg string, data []byte) int {
	off := -1
	switch {
	case strings.Contains(msg, "UTF-8"):
		for i := 0; i < len(data); {
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n <= 1 {
				off = i
				break
			}
			i += n
		}
	case strings.Contains(msg, "control characters"):
		for i, r := range string(data) {
			if r < 0x20 && r != '\n' && r != '\r' && r != '\t' || r == 0x7f {
				off = i
				break
			}
		}
	case anchorRE.MatchString(msg):
		name := anchorRE.FindStringSubmatch(msg)[1]
		off = bytes.Index(data, []byte("*"+name))
	}
	if off < 0 {
		return 0
	}
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

// errorsAsParse returns err as a *ParseError with path filled in.
func withPath(err error, path string) error {
	var pe *ParseError
	if errors.As(err, &pe) {
		cp := *pe
		cp.Path = path
		return &cp
	}
	return err
}
