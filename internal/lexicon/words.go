package lexicon

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// contractionPairs spell out the English negative contractions, for a
// strings.Replacer: the common ones whole ("won't" is "will not"), then
// any other "n't" as " not", then a curly apostrophe as a straight one.
var contractionPairs = []string{
	"can't", "cannot", "won't", "will not", "don't", "do not", "doesn't", "does not",
	"didn't", "did not", "isn't", "is not", "aren't", "are not", "shouldn't", "should not",
	"n't", " not",
	"’", "'",
}

// ContractionPairs returns the old, new pairs that spell out contractions,
// for a caller that builds one strings.Replacer of its own phrases and
// these (a Replacer tries its pairs in order, so put longer phrases first).
func ContractionPairs() []string { return append([]string(nil), contractionPairs...) }

var straight = strings.NewReplacer("’", "'")

// Straighten turns curly apostrophes into straight ones, so that "don’t"
// spells out like "don't".
func Straighten(s string) string { return straight.Replace(s) }

// Capitalize upper-cases the first letter of s, leaving every other byte
// as it is.
func Capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// LowerFirst lower-cases the first letter of s so that it can follow other
// words ("To " + LowerFirst("Run the tests")), unless the first word reads
// as a name: the pronoun I, or a word with a capital or a digit after its
// first letter ("CI", "GitHub", "S3").
func LowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || !unicode.IsUpper(r) {
		return s
	}
	word, _, _ := strings.Cut(s, " ")
	if word == "I" || strings.HasPrefix(word, "I'") {
		return s
	}
	for _, x := range word[n:] {
		if unicode.IsUpper(x) || unicode.IsDigit(x) {
			return s
		}
	}
	return string(unicode.ToLower(r)) + s[n:]
}
