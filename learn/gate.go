package learn

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/kbmem/kb/internal/lexicon"
	"github.com/kbmem/kb/observations"
)

// Dedup and gate.

// learnSelect deduplicates the candidates against the baseline, applies the
// gate and deduplicates the survivors among themselves (the better supported
// one wins). Drops and conflicts go into res.
func (f Files) selectFacts(cands []*candidate, base *baseline, targetAbs, indexAbs string, applied map[string]bool, res *Result) []Applied {
	var recorded []baselineFact
	for i, f := range base.index.facts {
		if strings.TrimSpace(f.Fact) != "" {
			recorded = append(recorded, baselineFact{text: f.Fact, where: fmt.Sprintf("index entry %d", i+1)})
		}
	}
	recorded = append(recorded, base.bullets...)
	recNorm := make([]factNorm, len(recorded))
	for i, r := range recorded {
		recNorm[i] = normalizeFact(r.text)
	}
	root := f.Project.Root
	repo := &observations.Repo{Root: root, Skip: map[string]bool{targetAbs: true, indexAbs: true}, KBRoot: f.KB.Root, Layers: f.Layers}
	gate := &observations.Gate{Repo: repo}
	// A target that is a symlink (CLAUDE.md -> docs/AGENTS.md) is written
	// through: the file it names is the target too, not a project file a
	// fact could be derived from.
	if real, err := f.Project.Resolve(targetAbs); err == nil && real != targetAbs {
		if realRoot, err := filepath.EvalSymlinks(root); err == nil {
			if rel, err := filepath.Rel(realRoot, real); err == nil {
				repo.Skip[filepath.Join(root, rel)] = true
			}
		}
	}
	drop := func(c *candidate, why string) {
		res.Dropped = append(res.Dropped, Drop{Fact: c.Fact, Category: c.Category, Observation: c.Observation, Reason: why})
	}
	var passed []*candidate
	for _, c := range cands {
		n := normalizeFact(c.Fact)
		dup := -1
		conflict, why := -1, ""
		for i, r := range recNorm {
			if w := contradicts(n, r); w != "" {
				conflict, why = i, w
				break
			}
			if dup < 0 && nearDuplicate(n, r) {
				dup = i
			}
		}
		if conflict >= 0 {
			res.Conflicts = append(res.Conflicts, Conflict{Fact: c.Fact, Observation: c.Observation,
				Existing: recorded[conflict].text, Where: recorded[conflict].where, Why: why})
			continue
		}
		if dup >= 0 {
			drop(c, "duplicate: "+recorded[dup].where)
			continue
		}
		if applied[factHash(c.Fact)] {
			// kb wrote it before and a person took it out: their edit wins.
			drop(c, "duplicate: learned before and removed by hand since")
			continue
		}
		// The one gate extraction and promote ask too (observations.Gate).
		if v := gate.Judge(c.obs); !v.Keep() {
			drop(c, v.String())
			continue
		}
		passed = append(passed, c)
	}
	// Among the survivors, the best supported of near-duplicates wins.
	sort.SliceStable(passed, func(i, j int) bool {
		a, b := passed[i], passed[j]
		if a.sessionCount() != b.sessionCount() {
			return a.sessionCount() > b.sessionCount()
		}
		return a.obs.Importance > b.obs.Importance
	})
	var kept []*candidate
	var keptNorm []factNorm
	for _, c := range passed {
		n := normalizeFact(c.Fact)
		dup := -1
		for i, kn := range keptNorm {
			if contradicts(n, kn) != "" || nearDuplicate(n, kn) {
				dup = i
				break
			}
		}
		if dup >= 0 {
			drop(c, "duplicate: candidate "+kept[dup].Observation)
			continue
		}
		kept = append(kept, c)
		keptNorm = append(keptNorm, n)
	}
	// Index order: oldest first, then by category and text, so reruns agree.
	sort.SliceStable(kept, func(i, j int) bool {
		a, b := kept[i], kept[j]
		if a.Date != b.Date {
			return a.Date < b.Date
		}
		if a.Category != b.Category {
			return a.Category < b.Category
		}
		return a.Fact < b.Fact
	})
	out := make([]Applied, 0, len(kept))
	for _, c := range kept {
		out = append(out, c.Applied)
	}
	return out
}

// factNorm is a fact normalized for comparison: content stems without
// negations (topic), and whether it is negated.
type factNorm struct {
	all     map[string]bool
	negated bool
	option  string          // "use X": the stem of X
	rest    map[string]bool // stems besides the option, for "use X" facts
}

// words splits a fact into words with the extractors' tokenizer, which
// spells out contractions so that "don't use X" carries its negation
// (curly apostrophes first made straight, so that "don’t" does too).
func words(s string) []string {
	return observations.Words(lexicon.Straighten(s))
}

// stopWords are dropped from a fact before comparing.
var stopWords = lexicon.StopFacts

var negations = map[string]bool{"not": true, "never": true, "no": true, "avoid": true, "cannot": true, "without": true, "stop": true}

var useOptionRE = regexp.MustCompile(`^(?:use|prefer|choose|pick|chose|go with)\s+([^\s,;:()]+)`)

func normalizeFact(s string) factNorm {
	n := factNorm{all: map[string]bool{}, rest: map[string]bool{}}
	ws := words(s)
	for _, w := range ws {
		if negations[w] {
			n.negated = true
			continue
		}
		if stopWords.Has(w) {
			continue
		}
		n.all[lexicon.Stem(w)] = true
	}
	low := strings.Join(ws, " ")
	if m := useOptionRE.FindStringSubmatch(low); m != nil && !n.negated {
		n.option = lexicon.Stem(m[1])
		for w := range n.all {
			if w != n.option && w != "use" && w != "prefer" && w != "choos" && w != "pick" && w != "chose" && w != "go" {
				n.rest[w] = true
			}
		}
	}
	return n
}

// similarTopic: Jaccard >= 0.6, or containment >= 0.8 when the smaller set
// has at least three stems (two words are contained in too much).
func similarTopic(a, b map[string]bool) bool {
	if observations.Jaccard(a, b) >= 0.6 {
		return true
	}
	return min(len(a), len(b)) >= 3 && observations.Overlap(a, b) >= 0.8
}

func nearDuplicate(a, b factNorm) bool {
	return a.negated == b.negated && similarTopic(a.all, b.all)
}

// contradicts returns why a and b contradict, or "": the same topic with
// opposite polarity, or "use X" against "use Y" for the same purpose.
func contradicts(a, b factNorm) string {
	if a.negated != b.negated && similarTopic(a.all, b.all) {
		return "opposite polarity on the same topic"
	}
	if a.option != "" && b.option != "" && a.option != b.option && len(a.rest) >= 1 && len(b.rest) >= 1 &&
		observations.Jaccard(a.rest, b.rest) >= 0.6 {
		return "different option chosen for the same purpose"
	}
	return ""
}
