package observations

import (
	"strings"
	"unicode"

	"github.com/kbmem/kb/internal/textutil"
)

// Light text normalization shared by the taxonomy's word cues and by the
// similarity measure of observations: lower-case word tokens with a small
// suffix-stripping stemmer, so that "removes", "removal" and "removing" all
// become "remov", and "force-pushing" becomes "forc push".

// phraseFixes joins spellings that tokenization would split differently.
var phraseFixes = strings.NewReplacer(
	"hard-coded", "hardcoded", "hard coded", "hardcoded", "hard-code", "hardcode", "hard code", "hardcode",
	"hand-edit", "handedit", "hand edit", "handedit", "hand-written", "handwritten",
	"lock file", "lockfile", "lock-file", "lockfile",
	"console.log", "consolelog", "e.g.", "eg", "i.e.", "ie",
	"can't", "cannot", "won't", "will not", "don't", "do not", "doesn't", "does not",
	"didn't", "did not", "isn't", "is not", "aren't", "are not", "shouldn't", "should not",
	"n't", " not",
	"’", "'",
)

// words splits s into lower-case word tokens (letters, digits, and the
// characters that commonly appear inside identifiers are kept together only
// for digits; everything else separates).
func words(s string) []string {
	s = phraseFixes.Replace(strings.ToLower(s))
	return strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '+'
	})
}

var irregular = map[string]string{
	"using": "use", "used": "use", "uses": "use", "ran": "run", "running": "run", "runs": "run",
	"wrote": "write", "written": "write", "writing": "write", "writes": "write",
	"made": "make", "making": "make", "did": "do", "does": "do", "done": "do",
	"deps": "depend", "dependencies": "depend", "dependency": "depend", "dependent": "depend",
	"tests": "test", "testing": "test", "tested": "test",
	"children": "child", "better": "good", "best": "good",
	"prod": "production", "production": "production",
	"db": "database", "databases": "database",
	"repo": "repository", "repos": "repository",
	"env": "env", "envs": "env",
	"this": "this", "its": "its", "is": "is", "was": "was", "has": "has",
	"always": "always", "does not": "do",
}

// stem reduces a lower-case word to a crude stem. It is deliberately simple
// and only needs to be consistent with itself.
func stem(w string) string {
	if s, ok := irregular[w]; ok {
		return s
	}
	if len(w) <= 3 {
		return w
	}
	// Inflections.
	for _, suf := range []string{"ies", "ied", "ings", "ing", "edly", "ed", "es", "s"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 {
			base := w[:len(w)-len(suf)]
			if suf == "ies" || suf == "ied" {
				base += "y"
			}
			if suf == "s" && strings.HasSuffix(w, "ss") {
				break
			}
			if suf == "es" && !strings.HasSuffix(base, "sh") && !strings.HasSuffix(base, "ch") &&
				!strings.HasSuffix(base, "x") && !strings.HasSuffix(base, "ss") && !strings.HasSuffix(base, "z") {
				base = w[:len(w)-1] // "removes" -> "remove"; "pushes" keeps "push"
			}
			w = base
			break
		}
	}
	// Doubled final consonant after stripping: "dropp" -> "drop".
	if n := len(w); n >= 4 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		w = w[:n-1]
	}
	// Derivations.
	for _, suf := range []string{"ational", "ation", "ator", "ition", "ion", "ment", "ate", "al", "at", "er", "ly", "y", "e"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 {
			if suf == "al" && strings.HasSuffix(w, "all") {
				continue
			}
			if suf == "y" && strings.HasSuffix(w, "ey") {
				continue
			}
			w = w[:len(w)-len(suf)]
			break
		}
	}
	return w
}

// stems returns the stems of the words of s, in order.
func stems(s string) []string {
	ws := words(s)
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = stem(w)
	}
	return out
}

var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but if then else of to in on at by for with from into onto
		is are was were be been being am it its this that these those there here i we you he she they me us my our your
		do did doe not no so as than too very just also please can could would should will shall may might must
		have has had what which who whom when where why how all any each some such only own same up down out over
		again further once about above below after before between through during other more most s t don now
		let lets let's ok okay yes yeah thanks thank`) {
		stopwords[w] = true
		stopwords[stem(w)] = true
	}
}

// contentStems returns the distinct stems of s without stop words.
func contentStems(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range words(s) {
		if stopwords[w] || len(w) < 2 {
			continue
		}
		st := stem(w)
		if stopwords[st] {
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
	tagBlockRE = lazyRegexp(`(?s)<(ide_opened_file|ide_selection|system-reminder|command-message|command-name|command-args|local-command-stdout|local-command-stderr|local-command-caveat|bash-input|bash-stdout|bash-stderr|user-prompt-submit-hook)>.*?</(ide_opened_file|ide_selection|system-reminder|command-message|command-name|command-args|local-command-stdout|local-command-stderr|local-command-caveat|bash-input|bash-stdout|bash-stderr|user-prompt-submit-hook)>`)
	imageRE    = lazyRegexp(`\[Image #\d+\]`)
	spaceRE    = lazyRegexp(`[ \t]+`)
)

// cleanHuman strips harness decorations that clients embed in what the user
// typed (IDE context blocks, image placeholders, escaped line breaks).
func cleanHuman(s string) string {
	s = tagBlockRE.ReplaceAllString(s, " ")
	s = imageRE.ReplaceAllString(s, " ")
	s = strings.ReplaceAll(s, "\\\n", "\n")
	s = strings.ReplaceAll(s, "\r", "")
	s = spaceRE.ReplaceAllString(s, " ")
	return strings.TrimSpace(s)
}

var fenceRE = lazyRegexp("(?s)```[^\n]*\n(.*?)```")

// maxProse bounds how much of a message the extractors read: a correction
// or preference is said in the first lines, pasted logs come after.
const maxProse = 1200

// prose keeps what a person wrote in their own words: it drops long fenced
// blocks and lines that are mostly not letters (pasted JSON, logs, stack
// traces), and stops after maxProse characters.
func prose(s string) string {
	s = fenceRE.ReplaceAllStringFunc(s, func(b string) string {
		if strings.Count(b, "\n") > 4 {
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
		if letters < 3 || float64(letters) < 1.2*float64(other) {
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
	return b.String()
}

// sentences splits text into sentences on ., !, ? and line breaks, keeping
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
		if r == '.' || r == '!' || r == '?' {
			next := rune(' ')
			if i+1 < len(rs) {
				next = rs[i+1]
			}
			if unicode.IsSpace(next) || (i+1 == len(rs)) {
				// Keep runs like "!!" or "?!" together.
				if i+1 < len(rs) && (rs[i+1] == '!' || rs[i+1] == '?') {
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
func capitalize(s string) string {
	for i, r := range s {
		return string(unicode.ToUpper(r)) + s[i+len(string(r)):]
	}
	return s
}

// Words, Stem, Jaccard and Overlap are the text tools the extractors use,
// exported so that other layers compare text the same way.

// Words splits lower-cased text into words (letters, digits and '+').
func Words(s string) []string { return words(s) }

// Stem reduces a lower-case word to the extractors' crude stem.
func Stem(w string) string { return stem(w) }

// Jaccard is the Jaccard similarity of two stem sets.
func Jaccard(a, b map[string]bool) float64 { return jaccard(a, b) }

// Overlap is |a∩b| / min(|a|,|b|).
func Overlap(a, b map[string]bool) float64 { return overlap(a, b) }

// shorten cuts text the way every layer does.
var shorten = textutil.Shorten
