package observations

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kbmem/kb/traces"
)

// parseWith parses src with p into a session numbered as the store does.
func parseWith(t *testing.T, p traces.Parser, id, src string) *Session {
	t.Helper()
	s := &Session{ID: id}
	if _, _, err := p.Parse(strings.NewReader(src), id, traces.Pos{}, func(r traces.Record) error {
		r.Seq = len(s.Records) + 1
		s.Records = append(s.Records, r)
		return nil
	}); err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	return s
}

func codexRollout(cwd string, turns ...string) string {
	var b strings.Builder
	b.WriteString(`{"timestamp":"2025-12-01T10:00:00Z","type":"session_meta","payload":{"id":"c1","cwd":"` + cwd + `"}}` + "\n")
	for i, tx := range turns {
		q, _ := json.Marshal(tx)
		if i%2 == 0 {
			b.WriteString(`{"timestamp":"2025-12-01T10:00:0` + string(rune('1'+i)) + `Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":` + string(q) + `}]}}` + "\n")
		} else {
			b.WriteString(`{"timestamp":"2025-12-01T10:00:0` + string(rune('1'+i)) + `Z","type":"event_msg","payload":{"type":"user_message","message":` + string(q) + `}}` + "\n")
		}
	}
	return b.String()
}

func geminiSession(turns ...string) string {
	var b strings.Builder
	b.WriteString(`{"sessionId":"g1","projectHash":"h","startTime":"2025-12-10T08:00:00.000Z","lastUpdated":"2025-12-10T08:00:09.000Z","kind":"main"}` + "\n")
	for i, tx := range turns {
		q, _ := json.Marshal(tx)
		typ := "gemini"
		if i%2 == 1 {
			typ = "user"
		}
		b.WriteString(`{"id":"m` + string(rune('1'+i)) + `","timestamp":"2025-12-10T08:00:0` + string(rune('1'+i)) + `.000Z","type":"` + typ + `","content":` + string(q) + `}` + "\n")
	}
	return b.String()
}

func claudeSession(turns ...string) string {
	var lines []string
	for i, tx := range turns {
		role := "assistant"
		var content any = []map[string]any{{"type": "text", "text": tx}}
		if i%2 == 1 {
			role, content = "user", tx
		}
		b, _ := json.Marshal(map[string]any{"type": role, "uuid": "u" + string(rune('a'+i)), "sessionId": "cc1", "cwd": "/w/app",
			"timestamp": "2025-12-01T10:00:0" + string(rune('0'+i)) + ".000Z", "message": map[string]any{"role": role, "content": content}})
		lines = append(lines, string(b))
	}
	return strings.Join(lines, "\n") + "\n"
}

func aiderHistory(turns ...string) string {
	var b strings.Builder
	b.WriteString("# aider chat started at 2024-01-15 10:30:00\n\n")
	for i, tx := range turns {
		if i%2 == 1 {
			b.WriteString("#### " + tx + "  \n\n")
		} else {
			b.WriteString(tx + "\n\n")
		}
	}
	return b.String()
}

// TestPreferencesEveryLanguageAndFormat: a lasting preference the person
// states is found in any language and in every transcript format, and a
// sentence with a preference word but nothing lasting in it is not.
func TestPreferencesEveryLanguageAndFormat(t *testing.T) {
	agent := "I updated the config loader."
	cases := []struct {
		name, lang string
		parser     traces.Parser
		src        string
		want       string // a word the statement keeps; "" = no preference
	}{
		{"claude en", "en", traces.NewClaudeCode(), claudeSession(agent, "From now on I prefer small commits with one change each."), "small commits"},
		{"claude de", "de", traces.NewClaudeCode(), claudeSession(agent, "Ich bevorzuge kleine Commits mit jeweils einer Änderung."), "kleine Commits"},
		{"codex es", "es", traces.NewCodex(), codexRollout("/w/app", agent, "Prefiero commits pequeños con un solo cambio cada uno."), "commits pequeños"},
		{"codex ru", "ru", traces.NewCodex(), codexRollout("/w/app", agent, "Я предпочитаю маленькие коммиты с одним изменением."), "маленькие коммиты"},
		{"gemini zh", "zh", traces.NewGemini(), geminiSession(agent, "我更喜欢小的提交，每次只改一处。"), "小的提交"},
		{"gemini ja", "ja", traces.NewGemini(), geminiSession(agent, "今後は小さなコミットに分けてください。"), "小さなコミット"},
		{"aider ko", "ko", traces.NewAider(), aiderHistory(agent, "앞으로는 작은 커밋으로 나눠 주세요."), "작은 커밋"},
		{"aider en simple", "en", traces.NewAider(), aiderHistory(agent, "I just want a very simple retry loop in the uploader."), "simple retry"},
		{"claude en nothing lasting", "en", traces.NewClaudeCode(), claudeSession(agent, "I like it, thanks."), ""},
		{"codex zh nothing lasting", "zh", traces.NewCodex(), codexRollout("/w/app", agent, "我喜欢。"), ""},
		// How the person wants work to start: plan first, then their go.
		{"codex en plan first", "en", traces.NewCodex(), codexRollout("/w/app", agent, "Make a plan for this but don't execute, I want to review your plan first."), "review your plan first"},
		{"claude zh plan first", "zh", traces.NewClaudeCode(), claudeSession(agent, "生成commit message进行一次提交,先给我方案,同意后再执行"), "先给我方案"},
		{"aider de plan first", "de", traces.NewAider(), aiderHistory(agent, "Zeig mir erst den Plan, dann änderst du die Dateien."), "erst den Plan"},
		// "this idea" is the agent's proposal: the statement names it.
		{"claude en this idea", "en", traces.NewClaudeCode(), claudeSession("I propose keeping reference docs in dev-docs/ and work items in work/ with archive/ and backlog/.",
			"I really like it when we use this structure, it worked well in the clmail project."), "dev-docs/"},
		{"codex de diese Idee", "de", traces.NewCodex(), codexRollout("/w/app", "I propose keeping reference docs in dev-docs/ and work items in work/ with archive/ and backlog/.",
			"Ich bevorzuge diese Idee, sie hat sich im clmail-Projekt bewährt."), "dev-docs/"},
	}
	for _, tc := range cases {
		s := parseWith(t, tc.parser, tc.name, tc.src)
		prefs := ofType(Extract(s, nil, []string{TypePreference}), TypePreference)
		if tc.want == "" {
			if len(prefs) > 0 {
				t.Errorf("%s: preference from a sentence with nothing lasting: %q", tc.name, prefs[0].Statement)
			}
			continue
		}
		if len(prefs) != 1 || !strings.Contains(prefs[0].Statement, tc.want) {
			var got []string
			for _, p := range prefs {
				got = append(got, p.Statement)
			}
			t.Errorf("%s (%s): preferences %q, want one keeping %q", tc.name, tc.lang, got, tc.want)
		}
	}
}

// TestDecisionsEveryLanguage: the person picking among options the agent
// offered, by place or label in any language, is a decision naming the
// option picked; naming both sides ("X instead of Y") is one too.
func TestDecisionsEveryLanguage(t *testing.T) {
	offer := "There are three options:\n1. Vite - fast dev server\n2. serve - a static file server\n3. http-server - the classic one\nWhich option do you prefer?"
	cases := []struct {
		name   string
		parser traces.Parser
		src    string
		chosen string
	}{
		{"claude en ordinal", traces.NewClaudeCode(), claudeSession(offer, "the second one"), "serve"},
		{"claude en label", traces.NewClaudeCode(), claudeSession(offer, "option 3"), "http-server"},
		{"codex de", traces.NewCodex(), codexRollout("/w/app", offer, "Nehmen wir die zweite Variante."), "serve"},
		{"codex es", traces.NewCodex(), codexRollout("/w/app", offer, "Vamos con la primera opción."), "Vite"},
		{"gemini zh", traces.NewGemini(), geminiSession(offer, "使用第二种"), "serve"},
		{"gemini ja", traces.NewGemini(), geminiSession(offer, "3番目でお願いします"), "http-server"},
		{"aider ko", traces.NewAider(), aiderHistory(offer, "두 번째로 하자"), "serve"},
		{"aider ru", traces.NewAider(), aiderHistory(offer, "Давай первый вариант."), "Vite"},
		{"claude en contrast", traces.NewClaudeCode(), claudeSession("I wrote a custom spinner.", "Use the shared Spinner instead of the inlined custom spinner."), "the shared Spinner"},
		// Offers and picks in languages the first cue lists lacked.
		{"codex vi", traces.NewCodex(), codexRollout("/w/app", "Có 2 hướng:\n- bỏ hẳn log remove\n- chỉ log remove khi đã mất kết nối\nMình khuyên hướng 2. Nếu muốn mình sửa luôn.", "tôi muốn chỉ log remove khi đã mất kết nối"), "chỉ log remove khi đã mất kết nối"},
		{"aider it", traces.NewAider(), aiderHistory("Ci sono due opzioni:\n- Redis per la cache\n- Memcached per la cache\nQuale preferisci?", "Andiamo con Redis per la cache."), "Redis per la cache"},
		{"claude tr", traces.NewClaudeCode(), claudeSession("İki seçenek var:\n- SQLite ile başlamak\n- PostgreSQL ile başlamak\nHangisi?", "PostgreSQL ile devam edelim."), "PostgreSQL ile başlamak"},
	}
	for _, tc := range cases {
		s := parseWith(t, tc.parser, tc.name, tc.src)
		decs := ofType(Extract(s, nil, []string{TypeDecision}), TypeDecision)
		if len(decs) != 1 || decs[0].Chosen != tc.chosen {
			var got []string
			for _, d := range decs {
				got = append(got, d.Chosen)
			}
			t.Errorf("%s: chosen %q, want %q", tc.name, got, tc.chosen)
		}
	}
	// A reply with no options offered and nothing contrasted is no decision.
	s := parseWith(t, traces.NewClaudeCode(), "none", claudeSession("I fixed the test.", "the second one is still failing"))
	if decs := ofType(Extract(s, nil, []string{TypeDecision}), TypeDecision); len(decs) > 0 {
		t.Errorf("decision without options: %+v", decs[0])
	}
}

// TestDecisionFromChoiceUI: an answer in the agent's choice UI (Claude
// Code's AskUserQuestion) is the person's decision among its options.
func TestDecisionFromChoiceUI(t *testing.T) {
	call, _ := json.Marshal(map[string]any{"type": "assistant", "uuid": "a1", "sessionId": "q", "cwd": "/w/app", "timestamp": "2025-12-01T10:00:00.000Z",
		"message": map[string]any{"role": "assistant", "content": []map[string]any{{"type": "tool_use", "id": "tu1", "name": "AskUserQuestion",
			"input": map[string]any{"questions": []map[string]any{{"question": "Wie sollen beschädigte Archive gemeldet werden?", "header": "Fehler",
				"options": []map[string]any{{"label": "Eigenes Feld", "description": "ein Feld im Manifest"}, {"label": "Log-Zeile", "description": "nur im Log"}}, "multiSelect": false}}}}}}})
	res, _ := json.Marshal(map[string]any{"type": "user", "uuid": "a2", "parentUuid": "a1", "sessionId": "q", "cwd": "/w/app", "timestamp": "2025-12-01T10:00:05.000Z",
		"message": map[string]any{"role": "user", "content": []map[string]any{{"type": "tool_result", "tool_use_id": "tu1",
			"content": `User has answered your questions: "Wie sollen beschädigte Archive gemeldet werden?"="Eigenes Feld". You can now continue with the user's answers in mind.`}}},
		"toolUseResult": map[string]any{"answers": map[string]string{"Wie sollen beschädigte Archive gemeldet werden?": "Eigenes Feld"}}})
	s := parseWith(t, traces.NewClaudeCode(), "q", string(call)+"\n"+string(res)+"\n")
	decs := ofType(Extract(s, nil, []string{TypeDecision}), TypeDecision)
	if len(decs) != 1 || decs[0].Chosen != "Eigenes Feld" || len(decs[0].Alternatives) != 2 || !strings.Contains(decs[0].Question, "Archive") {
		t.Fatalf("decisions = %+v", decs)
	}
}

// A choice prompt the person closed: Claude Code answers with its own
// note in brackets, which is no pick.
func TestDismissedChoiceIsNoDecision(t *testing.T) {
	call, _ := json.Marshal(map[string]any{"type": "assistant", "uuid": "a1", "sessionId": "q", "cwd": "/w/app", "timestamp": "2025-12-01T10:00:00.000Z",
		"message": map[string]any{"role": "assistant", "content": []map[string]any{{"type": "tool_use", "id": "tu1", "name": "AskUserQuestion",
			"input": map[string]any{"questions": []map[string]any{{"question": "Какой подход?", "header": "Подход",
				"options": []map[string]any{{"label": "Расширение", "description": "extension"}, {"label": "Новый тип", "description": "struct"}}, "multiSelect": false}}}}}}})
	note := "[User dismissed — do not proceed, wait for next instruction]"
	res, _ := json.Marshal(map[string]any{"type": "user", "uuid": "a2", "parentUuid": "a1", "sessionId": "q", "cwd": "/w/app", "timestamp": "2025-12-01T10:00:05.000Z",
		"message": map[string]any{"role": "user", "content": []map[string]any{{"type": "tool_result", "tool_use_id": "tu1",
			"content": `User has answered your questions: "Какой подход?"="` + note + `". You can now continue with the user's answers in mind.`}}},
		"toolUseResult": map[string]any{"answers": map[string]string{"Какой подход?": note}}})
	s := parseWith(t, traces.NewClaudeCode(), "q", string(call)+"\n"+string(res)+"\n")
	if decs := ofType(Extract(s, nil, []string{TypeDecision}), TypeDecision); len(decs) != 0 {
		t.Fatalf("a dismissed prompt made decisions: %+v", decs)
	}
}

// TestDecisionFromCodexChoice: Codex's request_user_input (plan mode's
// questions) answers by question id, a label and the person's note; the
// output is the person's pick.
func TestDecisionFromCodexChoice(t *testing.T) {
	args, _ := json.Marshal(map[string]any{"questions": []map[string]any{{"id": "backend", "header": "Backend", "question": "Which inference backend?",
		"options": []map[string]any{{"label": "vLLM client (Recommended)", "description": "calls the external server"}, {"label": "Transformers local", "description": "loads the model itself"}}}}})
	out, _ := json.Marshal(map[string]any{"answers": map[string]any{"backend": map[string]any{"answers": []string{"Transformers local", "user_note: the GPU box has no vLLM"}}}})
	line := func(typ string, pl map[string]any) string {
		b, _ := json.Marshal(map[string]any{"timestamp": "2026-05-07T15:41:27.551Z", "type": typ, "payload": pl})
		return string(b) + "\n"
	}
	rollout := line("session_meta", map[string]any{"id": "cx1", "cwd": "/w/app"}) +
		line("response_item", map[string]any{"type": "function_call", "name": "request_user_input", "call_id": "c1", "arguments": string(args)}) +
		line("response_item", map[string]any{"type": "function_call_output", "call_id": "c1", "output": string(out)})
	s := parseWith(t, traces.NewCodex(), "cx1", rollout)
	var picked *traces.Record
	for i := range s.Records {
		if s.Records[i].Kind == traces.KindToolResult {
			picked = &s.Records[i]
		}
	}
	if picked == nil || picked.Who() != traces.AuthorPersonChoice {
		t.Fatalf("the answer's author: %+v", picked)
	}
	decs := ofType(Extract(s, nil, []string{TypeDecision}), TypeDecision)
	if len(decs) != 1 || decs[0].Chosen != "Transformers local" || len(decs[0].Alternatives) != 2 ||
		len(decs[0].Reasons) == 0 || !strings.Contains(decs[0].Reasons[0], "no vLLM") {
		t.Fatalf("decisions = %+v", decs)
	}
}

// TestContradicts: a later statement of the opposite stance on the same
// topic contradicts, in any language; an unrelated one, or the same stance,
// does not; a decision picking another of the same options does.
func TestContradicts(t *testing.T) {
	pref := func(s string) *Observation { return &Observation{Type: TypePreference, Statement: s} }
	cases := []struct {
		a, b string
		want bool
	}{
		{"I don't like the polling wait.", "I just want a very simple poll.", true},
		{"I very much like this idea, and I used it in the clmail project.", "I actually don't like much this idea, and I struggled with it in the clmail project.", true},
		{"I don't like the polling wait.", "I prefer tabs over spaces in the Makefile.", false},
		{"Use small commits.", "Always use small commits.", false},
		{"Ich mag keine Polling-Schleife.", "Ich will nur eine einfache Polling-Schleife.", true},
		{"我不喜欢轮询等待。", "我只想要一个简单的轮询等待。", true},
		{"我不喜欢轮询等待。", "我更喜欢小的提交。", false},
	}
	for _, tc := range cases {
		if got := Contradicts(pref(tc.a), pref(tc.b)); got != tc.want {
			t.Errorf("Contradicts(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	// Two reactions to "this idea" name the agent's words at different
	// moments; the stance is in the person's words.
	like := &Observation{Type: TypePreference, Statement: "I very much like this idea, I used it with success in the clmail project (about the agent's proposal “One idea file: dev-docs/ vs work/”)."}
	dislike := &Observation{Type: TypePreference, Statement: "I actually don't like this idea, I struggled with it in the clmail project (about the agent's proposal “The convention's real value is intentionality”)."}
	if !Contradicts(like, dislike) {
		t.Errorf("opposite reactions to the same idea do not contradict")
	}
	alts := []Alternative{{Name: "Vite"}, {Name: "serve"}}
	a := &Observation{Type: TypeDecision, Chosen: "Vite", Alternatives: alts}
	b := &Observation{Type: TypeDecision, Chosen: "serve", Alternatives: alts}
	c := &Observation{Type: TypeDecision, Chosen: "pnpm", Alternatives: []Alternative{{Name: "pnpm"}, {Name: "npm"}}}
	if !Contradicts(a, b) || Contradicts(a, c) {
		t.Errorf("decisions: other pick %v, unrelated %v", Contradicts(a, b), Contradicts(a, c))
	}
	// A later message that says the project uses now what a lesson
	// prohibited by name reverses it, in any language of the cues; a
	// lesson that did not prohibit it stands, as does one about
	// something else.
	cor := func(lesson, said string) *Observation {
		return &Observation{Type: TypeCorrection, Lesson: lesson, Excerpt: "User: " + said}
	}
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"Do not use vitest in this repo, the suite is jest.", "oh right, since October we're on Vitest, the jest config is gone", true},
		{"Kein Biome hier, wir formatieren mit prettier.", "ach so, wir sind auf Biome umgestiegen", true},
		{"Always run vitest with --run, never in watch mode.", "since October we're on Vitest", false},
		{"Do not use vitest in this repo.", "we're on Postgres 16 now", false},
	} {
		if got := Contradicts(cor(tc.a, tc.a), cor("Check that the change really works.", tc.b)); got != tc.want {
			t.Errorf("Contradicts(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	// Another project, or the agent's words, are another scope.
	x := &Observation{Type: TypePreference, Projects: []string{"/w/a"}}
	y := &Observation{Type: TypePreference, Projects: []string{"/w/b"}}
	z := &Observation{Type: TypePreference, Projects: []string{"/w/a"}, Author: AuthorAgent}
	if supersedeScope(x, y) || supersedeScope(x, z) || !supersedeScope(x, &Observation{Type: TypeCorrection, Projects: []string{"/w/a"}}) {
		t.Errorf("scope wrong")
	}
}

func FuzzPreferenceIn(f *testing.F) {
	for _, s := range []string{"I prefer small commits.", "我更喜欢小的提交。", "a simple way to do X without Y?", "Nehmen wir die zweite Variante.", "", "？？", "use pnpm", "Remember the rule: x", "Запомни правило", "记住：", "türkçe sorarmısın"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st, _ := preferenceIn(s)
		if w := withoutRemember(s); len(w) > len(s) || utf8.ValidString(s) && !utf8.ValidString(w) {
			t.Errorf("withoutRemember(%q) = %q", s, w)
		}
		_ = askedReplyLanguage(s)
		_ = pickedIndex(s)
		_ = topicTokens(s)
		_ = wordCount(s)
		for _, c := range clauses(s) {
			_ = negatedAt(c, "x")
		}
		if st != "" && wordCount(st) == 0 && wordCount(s) > 0 {
			t.Errorf("empty statement from %q: %q", s, st)
		}
	})
}

// TestDecisionToDoWithout: doubting that what the agent built is needed at
// all ("do we even need X?", "brauchen wir X überhaupt") is a decision to do
// without it, in any language and format; a question about something else
// is not.
func TestDecisionToDoWithout(t *testing.T) {
	built := "I added a _generate_html_with_combined_link helper next to generate_html."
	cases := []struct {
		name   string
		parser traces.Parser
		src    string
		want   string
	}{
		{"claude en", traces.NewClaudeCode(), claudeSession(built, "Do we even need _generate_html_with_combined_link then?"), "_generate_html_with_combined_link"},
		{"claude en2", traces.NewClaudeCode(), claudeSession("The filter now loops through all items to find each group's visibility.", "I don't think we need to loop through all items, the group names should match the filters?"), "loop through all items"},
		{"codex de", traces.NewCodex(), codexRollout("/w/app", built, "Brauchen wir überhaupt _generate_html_with_combined_link?"), "_generate_html_with_combined_link"},
		{"codex es", traces.NewCodex(), codexRollout("/w/app", built, "No hace falta el helper _generate_html_with_combined_link."), "_generate_html_with_combined_link"},
		{"gemini fr", traces.NewGemini(), geminiSession(built, "On n'a pas besoin de _generate_html_with_combined_link."), "_generate_html_with_combined_link"},
		{"aider ru", traces.NewAider(), aiderHistory(built, "Зачем нам _generate_html_with_combined_link?"), "_generate_html_with_combined_link"},
		{"aider zh", traces.NewAider(), aiderHistory(built, "不需要 _generate_html_with_combined_link 这个函数"), "_generate_html_with_combined_link"},
		{"claude ja", traces.NewClaudeCode(), claudeSession(built, "_generate_html_with_combined_link はいらないと思う"), ""},
	}
	for _, tc := range cases {
		s := parseWith(t, tc.parser, tc.name, tc.src)
		decs := ofType(Extract(s, nil, []string{TypeDecision}), TypeDecision)
		if tc.want == "" {
			// Japanese puts what is not needed before the cue: no object
			// after it, no decision read (a known gap, not a wrong one).
			continue
		}
		// A thing not needed is done without; an act not needed ("need
		// to loop through") is not done: the title reads as an instruction.
		prefix, title := "do without", "Do without "
		if strings.HasPrefix(tc.want, "loop") {
			prefix, title = "not ", "Do not loop"
		}
		if len(decs) == 1 && !strings.HasPrefix(decs[0].Title, title) {
			t.Errorf("%s: title %q", tc.name, decs[0].Title)
		}
		if len(decs) != 1 || !strings.Contains(decs[0].Chosen, tc.want) || !strings.HasPrefix(decs[0].Chosen, prefix) ||
			len(decs[0].Alternatives) != 2 || !strings.Contains(decs[0].Alternatives[1].Name, "the agent's") {
			t.Errorf("%s: %+v", tc.name, decs)
		}
	}
	s := parseWith(t, traces.NewClaudeCode(), "other", claudeSession(built, "Do we need to update the changelog too?"))
	if decs := ofType(Extract(s, nil, []string{TypeDecision}), TypeDecision); len(decs) > 0 {
		t.Errorf("a question about other work became a decision: %+v", decs[0])
	}
}

// TestDecisionAfterUndo: after the person takes the agent's change back
// (/undo), the instruction that follows is the way chosen over the undone
// one, whatever its language; the structure says so, not the words.
func TestDecisionAfterUndo(t *testing.T) {
	for lang, msg := range map[string]string{
		"en": "add tests for --map-tokens: mock RepoMap and ensure it is not called",
		"de": "schreib Tests für --map-tokens und mocke RepoMap",
		"zh": "给 --map-tokens 写测试，mock RepoMap，确保它没有被调用",
	} {
		src := "# aider chat started at 2024-01-15 10:30:00\n\n" +
			"#### add tests for --map-tokens  \n\n" +
			"I'll mock Coder.create and check kwargs['repo_map'] is None.\n\n" +
			"> Applied edit to tests/basic/test_main.py  \n\n" +
			"#### /undo  \n> Removed: 1234abc test: map tokens  \n\n" +
			"#### " + msg + "  \n\nOK.\n"
		s := parseWith(t, traces.NewAider(), lang, src)
		decs := ofType(Extract(s, nil, []string{TypeDecision}), TypeDecision)
		if len(decs) != 1 || !strings.Contains(decs[0].Chosen, "RepoMap") || !strings.Contains(decs[0].Alternatives[1].Name, "Coder.create") {
			t.Errorf("%s: %+v", lang, decs)
		}
	}
	// Without the undo, the same instruction is a new task.
	src := "# aider chat started at 2024-01-15 10:30:00\n\n#### hi  \n\nHello!\n\n#### add tests for --map-tokens: mock RepoMap  \n\nOK.\n"
	if decs := ofType(Extract(parseWith(t, traces.NewAider(), "no-undo", src), nil, []string{TypeDecision}), TypeDecision); len(decs) > 0 {
		t.Errorf("no undo, yet a decision: %+v", decs[0])
	}
}

// TestReplyLanguagePreference: the language the person wants to be
// answered in is a standing preference, in any language; a task to be
// done in a language is not.
// prefsSaid are the preferences of a session where the person says msg
// after a first task is done.
func prefsSaid(t *testing.T, msg string) []*Observation {
	s := (&ccFixture{}).user("set up the project").say("Done.").user(msg).say("OK.").session(t)
	return ofType(Extract(s, nil, nil), TypePreference)
}

func TestReplyLanguagePreference(t *testing.T) {
	for _, msg := range []string{
		"j'aimerais que tout soit en français lors de nos échanges",
		"please always answer me in English, even when the code comments are German",
		"以后请用中文回答",
		"これからは日本語で回答してください",
		"antworte bitte immer auf Deutsch",
		"Always respond in Thai.",
		"จากนี้ไปให้ตอบเป็นภาษาไทยเท่านั้น",
		"bundan sonra hep türkçe cevap ver",
		"từ giờ hãy trả lời bằng tiếng Việt",
		"odpowiadaj zawsze po polsku",
		"відповідай українською, будь ласка",
		"antwoord voortaan in het Nederlands",
		"من الآن أجب بالعربية",
		"nói chuyện với tôi bằng tiếng Việt nhé",
		"piš mi prosím česky",
		"Απάντα μου στα ελληνικά",
	} {
		if ps := prefsSaid(t, msg); len(ps) != 1 {
			t.Errorf("%q: preferences %+v", msg, ps)
		}
	}
	s := (&ccFixture{}).user("set up the project").say("Done.").user("write the README in French for the Lyon team").say("OK.").session(t)
	if ps := ofType(Extract(s, nil, nil), TypePreference); len(ps) != 0 {
		t.Errorf("a task in a language read as a preference: %+v", ps)
	}
}

// How the person wants to be answered (honestly, briefly, without
// emojis) is a standing preference in any language; a question, or a
// bullet of a pasted document, is none.
func TestReplyStylePreference(t *testing.T) {
	for _, msg := range []string{
		"should the theme have its own sub agent? give me realistic answers that are geared to progress and not just to make me happy",
		"keep your answers short, I read them on my phone",
		"no emojis please",
		"sei ehrlich mit mir, ich brauche keine Bestätigung",
		"说实话，别拍马屁",
		"絵文字なしでお願いします",
	} {
		s := (&ccFixture{}).user("set up the project").say("Done!").user(msg).say("OK.").session(t)
		if ps := ofType(Extract(s, nil, nil), TypePreference); len(ps) != 1 {
			t.Errorf("%q: preferences %+v", msg, ps)
		} else if strings.Contains(ps[0].Statement, "sub agent?") {
			t.Errorf("%q: the statement holds the question before it: %q", msg, ps[0].Statement)
		}
	}
	for _, msg := range []string{"be honest, does this design scale?", "Repository Guidelines\n\n- Keep explanations short, direct, and specific to this repository.\n- Use Markdown headings."} {
		s := (&ccFixture{}).user("set up the project").say("Done!").user(msg).say("OK.").session(t)
		if ps := ofType(Extract(s, nil, nil), TypePreference); len(ps) != 0 {
			t.Errorf("%q: preferences %+v", msg, ps)
		}
	}
}

// TestPickByLetter: options under letter labels ("**a)** ...", "**C.
// ...**", a table row "| A | a long description |") answered by the
// letter alone, also typed on a Cyrillic layout
// ("С"), are the person's decision, not the bullets of a report above
// them.
func TestPickByLetter(t *testing.T) {
	for _, c := range []struct{ agent, reply, want string }{
		{"### In short\n- **UI-level** = screens only\n- **Full** = server checks too\n\nFor Revision 5, do you want:\n**a)** a faster **UI permission layer for now**, or\n**b)** a **full end-to-end authorization system**?",
			"b", "a full end-to-end authorization system"},
		{"**A. Оставить как есть.** Ничего не менять.\n\n**B. Снап к шагу.** Короче.\n\n**C. Округлить `maxValue` вверх.** Барабан круглый.\n\nЛично я бы выбрал **B**.",
			"С", "Округлить `maxValue` вверх"},
		{"Two ways:\n(a) keep the queue\n(b) drop it\n(c) move it to Redis\n\nWhich one?", "c", "move it to Redis"},
		{"Pick one:\n**a)** keep the queue\n**b)** move it to Redis\n\nAfter that I will:\n1. run the tests\n2. open the PR", "b", "move it to Redis"},
		{"| Option | Description |\n|---|---|\n| A | Statuses = Pending → Approved → In Service → Completed, with Cancelled allowed from any active state; the override stored as a flag beside the status. |\n| B | Statuses = Pending → Approved → Override Approved → Completed; override is a distinct status. |\n\nReply with the option letter.",
			"A", "Statuses = Pending → Approved → In Service → Completed,…"},
	} {
		s := newSession("p1").user("what are the options?").say(c.agent).user(c.reply).s
		decs := ofType(Extract(s, nil, []string{TypeDecision}), TypeDecision)
		if len(decs) != 1 || decs[0].Chosen != c.want {
			t.Errorf("%q after %.30q: %d decisions, chosen %q", c.reply, c.agent, len(decs), chosenOf(decs))
		}
	}
}

// TestPickFromListAfterQuestion: a numbered list right under a question
// is the choices offered, in whatever words the question is asked; the
// same list under no question is a menu of next steps, and "1" picks no
// alternative.
func TestPickFromListAfterQuestion(t *testing.T) {
	for _, c := range []struct{ agent, want string }{
		{"Hay cambios sin confirmar en el árbol.\n\n¿Cómo quieres que proceda?\n1. Sigo y creo una rama nueva.\n2. Espero a que confirmes los cambios.", "Sigo y creo una rama nueva."},
		{"Der Build bricht auf CI ab.\n\n**Wie soll ich weitermachen?**\n1. Den Test vorerst überspringen\n2. Die Abhängigkeit zurücksetzen", "Den Test vorerst überspringen"},
		{"ビルドが失敗しました。どうしますか？\n1. テストを一時的にスキップする\n2. 依存関係を戻す", "テストを一時的にスキップする"},
	} {
		s := newSession("p1").user("fix the build").say(c.agent).user("1").s
		decs := ofType(Extract(s, nil, []string{TypeDecision}), TypeDecision)
		if len(decs) != 1 || decs[0].Chosen != c.want {
			t.Errorf("1 after %.40q: %d decisions, chosen %q", c.agent, len(decs), chosenOf(decs))
		}
	}
	s := newSession("p1").user("fix the build").say("Fixed the build.\n\nNext steps:\n1. Run the full suite\n2. Open the PR").user("1").s
	if decs := ofType(Extract(s, nil, []string{TypeDecision}), TypeDecision); len(decs) != 0 {
		t.Errorf("a menu of next steps read as alternatives: %+v", chosenOf(decs))
	}
}

// TestEndorseEarlierOffer: the offer the person takes to may sit before
// the agent's last words ("Waiting."), or in a choice prompt it opened.
func TestEndorseEarlierOffer(t *testing.T) {
	s := newSession("p1").user("how should we notify the worker?").
		say("Two options: a Redis queue the worker polls, or Postgres LISTEN/NOTIFY on the jobs table. Which one do you prefer?").
		say("Waiting.").user("I like the LISTEN/NOTIFY idea").s
	decs := ofType(Extract(s, nil, []string{TypeDecision}), TypeDecision)
	if len(decs) != 1 || !strings.Contains(decs[0].Chosen, "LISTEN/NOTIFY") {
		t.Fatalf("decisions = %+v", decs)
	}
	if prefs := ofType(Extract(s, nil, []string{TypePreference}), TypePreference); len(prefs) > 0 {
		t.Errorf("a taste where a choice was made: %+v", prefs[0])
	}
}

func chosenOf(decs []*Observation) []string {
	var out []string
	for _, d := range decs {
		out = append(out, d.Chosen)
	}
	return out
}

// TestEndorseOfferInOtherWords: an offer that ends "si tu veux, je
// peux ..." with its questions on numbered lines puts a choice before
// the person; what they like ends at the clause's end.
func TestEndorseOfferInOtherWords(t *testing.T) {
	s := newSession("p1").user("comment organiser les templates ?").
		say("Deux options :\n1) Tu préfères un **include explicite** dans `constitution.md` ou un **merge automatique** ?\n2) Une annexe par template, `templates/fullstack1/constitution-annexe.md` ?\n\nSi tu veux, je peux te proposer une version générique de `constitution.md` + une annexe.").
		user("j'aime bien l'idée d'avoir un templates/fullstack1/constitution-annexe.md : c'est super propre : je veux que la langue soit dans la constitution racine.").s
	decs := ofType(Extract(s, nil, []string{TypeDecision}), TypeDecision)
	if len(decs) != 1 || !strings.Contains(decs[0].Chosen, "constitution-annexe.md") || strings.Contains(decs[0].Chosen, "propre") {
		t.Fatalf("decisions: %d, chosen %q", len(decs), chosenOf(decs))
	}
}

// TestDislikeOfTheAgentsWorkIsNoTaste: a like or dislike of what the agent
// made in the session (its doing, or a name from the code it wrote) judges
// that work; it is no lasting preference. A dislike of a tool stays one.
func TestDislikeOfTheAgentsWorkIsNoTaste(t *testing.T) {
	const code = `{"file_path":"/repo/Alarm.swift","content":"func readAlarmLevels() async throws -> [Alarm.Level] { try await handle_alarm_levels(device) }"}`
	for _, msg := range []string{
		"ReadAlarmLevels мне не нравится как ты сделал",
		"I don't like handle_alarm_levels at all",
		"мне не нравится как ты это сделал, переделай",
		"I really don't like how you did the retry here",
	} {
		s := (&ccFixture{}).user("read the alarm levels from the device").call("toolu_1", "Write", code).
			result("toolu_1", "ok").say("Added readAlarmLevels to Alarm.swift.").user(msg).say("OK, reworking it.").session(t)
		if ps := ofType(Extract(s, nil, nil), TypePreference); len(ps) != 0 {
			t.Errorf("%q: preference %q", msg, ps[0].Statement)
		}
	}
	// A plain word of what the agent just proposed, disliked: the
	// proposal, not a taste ("j'aime pas next" after docs/NEXT.md).
	for _, msg := range []string{"j'aime pas next. ok pour le readme", "I don't like the codec part"} {
		s := (&ccFixture{}).user("how do we resume work between sessions?").
			say("Two files: `README.md` for onboarding and `docs/NEXT.md` for the next action; the device codec (DeviceCodec) stays as is. Shall I set it up?").
			user(msg).say("OK.").session(t)
		if ps := ofType(Extract(s, nil, nil), TypePreference); len(ps) != 0 {
			t.Errorf("%q: preference %q", msg, ps[0].Statement)
		}
	}
	s := (&ccFixture{}).user("add state management").
		call("toolu_1", "Write", `{"file_path":"/repo/store.ts","content":"import { createStore } from 'redux'"}`).
		result("toolu_1", "ok").say("Added a Redux store.").user("I don't like Redux in small apps, I prefer Zustand").say("Switching.").session(t)
	if ps := ofType(Extract(s, nil, nil), TypePreference); len(ps) != 1 {
		t.Errorf("a dislike of a tool: preferences %+v", ps)
	}
}

// TestSameReplyLanguageIsOnePreference: two preferences asking for the
// same reply language, in other words and languages, are one (so that it
// recurs); another language is another.
func TestSameReplyLanguageIsOnePreference(t *testing.T) {
	pref := func(st string) *Observation { return &Observation{Type: TypePreference, Statement: st} }
	th1, th2 := pref("Always respond in Thai."), pref(`"หยุดตอบภาษาอังกฤษ!`)
	th2.Excerpt = "User: หยุดตอบภาษาอังกฤษ! ฉันสั่งภาษาไทย คุณต้องตอบภาษาไทยเท่านั้น"
	if !Similar(th1, th2) {
		t.Error("two Thai reply preferences are two")
	}
	if Similar(th1, pref("Always answer in French.")) {
		t.Error("Thai and French reply preferences are one")
	}
}

// A rule said to hold from now on (always, never, every time, remember)
// is how the person wants things, in any language, whether or not it
// also corrects the work just done; a rule for the task at hand, or
// "always" in a report about code, is none.
func TestStandingRuleIsAPreference(t *testing.T) {
	for _, msg := range []string{
		"Always run the linter before you commit anything.",
		"Remember the rule: we never push straight to main.",
		"Запомни правило: не делать выводов на догадках, у нас научный строгий подход",
		"N'oublie pas de toujours garder le format webp pour chaque image.",
		"以后都要先写测试再写实现，记住这个规则",
		"毎回コミットする前にテストを走らせてください",
		"항상 커밋 전에 테스트를 실행해야 해",
		"Recuerda que siempre hay que usar pnpm en este repo.",
	} {
		if ps := prefsSaid(t, msg); len(ps) != 1 {
			t.Errorf("%q: preferences %+v", msg, ps)
		}
	}
	for _, msg := range []string{
		"We need to fix the login bug in auth.go before the demo.",
		"diff_commits seems to always be returning colorized diffs, even when pretty=false?!",
		"차트모양은 항상 같다.",
	} {
		if ps := prefsSaid(t, msg); len(ps) != 0 {
			t.Errorf("%q read as a preference: %+v", msg, ps)
		}
	}
}

// A two-word request for a reply language stands as a preference an
// agent can read whatever it speaks.
func TestShortReplyLanguagePreference(t *testing.T) {
	s := (&ccFixture{}).user("set up the project").say("Done. Which booking fields do you need?").user("türkçe sorarmısın").say("Tabii.").session(t)
	ps := ofType(Extract(s, nil, nil), TypePreference)
	if len(ps) != 1 || !strings.HasPrefix(ps[0].Statement, "Answer in Turkish (") {
		t.Fatalf("preferences %+v", ps)
	}
}

// A preference stated in the message a correction was taken from is
// marked so: the correction brings it back at its moment.
func TestPreferenceSaidWhileCorrecting(t *testing.T) {
	s := (&ccFixture{}).user("install the deps").
		call("t1", "Bash", `{"command":"npm install"}`).refuse("t1", "").
		user("no, from now on always use pnpm instead of npm in this repo").say("OK.").session(t)
	obs := Extract(s, nil, nil)
	cs, ps := ofType(obs, TypeCorrection), ofType(obs, TypePreference)
	if len(cs) != 1 || len(ps) != 1 {
		t.Fatalf("corrections %+v preferences %+v", cs, ps)
	}
	if !slices.Contains(ps[0].Signals, SignalCorrecting) || slices.Contains(cs[0].Signals, SignalCorrecting) {
		t.Errorf("signals: preference %v, correction %v", ps[0].Signals, cs[0].Signals)
	}
}

// A preference stated as a rule to remember stands as the rule.
func TestRememberedRuleStandsAsTheRule(t *testing.T) {
	for msg, want := range map[string]string{
		"Remember the rule: we never push straight to main.": "Never push straight to main.",
		"Запомни правило не делать выводы на догадках, у нас строгий научный подход": "Не делать выводы на догадках, у нас строгий научный подход",
		"记住：以后都要先写测试再写实现":                                                  "以后都要先写测试再写实现",
		"Always run the linter before you commit anything, remember that.": "Always run the linter before you commit anything, remember that.",
		"Remember that we always squash feature branches before merging.":  "Always squash feature branches before merging.",
	} {
		ps := prefsSaid(t, msg)
		if len(ps) != 1 || ps[0].Statement != want {
			if len(ps) == 1 {
				t.Errorf("%q: %q", msg, ps[0].Statement)
			} else {
				t.Errorf("%q: %+v", msg, ps)
			}
		}
	}
}
