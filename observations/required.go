package observations

import (
	"regexp/syntax"
	"slices"
	"strings"
	"sync"

	"github.com/kbmem/kb/internal/textutil"
)

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

// anchors are the strings a content pattern's matches start with (of a
// built-in pattern, found when required_builtin.go was generated; of a
// kb.yaml rule, when a long text first needs them): the expression is
// then tried, anchored, where one of them stands, not run over the
// windows (Go's regexp, with no literal prefix, steps through every byte
// of a window for every pattern; a 6 KB file with forty calls of
// execute( made one pattern half a millisecond of a hook).
type anchors struct {
	src string
	// prefixes (lower case) start every match, lead bytes at most after
	// its start (a match of (?:\b|[_-])secret starts at "secret" or one
	// byte before it); known: they are set (anchorsOf ran).
	prefixes []string
	lead     int
	known    bool
	once     sync.Once
	// re is the expression anchored at the start of a text, ctx the same
	// after one character (the one before the start, which a \b reads);
	// each compiled when first needed.
	re, ctx *textutil.LazyRE
}

// get returns a with its prefixes set (none when no set of them is
// known).
func (a *anchors) get() *anchors {
	a.once.Do(func() {
		if !a.known {
			a.prefixes, a.lead = anchorsOf(a.src)
		}
		a.re = textutil.Lazy(`^(?:` + a.src + `)`)
		a.ctx = textutil.Lazy(`^(?s:.)(?:` + a.src + `)`)
	})
	return a
}

// anchorsOf are the prefixes of the matches of src and how many bytes
// after a match's start they may stand; nil when none are known, or they
// are too short to be worth finding, or src asserts the end of the text.
// src is parsed once.
func anchorsOf(src string) ([]string, int) {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil || endsText(re) {
		return nil, 0
	}
	re = re.Simplify()
	ps, lead := textutil.PrefixLiteralsOf(re), 0
	if ps == nil && re.Op == syntax.OpConcat && len(re.Sub) >= 2 && oneByteAtMost(re.Sub[0]) {
		// The first part matches at most one ASCII byte ((?:\b|[_-]),
		// [a-z0-9]): the prefixes of the rest stand at most one byte
		// after a match's start.
		ps, lead = textutil.PrefixLiteralsOf(&syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: re.Sub[1:]}), 1
	}
	if ps == nil || slices.ContainsFunc(ps, func(p string) bool { return len(p) < 3 }) {
		return nil, 0
	}
	return ps, lead
}

// endsText reports whether re asserts the end of the text (\z, or $
// without (?m)), which a match in a part of the text would hold wrongly.
func endsText(re *syntax.Regexp) bool {
	return re.Op == syntax.OpEndText || slices.ContainsFunc(re.Sub, endsText)
}

// oneByteAtMost reports whether every match of re is at most one ASCII
// byte long.
func oneByteAtMost(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	case syntax.OpLiteral:
		return len(re.Rune) == 1 && re.Rune[0] < 0x80 && re.Flags&syntax.FoldCase == 0
	case syntax.OpCharClass:
		for _, r := range re.Rune {
			if r >= 0x80 {
				return false
			}
		}
		return true
	case syntax.OpCapture, syntax.OpQuest:
		return oneByteAtMost(re.Sub[0])
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if !oneByteAtMost(sub) {
				return false
			}
		}
		return true
	}
	return false
}

// anchorMax bounds the places an anchored pattern is tried at; more, and
// the windows are matched.
const anchorMax = 256

// matchAnchored reports whether a's expression matches s at one of the
// places its prefixes stand in lower (s in lower case, of the same
// length), reaching at most aroundSpan bytes past that place and on to
// the line's end; known is false when there were too many places to try.
func matchAnchored(a *anchors, s, lower string) (match, known bool) {
	var at []int
	for _, p := range a.prefixes {
		for i := 0; ; {
			j := strings.Index(lower[i:], p)
			if j < 0 {
				break
			}
			if at = append(at, i+j); len(at) > anchorMax {
				return false, false
			}
			i += j + 1
		}
	}
	slices.Sort(at)
	at = slices.Compact(at)
	for _, p := range at {
		end := min(p+aroundSpan, len(s))
		if i := strings.IndexByte(s[end:], '\n'); i >= 0 {
			end += i
		} else {
			end = len(s)
		}
		for st := max(p-a.lead, 0); st <= p; st++ {
			if st == 0 && a.re.MatchString(s[:end]) || st > 0 && a.ctx.MatchString(s[st-1:end]) {
				return true, true
			}
		}
	}
	return false, true
}

// matchAround reports whether cp's expression matches the content of hay
// in the windows around its literals (or at the places its matches may
// start: matchAnchored).
func matchAround(cp contentPattern, hay *textutil.Haystack) bool {
	s, lower := hay.Text()
	if len(s) <= aroundMin || len(cp.reqs) == 0 || len(lower) != len(s) {
		return cp.re.MatchString(s)
	}
	if cp.anch != nil {
		if a := cp.anch.get(); a.prefixes != nil {
			if m, known := matchAnchored(a, s, lower); known {
				return m
			}
		}
	}
	var at []int
	for _, l := range cp.reqs[0] {
		in := hay.In(l)
		for i := 0; len(at) <= aroundMax; {
			j := strings.Index(in[i:], l)
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
