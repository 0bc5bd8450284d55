package observations

import (
	"encoding/json"
	"github.com/kbmem/kb/internal/textutil"
	"strings"

	"github.com/kbmem/kb/traces"
)

// ---------------------------------------------------------------------------
// Decisions the person made in a choice the agent's UI offered (Claude
// Code's AskUserQuestion): the options are the call's input, the person's
// pick is the answer the harness returned. The pick is the person's act,
// though they typed none of it.

// choiceQuestion is one question of an AskUserQuestion call.
type choiceQuestion struct {
	ID       string `json:"id"` // Codex's request_user_input answers by id
	Question string `json:"question"`
	Header   string `json:"header"`
	Options  []struct {
		Label       string `json:"label"`
		Description string `json:"description"`
	} `json:"options"`
}

// askTools are the tools whose result is the person's pick among the
// options of their input.
var askTools = map[string]bool{"AskUserQuestion": true, "ask_user_question": true, "ask_user": true, "request_user_input": true}

// answeredRE reads one answer of the harness's text: "Question"="Answer".
var answeredRE = textutil.Lazy(`"((?:[^"\\]|\\.)+)"\s*=\s*"((?:[^"\\]|\\.)*)"`)

// uiChoices returns a decision for each answered question of the session's
// choice prompts.
func (e *decisionExtractor) uiChoices(tl *timeline) []*Observation {
	var out []*Observation
	recs := tl.s.Records
	for i := range recs {
		r := &recs[i]
		if !isToolCall(r) || !askTools[r.Tool] {
			continue
		}
		var in struct {
			Questions []choiceQuestion `json:"questions"`
		}
		if json.Unmarshal(r.Input, &in) != nil || len(in.Questions) == 0 {
			continue
		}
		res := choiceResult(recs, i)
		if res < 0 {
			continue
		}
		answers := choiceAnswers(&recs[res])
		for _, q := range in.Questions {
			ans := strings.TrimSpace(answers[q.Question])
			if ans == "" && q.ID != "" {
				ans = strings.TrimSpace(answers[q.ID])
			}
			if ans == "" || len(q.Options) < 2 {
				continue
			}
			// An answer may hold several lines: the picked label and the
			// person's note (Codex: "user_note: ...").
			var alts []Alternative
			chosen := ""
			var notes []string
			for _, part := range strings.Split(ans, "\n") {
				part = strings.TrimSpace(part)
				picked := false
				for _, o := range q.Options {
					if chosen == "" && strings.EqualFold(strings.TrimSpace(o.Label), part) {
						chosen, picked = o.Label, true
					}
				}
				if note := strings.TrimSpace(strings.TrimPrefix(part, "user_note:")); !picked && note != "" {
					notes = append(notes, note)
				}
			}
			for _, o := range q.Options {
				alts = append(alts, Alternative{Name: o.Label, Reasoning: shorten(o.Description, 160)})
			}
			if chosen == "" {
				chosen = strings.Join(notes, "; ") // the person's own answer ("Other")
				notes = nil
				if harnessNote(chosen) {
					// "[User dismissed — do not proceed, wait for next
					// instruction]": the harness's words for a prompt the
					// person closed, not a pick.
					continue
				}
			}
			reasons := []string{}
			for _, n := range notes {
				reasons = append(reasons, shorten(n, 200))
			}
			for _, a := range alts {
				if a.Name == chosen && a.Reasoning != "" {
					reasons = append(reasons, a.Reasoning)
				}
			}
			out = append(out, &Observation{
				Type: TypeDecision, Title: shorten("Chose "+chosen+" ("+firstNonEmpty(q.Header, q.Question)+")", 80),
				Description: "Decision among " + itoa(len(alts)) + " alternatives",
				Question:    shorten(q.Question, 200), Alternatives: alts, Chosen: chosen, Reasons: reasons,
				ActionTypes: e.tax.ClassifyText(chosen + " " + q.Question), Confidence: 0.75, Importance: 0.5,
				Signals: []string{}, Sources: []SourceRef{tl.sourceRef(i, res)},
				Excerpt: "Asked: " + shorten(q.Question, 200) + "\nPicked: " + shorten(chosen, 120),
			})
		}
	}
	return out
}

// harnessNote reports whether an answer is a note of the harness in
// brackets rather than the person's words: "[...]", nothing else.
func harnessNote(s string) bool {
	return strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") && strings.Count(s, "[") == 1
}

// choiceResult finds the result of the choice call at i: the person's
// answer, not a refusal.
func choiceResult(recs []traces.Record, i int) int {
	id := recs[i].CallID
	for j := i + 1; j < len(recs) && j < i+50; j++ {
		r := &recs[j]
		if r.Kind != traces.KindToolResult || (id != "" && r.CallID != id) {
			continue
		}
		if r.Has(traces.MarkRejected) || r.IsError {
			return -1
		}
		return j
	}
	return -1
}

// choiceAnswers reads the answers of a choice result: the structured
// answers the harness keeps beside the result when it has them, else its
// text ("User has answered your questions: "Q"="A", ...").
func choiceAnswers(r *traces.Record) map[string]string {
	out := map[string]string{}
	for _, k := range []string{"toolUseResult", "tool_use_result"} {
		var v struct {
			Answers map[string]string `json:"answers"`
		}
		if raw, ok := r.Extra[k]; ok && json.Unmarshal(raw, &v) == nil && len(v.Answers) > 0 {
			return v.Answers
		}
	}
	text := r.Output
	if text == "" {
		text = r.Text
	}
	// Codex's request_user_input: {"answers":{"<question id>":{"answers":
	// ["<label>", "user_note: ..."]}}}.
	var cx struct {
		Answers map[string]struct {
			Answers []string `json:"answers"`
		} `json:"answers"`
	}
	if strings.HasPrefix(strings.TrimSpace(text), "{") && json.Unmarshal([]byte(text), &cx) == nil && len(cx.Answers) > 0 {
		for id, a := range cx.Answers {
			out[id] = strings.Join(a.Answers, "\n")
		}
		return out
	}
	for _, m := range answeredRE.FindAllStringSubmatch(text, -1) {
		out[unescapeQuoted(m[1])] = unescapeQuoted(m[2])
	}
	return out
}

func unescapeQuoted(s string) string {
	var v string
	if json.Unmarshal([]byte(`"`+s+`"`), &v) == nil {
		return v
	}
	return s
}

func firstNonEmpty(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}

// firstLineOf is the first non-empty line of s.
func firstLineOf(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			return t
		}
	}
	return ""
}
