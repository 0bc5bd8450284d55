package observations

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
)

// requiredLiterals are strings, in lower case, one of which every match of
// the regular expression src contains; nil when no such set is known (a
// pattern that can match without a literal, or one that does not parse).
// A hook matches written content against every content pattern of the
// taxonomy; a pattern whose literals are not in the content cannot match
// and is never compiled (contentHits). The analysis is the required-factor
// one of code search engines: a literal requires itself, a concatenation
// its most selective factor, an alternation the union of its branches',
// a repetition of at least one its operand's; anything else requires
// nothing. Content is compared in lower case (strings.ToLower), which
// folds as (?i) does except for the long s and a few other letters whose
// lower case is not their fold: code does not spell keywords with them.
func requiredLiterals(src string) []string {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil
	}
	lits, ok := required(re.Simplify())
	if !ok {
		return nil
	}
	return lits
}

// maxRequired bounds the alternatives of a requirement: an alternation of
// more branches tells little and costs a scan of the content per branch.
const maxRequired = 16

func required(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}, true
	case syntax.OpCharClass:
		// One letter in either case ([Ss]): that letter; other classes
		// require nothing this analysis uses.
		if len(re.Rune) == 4 && re.Rune[0] == re.Rune[1] && re.Rune[2] == re.Rune[3] &&
			unicode.ToLower(re.Rune[0]) == unicode.ToLower(re.Rune[2]) {
			return []string{string(unicode.ToLower(re.Rune[0]))}, true
		}
		if len(re.Rune) == 2 && re.Rune[0] == re.Rune[1] {
			return []string{string(unicode.ToLower(re.Rune[0]))}, true
		}
		return nil, false
	case syntax.OpCapture:
		return required(re.Sub[0])
	case syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
		return nil, false
	case syntax.OpConcat:
		// Adjacent literals join into one; then the factor whose
		// shortest literal is longest.
		var best []string
		found := false
		var run strings.Builder
		consider := func(lits []string) {
			if !found || shortest(lits) > shortest(best) || shortest(lits) == shortest(best) && len(lits) < len(best) {
				best, found = lits, true
			}
		}
		flush := func() {
			if run.Len() > 0 {
				consider([]string{run.String()})
				run.Reset()
			}
		}
		for _, sub := range re.Sub {
			if sub.Op == syntax.OpLiteral {
				run.WriteString(strings.ToLower(string(sub.Rune)))
				continue
			}
			flush()
			if lits, ok := required(sub); ok {
				consider(lits)
			}
		}
		flush()
		return best, found
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			lits, ok := required(sub)
			if !ok {
				return nil, false
			}
			out = append(out, lits...)
		}
		slices.Sort(out)
		out = slices.Compact(out)
		if len(out) > maxRequired {
			return nil, false
		}
		return out, true
	}
	return nil, false
}

func shortest(lits []string) int {
	n := -1
	for _, l := range lits {
		if n < 0 || len(l) < n {
			n = len(l)
		}
	}
	return n
}

// mayMatch reports whether content (in lower case) holds one of a
// pattern's required literals; true when it has none.
func mayMatch(lits []string, lower string) bool {
	if lits == nil {
		return true
	}
	for _, l := range lits {
		if strings.Contains(lower, l) {
			return true
		}
	}
	return false
}

// Content longer than aroundMin is matched in the lines around its
// required literals (aroundSpan bytes either way, to whole lines), not
// whole: a match holds one of them, and Go's regexp, with no literal to
// start from, reads every byte of every text for every pattern (most of a
// hook's time on a large Write). A match farther than aroundSpan from
// every literal it holds is not seen.
const (
	aroundMin  = 2048
	aroundSpan = 512
	aroundMax  = 64 // literal occurrences; more, and the text is matched whole
)

// matchAround reports whether cp's expression matches s (lower is s in
// lower case, as mayMatch reads it) in the windows around its literals.
func matchAround(cp contentPattern, s, lower string) bool {
	if len(s) <= aroundMin || len(cp.lits) == 0 || len(lower) != len(s) {
		return cp.re.MatchString(s)
	}
	var at []int
	for _, l := range cp.lits {
		for i := 0; len(at) <= aroundMax; {
			j := strings.Index(lower[i:], l)
			if j < 0 {
				break
			}
			at = append(at, i+j)
			i += j + len(l)
		}
	}
	if len(at) > aroundMax {
		return cp.re.MatchString(s)
	}
	slices.Sort(at)
	end := -1
	for k := 0; k < len(at); {
		a := max(at[k]-aroundSpan, 0)
		if a < end {
			a = end
		} else if i := strings.LastIndexByte(s[:a], '\n'); i >= 0 {
			a = i + 1
		} else {
			a = 0
		}
		b := min(at[k]+aroundSpan, len(s))
		for k < len(at) && at[k] < b { // the occurrences this window holds
			b = min(max(b, at[k]+aroundSpan), len(s))
			k++
		}
		if i := strings.IndexByte(s[b:], '\n'); i >= 0 {
			b += i
		} else {
			b = len(s)
		}
		if cp.re.MatchString(s[a:b]) {
			return true
		}
		end = b
	}
	return false
}
