package observations

import (
	"strings"
)

// ---------------------------------------------------------------------------
// Negative results.

type negativeExtractor struct{ tax *Taxonomy }

func (*negativeExtractor) Type() string { return TypeNegativeResult }

var (
	userFailRE  = lazyRegexp(`(?i)\b((still\s+)?(doesn'?t|does not|didn'?t|did not|isn'?t|is not)\s+(work|help|fix)|not working|still (fails|failing|broken|broke)|(that|this|it) (broke|failed)|we lost|made it worse|doesn'?t seem to work)\b`)
	agentFailRE = lazyRegexp(`(?i)\b((that|this|the) (approach|fix|change|attempt|workaround|solution|idea) (didn'?t|doesn'?t|did not|does not|won'?t|will not) work|(didn'?t|did not) work (because|since|due to)|reverting (the|my|this|that)|let me revert|i'?ll revert|that didn'?t help)\b`)
)

func (e *negativeExtractor) Extract(s *Session) []*Observation {
	tl := buildTimeline(s)
	var out []*Observation
	for k := range tl.utts {
		u := &tl.utts[k]
		if c, _ := correctionStrength(tl, u, e.tax); c > 0 {
			continue
		}
		sent := matchSentence(u.text, userFailRE)
		if sent == "" || len(u.calls) == 0 {
			continue
		}
		call := lastChange(tl, u, e.tax)
		r := tl.rec(call)
		types := e.tax.ClassifyCall(r.Tool, r.Input)
		approach := describeCall(r, types, e.tax)
		o := &Observation{
			Type: TypeNegativeResult, Title: shorten("Did not work: "+approach, 80), Description: "Reported failure",
			Approach: approach, Failure: shorten(sent, 200), FollowedBy: followedBy(tl, k),
			ActionTypes: types, Confidence: 0.55, Importance: 0.4,
			Sources: []SourceRef{tl.sourceRef(call, u.idx)}, Excerpt: "User: " + shorten(u.text, 300),
		}
		if frustrationRE.MatchString(u.text) {
			o.Signals = append(o.Signals, SignalFrustration)
			o.Importance += 0.1
		}
		out = append(out, o)
	}
	// The agent saying its own approach failed.
	for i := range s.Records {
		r := &s.Records[i]
		if !isAgentText(r) {
			continue
		}
		sent := matchSentence(r.Text, agentFailRE)
		if sent == "" {
			continue
		}
		prev := -1
		for j := i - 1; j >= 0 && j >= i-20; j-- {
			if isToolCall(&s.Records[j]) {
				prev = j
				break
			}
		}
		approach := "the previous attempt"
		var types []string
		if prev >= 0 {
			types = e.tax.ClassifyCall(s.Records[prev].Tool, s.Records[prev].Input)
			approach = describeCall(&s.Records[prev], types, e.tax)
		}
		from := i
		if prev >= 0 {
			from = prev
		}
		out = append(out, &Observation{
			Type: TypeNegativeResult, Title: shorten("Did not work: "+approach, 80), Description: "Abandoned approach",
			Approach: approach, Failure: shorten(sent, 200), ActionTypes: types, Confidence: 0.35, Importance: 0.3,
			Author: AuthorAgent, Origin: OriginAssistantText,
			Sources: []SourceRef{tl.sourceRef(from, i)}, Excerpt: "Agent: " + shorten(sent, 300),
		})
	}
	return out
}

func matchSentence(text string, re *lazyRE) string {
	for _, s := range sentences(text) {
		if re.MatchString(s) {
			return s
		}
	}
	return ""
}

// statementOf returns the first informative sentence of an agent message:
// at least five words, not an exclamation ("Done!", "Excellent!").
func statementOf(s string) string {
	for _, x := range sentences(cleanHuman(s)) {
		x = strings.TrimLeft(x, "#*- ")
		if len(strings.Fields(x)) >= 5 && !strings.HasSuffix(x, "!") {
			return x
		}
	}
	return firstSentence(s)
}

func firstSentence(s string) string {
	ss := sentences(cleanHuman(s))
	if len(ss) == 0 {
		return ""
	}
	return ss[0]
}

// followedBy summarizes what came after utterance k: the agent's next
// message or call.
func followedBy(tl *timeline, k int) string {
	for _, j := range tl.after[k] {
		r := tl.rec(j)
		if isAgentText(r) {
			return shorten(firstSentence(r.Text), 140)
		}
		if isToolCall(r) {
			return callSummary(r)
		}
	}
	return ""
}
