package library

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// A kb block is the part of a Markdown file of the project (AGENTS.md,
// CLAUDE.md) that kb maintains: the text between "<!-- kb:begin NAME -->"
// and "<!-- kb:end NAME -->". kb promote owns the block "promoted" (the
// routing lines of the library), kb learn the block "learned". Every byte
// outside a block, other kb blocks included, is the person's and is kept.

// PromotedBlock names the routing block kb promote maintains.
const PromotedBlock = "promoted"

// Routing block markers in AGENTS.md and CLAUDE.md.
const (
	BlockBegin = "<!-- kb:begin " + PromotedBlock + " -->"
	BlockEnd   = "<!-- kb:end " + PromotedBlock + " -->"
)

// BlockMarkers returns the begin and end markers of the named block.
func BlockMarkers(name string) (begin, end string) {
	return "<!-- kb:begin " + name + " -->", "<!-- kb:end " + name + " -->"
}

// ErrMalformedBlock is returned when a file has a begin marker without its
// end marker (or the reverse, or several): kb refuses to guess which text
// it owns.
var ErrMalformedBlock = errors.New("malformed kb block")

// blockRange returns the byte range of the named block in src, markers
// included, or -1, -1 when there is none.
func blockRange(src []byte, name string) (begin, end int, err error) {
	b, e := BlockMarkers(name)
	nb, ne := bytes.Count(src, []byte(b)), bytes.Count(src, []byte(e))
	if nb == 0 && ne == 0 {
		return -1, -1, nil
	}
	if nb != 1 || ne != 1 {
		return 0, 0, fmt.Errorf("%w: the markers %q and %q must each appear once (found %d and %d)", ErrMalformedBlock, b, e, nb, ne)
	}
	i, j := bytes.Index(src, []byte(b)), bytes.Index(src, []byte(e))
	if j < i {
		return 0, 0, fmt.Errorf("%w: %q comes before %q", ErrMalformedBlock, e, b)
	}
	return i, j + len(e), nil
}

// FindBlock returns what the named block of src holds between its markers,
// and whether src has the block. Unbalanced, repeated or misordered
// markers are an ErrMalformedBlock.
func FindBlock(src []byte, name string) (content []byte, found bool, err error) {
	i, j, err := blockRange(src, name)
	if err != nil || i < 0 {
		return nil, false, err
	}
	b, e := BlockMarkers(name)
	return src[i+len(b) : j-len(e)], true, nil
}

// ReplaceBlock sets the content of the named block of src (a newline is
// added when content lacks one), or appends the block (after a blank line)
// when src has none. Every byte outside the block is kept.
func ReplaceBlock(src []byte, name, content string) ([]byte, error) {
	i, j, err := blockRange(src, name)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(content, "\n") {
		content += "\n"
	}
	b, e := BlockMarkers(name)
	block := b + "\n" + content + e
	var out bytes.Buffer
	if i >= 0 {
		out.Write(src[:i])
		out.WriteString(block)
		out.Write(src[j:])
		return out.Bytes(), nil
	}
	out.Write(src)
	if len(src) > 0 {
		if !bytes.HasSuffix(src, []byte("\n")) {
			out.WriteString("\n")
		}
		out.WriteString("\n")
	}
	out.WriteString(block + "\n")
	return out.Bytes(), nil
}
