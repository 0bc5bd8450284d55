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
// as it is, unless the first word is a path, a file or code name
// ("src/main/generated", "package.json", "go_test", "fmt.Errorf(x)"),
// which a capital would make another name.
func Capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || r == utf8.RuneError {
		return s
	}
	if word, _, _ := strings.Cut(s, " "); strings.ContainsAny(strings.TrimRight(word, ".,;:!?)"), "/._=(@") {
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
	if word == "I" || strings.HasPrefix(word, "I'") || NameLike(word) {
		return s
	}
	return string(unicode.ToLower(r)) + s[n:]
}

// NameLike reports whether word reads as a name rather than a word of
// prose: a capital or a digit after its first letter ("CI", "GitHub",
// "S3", "camelCase").
func NameLike(word string) bool {
	_, n := utf8.DecodeRuneInString(word)
	for _, x := range word[n:] {
		if unicode.IsUpper(x) || unicode.IsDigit(x) {
			return true
		}
	}
	return false
}

// abbreviations end with a period that does not end the sentence: the
// common ones of the languages the cues cover that stand before what they
// introduce, lower case, with their periods ("z. B." is "z." then "b.").
// Those that often close a sentence ("etc.", "usw.") are not here.
var abbreviations = map[string]bool{
	"e.g.": true, "i.e.": true, "vs.": true, "cf.": true, "approx.": true, "incl.": true, "resp.": true,
	"bzw.": true, "z.b.": true, "z.": true, "d.h.": true, "ggf.": true, "evtl.": true, "ca.": true, "vgl.": true, "inkl.": true, "bspw.": true, "sog.": true,
	"p.ex.": true, "c.-à-d.": true, "p.ej.": true, "ej.": true, "aprox.": true, "p.e.": true,
	"т.е.": true, "т.к.": true, "напр.": true, "např.": true, "tzn.": true, "tj.": true,
}

// Abbreviation reports whether text[:end] ends with an abbreviation whose
// last period is text[end-1] ("… bzw." in "workflow.Sleep bzw. NewTimer"):
// that period does not end a sentence.
func Abbreviation(text string, end int) bool {
	from := max(0, end-16) // the longest is 12 bytes: a bounded look back
	i := strings.LastIndexAny(text[from:end], " \t\n(\"'")
	if i < 0 && from > 0 {
		return false
	}
	return abbreviations[strings.ToLower(text[from+i+1:end])]
}

// IdentParts splits an identifier into its name parts: at underscores,
// where a lower-case letter or a digit meets a capital, and where a
// lower-case letter meets a digit (unit_price: unit, price;
// fuelSurchargeMinor: fuel, Surcharge, Minor; BASE_FEE: BASE, FEE).
func IdentParts(id string) []string {
	var out []string
	start := 0
	for k := 0; k <= len(id); k++ {
		cut := k == len(id) || id[k] == '_' ||
			k > start && id[k] >= 'A' && id[k] <= 'Z' && (id[k-1] >= 'a' && id[k-1] <= 'z' || id[k-1] >= '0' && id[k-1] <= '9') ||
			k > start && id[k] >= '0' && id[k] <= '9' && id[k-1] >= 'a' && id[k-1] <= 'z'
		if !cut {
			continue
		}
		if k > start {
			out = append(out, id[start:k])
		}
		start = k
		if k < len(id) && id[k] == '_' {
			start = k + 1
		}
	}
	return out
}

// MoneyCodeWords are the words, in lower case, that the names of amounts,
// prices, cents and currencies are made of in code (IdentParts).
var MoneyCodeWords = NewSet(`amount amounts price prices cost costs total totals subtotal fee fees cent cents minor currency money
	balance tax taxes vat invoice invoices payment payments payout charge charges discount surcharge refund salary wage wages budget
	revenue deposit eur usd gbp chf jpy euro euros dollar dollars`)
