package observations

import (
	"github.com/kbmem/kb/internal/textutil"
	"strings"
)

// ---------------------------------------------------------------------------
// Questions.

type questionExtractor struct{ tax *Taxonomy }

func (*questionExtractor) Type() string { return TypeQuestion }

var (
	questionStartRE = textutil.Lazy(`(?i)^(what|why|how|where|when|which|who|whose|is|are|does|do|did|was|were|has|have|should|shall|will|would|can|could|may|might|isn'?t|aren'?t|doesn'?t|don'?t|am)\b`)
	requestRE       = textutil.Lazy(`(?i)^(can|could)\s+we\b|^(can|could|would|will)\s+(you|u)\s+(please\s+|also\s+|maybe\s+)*(?:(help|add|make|fix|change|update|create|write|run|remove|delete|check|look|read|do|implement|refactor|move|rename|set|install|commit|push|explain|show|give|list|tell|summari[sz]e|review|find|search|use|try|test|clean|build|deploy|generate|convert|rewrite|replace|put|send|open|take)\b)`)
)

func (e *questionExtractor) Extract(s *Session) []*Observation {
	tl := buildTimeline(s)
	var out []*Observation
	for k := range tl.utts {
		u := &tl.utts[k]
		if u.reason {
			continue
		}
		if c, _ := tl.corrected(u, e.tax); c > 0 {
			continue
		}
		var q string
		for _, sent := range sentences(u.text) {
			sent = stripLead(sent, true)
			if strings.HasSuffix(sent, "?") && questionStartRE.MatchString(sent) && !requestRE.MatchString(sent) &&
				len(strings.Fields(sent)) >= 3 {
				q = sent
				break
			}
		}
		if q == "" {
			continue
		}
		answered := false
		next := k + 1
		for _, j := range tl.after[k] {
			if isAgentText(tl.rec(j)) {
				answered = true
				break
			}
		}
		if next < len(tl.utts) && (len(tl.utts[next].rejected) > 0 || tl.utts[next].interrupted) && !answered {
			answered = false
		}
		out = append(out, &Observation{
			Type: TypeQuestion, Title: shorten(q, 80), Description: "Asked by the user",
			Question: shorten(q, 300), Answered: answered, ActionTypes: e.tax.ClassifyText(q),
			Confidence: 0.8, Importance: 0.2,
			Sources: []SourceRef{tl.sourceRef(u.idx, u.idx)}, Excerpt: "User: " + shorten(u.text, 300),
		})
	}
	return out
}
