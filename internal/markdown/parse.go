// Package markdown reads the body of a kb document as markdown: its wiki
// and markdown links, its #tags, and what it could not parse in linear
// time (read by a linear scan instead). It is apart from internal/doc so
// that a program that needs only frontmatter (the hook) does not link
// goldmark, whose package initialisation every process of it would pay.
package markdown

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/kbmem/kb/internal/doc"
)

// Parse parses a markdown document with optional YAML frontmatter, and its
// body: doc.ParseFrontmatter, then the links, #tags and fallback ranges of
// the body. path is only recorded (and used in errors); src is not
// modified. The error is always a *doc.ParseError.
func Parse(path string, src []byte) (d *doc.Document, err error) {
	defer func() {
		if r := recover(); r != nil {
			d, err = nil, &doc.ParseError{Path: path, Msg: fmt.Sprintf("internal error: %v", r)}
		}
	}()
	d, err = doc.ParseFrontmatter(path, src)
	if err != nil {
		return nil, err
	}
	body := []byte(d.Body)
	scan, err := scanBody(body, d.BodyLine)
	if err != nil {
		var pe *doc.ParseError
		if errors.As(err, &pe) {
			pe.Path = path
			return nil, pe
		}
		return nil, &doc.ParseError{Path: path, Msg: err.Error()}
	}
	var fallback []doc.LineRange
	pos, line := 0, d.BodyLine
	for _, r := range scan.fallback { // in order: lines are counted once
		line += bytes.Count(body[pos:r.start], []byte("\n"))
		from := line
		line += bytes.Count(body[r.start:r.end], []byte("\n"))
		pos = r.end
		to := line
		if r.end > r.start && body[r.end-1] == '\n' {
			to--
		}
		if n := len(fallback); n > 0 && fallback[n-1].To+1 >= from {
			fallback[n-1].To = max(fallback[n-1].To, to)
			continue
		}
		fallback = append(fallback, doc.LineRange{From: from, To: to})
	}
	d.AddBody(scan.links, scan.tags, fallback)
	return d, nil
}
