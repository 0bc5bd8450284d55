package observations

import (
	"strings"
)

// ---------------------------------------------------------------------------
// Preferences.

type preferenceExtractor struct{ tax *Taxonomy }

func (*preferenceExtractor) Type() string { return TypePreference }

var prefRE = lazyRegexp(`(?i)\b(i (really )?prefer|i'?d (much )?rather|i'?d prefer|we prefer|we always|we never|we (don'?t|do not) use|our (convention|style|standard|rule) is|please always|please never|from now on|going forward|in (the )?future|as a rule|make sure (to|you) always|i (really )?(like|hate|dislike|don'?t like) (it )?when|by convention|we use)\b`)

// constraintRE finds a standing constraint stated inside a request ("...
// and, while keeping it simple and dependency free, propose a plan?"): the
// person's words about how the work must be done, whatever the task.
var constraintRE = lazyRegexp(`(?i)\bkeep(?:ing)?\s+(?:it|things|everything|this|them|the code(?:base)?)\s+((?:as\s+)?(?:simple|minimal|small|lean|light(?:weight)?|dependency[- ]free|compilation[- ]free|build[- ]free|framework[- ]free|vanilla|plain|self[- ]contained|in (?:one|a single) file|backwards?[- ]compatible)\b[^,;:?!\n]{0,100})`)

// noDepsRE finds "without (adding) any new dependencies".
var noDepsRE = lazyRegexp(`(?i)\bwithout\s+(?:adding|introducing|pulling in|installing)?\s*(?:any\s+)?(?:new|extra|external|additional|third[- ]party)?\s*(?:dependencies|deps|libraries|packages|frameworks)\b`)

// constraint returns the preference a sentence states as a constraint on a
// request, or "".
func constraint(sent string) string {
	if m := constraintRE.FindStringSubmatch(sent); m != nil {
		// "Keep it simple." alone says too little to be worth recalling.
		if st := phrase("Keep it " + strings.TrimSpace(m[1])); len(strings.Fields(st)) >= 4 {
			return st
		}
	}
	if noDepsRE.MatchString(sent) {
		return "Do not add new dependencies."
	}
	return ""
}

func (e *preferenceExtractor) Extract(s *Session) []*Observation {
	tl := buildTimeline(s)
	var out []*Observation
	for k := range tl.utts {
		u := &tl.utts[k]
		if c, _ := correctionStrength(tl, u, e.tax); c > 0 {
			continue // the correction carries it
		}
		for _, sent := range sentences(u.text) {
			var st string
			switch {
			case prefRE.MatchString(sent) && !strings.HasSuffix(sent, "?"):
				st = phrase(stripLead(sent, true))
			default:
				st = constraint(sent)
			}
			if len(strings.Fields(st)) < 3 {
				continue
			}
			types := e.tax.ClassifyText(sent)
			signals := []string{}
			if severityRE.MatchString(sent) {
				signals = append(signals, SignalSeverity)
			}
			if markerRE.MatchString(sent) {
				signals = append(signals, SignalMarker)
			}
			imp := 0.4
			if len(signals) > 0 {
				imp += 0.1
			}
			out = append(out, &Observation{
				Type: TypePreference, Title: shorten(st, 80), Description: "Stated preference",
				Statement: st, Domain: domainOf(sent, types), ActionTypes: types,
				Accepts: 1, Consistency: 1, Confidence: 0.7, Importance: imp, Signals: signals,
				Sources: []SourceRef{tl.sourceRef(u.idx, u.idx)}, Excerpt: "User: " + shorten(u.text, 300),
			})
			break
		}
	}
	return out
}

// domainOf names the area a preference is about.
func domainOf(text string, types []string) string {
	for _, t := range types {
		d, _, _ := strings.Cut(t, ":")
		switch d {
		case "git":
			return "git"
		case "test":
			return "testing"
		case "pkg":
			return "deps"
		case "style", "lint", "js", "ts", "py":
			return "style"
		case "docs":
			return "docs"
		case "sql", "db":
			return "database"
		case "deploy", "infra", "k8s", "docker":
			return "infra"
		case "code":
			return "code"
		}
	}
	w := contentStems(text)
	switch {
	case w["name"] || w["nam"] || w["naming"] || w["camelcas"] || w["snake"]:
		return "naming"
	case w["comment"] || w["readm"] || w["doc"] || w["docs"]:
		return "docs"
	case w["format"] || w["indent"] || w["style"] || w["emoji"]:
		return "style"
	case w["test"]:
		return "testing"
	case w["commit"] || w["branch"]:
		return "git"
	}
	return "general"
}
