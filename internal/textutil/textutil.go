// Package textutil holds the few text helpers every layer needs, so that
// each cuts text the same way.
package textutil

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Shorten collapses whitespace and cuts s to at most n runes, on a word
// boundary when one is in the second half, adding an ellipsis.
func Shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut := FirstRunes(s, n)
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:.-") + "…"
}

// FirstRunes returns the first n runes of s.
func FirstRunes(s string, n int) string {
	i := 0
	for p := range s {
		if i == n {
			return s[:p]
		}
		i++
	}
	return s
}

// Truncate shortens s to at most n bytes on a rune boundary, adding "…"
// when it cuts.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// OneLine collapses every run of whitespace in s, line breaks included, to
// one space, and trims it.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// StripControl replaces control characters (and the Unicode line and
// paragraph separators) with spaces, so that text from a file or an agent
// cannot break a one-line message or log entry.
func StripControl(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
}

// WordByte reports whether b is a byte of a word as regexp's \b reads it:
// an ASCII letter, digit or underscore (IdentByte also takes '$').
func WordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// ASCIILower is s with its ASCII capitals in lower case: the same length,
// so offsets in it are offsets in s (strings.ToLower may change a text's
// length). s itself when it has no capital.
func ASCIILower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'A' && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// IdentByte reports whether b can be part of an identifier in most
// programming languages (a letter, a digit, _ or $): code matching uses it
// to tell a name from the name inside a longer one.
func IdentByte(b byte) bool {
	return b == '_' || b == '$' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// BoundedIn reports whether w occurs in s at some s[j:end] that bounded
// accepts (a caller's word boundary).
func BoundedIn(s, w string, bounded func(j, end int) bool) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		if bounded(j, j+len(w)) {
			return true
		}
		i = j + 1
	}
}
