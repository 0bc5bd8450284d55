package observations

import (
	"slices"
	"strings"
	"testing"
)

// The agent asks numbered questions with lettered options; the person
// answers them by number and letter in one message: a decision for each
// question answered by letter, naming the options taken.
func TestAnswersToNumberedQuestions(t *testing.T) {
	ask := "Before I start, a few questions:\n\n### Q1: How strict should the keyword search be?\n- A. Exactly as typed, pipes included\n- B. Split on | and search each part\n- C. Something else?\n\n" +
		"### Q2: How deep should the call-chain analysis go?\n- A. Callers only\n- B. Callees only\n- C. Both directions\n- D. Data flow too\n\n" +
		"**3. Where should the report go?**\nA) docs/reports\nB) the skill's references folder\n"
	run := func(reply string) []*Observation {
		s := (&ccFixture{}).user("improve the log analyzer skill").say(ask).user(reply).say("Thanks, updating the skill.").session(t)
		return ofType(Extract(s, nil, nil), TypeDecision)
	}
	for name, tc := range map[string]struct {
		reply string
		want  []string
	}{
		"Q and letter":    {"Q1: B\nQ2: C and D\nQ3: A", []string{"Split on | and search each part", "Both directions + Data flow too", "docs/reports"}},
		"numbers":         {"1. B 2. C 3. B", []string{"Split on | and search each part", "Both directions", "the skill's references folder"}},
		"title repeated":  {"Q1：关键字检索严格性。 答案：B\nQ2：调用链分析深度 。答案：C和D", []string{"Split on | and search each part", "Both directions + Data flow too"}},
		"one answered":    {"Q2 - A, the rest I'll think about", []string{"Callers only"}},
		"prose, no pick":  {"1. A good start would be the search. 2. Not sure yet.", nil},
		"another request": {"Just make the search faster please", nil},
	} {
		var got []string
		for _, d := range run(tc.reply) {
			if strings.HasPrefix(d.Description, "Answer to the agent's question") {
				got = append(got, d.Chosen)
			}
		}
		slices.Sort(got)
		slices.Sort(tc.want)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s: chose %q, want %q", name, got, tc.want)
		}
	}
}
