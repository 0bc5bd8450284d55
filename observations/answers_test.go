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

// The person proposes another way than the agent's, in Korean: "X를
// 사용하면 될 것 같다", "X로 선택하면 되잖아", "X로 바꾸자".
func TestProposalKorean(t *testing.T) {
	run := func(reply string) []*Observation {
		return otherWays(t, "대시보드에 보기 선택 컨트롤을 추가해줘", "<RadioGroup/>", "라디오 버튼으로 보기 선택을 추가했습니다.", reply)
	}
	for _, reply := range []string{
		"지표는 두 개뿐이니까 체크박스로 선택하면 될 것 같다",
		"apps/web/src/components/ui/calendar.jsx 이거 사용하면 되잖아",
		"드롭다운으로 바꾸자",
	} {
		if ds := run(reply); len(ds) != 1 {
			t.Errorf("%q: %d decisions", reply, len(ds))
		}
	}
	for _, reply := range []string{"좋아요, 고마워요", "이제 테스트를 실행해줘"} {
		if ds := run(reply); len(ds) != 0 {
			t.Errorf("%q became a decision: %q", reply, ds[0].Chosen)
		}
	}
}

// The person proposes another way than the agent's in French, Spanish,
// Portuguese and Italian: "on pourrait plutôt utiliser X", "usemos X",
// "poderíamos usar X", "possiamo usare X".
func TestProposalRomance(t *testing.T) {
	run := func(reply string) []*Observation {
		return otherWays(t, "add a date filter to the dashboard", `<input type=\"date\"/>`, "I added a plain date input.", reply)
	}
	for _, reply := range []string{
		"on pourrait plutôt utiliser le DatePicker de components/ui, il gère déjà les plages",
		"utilisons le composant Calendar de shadcn à la place",
		"mejor usemos el DatePicker de components/ui",
		"podríamos reutilizar el componente Calendar que ya tenemos",
		"poderíamos usar o DatePicker de components/ui",
		"possiamo usare il DatePicker di components/ui",
	} {
		if ds := run(reply); len(ds) != 1 {
			t.Errorf("%q: %d decisions", reply, len(ds))
		}
	}
	for _, reply := range []string{"parfait, merci", "ahora ejecuta los tests", "va bene così", "obrigado, está ótimo"} {
		if ds := run(reply); len(ds) != 0 {
			t.Errorf("%q became a decision: %q", reply, ds[0].Chosen)
		}
	}
}

// otherWays are the decisions for another way than the agent's that the
// person's reply makes in a session where the person asked for ask, and
// the agent wrote wrote into Dashboard.jsx and said said.
func otherWays(t *testing.T, ask, wrote, said, reply string) []*Observation {
	t.Helper()
	s := (&ccFixture{}).user(ask).
		call("toolu_1", "Edit", `{"file_path":"/repo/web/Dashboard.jsx","old_string":"a","new_string":"`+wrote+`"}`).result("toolu_1", "ok").
		say(said).user(reply).say("OK.").session(t)
	var out []*Observation
	for _, d := range ofType(Extract(s, nil, nil), TypeDecision) {
		if d.Description == "Decision for another way than the agent's" {
			out = append(out, d)
		}
	}
	return out
}
