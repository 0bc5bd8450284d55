package textutil

import (
	"cmp"
	"math"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
)

// RequiredLiterals are strings one of which every match of the regular
// expression src contains; nil when no such set is known (a pattern that
// can match without a literal, or one that does not parse). A literal
// the pattern matches in either case ((?i), [Ss]) is in lower case and
// compared with the content in lower case; one with an upper-case letter
// was written so in a case-sensitive part of the pattern and is compared
// with the content as written (Haystack.MayMatch).
//
// A hook matches written content against every content pattern of the
// taxonomy; a pattern whose literals are not in the content cannot match
// and is never compiled (contentHits). The analysis is the one of code
// search engines (Russ Cox, "Regular Expression Matching with a Trigram
// Index"), on strings rather than trigrams: each part of the expression
// has the set of strings it matches when it is small (exact), the
// strings its matches start and end with (prefix, suffix), and a set one
// of which its matches contain (req). A concatenation joins what one
// part ends with to what the next starts with, so that the prefixes the
// parser factors out of an alternation ("A(?:KIA|C|Iza)") are joined
// back to each branch. Content is compared in lower case
// (strings.ToLower), which folds as (?i) does except for the long s and a
// few other letters whose lower case is not their fold: code does not
// spell keywords with them.
//
// A match satisfies several such sets at once (a concatenation's parts
// each have theirs: "select", "*" and "from" in select\s+\*\s+from):
// RequiredLiterals returns up to maxClauses of them, the most selective
// first, and content that lacks any is not matched. The windows a long
// text is matched in are around the first set's literals (matchAround).
func RequiredLiterals(src string) [][]string {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil
	}
	info := analyze(re.Simplify())
	var out [][]string
	for _, clause := range info.reqs {
		lits := make([]string, len(clause))
		for i, l := range clause {
			lits[i] = strings.TrimPrefix(l, foldMark)
		}
		out = append(out, minimal(dedup(lits)))
	}
	return out
}

// PrefixLiterals are strings, in lower case, one of which every match of
// the regular expression src starts with (zero-width assertions such as
// \b aside); nil when no such set is known. A match is then found by
// trying the expression, anchored, where one of them stands in the
// content in lower case (observations.matchAround), instead of running it
// over every byte.
func PrefixLiterals(src string) []string {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil
	}
	return PrefixLiteralsOf(re.Simplify())
}

// PrefixLiteralsOf is PrefixLiterals of an expression parsed (with
// syntax.Perl) and simplified.
func PrefixLiteralsOf(re *syntax.Regexp) []string {
	info := analyze(re)
	if len(info.prefix) == 0 || slices.Contains(info.prefix, "") {
		return nil
	}
	out := make([]string, len(info.prefix))
	for i, l := range info.prefix {
		out[i] = strings.ToLower(strings.TrimPrefix(l, foldMark))
	}
	return minimalPrefixes(dedup(out))
}

// minimalPrefixes drops a prefix another one of lits starts with: where
// "execute" stands, "exec" does too.
func minimalPrefixes(lits []string) []string {
	var out []string
	for _, l := range lits {
		if !slices.ContainsFunc(lits, func(o string) bool { return o != l && strings.HasPrefix(l, o) }) {
			out = append(out, l)
		}
	}
	return out
}

// foldMark starts a literal, during the analysis, that matches in either
// case (in lower case after it): joined to another, the two are in
// lower case ("(?i)drop" and "Table"), while two case-sensitive ones keep
// their case ("drop" and "Table").
const foldMark = "\x00"

func fold(l string) string {
	if l == "" || strings.HasPrefix(l, foldMark) {
		return l
	}
	return foldMark + strings.ToLower(l)
}

// maxRequired bounds a requirement's alternatives: more tell little and
// cost a scan of the content each. maxExact bounds the sets of strings
// the analysis carries; maxClauses the requirements kept of a part.
const (
	maxRequired = 24
	maxExact    = 16
	maxClauses  = 4
)

// litInfo is what the analysis knows of one part of an expression. A set
// holding "" says nothing (a match may start with anything).
type litInfo struct {
	exact   []string // every string the part matches, when exactOK
	exactOK bool
	prefix  []string // every match starts with one of these
	suffix  []string // every match ends with one of these
	// Every match contains one of the strings of each of these, the
	// most selective first (addClause); none known when empty.
	reqs [][]string
}

var anything = []string{""}

func analyze(re *syntax.Regexp) litInfo {
	switch re.Op {
	case syntax.OpLiteral:
		l := string(re.Rune)
		if re.Flags&syntax.FoldCase != 0 {
			l = fold(l)
		}
		return exactInfo([]string{l})
	case syntax.OpCharClass:
		if lits := classLits(re.Rune); lits != nil {
			return exactInfo(lits)
		}
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return exactInfo(anything)
	case syntax.OpCapture:
		return analyze(re.Sub[0])
	case syntax.OpQuest:
		x := analyze(re.Sub[0])
		if x.exactOK {
			return exactInfo(union(x.exact, anything))
		}
	case syntax.OpPlus:
		x := analyze(re.Sub[0])
		return litInfo{prefix: x.prefix, suffix: x.suffix, reqs: x.reqs}
	case syntax.OpRepeat:
		if re.Min < 1 {
			break
		}
		x := analyze(re.Sub[0])
		if re.Min == re.Max && x.exactOK {
			acc := x
			for i := 1; i < re.Min && acc.exactOK; i++ {
				acc = concat(acc, x)
			}
			if acc.exactOK {
				return acc
			}
		}
		return litInfo{prefix: x.prefix, suffix: x.suffix, reqs: x.reqs}
	case syntax.OpConcat:
		acc := exactInfo(anything)
		for _, sub := range re.Sub {
			acc = concat(acc, analyze(sub))
		}
		return acc
	case syntax.OpAlternate:
		out := analyze(re.Sub[0])
		for _, sub := range re.Sub[1:] {
			y := analyze(sub)
			// A match of either branch holds one of the best literals
			// of its branch.
			var req []string
			if len(out.reqs) > 0 && len(y.reqs) > 0 {
				req = union(out.reqs[0], y.reqs[0])
			}
			out = litInfo{exact: union(out.exact, y.exact), exactOK: out.exactOK && y.exactOK,
				prefix: union(out.prefix, y.prefix), suffix: union(out.suffix, y.suffix),
				reqs: addClause(nil, req)}
			if len(out.exact) > maxExact {
				out.exact, out.exactOK = nil, false
			}
			if len(out.prefix) > maxExact {
				out.prefix = anything
			}
			if len(out.suffix) > maxExact {
				out.suffix = anything
			}
		}
		if out.exactOK {
			out.prefix, out.suffix = out.exact, out.exact
			out.reqs = addClause(out.reqs, out.exact)
		}
		return out
	}
	return litInfo{prefix: anything, suffix: anything}
}

// exactInfo is the info of a part that matches exactly the strings lits.
func exactInfo(lits []string) litInfo {
	return litInfo{exact: lits, exactOK: true, prefix: lits, suffix: lits, reqs: addClause(nil, lits)}
}

// concat is the info of x followed by y.
func concat(x, y litInfo) litInfo {
	out := litInfo{prefix: x.prefix, suffix: y.suffix}
	if x.exactOK && y.exactOK {
		if e, ok := cross(x.exact, y.exact); ok {
			return exactInfo(e)
		}
	}
	if x.exactOK {
		if p, ok := cross(x.exact, y.prefix); ok {
			out.prefix = p
		}
	}
	if y.exactOK {
		if s, ok := cross(x.suffix, y.exact); ok {
			out.suffix = s
		}
	}
	// Whatever either part requires, and what one ends with joined to
	// what the next starts with.
	for _, c := range x.reqs {
		out.reqs = addClause(out.reqs, c)
	}
	for _, c := range y.reqs {
		out.reqs = addClause(out.reqs, c)
	}
	if j, ok := cross(x.suffix, y.prefix); ok {
		out.reqs = addClause(out.reqs, j)
	}
	out.reqs = addClause(out.reqs, out.prefix)
	out.reqs = addClause(out.reqs, out.suffix)
	return out
}

// addClause adds the requirement b to reqs, kept in order of selectivity
// (the smaller chance to be in a text at random first: chance), at most
// maxClauses of them. b holding "", empty, too large or already there is
// no requirement.
func addClause(reqs [][]string, b []string) [][]string {
	if len(b) == 0 || len(b) > maxRequired || slices.Contains(b, "") {
		return reqs
	}
	for _, c := range reqs {
		if slices.Equal(c, b) {
			return reqs
		}
	}
	reqs = append(slices.Clip(reqs), b)
	slices.SortStableFunc(reqs, func(a, b []string) int { return cmp.Compare(chance(a), chance(b)) })
	return reqs[:min(len(reqs), maxClauses)]
}

func chance(lits []string) float64 {
	p := 0.0
	for _, l := range lits {
		p += math.Pow(8, -float64(len(strings.TrimPrefix(l, foldMark))))
	}
	return p
}

// cross is every string of a followed by one of b, in lower case where
// either is folded (in lower case); false when there would be more than
// maxExact.
func cross(a, b []string) ([]string, bool) {
	if len(a)*len(b) > maxExact {
		return nil, false
	}
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			switch {
			case x == "" || y == "":
				out = append(out, x+y)
			case strings.HasPrefix(x, foldMark) || strings.HasPrefix(y, foldMark):
				out = append(out, fold(x)+strings.TrimPrefix(fold(y), foldMark))
			default:
				out = append(out, x+y)
			}
		}
	}
	return dedup(out), true
}

// union is the strings of a and b.
func union(a, b []string) []string {
	return dedup(append(slices.Clip(a), b...))
}

func dedup(lits []string) []string {
	slices.Sort(lits)
	return slices.Compact(lits)
}

// minimal is a requirement without each literal that holds another: a
// text holding it holds the other ("a" and "ab" require no more than
// "a"; "Ab" no more than "a", but "ab" not "A"). Only a requirement: as
// prefixes or as the exact strings a part matches, "a" and "ab" are two.
func minimal(lits []string) []string {
	var out []string
	for i, l := range lits {
		sub := false
		for j, m := range lits {
			if i == j || m == l {
				continue
			}
			if HasUpper(m) && strings.Contains(l, m) || !HasUpper(m) && strings.Contains(strings.ToLower(l), m) {
				sub = true
				break
			}
		}
		if !sub {
			out = append(out, l)
		}
	}
	return out
}

// classLits is the strings a character class (as ranges) matches, when
// it holds at most four characters: one letter in either case ([Ss]) is
// the letter in lower case.
func classLits(ranges []rune) []string {
	n := 0
	for i := 0; i+1 < len(ranges); i += 2 {
		n += int(ranges[i+1]-ranges[i]) + 1
		if n > 4 {
			return nil
		}
	}
	var rs []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			rs = append(rs, r)
		}
	}
	var out []string
	for _, r := range rs {
		// r with its other case in the class: the letter, folded.
		if l, u := unicode.ToLower(r), unicode.ToUpper(r); l != u && slices.Contains(rs, l) && slices.Contains(rs, u) {
			out = append(out, fold(string(r)))
		} else {
			out = append(out, string(r))
		}
	}
	return dedup(out)
}

// MayMatch reports whether the content holds one literal of each of a
// pattern's requirements (Holds). True when it has none.
func (h *Haystack) MayMatch(reqs [][]string) bool {
	for _, lits := range reqs {
		if !slices.ContainsFunc(lits, h.Holds) {
			return false
		}
	}
	return true
}

// Haystack is content matched against many patterns (a taxonomy's): as
// written, in lower case, and, when long, the byte pairs each holds, so
// that most of several hundred literals are ruled out without a scan.
type Haystack struct {
	s, lower string
	pairs    [2]*bytePairs // of lower and of s, built on first use
}

// pairsMin is the length from which a text's byte pairs are collected:
// below it, a scan per literal costs less.
const pairsMin = 1024

func NewHaystack(s, lower string) *Haystack { return &Haystack{s: s, lower: lower} }

// Holds reports whether the content holds literal l: a folded one (no
// upper-case letter) in lower case, one with an upper-case letter as
// written.
func (h *Haystack) Holds(l string) bool {
	t, i := h.In(l), 0
	if HasUpper(l) {
		i = 1
	}
	if len(t) >= pairsMin && len(l) >= 2 {
		if h.pairs[i] == nil {
			h.pairs[i] = newBytePairs(t)
		}
		if !h.pairs[i].may(l) {
			return false
		}
	}
	return strings.Contains(t, l)
}

// bytePairs is the set of adjacent byte pairs of a text: a literal one of
// whose pairs is not in it is not in the text.
type bytePairs [1 << 16 / 64]uint64

func newBytePairs(t string) *bytePairs {
	p := new(bytePairs)
	for i := 0; i+1 < len(t); i++ {
		k := uint16(t[i])<<8 | uint16(t[i+1])
		p[k>>6] |= 1 << (k & 63)
	}
	return p
}

func (p *bytePairs) may(l string) bool {
	for i := 0; i+1 < len(l); i++ {
		k := uint16(l[i])<<8 | uint16(l[i+1])
		if p[k>>6]&(1<<(k&63)) == 0 {
			return false
		}
	}
	return true
}

// In is the text literal l is looked for in: the content as written for
// one with an upper-case letter, in lower case otherwise. Both have the
// same offsets where the lower case is as long (matchAround).
func (h *Haystack) In(l string) string {
	if HasUpper(l) {
		return h.s
	}
	return h.lower
}

// Text is the content as written and in lower case.
func (h *Haystack) Text() (s, lower string) { return h.s, h.lower }

// HasUpper reports whether l holds an upper-case letter: what makes a
// pattern ask for its case where one in lower case matches either (smart
// case).
func HasUpper(l string) bool {
	for i := 0; i < len(l); i++ {
		if c := l[i]; 'A' <= c && c <= 'Z' {
			return true
		} else if c >= 0x80 {
			return strings.IndexFunc(l[i:], unicode.IsUpper) >= 0
		}
	}
	return false
}
