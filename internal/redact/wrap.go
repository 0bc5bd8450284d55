package redact

import (
	sx "github.com/kbmem/kb/internal/secrets"
	"slices"
	"strings"
)

// Keys cut by line breaks. A key longer than the width of a terminal, a
// fold or an encoder (base64 wraps at 76, openssl at 64) reaches the
// transcript on two or more lines, and no rule matches either half. So the
// lines that look wrapped are joined and the rules run again on the joined
// text; a secret found across a join is removed piece by piece from the
// lines it spans. A line looks wrapped when it is as long as a common wrap
// width (wrapWidth), ends in a run of key characters and is followed by a
// line that starts with one; the lines after it continue the wrap while
// they have the same length.

const (
	minWrapRun    = 16       // a wrapped line ends in this many key characters
	maxWrapLines  = 8        // lines joined at once
	wrapStep      = 6        // the next group starts this many lines on (groups overlap)
	maxWrapBudget = 64 << 10 // joined bytes looked at per text
)

// isKeyByte reports whether c may be part of a key or of base64.
func isKeyByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '+' || c == '/' || c == '=' || c == '_' || c == '-'
}

// line is one line of a text: s[start:end] without its line break.
type line struct{ Start, End int }

// wrapped adds to byValue (created if nil and needed) the secrets that
// cross a line break in s, with the pieces to remove in at. No line is
// joined at the offsets of hard.
func (e *engine) wrapped(s string, byValue map[string]*secret, hard []int) map[string]*secret {
	if strings.IndexByte(s, '\n') < 0 {
		return byValue
	}
	var groups [][]line
	budget := maxWrapBudget
	var run []line // consecutive lines, each wrapping into the next
	flush := func() {
		for k := 0; len(run) > 1 && k < len(run)-1 && budget > 0; k += wrapStep {
			g := slices.Clone(run[k:min(len(run), k+maxWrapLines)])
			groups = append(groups, g)
			for _, l := range g {
				budget -= l.End - l.Start
			}
		}
		run = run[:0]
	}
	for off := 0; off < len(s) && budget > 0; {
		end := strings.IndexByte(s[off:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += off
		}
		l := line{off, end}
		if end > off && s[end-1] == '\r' {
			l.End--
		}
		next := end + 1
		for len(hard) > 0 && hard[0] < l.Start {
			hard = hard[1:]
		}
		soft := len(hard) == 0 || hard[0] != end // this line's break may cut a key
		// The text of this line, past a line-number prefix ("    12→").
		l.Start += sx.NumberPrefix(s[l.Start:l.End])
		switch {
		case len(run) > 0 && l.Start < l.End && isKeyByte(s[l.Start]):
			// Lines cut by a wrap all have its width; the last may be shorter.
			full := l.End-l.Start == run[0].End-run[0].Start
			run = append(run, l)
			if !full || !soft || !wraps(s, l, true) {
				flush()
			}
		default:
			flush()
			if soft && wraps(s, l, false) {
				run = append(run, l)
			}
		}
		off = next
	}
	flush()
	if len(groups) > 0 {
		byValue = e.joinedSecrets(s, groups, byValue)
	}
	return byValue
}

// wrapWidth reports whether n is a width text is commonly wrapped at:
// PEM and openssl (64), base64 and MIME (76), fold and terminals (72 to
// 80, 100, 120, 128, 132).
func wrapWidth(n int) bool {
	switch n {
	case 64, 72, 76, 78, 79, 80, 100, 120, 128, 132:
		return true
	}
	return false
}

// wraps reports whether line l looks cut by a wrap: as long as a wrap
// width (known is set when the line continues a wrapped one of the same
// length), and ending in a long run of key characters.
func wraps(s string, l line, known bool) bool {
	if !known && !wrapWidth(l.End-l.Start) {
		return false
	}
	n := 0
	for i := l.End - 1; i >= l.Start && n < minWrapRun && isKeyByte(s[i]); i-- {
		n++
	}
	return n >= minWrapRun
}

// joinedSecrets runs the rules on each group of lines joined without
// their breaks (all groups in one pass, separated) and adds to byValue
// each secret found that crosses a join.
func (e *engine) joinedSecrets(s string, groups [][]line, byValue map[string]*secret) map[string]*secret {
	type piece struct {
		line
		at int // offset in the joined text
	}
	var b strings.Builder
	var pieces []piece // every line of every group, in joined order
	for gi, g := range groups {
		if gi > 0 {
			b.WriteString(textSeparator)
		}
		for _, l := range g {
			pieces = append(pieces, piece{l, b.Len()})
			b.WriteString(s[l.Start:l.End])
		}
	}
	joined := b.String()
	for v, sec := range e.fold(e.find(joined), nil) {
		for off := 0; ; {
			j := strings.Index(joined[off:], v)
			if j < 0 {
				break
			}
			x, y := off+j, off+j+len(v)
			off = y
			// The pieces of [x,y) on each line.
			var at []span
			for _, p := range pieces {
				ls, le := p.at, p.at+(p.End-p.Start)
				if a, z := max(x, ls), min(y, le); a < z {
					at = append(at, span{Start: p.Start + a - ls, End: p.Start + z - ls, Rule: sec.Rule})
				}
			}
			if len(at) < 2 {
				continue // on one line: the plain pass sees it
			}
			if byValue == nil {
				byValue = map[string]*secret{}
			}
			have, ok := byValue[v]
			if !ok {
				have = &secret{value: v, Rule: sec.Rule}
				byValue[v] = have
			}
			have.at = append(have.at, at...)
		}
	}
	return byValue
}
