package observations

import (
	"strings"
)

// ---------------------------------------------------------------------------
// Decisions.

type decisionExtractor struct{ tax *Taxonomy }

func (*decisionExtractor) Type() string { return TypeDecision }

var (
	choiceRE      = lazyRegexp(`(?i)\b(let'?s|we'?ll|i'?ll|we should|i want to|i'?d like to)\s+(go with|use|do|pick|choose|stick with|try|take|keep)\s+(the\s+)?([^.,!;?\n]{2,60})`)
	optionRE      = lazyRegexp(`(?i)\b(option|approach|choice|alternative|solution)\s*#?\s*([0-9]+|[a-d])\b`)
	ordinalRE     = lazyRegexp(`(?i)\b(the\s+)?(first|second|third|fourth|last)\s+(one|option|approach|choice)\b`)
	altLineRE     = lazyRegexp(`(?m)^\s*(?:#{1,4}\s*)?(?:\d+[.)]|[-*•]|(?:Option|Approach|Alternative)\s+[0-9A-Za-z]+[:.)]?)\s*(?:\*\*)?(?:(?:Option|Approach)\s+[0-9A-Za-z]+[:.)]?\s*)?([^*:\n]{2,70}?)(?:\*\*)?\s*(?:[:\-–—(]\s*(.*))?$`)
	optionLineRE  = lazyRegexp(`(?m)^\s*(?:#{1,4}\s*)?\**\s*(?:Option|Approach|Alternative|Choice)\s+[0-9A-Za-z]+\s*[:.)\-–—]\s*\**\s*([^*\n(:]{2,60}?)\s*\**\s*(?:[:\-–—(]\s*(.*?)\)?)?\s*$`)
	optionsWordRE = lazyRegexp(`(?i)\b(options?|approach(es)?|alternatives?|either|could (use|go|do)|recommend|trade-?offs?|pros|cons|choices?)\b`)
)

func (e *decisionExtractor) Extract(s *Session) []*Observation {
	tl := buildTimeline(s)
	var out []*Observation
	for k := range tl.utts {
		u := &tl.utts[k]
		if len(u.assistant) == 0 {
			continue
		}
		choice, idx := "", -1
		if m := choiceRE.FindStringSubmatch(u.text); m != nil {
			choice = strings.TrimSpace(m[4])
		}
		if m := optionRE.FindStringSubmatch(u.text); m != nil {
			idx = optionIndex(m[2])
		} else if m := ordinalRE.FindStringSubmatch(u.text); m != nil {
			idx = map[string]int{"first": 0, "second": 1, "third": 2, "fourth": 3, "last": -2}[strings.ToLower(m[2])]
		}
		if choice == "" && idx == -1 {
			continue
		}
		// Alternatives the agent laid out since the previous utterance.
		var alts []Alternative
		var question string
		for _, a := range u.assistant {
			txt := tl.rec(a).Text
			if !optionsWordRE.MatchString(txt) {
				continue
			}
			var found []Alternative
			lines := optionLineRE.FindAllStringSubmatch(txt, 12)
			if len(lines) < 2 {
				lines = altLineRE.FindAllStringSubmatch(txt, 12)
			}
			for _, m := range lines {
				name := strings.Trim(strings.TrimSpace(m[1]), "`*_ ")
				if name == "" || len(strings.Fields(name)) > 10 {
					continue
				}
				found = append(found, Alternative{Name: name, Reasoning: shorten(strings.Trim(m[2], "* "), 160)})
			}
			if len(found) >= 2 && len(found) <= 8 {
				alts = found
			}
		}
		if len(alts) < 2 {
			continue
		}
		chosen := -1
		switch {
		case idx == -2:
			chosen = len(alts) - 1
		case idx >= 0 && idx < len(alts):
			chosen = idx
		case choice != "":
			cw := contentStems(choice)
			best := 0.0
			for i, a := range alts {
				if sc := overlap(cw, contentStems(a.Name)); sc > best {
					best, chosen = sc, i
				}
			}
			if best < 0.5 {
				chosen = -1
			}
		}
		if chosen < 0 {
			continue
		}
		if u.prev >= 0 {
			question = shorten(tl.utts[u.prev].text, 160)
		}
		reasons := []string{}
		if alts[chosen].Reasoning != "" {
			reasons = append(reasons, alts[chosen].Reasoning)
		}
		if m := becauseRE.FindStringSubmatch(u.text); m != nil {
			reasons = append(reasons, shorten(m[2], 160))
		}
		out = append(out, &Observation{
			Type: TypeDecision, Title: shorten("Chose "+alts[chosen].Name, 80), Description: "Decision among " + itoa(len(alts)) + " alternatives",
			Question: question, Alternatives: alts, Chosen: alts[chosen].Name, Reasons: reasons,
			ActionTypes: e.tax.ClassifyText(alts[chosen].Name + " " + u.text),
			Confidence:  0.6, Importance: 0.45,
			Sources: []SourceRef{tl.sourceRef(u.assistant[0], u.idx)}, Excerpt: "User: " + shorten(u.text, 300),
		})
	}
	return out
}

func optionIndex(s string) int {
	s = strings.ToLower(s)
	if len(s) == 1 && s[0] >= 'a' && s[0] <= 'd' {
		return int(s[0] - 'a')
	}
	n := 0
	for _, r := range s {
		n = n*10 + int(r-'0')
	}
	return n - 1
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}
