package observations

import (
	"github.com/kbmem/kb/internal/textutil"
	"slices"
	"strings"

	"github.com/kbmem/kb/traces"
)

// ---------------------------------------------------------------------------
// Negative results.

type negativeExtractor struct{ tax *Taxonomy }

func (*negativeExtractor) Type() string { return TypeNegativeResult }

var (
	userFailRE = textutil.Lazy(`(?i)\b((still\s+)?(doesn'?t|does not|didn'?t|did not|isn'?t|is not)\s+(work|help|fix)|not working|still (fails|failing|broken|broke)|(that|this|it) (broke|failed)|we lost|made it worse|doesn'?t seem to work)\b`)
)

func (e *negativeExtractor) Extract(s *Session) []*Observation {
	tl := buildTimeline(s)
	var out []*Observation
	for k := range tl.utts {
		u := &tl.utts[k]
		if c, _ := tl.corrected(u, e.tax); c > 0 {
			continue
		}
		sent := matchSentence(u.text, userFailRE)
		if sent == "" || len(u.calls) == 0 {
			continue
		}
		call := lastChange(tl, u, e.tax)
		r := tl.rec(call)
		types := s.callTypes(e.tax, call)
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
	// What happened: a call that failed and that the agent gave up for
	// another way to the same end. The agent's own prose about its
	// attempts ("let me revert", "that didn't work") is not evidence: it
	// is often about something else than what the person refused.
	out = append(out, abandonedCalls(s, e.tax)...)
	return out
}

// maxAbandonWindow bounds how far after a failed call its replacement is
// looked for.
const maxAbandonWindow = 30

// abandonedCalls finds failed tool calls followed by a change of approach:
// the call's result is an error (not a refusal), the next call for the
// same purpose (sharing its most specific action type) is a different
// command and succeeds, and the failed call is never run again in the
// session. The replacement must be another approach: another program or
// verb, or other action types, not the same command with other arguments.
// A test or lint run that fails is feedback on the code, not an approach,
// and a failure the agent retries after a fix is not abandoned.
func abandonedCalls(s *Session, tax *Taxonomy) []*Observation {
	results := map[string]int{} // call id -> its result
	for i := range s.Records {
		r := &s.Records[i]
		if r.Kind == traces.KindToolResult && r.CallID != "" {
			if _, ok := results[r.CallID]; !ok {
				results[r.CallID] = i
			}
		}
	}
	resultOf := func(i int) *traces.Record {
		r := &s.Records[i]
		if j, ok := results[r.CallID]; ok && r.CallID != "" {
			return &s.Records[j]
		}
		if i+1 < len(s.Records) && s.Records[i+1].Kind == traces.KindToolResult && s.Records[i+1].CallID == "" {
			return &s.Records[i+1]
		}
		return nil
	}
	tl := &timeline{s: s}
	var out []*Observation
	for i := range s.Records {
		c := &s.Records[i]
		if !isToolCall(c) {
			continue
		}
		res := resultOf(i)
		if res == nil || !res.IsError || res.Has(traces.MarkRejected) {
			continue
		}
		types := s.callTypes(tax, i)
		if len(types) == 0 || slices.ContainsFunc(types, checkDomain) {
			continue
		}
		// The purpose two calls share is what they do: a type read from
		// the text a call writes (a script with console.log in it, a
		// report quoting one) says nothing of it.
		purpose := slices.IndexFunc(types, tax.Operation)
		if purpose < 0 {
			continue
		}
		alt := -1
		for j := i + 1; j < len(s.Records) && j <= i+maxAbandonWindow; j++ {
			d := &s.Records[j]
			if d.Human() {
				break // the person spoke: what follows is theirs to direct
			}
			if !isToolCall(d) {
				continue
			}
			dt := s.callTypes(tax, j)
			if !slices.Contains(dt, types[purpose]) {
				continue
			}
			if stepName(d) == stepName(c) && slices.Equal(s.shapeTypes(tax, j), s.shapeTypes(tax, i)) {
				break // the same approach again, other arguments (or other code): not given up
			}
			if dr := resultOf(j); dr != nil && !dr.IsError {
				alt = j
			}
			break
		}
		if alt < 0 || rerun(s, i, alt) {
			continue
		}
		// Named by what it did: the purpose first.
		types = slices.Concat(types[purpose:purpose+1], types[:purpose], types[purpose+1:])
		approach := describeCall(c, types, tax)
		failure := firstLine(res.Output)
		if failure == "" || syntaxErrorRE.MatchString(failure) {
			continue
		}
		instead := describeCall(&s.Records[alt], s.callTypes(tax, alt), tax)
		out = append(out, &Observation{
			Type: TypeNegativeResult, Title: shorten("Did not work: "+approach, 80), Description: "Failed, then done another way",
			Approach: approach, Failure: shorten(failure, 200), FollowedBy: shorten(instead, 140),
			ActionTypes: types, Confidence: 0.5, Importance: 0.4,
			Sources: []SourceRef{tl.sourceRef(i, alt)}, Excerpt: "Tool error: " + shorten(failure, 300),
		})
	}
	return out
}

// syntaxErrorRE is a command that failed because the agent wrote it
// wrong (a shell, Python or JavaScript parse error): a typo fixed on the
// next try, not an approach that does not work.
var syntaxErrorRE = textutil.Lazy(`(?i)syntax error near unexpected token|unexpected EOF while looking for matching|unexpected end of file|^\s*(?:File "<[^>]*>", line \d+|SyntaxError:|IndentationError:)|\bSyntaxError: (?:invalid syntax|Unexpected token|unterminated)`)

// checkDomain: a failing check (tests, linters, type checkers) is feedback
// on the code, not an approach that failed.
func checkDomain(typ string) bool {
	return strings.HasPrefix(typ, "test:") || strings.HasPrefix(typ, "lint:")
}

// rerun reports whether the call at i runs again, as it was, after alt.
func rerun(s *Session, i, alt int) bool {
	c := &s.Records[i]
	for j := alt + 1; j < len(s.Records); j++ {
		d := &s.Records[j]
		if isToolCall(d) && d.Tool == c.Tool && callSummary(d) == callSummary(c) {
			return true
		}
	}
	return false
}

// firstLine is the first informative line of a tool's output.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); len([]rune(l)) >= 4 {
			return l
		}
	}
	return ""
}

func matchSentence(text string, re *textutil.LazyRE) string {
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
//
// Only what was done counts: the agent's prose after the report ("When I
// modified X I may have affected…") is its diagnosis, not a way that
// worked, and reads as advice when injected. A call that failed as well
// is no way either.
func followedBy(tl *timeline, k int) string {
	after := tl.after[k]
	for n, j := range after {
		r := tl.rec(j)
		if !isToolCall(r) {
			continue
		}
		for _, i := range after[n+1:] {
			if res := tl.rec(i); res.Kind == traces.KindToolResult && (res.CallID == r.CallID || res.CallID == "") {
				if res.IsError || res.Has(traces.MarkRejected) {
					return ""
				}
				break
			}
		}
		return callSummary(r)
	}
	return ""
}
