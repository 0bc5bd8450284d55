package learn

import (
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/kbmem/kb/internal/lexicon"
	"github.com/kbmem/kb/observations"
)

// candidate is a fact drawn from one observation, before dedup and gate.
type candidate struct {
	Applied
	obs *observations.Observation
}

var (
	prohibitionRE = regexp.MustCompile(`(?i)^(do not|don't|never|must not|must never)\b`)
)

// candidates maps observations to candidate facts. Questions and
// rejected or superseded observations are not facts.
func candidates(files []File, now time.Time) []*candidate {
	var out []*candidate
	for _, f := range files {
		o := f.Obs
		if o == nil || o.Status == observations.StatusRejected || o.Status == observations.StatusSuperseded {
			continue
		}
		if o.NeedsReview() {
			continue // the agent's words reach AGENTS.md only after a person reviews them
		}
		c := &candidate{obs: o}
		c.Observation = o.ID
		switch o.Type {
		case observations.TypeCorrection:
			c.Fact = factSentence(o.Lesson)
			c.Category = CategoryConvention
			if prohibitionRE.MatchString(strings.TrimSpace(o.Lesson)) {
				c.Category = CategoryConstraint
			}
		case observations.TypePreference:
			c.Fact = factSentence(o.Statement)
			c.Category = CategoryConvention
		case observations.TypeProcedure:
			if len(o.Steps) == 0 {
				continue
			}
			goal := strings.TrimRight(strings.TrimSpace(o.Goal), ".")
			if goal == "" {
				goal = strings.TrimRight(strings.TrimSpace(o.Title), ".")
			}
			if goal == "" {
				continue
			}
			c.Fact = factSentence("To " + lowerFirstWord(goal) + ": " + strings.Join(o.Steps, ", then "))
			c.Category = CategoryConvention
		case observations.TypeDecision:
			if strings.TrimSpace(o.Chosen) == "" {
				continue
			}
			c.Fact = decisionFact(o)
			c.Category = CategoryDecision
		case observations.TypeNegativeResult:
			c.Fact = negativeFact(o)
			c.Category = CategoryResolvedProblem
		case observations.TypeDiscovery:
			c.Fact = factSentence(o.Claim)
			c.Category = CategoryProjectKnowledge
		default:
			continue
		}
		if c.Fact == "" {
			continue
		}
		src := append([]observations.SourceRef(nil), o.Sources...)
		// Stored sources are in order of time already (the time itself is
		// not stored); keep that order where times are unknown.
		sort.SliceStable(src, func(i, j int) bool {
			return !src[i].Time.IsZero() && !src[j].Time.IsZero() && src[i].Time.Before(src[j].Time)
		})
		seen := map[string]bool{}
		c.Sessions = []string{}
		for _, s := range src {
			if s.Session != "" && !seen[s.Session] {
				seen[s.Session] = true
				c.Sessions = append(c.Sessions, s.Session)
			}
		}
		if len(c.Sessions) > 0 {
			c.SourceSession = c.Sessions[0]
		}
		day := o.LastSeen
		if day.IsZero() {
			day = o.FirstSeen
		}
		if day.IsZero() {
			day = now
		}
		c.Date = day.UTC().Format("2006-01-02")
		out = append(out, c)
	}
	return out
}

// sessionCount is the number of distinct sessions behind a candidate.
func (c *candidate) sessionCount() int {
	return max(len(c.Sessions), c.obs.Sessions)
}

func decisionFact(o *observations.Observation) string {
	chosen := strings.TrimRight(strings.TrimSpace(o.Chosen), ".")
	var s string
	if len(strings.Fields(chosen)) <= 4 {
		s = "Use " + chosen
	} else {
		s = capitalize(chosen)
	}
	var others []string
	for _, a := range o.Alternatives {
		if n := strings.TrimSpace(a.Name); n != "" && !strings.EqualFold(n, chosen) {
			others = append(others, n)
		}
	}
	if len(others) > 0 && len(others) <= 3 {
		s += " rather than " + strings.Join(others, " or ")
	}
	if len(o.Reasons) > 0 {
		s += " (" + strings.Join(o.Reasons, "; ") + ")"
	}
	return factSentence(s)
}

func negativeFact(o *observations.Observation) string {
	fix := strings.TrimSpace(o.FollowedBy)
	if fix == "" {
		return ""
	}
	approach := strings.TrimRight(strings.TrimSpace(o.Approach), ".")
	failure := strings.TrimRight(firstSentenceOf(o.Failure), ".")
	s := capitalize(approach) + " fails"
	if failure != "" {
		s += " (" + failure + ")"
	}
	return factSentence(s + "; instead: " + strings.TrimRight(firstSentenceOf(fix), "."))
}

// factSentence makes one sentence of s: whitespace collapsed, up to three
// short sentences joined with semicolons, capitalized, ending with a period,
// at most 240 runes.
func factSentence(s string) string {
	// No HTML comments: a fact must never open or close a marker.
	s = strings.NewReplacer("<!--", "", "-->", "").Replace(s)
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return ""
	}
	parts := splitSentences(s)
	out := parts[0]
	for _, p := range parts[1:] {
		if len([]rune(out))+len([]rune(p)) > 200 {
			break
		}
		out = strings.TrimRight(out, ".!;") + "; " + lowerFirstWord(p)
	}
	out = strings.TrimSpace(out)
	if r := []rune(out); len(r) > 240 {
		out = strings.TrimSpace(string(r[:239])) + "…"
	}
	out = capitalize(out)
	if !strings.HasSuffix(out, ".") && !strings.HasSuffix(out, "…") && !strings.HasSuffix(out, "?") && !strings.HasSuffix(out, "!") {
		out = strings.TrimRight(out, ",;:") + "."
	}
	return out
}

var sentenceEndRE = regexp.MustCompile(`[.!?]\s+[A-Z` + "`" + `"]`)

func splitSentences(s string) []string {
	var out []string
	for {
		loc := sentenceEndRE.FindStringIndex(s)
		if loc == nil {
			break
		}
		out = append(out, strings.TrimSpace(s[:loc[0]+1]))
		s = s[loc[1]-1:]
	}
	if t := strings.TrimSpace(s); t != "" {
		out = append(out, t)
	}
	return out
}

func firstSentenceOf(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return ""
	}
	return splitSentences(s)[0]
}

var (
	capitalize     = lexicon.Capitalize
	lowerFirstWord = lexicon.LowerFirst
)

// Candidates returns the facts a tick would draw from the observation
// files, before deduplication and the gate: questions, rejected and
// superseded observations, and the agent's words no person has reviewed
// give none.
func Candidates(files []File) []Applied {
	var out []Applied
	for _, c := range candidates(files, time.Now()) {
		out = append(out, c.Applied)
	}
	return out
}
