package observations

import (
	"slices"
	"strings"

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

// matchAround reports whether cp's expression matches the content of hay
// in the windows around its literals.
func matchAround(cp contentPattern, hay *textutil.Haystack) bool {
	s, lower := hay.Text()
	if len(s) <= aroundMin || len(cp.reqs) == 0 || len(lower) != len(s) {
		return cp.re.MatchString(s)
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
