package observations

import (
	"strings"
	"unicode"

	"github.com/kbmem/kb/internal/lexicon"
)

// Word and length rules by Unicode segmentation. A run of letters or
// digits is a word in the scripts that separate words with spaces (Latin
// with its accents, Cyrillic, Greek, Korean Hangul); in Chinese and
// Japanese, which do not, every Han or kana character counts as a word, so
// that a Chinese sentence is not "one word" to a rule that asks for three.

// wordCount counts the words of s.
func wordCount(s string) int {
	n := 0
	in := false
	for _, r := range s {
		switch {
		case lexicon.IsCJK(r):
			n++
			in = false
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' && in || r == '’' && in:
			if !in {
				n++
			}
			in = true
		default:
			in = false
		}
	}
	return n
}

// isSentenceEnd reports whether r ends a sentence: ASCII terminators, and
// the full-width ones of Chinese and Japanese (。！？) with the ideographic
// full stop's half-width form.
func isSentenceEnd(r rune) bool {
	switch r {
	case '.', '!', '?', '。', '！', '？', '｡':
		return true
	}
	return false
}

// isQuestion reports whether s ends with a question mark, ASCII or
// full-width.
func isQuestion(s string) bool {
	s = strings.TrimSpace(s)
	// ? and its full-width, Arabic and Greek forms.
	return strings.HasSuffix(s, "?") || strings.HasSuffix(s, "？") || strings.HasSuffix(s, "؟") || strings.HasSuffix(s, "\u037e")
}

// lower lower-cases s and straightens apostrophes, for the lexicon's cues.
func lower(s string) string { return lexicon.FoldHant(lexicon.Straighten(strings.ToLower(s))) }
