package recall

import (
	"strings"
	"unicode"

	"github.com/kbmem/kb/internal/lexicon"
)

// Tokens for lexical matching: lower-cased words, stop words dropped, light
// stemming. The index's own analyzer and scoring (bleve tf-idf) do
// retrieval; these decide precision.

// Words are the words of s that recall matches cues on: lower-cased
// letters and digits, no stop words, no one-letter words or short
// numbers.
func Words(s string) []string {
	if len(s) > 20000 {
		s = s[:20000]
	}
	low := strings.ToLower(s)
	// One pass, no list of every field first: the 6 KB an edit writes is
	// a thousand fields, most of them dropped below.
	var out []string
	start := -1
	for i, r := range low {
		word := unicode.IsLetter(r) || unicode.IsDigit(r)
		if word && start < 0 {
			start = i
		}
		if !word && start >= 0 {
			out = keepWord(out, low[start:i])
			start = -1
		}
	}
	if start >= 0 {
		out = keepWord(out, low[start:])
	}
	return out
}

// keepWord appends w to out unless Words drops it.
func keepWord(out []string, w string) []string {
	if len(w) < 2 || len(w) > 40 || stopWords.Has(w) || allDigits(w) && len(w) < 3 {
		return out
	}
	return append(out, w)
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// stem strips plural and verb endings, so that "migrations" and
// "migrate" meet (lexicon.LightStem).
func stem(w string) string { return lexicon.LightStem(w) }

// stemSet is the set of the stems of the words of s.
func stemSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range Words(s) {
		if st := stem(w); st != "" {
			out[st] = true
		}
	}
	return out
}

// stopWords are the stop words of cue words (lexicon.StopCue).
var stopWords = lexicon.StopCue

// keepWords are stop words that word cues use ("add dependency", "new
// package", "run test").
var keepWords = map[string]bool{"add": true, "new": true, "run": true, "all": true, "file": true, "files": true, "code": true,
	"no": true, "not": true, "use": true, "make": true, "get": true, "out": true, "up": true, "down": true, "off": true}

// notWordRune separates the words of code: anything but letters, digits,
// "-" and "_".
func notWordRune(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_'
}
