package observations

import (
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/kbmem/kb/internal/lexicon"
)

// Word tools the preference, decision and supersession rules share, for
// text in any language. Words are counted by segment.go's wordCount, the
// one word count of the extractors.

// isCJK reports whether cues and topics of r's script are matched inside
// words (Han, Hiragana, Katakana, Hangul): such a phrase is found as a
// substring, and a topic is its character bigrams. Hangul is here although
// Korean spaces its words (wordCount counts them as words), because Korean
// attaches endings to them, so whole-word matching misses the stem.
func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) ||
		unicode.Is(unicode.Hangul, r)
}

// topicTokens returns what a statement is about, comparable across
// statements: the content stems of its spaced words, and the character
// bigrams of its CJK runs (a lone CJK character is its own token). Cue
// words (negations, preference and choice words) are left out: they say
// how the person stands, not what about.
func topicTokens(s string) map[string]bool {
	out := map[string]bool{}
	for st := range contentStems(s) {
		if !cueStems()[st] && !isCJK([]rune(st)[0]) {
			out[st] = true
		}
	}
	var run []rune
	flush := func() {
		t := string(run)
		for _, c := range cueCJK() {
			t = strings.ReplaceAll(t, c, "\x00")
		}
		for _, part := range strings.Split(t, "\x00") {
			rs := []rune(part)
			if len(rs) == 1 && unicode.Is(unicode.Han, rs[0]) {
				out[part] = true
			}
			for i := 0; i+1 < len(rs); i++ {
				out[string(rs[i:i+2])] = true
			}
		}
		run = run[:0]
	}
	for _, r := range s {
		if isCJK(r) {
			run = append(run, r)
			continue
		}
		flush()
	}
	flush()
	return out
}

var (
	cueStemsOnce sync.Once
	cueStemSet   map[string]bool
	cueCJKList   []string
)

// cueStems are the stems of the spaced cue words; cueCJK the CJK cue
// phrases, longest first.
func cueStems() map[string]bool { cueStemsOnce.Do(loadCueWords); return cueStemSet }
func cueCJK() []string          { cueStemsOnce.Do(loadCueWords); return cueCJKList }

func loadCueWords() {
	cueStemSet = map[string]bool{}
	seen := map[string]bool{}
	for _, list := range [][]string{lexicon.NegationCues, lexicon.PreferenceCues, lexicon.ChangeOfMindCues, lexicon.SimplicityCues, moreCueWords} {
		for _, p := range list {
			if strings.IndexFunc(p, isCJK) >= 0 {
				if !seen[p] {
					seen[p] = true
					cueCJKList = append(cueCJKList, p)
				}
				continue
			}
			for _, w := range words(p) {
				cueStemSet[stem(w)] = true
			}
		}
	}
	sort.SliceStable(cueCJKList, func(i, j int) bool { return len(cueCJKList[i]) > len(cueCJKList[j]) })
}

// moreCueWords are stance words that are no topic: "want", "like", "just".
var moreCueWords = []string{"want", "wants", "like", "likes", "love", "just", "really", "very", "much", "please", "simple", "prefer", "rather", "use", "using"}

// cueSet matches any phrase of a lexicon list: spaced phrases on word
// boundaries, CJK phrases anywhere.
type cueSet struct {
	lists [][]string
	once  sync.Once
	re    *regexp.Regexp
}

func newCueSet(lists ...[]string) *cueSet { return &cueSet{lists: lists} }

func (c *cueSet) get() *regexp.Regexp {
	c.once.Do(func() {
		var spaced, cjk []string
		for _, l := range c.lists {
			for _, p := range l {
				q := regexp.QuoteMeta(p)
				q = strings.ReplaceAll(q, " ", `\s+`)
				q = strings.ReplaceAll(q, "'", `'?`)
				if strings.IndexFunc(p, isCJK) >= 0 {
					cjk = append(cjk, q)
				} else {
					spaced = append(spaced, q)
				}
			}
		}
		byLen := func(s []string) { sort.SliceStable(s, func(i, j int) bool { return len(s[i]) > len(s[j]) }) }
		byLen(spaced)
		byLen(cjk)
		var alts []string
		if len(spaced) > 0 {
			alts = append(alts, `(?:^|[^\p{L}\p{N}_])(`+strings.Join(spaced, "|")+`)(?:$|[^\p{L}\p{N}_])`)
		}
		if len(cjk) > 0 {
			alts = append(alts, `(`+strings.Join(cjk, "|")+`)`)
		}
		c.re = regexp.MustCompile(`(?i)` + strings.Join(alts, "|"))
	})
	return c.re
}

// find returns the start and end of the first cue in s, or nil.
func (c *cueSet) find(s string) []int {
	m := c.get().FindStringSubmatchIndex(lexicon.Straighten(s))
	if m == nil {
		return nil
	}
	for g := 1; 2*g+1 < len(m); g++ {
		if m[2*g] >= 0 {
			return []int{m[2*g], m[2*g+1]}
		}
	}
	return nil
}

func (c *cueSet) match(s string) bool { return c.find(s) != nil }

// allCues returns the positions of every cue in s.
func (c *cueSet) all(s string) [][]int {
	var out [][]int
	for _, m := range c.get().FindAllStringSubmatchIndex(lexicon.Straighten(s), -1) {
		for g := 1; 2*g+1 < len(m); g++ {
			if m[2*g] >= 0 {
				out = append(out, []int{m[2*g], m[2*g+1]})
				break
			}
		}
	}
	return out
}

var (
	prefCues       = newCueSet(lexicon.PreferenceCues)
	simplicityCues = newCueSet(lexicon.SimplicityCues)
	workflowCues   = newCueSet(lexicon.WorkflowCues)
	choiceCues     = newCueSet(lexicon.ChoiceCues, []string{"migrate to", "switch to", "move to", "reuse", "stick with"})
	contrastCues   = newCueSet(lexicon.ContrastCues)
	negationCues   = newCueSet(lexicon.NegationCues)
	changeCues     = newCueSet(lexicon.ChangeOfMindCues)
)

// isQuestion reports whether a sentence asks rather than states.
