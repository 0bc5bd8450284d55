package recall

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kbmem/kb/internal/lexicon"
	"github.com/kbmem/kb/internal/textutil"
)

// Pasted material in a lesson: a compiler error, a stack trace, a test
// failure the person pasted while correcting. It says what went wrong in
// one session, in words (file names, identifiers, messages) that many
// later calls share; it is never a cue. Extraction keeps most of it apart
// (observations' pasted.go); what reaches a lesson anyway is cut off here
// before matching, and a lesson that is all pasted material never fires.

// pastedStartRE finds where pasted output begins in a one-line lesson.
var pastedStartRE = textutil.Lazy(`Traceback \(most recent call last\)|\b[A-Z][A-Za-z]*(?:Error|Exception):|\bE\s{2,}\S|\bpanic: |\bgoroutine \d+ \[|npm (?:ERR|error)!|\b[\w./-]+\.(?:py|go|js|jsx|ts|tsx|rs|java|rb|c|cc|cpp|php|cs|kt|swift):\d+(?::\d+)?\b|\bat [\w.$<>]+ ?\([^)]*:\d+|File "[^"]+", line \d+|"""|\berror(?:\[E\d+\])?: |^\s*\$ \S|\b\w+(?:\.\w+)*\.(?:errors|exceptions)\.\w+:|\b(?:HINT|DETAIL|CONTEXT|STATEMENT|LINE \d+):\s|"(?:error|errorMessage|error_description)"\s*:\s*"|\b[\w.-]+\.(?:js|mjs|cjs|css)\?\S*:\d+`).WithHint(mayBePasted)

// pastedHints are literals of which every match of pastedStartRE holds
// one, unless it holds a colon before a digit (a file:line) or an "E"
// before white space (pytest's "E   assert"): mayBePasted looks for them
// before the regexp runs (LazyRE.WithHint): the regexp took a fifth of
// Precompute's time on lessons that hold none of them
// (BenchmarkPrecompute).
var pastedHints = []string{"Traceback (most recent call last)", "Error:", "Exception:", "panic: ", "goroutine ",
	"npm ERR!", "npm error!", `", line `, `"""`, "error: ", "error[E", "$ ", ".errors.", ".exceptions.",
	"HINT:", "DETAIL:", "CONTEXT:", "STATEMENT:", "LINE ", `"error`}

// mayBePasted reports whether pastedStartRE can match s.
func mayBePasted(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		switch c := s[i]; {
		case c == ':' && s[i+1] >= '0' && s[i+1] <= '9':
			return true
		case c == 'E' && (s[i+1] == ' ' || s[i+1] >= '\t' && s[i+1] <= '\r'):
			return true
		}
	}
	for _, h := range pastedHints {
		if strings.Contains(s, h) {
			return true
		}
	}
	return false
}

// minOwnWords is how many words of its own, before any pasted material, a
// lesson needs to be a lesson.
const minOwnWords = 3

// cutPasted returns s up to where pasted material begins, and whether s
// holds no lesson of its own (fewer than minOwnWords content words before
// it).
func cutPasted(s string) (own string, allPasted bool) {
	loc := pastedStartRE.FindStringIndex(s)
	if loc == nil {
		return s, false
	}
	own = s[:loc[0]]
	// (Chinese and Japanese words are no stems: their prose is counted.)
	return own, proseWords(own) < minOwnWords || len(stemSet(own)) < minOwnWords && !strings.ContainsFunc(own, lexicon.IsCJK)
}

// proseWords counts the words of s that are words, not code: a line of
// the pasted trace before its error ("res = self._obj.execute(query,
// params)") has a lesson's stems but none of its words.
func proseWords(s string) int {
	n := 0
	for _, f := range strings.Fields(s) {
		f = strings.Trim(f, ",.;:!?\"'“”‘’()[]")
		if f == "" || strings.ContainsFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' && r != '-' }) {
			continue
		}
		if k := utf8.RuneCountInString(f); k > 1 && strings.ContainsFunc(f, lexicon.IsCJK) {
			n += k / 2 // Chinese and Japanese write a sentence as one "word"
		} else {
			n++
		}
	}
	return n
}
