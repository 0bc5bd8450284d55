package observations

import (
	"strings"
	"unicode"

	"github.com/kbmem/kb/internal/lexicon"
	"github.com/kbmem/kb/internal/textutil"
)

// Light text normalization shared by the taxonomy's word cues and by the
// similarity measure of observations: lower-case word tokens with a small
// suffix-stripping stemmer, so that "removes", "removal" and "removing" all
// become "remov", and "force-pushing" becomes "forc push".

// phraseFixes joins spellings that tokenization would split differently,
// and spells out contractions.
var phraseFixes = strings.NewReplacer(append([]string{
	"hard-coded", "hardcoded", "hard coded", "hardcoded", "hard-code", "hardcode", "hard code", "hardcode",
	"hand-edit", "handedit", "hand edit", "handedit", "hand-written", "handwritten",
	"lock file", "lockfile", "lock-file", "lockfile",
	"console.log", "consolelog", "e.g.", "eg", "i.e.", "ie",
}, lexicon.ContractionPairs()...)...)

// words splits s into lower-case word tokens (letters, digits, and the
// characters that commonly appear inside identifiers are kept together only
// for digits; everything else separates).
func words(s string) []string {
	s = phraseFixes.Replace(strings.ToLower(s))
	out := strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '+'
	})
	if !hasCJK(s) {
		return out
	}
	// Chinese and Japanese: each Han or kana character is a token of its
	// own, and a Latin name inside ("修改main.go") is kept apart.
	var split []string
	for _, w := range out {
		start := 0
		for i, r := range w {
			if lexicon.IsCJK(r) {
				if start < i {
					split = append(split, w[start:i])
				}
				split = append(split, string(r))
				start = i + len(string(r))
			}
		}
		if start < len(w) {
			split = append(split, w[start:])
		}
	}
	return split
}

// hasCJK reports whether s holds a Han or kana character.
func hasCJK(s string) bool {
	for _, r := range s {
		if r >= 0x3040 && lexicon.IsCJK(r) {
			return true
		}
	}
	return false
}

// stem is the extractors' stemmer.
var stem = lexicon.Stem

// stems returns the stems of the words of s, in order.
func stems(s string) []string {
	ws := words(s)
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = stem(w)
	}
	return out
}

// stopwords are dropped from the words similarity compares, before and
// after stemming.
var stopwords = lexicon.StopExtract

// contentStems returns the distinct stems of s without stop words.
func contentStems(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range words(s) {
		if stopwords.Has(w) || len(w) < 2 {
			continue
		}
		st := stem(w)
		if stopwords.Has(st) {
			continue
		}
		out[st] = true
	}
	return out
}

// jaccard is the Jaccard similarity of two stem sets.
func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 0
	}
	inter := 0
	for k := range a {
		if b[k] {
			inter++
		}
	}
	union := len(a) + len(b) - inter
	return float64(inter) / float64(union)
}

// overlap is |a∩b| / min(|a|,|b|): how much of the shorter text the longer
// one covers.
func overlap(a, b map[string]bool) float64 {
	small, big := a, b
	if len(b) < len(a) {
		small, big = b, a
	}
	if len(small) == 0 {
		return 0
	}
	inter := 0
	for k := range small {
		if big[k] {
			inter++
		}
	}
	return float64(inter) / float64(len(small))
}

var (
	tagBlockRE = textutil.Lazy(`(?s)<(ide_opened_file|ide_selection|system-reminder|command-message|command-name|command-args|local-command-stdout|local-command-stderr|local-command-caveat|bash-input|bash-stdout|bash-stderr|user-prompt-submit-hook)>.*?</(ide_opened_file|ide_selection|system-reminder|command-message|command-name|command-args|local-command-stdout|local-command-stderr|local-command-caveat|bash-input|bash-stdout|bash-stderr|user-prompt-submit-hook)>`)
	imageRE    = textutil.Lazy(`\[Image #\d+\]`)
	spaceRE    = textutil.Lazy(`[ \t]+`)
)

// cleanHuman strips harness decorations that clients embed in what the user
// typed (IDE context blocks, image placeholders, escaped line breaks).
func cleanHuman(s string) string {
	s = tagBlockRE.ReplaceAllString(s, " ")
	s = imageRE.ReplaceAllString(s, " ")
	s = strings.ReplaceAll(s, "\\\n", "\n")
	s = strings.ReplaceAll(s, "\r", "")
	s = spaceRE.ReplaceAllString(s, " ")
	return strings.TrimSpace(thinkingWordRE.ReplaceAllString(s, ""))
}

// thinkingWordRE is Claude Code's thinking keyword opening a message
// ("ultrathink: implement ...", "think hard: ..."): a setting for the
// model, not the person's words. A plain "think" is also a verb and stays.
var thinkingWordRE = textutil.Lazy(`^\s*(?i:(?:ultra|mega)think\b[\s:,.-]*|think\s+hard(?:er)?\s*[:,]\s*)`)

var fenceRE = textutil.Lazy("(?s)```[^\n]*\n(.*?)```")

// maxProse bounds how much of a message the extractors read: a correction
// or preference is said in the first lines, pasted logs come after.
const maxProse = 1200

// prose keeps what a person wrote in their own words: it drops long fenced
// blocks and lines that are mostly not letters (pasted JSON, logs, stack
// traces), and stops after maxProse characters.
func prose(s string) string {
	kept, _ := proseSplit(s)
	return kept
}

// proseSplit is prose that also returns what it dropped.
func proseSplit(s string) (kept, dropped string) {
	var d strings.Builder
	s = fenceRE.ReplaceAllStringFunc(s, func(b string) string {
		if strings.Count(b, "\n") > 4 {
			d.WriteString(b + "\n")
			return "\n"
		}
		return b
	})
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		letters, other := 0, 0
		for _, r := range t {
			switch {
			case unicode.IsLetter(r):
				letters++
			case !unicode.IsSpace(r):
				other++
			}
		}
		if letters < 3 && !hasCJK(t) || letters == 0 || float64(letters) < 1.2*float64(other) {
			d.WriteString(t + "\n")
			continue
		}
		if b.Len()+len(t) > maxProse {
			if b.Len() == 0 {
				b.WriteString(shorten(t, maxProse))
			}
			break
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(t)
	}
	return b.String(), strings.TrimSpace(d.String())
}

// sentences splits text into sentences on ., !, ?, the full-width 。！？ and
// line breaks, keeping
// the terminator. Dots inside words ("go.mod", "cfg.RatesURL") and inside
// code spans do not split.
func sentences(s string) []string {
	var out []string
	var b strings.Builder
	inCode := false
	rs := []rune(s)
	flush := func() {
		t := strings.TrimSpace(b.String())
		if t != "" {
			out = append(out, t)
		}
		b.Reset()
	}
	for i, r := range rs {
		if r == '`' {
			inCode = !inCode
		}
		if r == '\n' && !inCode {
			flush()
			continue
		}
		b.WriteRune(r)
		if inCode {
			continue
		}
		if r == '.' && i > 0 && (rs[i-1] == '.' || rs[i-1] == '/') {
			continue // "./...", "../", an ellipsis: not a sentence end
		}
		if r == '.' && lexicon.Abbreviation(b.String(), b.Len()) {
			continue // "e.g.", "bzw.", "т.е.": not a sentence end
		}
		if isSentenceEnd(r) {
			next := rune(' ')
			if i+1 < len(rs) {
				next = rs[i+1]
			}
			if unicode.IsSpace(next) || (i+1 == len(rs)) || lexicon.FullWidthEnd(r) {
				// Keep runs like "!!", "?!" or "！？" together.
				if i+1 < len(rs) && isSentenceEnd(rs[i+1]) && rs[i+1] != '.' {
					continue
				}
				flush()
			}
		}
	}
	flush()
	return out
}

// capitalize upper-cases the first letter of s.
var capitalize = lexicon.Capitalize

// Words, Jaccard and Overlap are the text tools the extractors use,
// exported so that other layers compare text the same way.

// Words splits lower-cased text into words (letters, digits and '+').
func Words(s string) []string { return words(s) }

// Jaccard is the Jaccard similarity of two stem sets.
func Jaccard(a, b map[string]bool) float64 { return jaccard(a, b) }

// Overlap is |a∩b| / min(|a|,|b|).
func Overlap(a, b map[string]bool) float64 { return overlap(a, b) }

// shorten cuts text the way every layer does.
var shorten = textutil.Shorten
