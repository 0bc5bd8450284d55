package observations

import (
	"slices"
	"strings"
	"testing"
)

// TestConcededQuestionIsCorrection: a question or remark about the work
// just done, which the agent's reply grants ("You're right", "Вы правы",
// "你说得对"), corrected that work whatever its form; the same question
// answered as a question is not one. The lesson keeps the question and
// what the agent granted.
func TestConcededQuestionIsCorrection(t *testing.T) {
	after := func(question, reply string) []*Observation {
		return correctionsOfReply("add the command list to the prompts", "/src/prompts.py",
			"Done: both prompts now list the commands.", question, reply)
	}
	for _, c := range []struct{ question, reply string }{
		{"Why is the command list in both prompts?", "You're right to point that out - that's redundant. I'll keep it in one."},
		{"Isn't that a little slow for every request?", "Good catch: querying on every request is slow; a cache would help."},
		{"Зачем список команд в обоих промптах?", "Вы правы, это лишнее дублирование."},
		{"为什么两个提示里都有命令列表？", "你说得对，这是重复的。"},
		{"¿Por qué está la lista en los dos prompts?", "Tienes razón, está duplicada."},
		{"Warum steht die Liste in beiden Prompts?", "Du hast recht, das ist doppelt."},
	} {
		got := after(c.question, c.reply)
		if len(got) != 1 {
			t.Errorf("%q then %q: %d corrections, want 1", c.question, c.reply, len(got))
			continue
		}
		o := got[0]
		if !slices.Contains(o.Signals, SignalConceded) {
			t.Errorf("%q: signals %v, want %s", c.question, o.Signals, SignalConceded)
		}
		if !strings.Contains(o.Lesson, strings.TrimRight(c.question, "?？")) || !strings.Contains(o.Lesson, "the agent agreed") {
			t.Errorf("%q: lesson %q does not keep the question and the agent's answer", c.question, o.Lesson)
		}
	}
	// Answered, not granted: a question.
	for _, c := range []struct{ question, reply string }{
		{"Why do I have two prompts?", "You have two prompts because they serve different purposes."},
		{"Зачем два промпта?", "Два промпта нужны для разных задач."},
		{"Is the list in both prompts?", "Yes, both prompts list the commands."},
	} {
		if got := after(c.question, c.reply); len(got) != 0 {
			t.Errorf("%q then %q: %d corrections (%q), want none", c.question, c.reply, len(got), got[0].Lesson)
		}
	}
	// Thanks granted is no correction.
	if got := after("thanks, that's great", "You're right, it's much tidier now."); len(got) != 0 {
		t.Errorf("thanks: %d corrections, want none", len(got))
	}
}

// TestReminderWithPronoun: the person reminds the agent of what they
// asked before, with the object pronoun between subject and verb as
// Russian, German, Spanish, French and Chinese put it ("я тебя просил",
// "ich habe dir gesagt"): a correction of the work just done.
func TestReminderWithPronoun(t *testing.T) {
	for _, msg := range []string{
		"локализация будет позже, я тебя просил работать со мной на русском",
		"die Übersetzung kommt später, ich habe dir gesagt, du sollst auf Deutsch antworten",
		"la traducción viene después, te pedí que me respondieras en español",
		"la traduction viendra plus tard, je t'avais dit de me répondre en français",
		"翻译以后再说，我跟你说过要用中文回答",
		"translation comes later, I already told you to answer me in English",
	} {
		if n := correctionsAfterEdit("write the plan", "/spec/plan.md", "Done, the plan is written.", msg); n != 1 {
			t.Errorf("%q: %d corrections, want 1", msg, n)
		}
	}
}

// TestSwapOfANamedThing: the person swaps a name the agent used for
// another ('call the role "user" not "regular"', "`pnpm` statt `npm`"):
// a correction, in any language; naming two things the agent never used
// is a new request.
func TestSwapOfANamedThing(t *testing.T) {
	reply := `Plan: add a "regular" role next to "staff", and run npm install for the new package.`
	for _, msg := range []string{
		`Make this happen, but call the regular role "user" not "regular".`,
		"Mach das, aber nimm `pnpm` statt `npm`.",
		`Hazlo, pero llama al rol "user" y no "regular".`,
		`可以，但是角色叫“user”，而不是“regular”。`,
		`Сделай так, но роль назови "user", а не "regular".`,
	} {
		if n := correctionsAfterEdit("plan the roles", "/app/roles.ex", reply, msg); n != 1 {
			t.Errorf("%q: %d corrections, want 1", msg, n)
		}
	}
	for _, msg := range []string{
		`Now add a "viewer" role, not "guest".`, // neither was the agent's
		`Great, thanks.`,
	} {
		if n := correctionsAfterEdit("plan the roles", "/app/roles.ex", reply, msg); n != 0 {
			t.Errorf("%q: %d corrections, want 0", msg, n)
		}
	}
}

// The lesson of a swap is its clause, not the rest of the message.
func TestSwapLessonIsTheClause(t *testing.T) {
	s := newSession("e").
		user("plan the roles").
		call("Edit", `{"file_path":"/app/roles.ex","old_string":"a","new_string":"b"}`, "ok").
		say(`Plan: add a "regular" role next to "staff".`).
		user(`Make this happen, but call the regular role "user" not "regular". Also, don't bother with the future stuff yet.`).s
	got := ofType(Extract(s, nil, nil), TypeCorrection)
	if len(got) != 1 || !strings.HasPrefix(got[0].Lesson, `Call the regular role "user" not "regular"`) || strings.Contains(got[0].Lesson, "future stuff") {
		t.Fatalf("corrections %d, lesson %q", len(got), func() string {
			if len(got) > 0 {
				return got[0].Lesson
			}
			return ""
		}())
	}
}

// TestConfirmedDoubtIsCorrection: a question that suggests a problem with
// the work ("Isn't that a little slow?"), which the agent confirms with a
// yes, corrected it; a plain question answered yes did not.
func TestConfirmedDoubtIsCorrection(t *testing.T) {
	after := func(q, reply string) int {
		return len(correctionsOfReply("check the API key in the guard", "/src/guard.ts",
			"The guard now reads the key from the database.", q, reply))
	}
	for _, c := range [][2]string{
		{"Isn't that solution a little slow? Can you recommend an improvement?", "Yes, querying the database for every request can be slow; a cache would help."},
		{"Не слишком ли это медленно?", "Да, запрос к базе на каждый вызов медленный."},
		{"这样是不是太慢了？", "是的，每次请求都查数据库会很慢。"},
		{"¿No es un poco lento?", "Sí, consultar la base en cada petición es lento."},
	} {
		if n := after(c[0], c[1]); n != 1 {
			t.Errorf("%q / %q: %d corrections, want 1", c[0], c[1], n)
		}
	}
	for _, c := range [][2]string{
		{"Does the guard read the key from the database?", "Yes, on every request."},
		{"Isn't that solution a little slow?", "No: the lookup is indexed and takes under a millisecond."},
	} {
		if n := after(c[0], c[1]); n != 0 {
			t.Errorf("%q / %q: %d corrections, want 0", c[0], c[1], n)
		}
	}
}

// correctionsOfReply are the corrections of a session in which the agent
// edits file on request and says done, the person says msg and the agent
// replies.
func correctionsOfReply(request, file, done, msg, reply string) []*Observation {
	s := newSession("r").
		user(request).
		call("Edit", `{"file_path":"`+file+`","old_string":"a","new_string":"b"}`, "ok").
		say(done).
		user(msg).
		say(reply).s
	return ofType(Extract(s, nil, nil), TypeCorrection)
}

// TestChoiceOfInlineAlternatives: a short reply that names one of two
// alternatives the agent put side by side ("single-role vs multi-role")
// decides between them; one that names neither, or refuses one, does not.
func TestChoiceOfInlineAlternatives(t *testing.T) {
	after := func(msg string) []*Observation {
		s := newSession("c").
			user("how would you model roles?").
			say("Add role data on `User`. If you want, next step I can propose a concrete schema (single-role vs multi-role) before any code changes.").
			user(msg).s
		return ofType(Extract(s, nil, nil), TypeDecision)
	}
	got := after("Single role is fine, a superuser is also a staff member.")
	if len(got) != 1 || !strings.Contains(strings.ToLower(got[0].Chosen), "single") {
		t.Fatalf("decisions %+v, want one choosing single-role", got)
	}
	for _, msg := range []string{"Go ahead and add the tests first.", "Not single role, please.", "What is the difference between them?"} {
		if got := after(msg); len(got) != 0 {
			t.Errorf("%q: decision %q, want none", msg, got[0].Chosen)
		}
	}
	// Naming one side to report that it fails chooses nothing.
	s := newSession("v").
		user("plan the nvim move").
		say("Next I can set up a minimal init.vim shim so you can A/B nvim vs vim side by side.").
		user("My vim suddenly broke...\nis it because I did a apt upgrade?").s
	if got := ofType(Extract(s, nil, nil), TypeDecision); len(got) != 0 {
		t.Errorf("a failure report: decision %q, want none", got[0].Chosen)
	}
}

// TestDislikeOfAProposal: a dislike said right after the agent proposed
// something and asked how to go on refuses the proposal: a correction,
// not a preference, in any language; the same words with no proposal
// before them state a taste.
func TestDislikeOfAProposal(t *testing.T) {
	proposal := map[string]string{
		"en": "The plan says Angular, but the project uses plain DOM. I suggest adapting the remaining Angular tasks to plain DOM. Shall I do that?",
		"ru": "В плане Angular, но проект на чистом DOM. Предлагаю адаптировать оставшиеся задачи под чистый DOM. Готов продолжить.",
		"zh": "计划里写的是 Angular，但项目用的是纯 DOM。我建议把剩下的任务改成纯 DOM。",
	}
	for lang, msg := range map[string]string{
		"en": "I don't like plain DOM, I want Angular as planned.",
		"ru": "мне не нравится простой дом, я хочу именно ангуляр",
		"zh": "我不喜欢纯 DOM，我就要 Angular。",
	} {
		s := newSession("p").
			user("implement the tasks").
			call("Edit", `{"file_path":"/src/main.ts","old_string":"a","new_string":"b"}`, "ok").
			say(proposal[lang]).
			user(msg).s
		obs := Extract(s, nil, nil)
		if c, p := ofType(obs, TypeCorrection), ofType(obs, TypePreference); len(c) != 1 || len(p) != 0 {
			t.Errorf("%s: %d corrections, %d preferences, want 1 and 0", lang, len(c), len(p))
		}
	}
	s := newSession("t").
		user("I don't like long functions; keep each under forty lines in this repo.").s
	if p := ofType(Extract(s, nil, nil), TypePreference); len(p) != 1 {
		t.Errorf("a taste with no proposal before it: %d preferences, want 1", len(p))
	}
}

// TestNotYetIsAnAnswer: "not yet, ..." answering the agent's offer of
// more work reports no failure of the work done, in any language; "not
// yet working" unasked still does.
func TestNotYetIsAnAnswer(t *testing.T) {
	offer := "Done. Shall I also polish the UI with Angular Material?"
	for _, msg := range []string{
		"not yet, improve the docs so that it is clear how to run it and check that it works",
		"пока нет, улучши документацию чтобы было понятно как запустить и проверить что работает",
		"noch nicht, verbessere erst die Doku, damit klar ist, wie man es startet und prüft, dass es nicht hängt",
		"还没，先改进文档，说明怎么运行，不要漏掉检查步骤",
	} {
		if n := correctionsAfterEdit("make the release", "/src/app.ts", offer, msg); n != 0 {
			t.Errorf("%q: %d corrections, want 0", msg, n)
		}
	}
	if n := correctionsAfterEdit("make the release", "/src/app.ts", "Done, the release build is fixed.", "the build does not start, it exits at once"); n != 1 {
		t.Errorf("a report of a failure: %d corrections, want 1", n)
	}
}

// TestMessageWrittenAgainInFull: "I don'", cut off by the person's own
// interrupt before the agent said a word, then "I don't have ~/vim": one
// message, the reason of the refusal before it. A short message the next
// one goes on from after a whole word stays the person's own.
func TestMessageWrittenAgainInFull(t *testing.T) {
	s := (&ccFixture{}).user("set up nvim").
		say("Let me start the nvim triage: read your ~/.vimrc and the modular configs.").
		call("toolu_1", "Bash", `{"command":"nvim --version | head -3"}`).refuse("toolu_1", "").interrupt().
		user("I don'").interrupt().
		user("I don't have ~/vim").say("OK.").session(t)
	cs := ofType(Extract(s, nil, nil), TypeCorrection)
	if len(cs) != 1 || !strings.Contains(cs[0].Lesson, "I don't have ~/vim") {
		t.Fatalf("corrections %+v, want one with the full message", cs)
	}
	tl := buildTimeline((&ccFixture{}).user("pick one").say("1. rebase 2. merge").user("2").interrupt().user("2, and push it").session(t))
	if len(tl.utts) != 3 {
		t.Errorf("a whole short message and the next: %d utterances, want 3", len(tl.utts))
	}
}

// TestChoiceBetweenTheSidesOfAQuestion: the agent asks a question with two
// sides joined by "or", in any language; a short reply that names one side
// chooses it. Agreeing to the offer the question opens with, or to the
// agent's assessment, chooses nothing.
func TestChoiceBetweenTheSidesOfAQuestion(t *testing.T) {
	decide := func(question, reply string) []*Observation {
		s := newSession("q").
			user("set up the sync").
			say("The sync script is ready. " + question).
			user(reply).s
		return ofType(Extract(s, nil, nil), TypeDecision)
	}
	for _, c := range []struct{ question, reply, chosen string }{
		{"지금 바로 cron job을 설정할까요? 아니면 먼저 테스트를 해보고 설정할까요?", "테스트", "테스트"},
		{"Should I set up the cron job now, or run the script once by hand?", "run it by hand", "by hand"},
		{"现在就设置定时任务还是先手动测试一次？", "先测试", "测试"},
		// A side in bold: "**지금 바로 ... 설정할까요?** 아니면 ...?"
		{"**지금 바로 cron job을 설정할까요?** 아니면 먼저 테스트를 해보고 설정할까요?\n\n```bash\npython3 /tmp/sync.py\n```", "테스트", "테스트"},
	} {
		got := decide(c.question, c.reply)
		if len(got) != 1 || !strings.Contains(got[0].Chosen+got[0].Title, c.chosen) {
			t.Errorf("%q / %q: decisions %+v, want one choosing %q", c.question, c.reply, got, c.chosen)
		}
	}
	for _, c := range []struct{ question, reply string }{
		{"Want me to also add a usage snippet to docs/quickstart, or leave the docs as they are?", "yes do the quickstart"},
		{"Should I set up the cron job now, or run the script once by hand?", "sure, whatever you think"},
	} {
		if got := decide(c.question, c.reply); len(got) != 0 {
			t.Errorf("%q / %q: decision %q, want none", c.question, c.reply, got[0].Chosen)
		}
	}
}

// TestPickFromAListWithPoints: a numbered list whose items carry indented
// points, closed by a question that asks for one label ("(1, 2, 또는 3)"),
// is answered by a bare label.
func TestPickFromAListWithPoints(t *testing.T) {
	txt := "## 🎯 선택지\n\n1. **계속 진행** (권장)\n   - 남은 6개 프로젝트 완성\n   - 예상 시간: 30-45분\n\n2. **부분 완성 보고**\n   - 5개 완성 프로젝트만 최종 정리\n\n3. **다른 작업**\n   - 📊 포트폴리오 최종 평가\n\n어디로 진행할까요? (1, 2, 또는 3)"
	s := newSession("q").user("status?").say(txt).user("1").s
	got := ofType(Extract(s, nil, nil), TypeDecision)
	if len(got) != 1 || got[0].Chosen != "계속 진행" {
		t.Fatalf("decisions %+v, want one choosing 계속 진행", got)
	}
	if !labelsOrRE.MatchString("Which one? 1, 2, or 3") || !labelsOrRE.MatchString("1还是2？") || labelsOrRE.MatchString("step 1 takes 2 minutes") {
		t.Error("labelsOrRE")
	}
}

// TestMarkedOrInMoreLanguages: two marked ways joined by the "or" of
// Vietnamese ("`WEBHOOK` hoặc `QUEUE`"), Turkish ("yoksa") or Thai ("หรือ")
// are alternatives a reply picks from.
func TestMarkedOrInMoreLanguages(t *testing.T) {
	for _, c := range []struct{ offer, reply, chosen string }{
		{"Nếu muốn, mình có thể thống nhất prefix `WEBHOOK` hoặc `QUEUE` cho cả queue và queue events.", "update thành `WEBHOOK` cho tôi", "WEBHOOK"},
		{"`rebase` yoksa `merge` ile mi ilerleyelim?", "merge olsun", "merge"},
	} {
		s := newSession("v").user("check the queue").say(c.offer).user(c.reply).s
		got := ofType(Extract(s, nil, nil), TypeDecision)
		if len(got) != 1 || got[0].Chosen != c.chosen {
			t.Errorf("%q / %q: decisions %+v, want %q", c.offer, c.reply, got, c.chosen)
		}
	}
}
