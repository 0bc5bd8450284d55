package observations

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/kbmem/kb/traces"
)

// Real-format fixtures, synthetic text: Claude Code JSONL (a refused call,
// a refusal with a typed reason, an interrupt), Codex rollout JSONL
// (turn_aborted) and an Aider chat history (/undo), each parsed by the
// trace layer's own parser, with the person writing in several languages.

type ccFixture struct {
	lines []string
	n     int
}

func (f *ccFixture) add(typ string, msg any, extra map[string]any) {
	f.n++
	m := map[string]any{"type": typ, "sessionId": "s1", "uuid": fmt.Sprintf("u%d", f.n), "version": "2.0.42",
		"timestamp": fmt.Sprintf("2025-11-21T10:%02d:00Z", f.n%60), "message": msg}
	for k, v := range extra {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	f.lines = append(f.lines, string(b))
}

func (f *ccFixture) user(text string) *ccFixture {
	f.add("user", map[string]any{"role": "user", "content": text}, nil)
	return f
}

func (f *ccFixture) say(text string) *ccFixture {
	f.add("assistant", map[string]any{"role": "assistant", "model": "claude-sonnet-4-5", "content": []any{map[string]any{"type": "text", "text": text}}}, nil)
	return f
}

func (f *ccFixture) call(id, tool, input string) *ccFixture {
	f.add("assistant", map[string]any{"role": "assistant", "model": "claude-sonnet-4-5", "content": []any{map[string]any{"type": "tool_use", "id": id, "name": tool, "input": json.RawMessage(input)}}}, nil)
	return f
}

func (f *ccFixture) result(id, out string) *ccFixture {
	f.add("user", map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": out}}}, map[string]any{"toolUseResult": out})
	return f
}

// refuse writes Claude Code's refusal of call id, with the reason typed
// (or none, then the interrupt marker Claude Code writes after it).
func (f *ccFixture) refuse(id, reason string) *ccFixture {
	head := "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file)."
	text := head + " STOP what you are doing and wait for the user to tell you how to proceed."
	if reason != "" {
		text = head + " The user provided the following reason for the rejection: " + reason
	}
	f.add("user", map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": text, "is_error": true}}}, map[string]any{"toolUseResult": "Error: " + text})
	if reason == "" {
		f.add("user", map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "[Request interrupted by user for tool use]"}}}, nil)
	}
	return f
}

func (f *ccFixture) interrupt() *ccFixture {
	f.add("user", map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "[Request interrupted by user]"}}}, nil)
	return f
}

func parseFixture(t *testing.T, p traces.Parser, name, src string) *Session {
	t.Helper()
	s := &Session{ID: name}
	if _, _, err := p.Parse(strings.NewReader(src), name, traces.Pos{}, func(r traces.Record) error {
		r.Seq = len(s.Records) + 1
		s.Records = append(s.Records, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return s
}

func (f *ccFixture) session(t *testing.T) *Session {
	return parseFixture(t, traces.NewClaudeCode(), "cc.jsonl", strings.Join(f.lines, "\n")+"\n")
}

const editInput = `{"file_path":"/repo/src/config.ts","old_string":"port: 3000","new_string":"port: 8080"}`

// TestRefusalThenNextMessageAnyLanguage: a refused call followed by the
// person's next message is a correction whatever language it is in; the
// refused call is the trigger, and a terse message becomes a lesson that
// names the refused action.
func TestRefusalThenNextMessageAnyLanguage(t *testing.T) {
	for lang, msg := range map[string]string{
		"en":       "put it in .env.local",
		"de":       "nicht die config ändern, nimm die Umgebungsvariable",
		"es":       "no, usa la variable de entorno en vez de eso",
		"fr":       "non, utilise plutôt la variable d'environnement",
		"ru":       "нет, не меняй конфиг, используй переменную окружения",
		"zh":       "不要改配置文件，用环境变量",
		"ja":       "設定ファイルじゃなくて環境変数を使って",
		"ko":       "설정 파일 말고 환경 변수를 써",
		"zh-terse": "取消",
		"en-terse": "undo that",
	} {
		s := (&ccFixture{}).user("change the port to 8080").
			call("toolu_1", "Edit", editInput).refuse("toolu_1", "").
			user(msg).say("OK.").session(t)
		cs := ofType(Extract(s, nil, nil), TypeCorrection)
		if len(cs) != 1 {
			t.Errorf("%s: %d corrections from %q", lang, len(cs), msg)
			continue
		}
		c := cs[0]
		if !strings.Contains(c.Trigger, "config.ts") || !has(c.Signals, SignalRejection) {
			t.Errorf("%s: trigger %q signals %v", lang, c.Trigger, c.Signals)
		}
		if strings.HasSuffix(lang, "terse") && !strings.Contains(c.Lesson, "config.ts") {
			t.Errorf("%s: terse lesson does not name the refused action: %q", lang, c.Lesson)
		}
	}
}

// TestRefusalReasonAnyLanguage: the reason typed with a refusal is the
// correction, in any script.
func TestRefusalReasonAnyLanguage(t *testing.T) {
	for lang, reason := range map[string]string{
		"zh": "不要直接改生产配置，先在测试环境试",
		"ja": "本番の設定は変えないで",
		"ko": "운영 설정은 건드리지 마",
		"ru": "не трогай продовый конфиг",
		"de": "bitte nicht die Produktionskonfiguration ändern",
	} {
		s := (&ccFixture{}).user("change the port").
			call("toolu_1", "Edit", editInput).refuse("toolu_1", reason).say("Understood.").session(t)
		cs := ofType(Extract(s, nil, nil), TypeCorrection)
		ws := strings.Fields(reason)
		if len(cs) != 1 || !strings.Contains(strings.ToLower(cs[0].Lesson), ws[len(ws)-1]) {
			t.Errorf("%s: %+v", lang, cs)
		}
	}
}

// TestInterruptThenMessage: after an interrupt, a redirect is a
// correction, a new unrelated task is not.
func TestInterruptThenMessage(t *testing.T) {
	run := func(msg string) []*Observation {
		s := (&ccFixture{}).user("deploy the staging build").
			call("toolu_1", "Bash", `{"command":"kubectl apply -f deploy/staging.yaml"}`).
			result("toolu_1", "deployment.apps/web configured").interrupt().
			user(msg).say("OK.").session(t)
		return ofType(Extract(s, nil, nil), TypeCorrection)
	}
	for lang, msg := range map[string]string{
		"en": "wait, use the canary manifest instead",
		"de": "stopp, nimm stattdessen das canary manifest",
		"es": "espera, usa el manifiesto canary en lugar de ese",
		"ru": "стоп, используй canary манифест вместо этого",
		"zh": "停，用 canary 的清单而是不是这个",
		"ja": "待って、canary のマニフェストを代わりに使って",
		"ko": "잠깐, 대신 canary 매니페스트를 써",
	} {
		if cs := run(msg); len(cs) != 1 || !has(cs[0].Signals, SignalInterrupt) {
			t.Errorf("%s: redirect after interrupt: %+v", lang, cs)
		}
	}
	for lang, msg := range map[string]string{
		"en": "Let's look at something else: write a README section describing the project's folder layout and the release process for new contributors.",
		"es": "Ahora otra cosa: escribe una sección del README que describa la estructura de carpetas del proyecto y el proceso de publicación para nuevos colaboradores.",
	} {
		if cs := run(msg); len(cs) != 0 {
			t.Errorf("%s: a new unrelated task after an interrupt became a correction: %q", lang, cs[0].Lesson)
		}
	}
}

// TestCodexTurnAbortedThenRedirect: Codex's turn_aborted plays the part of
// the interrupt.
func TestCodexTurnAbortedThenRedirect(t *testing.T) {
	lines := []string{
		`{"timestamp":"2025-12-01T10:00:00.000Z","type":"session_meta","payload":{"id":"019ad000-0000-7000-8000-0000000000aa","timestamp":"2025-12-01T10:00:00.000Z","cwd":"/home/dev/demo","originator":"codex_cli_rs","cli_version":"0.63.0"}}`,
		`{"timestamp":"2025-12-01T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"lösche die alten Logdateien"}]}}`,
		`{"timestamp":"2025-12-01T10:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"rm -rf logs/\"]}","call_id":"call_1"}}`,
		`{"timestamp":"2025-12-01T10:00:03.000Z","type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}`,
		`{"timestamp":"2025-12-01T10:00:04.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<turn_aborted>\nThe user interrupted the previous turn.\n</turn_aborted>"}]}}`,
		`{"timestamp":"2025-12-01T10:00:05.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"nein, nicht alles löschen, nur die Dateien älter als 30 Tage"}]}}`,
		`{"timestamp":"2025-12-01T10:00:06.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Verstanden."}]}}`,
	}
	s := parseFixture(t, traces.NewCodex(), "rollout-2025-12-01T10-00-00-019ad000-0000-7000-8000-0000000000aa.jsonl", strings.Join(lines, "\n")+"\n")
	cs := ofType(Extract(s, nil, nil), TypeCorrection)
	if len(cs) != 1 || !has(cs[0].Signals, SignalInterrupt) || !strings.Contains(cs[0].Trigger, "rm -rf logs/") {
		t.Fatalf("corrections: %+v", cs)
	}
}

// TestAiderUndoThenRedirect: /undo takes back the agent's change; the
// instruction after it corrects that change.
func TestAiderUndoThenRedirect(t *testing.T) {
	src := "\n# aider chat started at 2025-01-01 10:00:00\n\n" +
		"#### 给 parse 函数加上缓存  \n\n" +
		"I'll add an lru_cache to `parse` in parser.py.\n\n" +
		"#### /undo  \n> Removed: abc1234 feat: cache parse  \n\n" +
		"#### 不要用 lru_cache，用一个显式的字典缓存  \n\n" +
		"OK, here is the dict cache.\n"
	cs := aiderCorrections(t, src)
	if len(cs) != 1 || !has(cs[0].Signals, SignalRejection) || !strings.Contains(cs[0].Lesson, "lru_cache") {
		t.Fatalf("corrections: %+v", cs)
	}
}

// TestFailureAfterChangeAnyLanguage: reporting that the change just made
// does not work is a correction; the pasted log goes to the excerpt, never
// the lesson; approval is not a failure.
func TestFailureAfterChangeAnyLanguage(t *testing.T) {
	log := "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\nModuleNotFoundError: No module named 'flask'"
	run := func(msg string) []*Observation {
		s := (&ccFixture{}).user("add the web server").
			call("toolu_1", "Write", `{"file_path":"/repo/app.py","content":"import flask"}`).result("toolu_1", "File created").
			say("Done: the server is in app.py.").user(msg).say("Let me look.").session(t)
		return ofType(Extract(s, nil, nil), TypeCorrection)
	}
	for lang, msg := range map[string]string{
		"en": "it doesn't work:\n" + log,
		"es": "sigue saliendo este error:\n" + log,
		"de": "funktioniert nicht, Fehler:\n" + log,
		"ru": "не работает:\n" + log,
		"zh": "还是不行，报错了：\n" + log,
		"ja": "動かない。エラー：\n" + log,
		"ko": "오류가 나요:\n" + log,
	} {
		cs := run(msg)
		if len(cs) != 1 {
			t.Errorf("%s: %d corrections", lang, len(cs))
			continue
		}
		if strings.Contains(cs[0].Lesson, "Traceback") || strings.Contains(cs[0].Lesson, "ModuleNotFoundError") ||
			strings.Contains(cs[0].Title, "Traceback") {
			t.Errorf("%s: pasted log in the lesson: %q", lang, cs[0].Lesson)
		}
		if !strings.Contains(cs[0].Excerpt, "ModuleNotFoundError") || !strings.Contains(cs[0].Lesson, "app.py") {
			t.Errorf("%s: excerpt %q lesson %q", lang, cs[0].Excerpt, cs[0].Lesson)
		}
	}
	for lang, msg := range map[string]string{
		"en": "perfect, thanks",
		"es": "perfecto, funciona",
		"zh": "好的，谢谢",
		"ja": "ありがとう、完璧です",
	} {
		if cs := run(msg); len(cs) != 0 {
			t.Errorf("%s: approval became a correction: %q", lang, cs[0].Lesson)
		}
	}
	// A continue nudge that mentions an error is not a failure report.
	if cs := run("continue with the task above to fix the error"); len(cs) != 0 {
		t.Errorf("continue nudge: %q", cs[0].Lesson)
	}
}

// TestNegatedResultAfterChange: a statement right after the agent's change
// that says the result fell short ("isn't right still", "didn't see the
// new fields") corrects it without any pasted error, in any language; a
// question, a new request or a remark before any change does not.
func TestNegatedResultAfterChange(t *testing.T) {
	run := func(msg string, change bool) []*Observation {
		f := (&ccFixture{}).user("add the settings fields to the gui")
		if change {
			f = f.call("toolu_1", "Edit", `{"file_path":"/repo/gui/settings.py","old_string":"a","new_string":"b"}`).result("toolu_1", "ok")
		}
		s := f.say("Done: the fields are in the settings tab.").user(msg).say("Let me look.").session(t)
		return ofType(Extract(s, nil, nil), TypeCorrection)
	}
	for lang, msg := range map[string]string{
		"en":  "I didn't see the new fields in the gui.",
		"en2": "The settings tab isn't right still, the labels overlap.",
		"de":  "Die Felder sind immer noch nicht da.",
		"es":  "Todavía no aparecen los campos nuevos.",
		"ru":  "Новых полей всё ещё нет.",
		"zh":  "新的字段还是没有显示。",
		"ja":  "新しいフィールドがまだ表示されません。",
		// Japanese and Korean negate at the clause's end.
		"ja2": "設定タブにリセットボタンがないね",
		"ja3": "ラベルの配置が好きじゃないから見直して",
		"ja4": "保存してもヒットしないんだけど、なんでかわかる？",
		"ko":  "설정 탭에 새 필드가 없어요",
		"cs":  "pořád tam nejsou, v gui nic",
		// Russian, Chinese and Korean open a report with the negated verb.
		"ru2": "не видно новых полей",
		"zh2": "没有显示新的字段",
		"ko2": "안 나와요 새 필드가",
	} {
		if cs := run(msg, true); len(cs) != 1 {
			t.Errorf("%s: %d corrections for %q", lang, len(cs), msg)
		}
	}
	for name, msg := range map[string]string{
		"question": "Why didn't you use the existing form component?",
		"request":  "Now add a reset button that doesn't clear the saved values.",
		"ja fine":  "問題ないね、次はリセットボタンを追加して",
		"ja might": "それでいいかもしれない。",
	} {
		if cs := run(msg, true); len(cs) != 0 {
			t.Errorf("%s became a correction: %q", name, cs[0].Lesson)
		}
	}
	for name, msg := range map[string]string{
		"ru order":   "не трогай настройки, сначала тесты",
		"ru no need": "не надо больше полей",
	} {
		if cs := run(msg, true); len(cs) != 0 && strings.Contains(cs[0].Lesson, "really works") {
			t.Errorf("%s became a failure report: %q", name, cs[0].Lesson)
		}
	}
	if cs := run("I didn't see the new fields in the gui.", false); len(cs) != 0 {
		t.Errorf("no change made, yet a correction: %q", cs[0].Lesson)
	}
	// The agent changed files, the person asked, the agent only answered;
	// then the person tried it: the report is on that change.
	s := (&ccFixture{}).user("add the settings fields to the gui").
		call("toolu_1", "Edit", `{"file_path":"/repo/gui/settings.py","old_string":"a","new_string":"b"}`).result("toolu_1", "ok").
		say("Done: the fields are in the settings tab.").user("where do I open the tab?").
		say("Settings, then Advanced; log in again first.").user("но меня не залогинило").say("Let me look.").session(t)
	if cs := ofType(Extract(s, nil, nil), TypeCorrection); len(cs) != 1 {
		t.Errorf("a report after the agent's answer on its change: %d corrections", len(cs))
	}
}

// TestComplaintAfterWorkAnyLanguage: right after the agent's change or
// answer, a message that says the result fell short without a failure
// word, a refusal or a pasted error is a correction, in any language: a
// challenge of the agent's claim, a reproach of what it did or assumed,
// its mistake named, what came of its own suggestion, or a turn from
// approval to a shortfall. Approval, a new request with a "but", a polite
// request and a turn before any change are not.
func TestComplaintAfterWorkAnyLanguage(t *testing.T) {
	run := func(msg string, change bool) []*Observation {
		f := (&ccFixture{}).user("make the gui start from the launcher")
		if change {
			f = f.call("toolu_1", "Edit", `{"file_path":"/repo/gui/launcher.py","old_string":"a","new_string":"b"}`).result("toolu_1", "ok")
		}
		s := f.say("Done: run `opk-gui` or `python -m opk.ui` to start it.").user(msg).say("Let me look.").session(t)
		return ofType(Extract(s, nil, nil), TypeCorrection)
	}
	for lang, msg := range map[string]string{
		"en-doubt":    "Are you sure the launcher is the issue? The window never gets that far.",
		"de-doubt":    "Bist du sicher, dass der Launcher das Problem ist?",
		"es-doubt":    "¿Estás seguro de que el problema es el lanzador?",
		"fr-doubt":    "Tu es sûr que le problème vient du lanceur ?",
		"ru-doubt":    "Ты уверен, что проблема в лаунчере?",
		"zh-doubt":    "你确定问题在启动器吗？",
		"ja-doubt":    "本当にランチャーが原因ですか？",
		"en-reproach": "I'm on Ubuntu 22.04. You should know this, I'm not headless.",
		"de-reproach": "Du hast vergessen, den Einstiegspunkt einzutragen.",
		"es-reproach": "Olvidaste registrar el punto de entrada.",
		"ru-reproach": "Ты забыл прописать точку входа.",
		"zh-reproach": "你忘了注册入口点。",
		"ko-reproach": "진입점 등록하는 걸 잊었네요.",
		"en-mistake":  "First we need to address an oversight: the fields are on two tabs.",
		"zh-mistake":  "这里有个疏忽：字段在两个标签页上都有。",
		"en-yours":    "I'm using your suggested commands and they both exit immediately.",
		"de-yours":    "Mit deinen Befehlen startet das Fenster sofort wieder zu.",
		"ru-yours":    "С твоими командами окно сразу закрывается.",
		"zh-yours":    "用你给的命令，两个都马上退出了。",
		"en-turn":     "This launcher does the job, but we end up with two failed requests.",
		"en-turn2":    "I tried to run the gui with it. But I never saw the window open.",
		"de-turn":     "Es startet, aber die Buttons fehlen nicht mehr... doch, sie sind nicht da.",
		"es-turn":     "Arranca, pero no aparece la ventana.",
		"ru-turn":     "Запускается, но окно не появляется.",
		"zh-turn":     "能启动，但是窗口没有出现。",
		"ja-turn":     "起動はするけど、ウィンドウが出ない。",
		"en-no":       "No, that's not what I meant.",
		"de-no":       "Nein, das meinte ich nicht.",
		"ru-no":       "Нет, не так.",
		"zh-no":       "不对，不是这个意思",
		"ko-no":       "아니요, 그게 아니라 런처를 고쳐야 해요",
		"el-reproach": "Ξέχασες να καταχωρίσεις το σημείο εισόδου.",
		"he-reproach": "שכחת לרשום את נקודת הכניסה.",
		"ar-reproach": "نسيت تسجيل نقطة الدخول.",
		"hi-reproach": "तुम भूल गए entry point register करना।",
		"th-no":       "ไม่ใช่ ต้องแก้ที่ launcher",
		"ar-no":       "لا، ليس هذا ما قصدت",
		"hi-no":       "नहीं, ऐसे नहीं, launcher ठीक करो",
		"th-why":      "ทำไมคุณถึงลบไฟล์ launcher?",
		"ar-why":      "لماذا قمت بحذف ملف التشغيل؟",
		"hi-why":      "तुमने क्यों launcher script delete किया?",
		"en-why":      "Why did you delete the launcher script?",
		"de-why":      "Warum hast du die Datei gelöscht?",
		"ru-why":      "Зачем ты удалил файл?",
		"zh-why":      "为什么要删掉这个文件？",
		"ru-said":     "Я же просил без лаунчера.",
		"zh-said":     "我说的是去掉启动器",
		"de-again":    "Schon wieder ein leeres Fenster.",
		"ru-again":    "Опять пустое окно.",
		"zh-again":    "你怎么又加了启动器",
		"en-symptom":  "they both exit immediately",
		"de-symptom":  "Beide Programme beenden sich sofort.",
		"ru-symptom":  "Оба сразу закрываются.",
		"zh-symptom":  "两个都直接退出了",
		"de-still":    "Die Labels sind noch da",
		"es-still":    "Las etiquetas siguen ahí.",
		"zh-still":    "标签还在",
	} {
		cs := run(msg, true)
		if len(cs) != 1 {
			t.Errorf("%s: %d corrections for %q", lang, len(cs), msg)
			continue
		}
		// The trigger is the agent's change; the lesson stands alone: it
		// names what fell short or keeps the person's own instruction.
		if !strings.Contains(cs[0].Trigger, "launcher.py") || !strings.Contains(cs[0].Lesson, "launcher.py") && wordCount(cs[0].Lesson) < 6 {
			t.Errorf("%s: trigger %q lesson %q", lang, cs[0].Trigger, cs[0].Lesson)
		}
	}
	for name, msg := range map[string]string{
		"en-ack":      "Perfect, thanks, your fix works.",
		"en-request":  "Add a tray icon, but don't start it minimized.",
		"ru-polite":   "Вы не могли бы добавить иконку в трей?",
		"en-question": "Can we also add a tray icon to the launcher?",
		"zh-ack":      "好的，谢谢，你的方法可以了。",
		"en-closer":   "No worries, thanks",
		"de-closer":   "Nein danke, das reicht",
		"zh-good":     "不错，谢谢",
	} {
		if cs := run(msg, true); len(cs) != 0 {
			t.Errorf("%s became a correction: %q", name, cs[0].Lesson)
		}
	}
	// A "no" that answers the agent's question is an answer.
	asked := (&ccFixture{}).user("make the gui start from the launcher").
		call("toolu_1", "Edit", `{"file_path":"/repo/gui/launcher.py","old_string":"a","new_string":"b"}`).result("toolu_1", "ok").
		say("Done. Should I also add a desktop entry?").user("Nein, das ist nicht nötig.").say("OK.").session(t)
	if cs := ofType(Extract(asked, nil, nil), TypeCorrection); len(cs) != 0 {
		t.Errorf("an answer to the agent's question became a correction: %q", cs[0].Lesson)
	}
	// A turn from approval needs a change to fall short of.
	if cs := run("It starts, but the window does not appear.", false); len(cs) != 0 {
		t.Errorf("no change made, yet a correction: %q", cs[0].Lesson)
	}
	// A complaint about an answer in words corrects the answer.
	cs := run("I'm using your suggested commands and they both exit immediately.", false)
	if len(cs) != 1 || !strings.Contains(cs[0].Trigger, "opk-gui") {
		t.Errorf("complaint about the answer: %+v", cs)
	}
}

// TestComplaintAfterWorkCodexAider: the same in Codex rollouts and aider
// histories, the formats other people's sessions come in.
func TestComplaintAfterWorkCodexAider(t *testing.T) {
	lines := []string{
		`{"timestamp":"2025-12-01T10:00:00.000Z","type":"session_meta","payload":{"id":"019ad000-0000-7000-8000-0000000000ab","timestamp":"2025-12-01T10:00:00.000Z","cwd":"/home/dev/demo","originator":"codex_cli_rs","cli_version":"0.63.0"}}`,
		`{"timestamp":"2025-12-01T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"сделай запуск gui из лаунчера"}]}}`,
		`{"timestamp":"2025-12-01T10:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"*** Begin Patch\\n*** Update File: gui/launcher.py\\n@@\\n-a\\n+b\\n*** End Patch\"]}","call_id":"call_1"}}`,
		`{"timestamp":"2025-12-01T10:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"Success"}}`,
		`{"timestamp":"2025-12-01T10:00:04.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Готово: запускайте opk-gui."}]}}`,
		`{"timestamp":"2025-12-01T10:00:05.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Запускается, но окно не появляется."}]}}`,
		`{"timestamp":"2025-12-01T10:00:06.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Проверю."}]}}`,
	}
	s := parseFixture(t, traces.NewCodex(), "rollout-2025-12-01T10-00-00-019ad000-0000-7000-8000-0000000000ab.jsonl", strings.Join(lines, "\n")+"\n")
	if cs := ofType(Extract(s, nil, nil), TypeCorrection); len(cs) != 1 || !strings.Contains(cs[0].Trigger, "launcher.py") {
		t.Errorf("codex: %+v", cs)
	}
	src := "\n# aider chat started at 2025-01-01 10:00:00\n\n" +
		"#### starte die gui aus dem launcher  \n\n" +
		"gui/launcher.py\n```python\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n\n" +
		"> Applied edit to gui/launcher.py  \n> Commit abc1234 feat: launcher  \n\n" +
		"#### Bist du sicher, dass das reicht? Das Fenster bleibt leer.  \n\n" +
		"Ich prüfe das.\n"
	s = parseFixture(t, traces.NewAider(), ".aider.chat.history.md", src)
	if cs := ofType(Extract(s, nil, nil), TypeCorrection); len(cs) != 1 {
		t.Errorf("aider: %+v", cs)
	}
}

// TestAiderCtrlCThenRedirect: aider's Ctrl-C during the reply plays the
// part of the interrupt; the person's next message redirects, in German.
func TestAiderCtrlCThenRedirect(t *testing.T) {
	src := "\n# aider chat started at 2025-01-01 10:00:00\n\n" +
		"#### verwende GitTemporaryDirectory in den Tests  \n>  \n>  \n> ^C again to exit  \n\n" +
		"Gerne! Ich ersetze IgnorantTemporaryDirectory in allen Tests\n\n" +
		"#### /clear  \n\n" +
		"#### nur `test_subtree_only` soll GitTemporaryDirectory nehmen  \n\n" +
		"OK.\n"
	s := parseFixture(t, traces.NewAider(), ".aider.chat.history.md", src)
	cs := ofType(Extract(s, nil, nil), TypeCorrection)
	if len(cs) != 1 || !has(cs[0].Signals, SignalInterrupt) || !strings.Contains(cs[0].Lesson, "test_subtree_only") {
		t.Fatalf("corrections: %+v", cs)
	}
}

// TestClearedThenNewTask: an /undo (or a refusal, or Ctrl-C), then /clear,
// then a task about something else: the conversation started over and the
// new task corrects nothing; one that speaks of what was undone still does
// (TestAiderCtrlCThenRedirect).
func TestClearedThenNewTask(t *testing.T) {
	src := "\n# aider chat started at 2024-06-11 02:29:05\n\n" +
		"#### add an API_KEY variable to src/common/env.ts  \n\n" +
		"I'll add it to the schema.\n\n> Applied edit to src/common/env.ts  \n> Commit bbde768 aider: Add API_KEY  \n\n" +
		"#### /undo  \n> Commit `bbde768` was reset and removed from git.  \n\n" +
		"#### /drop  \n> Dropping all files from the chat session.  \n\n#### /clear  \n>  \n>  \n> ^C again to exit  \n\n" +
		"#### In this NestJS app, create a guard that checks each request for an api key.  \n\n" +
		"To create a guard we will need to add src/guards/api-key.guard.ts.\n"
	s := parseFixture(t, traces.NewAider(), ".aider.chat.history.md", src)
	if cs := ofType(Extract(s, nil, nil), TypeCorrection); len(cs) != 0 {
		t.Errorf("a new task after /undo and /clear became a correction: %q", cs[0].Lesson)
	}
}

// TestProposalAfterChangeIsAlsoACorrection: right after the agent changed
// files, proposing another way of doing what it just did corrects it and
// decides it: one message, both observations, in any language the
// proposal rules read. A proposal with nothing changed, or about other
// work, corrects nothing.
func TestProposalAfterChangeIsAlsoACorrection(t *testing.T) {
	run := func(msg string, change bool) (cs, ds []*Observation) {
		f := (&ccFixture{}).user("add the session navigation to the combined transcript")
		if change {
			f = f.call("toolu_1", "Edit", `{"file_path":"/repo/templates/transcript.html","old_string":"a","new_string":"<nav class=\"session-nav\">"}`).result("toolu_1", "ok")
		}
		s := f.say("Done: the combined transcript has its own session navigation markup now.").user(msg).say("OK.").session(t)
		obs := Extract(s, nil, nil)
		return ofType(obs, TypeCorrection), ofType(obs, TypeDecision)
	}
	for lang, msg := range map[string]string{
		"en": "could we reuse @templates/components/session_nav.html for that? looks like it's very similar?",
		"de": "Könnten wir dafür components/session_nav.html verwenden?",
		"es": "¿Podríamos usar components/session_nav.html para eso?",
		"zh": "不如用 components/session_nav.html 这个组件",
		"ru": "Давай используем components/session_nav.html для этого.",
	} {
		cs, ds := run(msg, true)
		if len(cs) != 1 || len(ds) != 1 || !strings.Contains(cs[0].Trigger, "transcript.html") {
			t.Errorf("%s: corrections %+v decisions %+v", lang, cs, ds)
		}
	}
	if cs, _ := run("could we reuse @templates/components/session_nav.html for that?", false); len(cs) != 0 {
		t.Errorf("nothing changed, yet a correction: %q", cs[0].Lesson)
	}
	if cs, _ := run("Next, could we use pnpm in the docs site?", true); len(cs) != 0 {
		t.Errorf("a proposal about other work became a correction: %q", cs[0].Lesson)
	}
}

// TestCodexRefusalThenNextMessage: Codex tells the model "exec command
// rejected by user" when the person declines an approval prompt; the
// declined command is the trigger and the person's next message the
// correction, in any language.
func TestCodexRefusalThenNextMessage(t *testing.T) {
	for lang, msg := range map[string]string{
		"es": "no borres nada, mueve los logs a /tmp/old",
		"ru": "не удаляй, перенеси логи в /tmp/old",
		"en": "move them to /tmp/old",
	} {
		q, _ := json.Marshal(msg)
		lines := []string{
			`{"timestamp":"2025-12-01T10:00:00.000Z","type":"session_meta","payload":{"id":"019ad000-0000-7000-8000-0000000000ac","timestamp":"2025-12-01T10:00:00.000Z","cwd":"/home/dev/demo","originator":"codex_cli_rs","cli_version":"0.63.0"}}`,
			`{"timestamp":"2025-12-01T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"clean up the old logs"}]}}`,
			`{"timestamp":"2025-12-01T10:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"rm -rf logs/\"]}","call_id":"call_1"}}`,
			`{"timestamp":"2025-12-01T10:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"exec command rejected by user"}}`,
			`{"timestamp":"2025-12-01T10:00:04.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Understood, I won't delete them. What should I do instead?"}]}}`,
			`{"timestamp":"2025-12-01T10:00:05.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":` + string(q) + `}]}}`,
			`{"timestamp":"2025-12-01T10:00:06.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"OK."}]}}`,
		}
		s := parseFixture(t, traces.NewCodex(), "rollout-2025-12-01T10-00-00-019ad000-0000-7000-8000-0000000000ac.jsonl", strings.Join(lines, "\n")+"\n")
		cs := ofType(Extract(s, nil, nil), TypeCorrection)
		if len(cs) != 1 || !has(cs[0].Signals, SignalRejection) || !strings.Contains(cs[0].Trigger, "rm -rf logs/") {
			t.Errorf("%s: corrections %+v", lang, cs)
		}
	}
}

// TestRedoAndNarrowAnyLanguage: right after the agent's work, asking for it
// again ("redo the summary") or cutting it back to what was asked ("only
// the left and right margins, not top and bottom") corrects it, in any
// language; a report of something lost since the change is a failure; a
// new request or an approval is neither.
func TestRedoAndNarrowAnyLanguage(t *testing.T) {
	run := func(msg string) []*Observation {
		s := (&ccFixture{}).user("tighten the card padding").
			call("toolu_1", "Edit", `{"file_path":"/repo/web/card.css","old_string":"padding: 16px","new_string":"padding: 8px"}`).result("toolu_1", "ok").
			say("Done: the card padding is now 8px on every side.").user(msg).say("OK.").session(t)
		return ofType(Extract(s, nil, nil), TypeCorrection)
	}
	expectCorrections(t, run, map[string]string{
		"en redo":      "redo it with the spacing tokens from the theme",
		"fr redo":      "refais le résumé des changements",
		"de redo":      "mach das nochmal mit den Abständen aus dem Theme",
		"zh redo":      "重新生成这段样式",
		"en narrow":    "only the left and right padding, not top and bottom",
		"en edit just": "edit just the card.css file, not the theme file",
		"zh narrow":    "仅改左右边距,不影响上下",
		"de narrow":    "nur links und rechts, nicht oben und unten",
		"ru narrow":    "только слева и справа, не сверху",
		"fr lost":      "il n'y a plus l'information pour les scripts déplacés",
		"fr broken":    "ça marche pas sur mobile",
	}, map[string]string{
		"en new":  "now add a dark mode toggle to the header",
		"fr ok":   "parfait, merci",
		"zh new":  "接下来给页眉加一个深色模式开关",
		"en only": "only thing left: commit it",
	})
}

// TestRuleForNextTimeAndRemovalAnyLanguage: after the agent's work, a rule
// for the work to come ("next time", "la prochaine fois", "以后") corrects
// it, and so does taking out a part the agent just named; a plan for
// later that states no rule about the work, or a removal of something the
// agent never named, does not.
func TestRuleForNextTimeAndRemovalAnyLanguage(t *testing.T) {
	run := func(msg string) []*Observation {
		s := (&ccFixture{}).user("write the release notes").
			call("toolu_1", "Write", `{"file_path":"/repo/RELEASE.md","content":"## 1.4 (web)\n- faster sync"}`).result("toolu_1", "File created").
			say("Done: RELEASE.md lists the changes under a (web) heading.").user(msg).say("OK.").session(t)
		return ofType(Extract(s, nil, nil), TypeCorrection)
	}
	expectCorrections(t, run, map[string]string{
		"en next":   "next time you write release notes, list the moved scripts too",
		"fr next":   "la prochaine fois que tu fais ce résumé, ajoute les scripts déplacés",
		"zh next":   "以后写这个发布说明时也要列出移动的脚本",
		"ja next":   "次からこのリリースノートに移動したスクリプトも書いてください",
		"zh remove": "去除(web),开始执行",
		"en remove": "remove the (web) heading and go on",
		"el next":   "την επόμενη φορά που γράφεις release notes, βάλε και τα scripts που μετακινήθηκαν",
		"th next":   "ครั้งหน้าเขียน release notes ให้ใส่สคริปต์ที่ย้ายด้วย",
		"he next":   "בפעם הבאה שאתה כותב release notes, תוסיף גם את הסקריפטים שהועברו",
		"hi next":   "अगली बार release notes में moved scripts भी लिखना",
		"el remove": "αφαίρεσε την επικεφαλίδα (web) και συνέχισε",
		"ar remove": "احذف عنوان (web) وأكمل",
	}, map[string]string{
		"en other": "delete the tmp folder on my desktop please",
		"en ask":   "next time, will you be able to run the tests too?",
	})
}

// expectCorrections checks that run makes one correction of each message
// of yes and none of each of no.
func expectCorrections(t *testing.T, run func(string) []*Observation, yes, no map[string]string) {
	t.Helper()
	for lang, msg := range yes {
		if cs := run(msg); len(cs) != 1 {
			t.Errorf("%s: %d corrections from %q", lang, len(cs), msg)
		}
	}
	for lang, msg := range no {
		if cs := run(msg); len(cs) != 0 {
			t.Errorf("%s: %q became a correction: %q", lang, msg, cs[0].Lesson)
		}
	}
}

// TestRetractedNextMessage (issue 14, kind 5): what the person takes back
// in their next message ("Actually, never mind. Let's continue using bash",
// "算了", "vergiss es") is no lesson; what they do not take back stays.
func TestRetractedNextMessage(t *testing.T) {
	run := func(back string) []*Observation {
		s := (&ccFixture{}).user("write a script that runs these curl requests").
			call("toolu_1", "Write", `{"file_path":"/repo/metrics.sh","content":"curl -s $API"}`).result("toolu_1", "File created").
			say("Done: metrics.sh runs the requests.").user("Let's use python instead of bash").
			say("OK, I'll rewrite it in Python.").user(back).say("OK.").session(t)
		var out []*Observation
		for _, o := range Extract(s, nil, nil) {
			if strings.Contains(strings.ToLower(o.Summary()), "python") {
				out = append(out, o)
			}
		}
		return out
	}
	for lang, back := range map[string]string{
		"en":  "Actually, enver mind. Let's continue using bash, but make the output more verbose.",
		"en2": "never mind, keep the shell script",
		"de":  "vergiss es, wir bleiben bei bash",
		"zh":  "算了，还是用 bash 吧",
		"es":  "olvídalo, seguimos con bash",
	} {
		if got := run(back); len(got) != 0 {
			t.Errorf("%s: a retracted message stayed a %s: %q", lang, got[0].Type, got[0].Summary())
		}
	}
	if got := run("and make the output more verbose"); len(got) == 0 {
		t.Errorf("a message not taken back was lost")
	}
}

// correctionsAfterEdit counts the corrections of a session where the
// person asked for request, the agent edited file and said reply, and the
// person answered msg.
func correctionsAfterEdit(request, file, reply, msg string) int {
	return len(correctionsAfter(request, file, reply, msg))
}

// correctionsAfter are those corrections.
func correctionsAfter(request, file, reply, msg string) []*Observation {
	s := newSession("e").
		user(request).
		call("Edit", `{"file_path":"`+file+`","old_string":"a","new_string":"b"}`, "ok").
		say(reply).
		user(msg).s
	return ofType(Extract(s, nil, nil), TypeCorrection)
}

// TestRequestWithNegationIsNoReport: after the agent's change, a message
// that opens by asking for work is a task even when a "not" is in it
// ("... see whether nothing broke", "... careful not to break the earlier
// steps"), in any language the request lexicon knows and after Claude
// Code's thinking keyword; a statement that the result does not work
// still corrects the change. (Seen on unseen public sessions in
// Portuguese, where each such request became "check that the change
// really works; the person reported: ...".) Not covered: a failure word
// itself under the negation ("make sure nothing is broken", "nicht
// kaputt macht") still reads as a report.
func TestRequestWithNegationIsNoReport(t *testing.T) {
	after := func(msg string) int {
		return correctionsAfterEdit("corrige o instalador", "/root/instalador.sh", "Pronto, alterei o instalador.", msg)
	}
	for _, msg := range []string{
		"ultrathink faça uma análise verificando o git sobre quais arquivos foram alterados e veja se não quebrou nada",
		"ultrathink: implemente com muito cuidado para não quebrar as etapas anteriores",
		"vérifie que le script ne casse pas les étapes précédentes",
		"prüfe bitte, ob das Skript die alten Schritte nicht verändert",
		"проверь, что скрипт не ломает предыдущие шаги",
		"请检查一下脚本有没有破坏之前的步骤",
		"check that the script does not break the earlier steps",
	} {
		if n := after(msg); n != 0 {
			t.Errorf("%q: a request read as a correction (%d)", msg, n)
		}
	}
	for _, msg := range []string{
		"o instalador ainda não funciona, a etapa 19 falha",
		"le script ne marche toujours pas",
	} {
		if n := after(msg); n != 1 {
			t.Errorf("%q: a report of the result, %d corrections, want 1", msg, n)
		}
	}
}

// TestDegreeAfterChange: right after the agent changed something, a short
// statement asking for more or less of it corrects the change by a degree,
// in any language the degree lexicon knows; a question, thanks, or the
// same words before the agent did anything do not.
func TestDegreeAfterChange(t *testing.T) {
	after := func(msg string) int {
		return correctionsAfterEdit("move the navbar down from the top", "/w/app/styles/app.css", "I added padding above the header.", msg)
	}
	for _, msg := range []string{
		"a bit more, it is still too close to the top",
		"odsad to navbar trochu z vrchu je to moc blizko k hornímu rohu",
		"encore un peu plus, c'est trop près du bord",
		"再往下一点",
		"etwas mehr Abstand nach oben",
		"もうちょっと下でいいよ",
		"좀 더 아래로 내려줘",
		"thấp hơn một chút",
	} {
		if n := after(msg); n != 1 {
			t.Errorf("%q: %d corrections, want 1", msg, n)
		}
	}
	for _, msg := range []string{
		"could you make it a bit more compact?",
		"perfect, thanks a lot",
	} {
		if n := after(msg); n != 0 {
			t.Errorf("%q: read as a correction (%d)", msg, n)
		}
	}
	first := newSession("d0").user("make the header a bit more compact").s
	if got := ofType(Extract(first, nil, nil), TypeCorrection); len(got) != 0 {
		t.Errorf("a first request read as a correction: %q", got[0].Lesson)
	}
}

// aiderRun is an aider turn: the person's request, the model's edit of
// file, aider applying it and running the program, the person's answer to
// "Add command output to the chat?" (add), then the person's next message.
func aiderRun(file, next string, add bool) string {
	yes := "n"
	added := ""
	if add {
		yes, added = "y", "> Added 11 lines of output to the chat.  \n"
	}
	return "\n# aider chat started at 2025-01-01 10:00:00\n\n" +
		"#### make the app start  \n\n" +
		file + "\n```python\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n\n" +
		"> Applied edit to " + file + "  \n> Commit abc1234 fix: start  \n> python main.py  \n" +
		"> Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: y  \n> Running python main.py  \n" +
		"> Add command output to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: " + yes + "  \n" + added +
		"> You can use /undo to undo and discard each aider commit.  \n\n" +
		"#### " + next + "  \n\n" +
		"Let me look at that.\n"
}

// TestAiderShownOutputAfterChange: the person ran what the agent just
// changed and had aider add the output to the chat: that is their paste,
// and the message with it reports how the change turned out, in any
// language, with no failure word needed. The lesson names the changed file
// and keeps the sentence that says what broke. Without the output shown,
// or when the person only thanks, or with no change before the run, it is
// no correction.
func TestAiderShownOutputAfterChange(t *testing.T) {
	for lang, msg := range map[string]string{
		"tr": "hataları gördün ve bunları düzelt. Bir devre elemanına tıkladım ve uygulama çöktü.",
		"en": "you saw the output, sort it out. I clicked a component and the window closed.",
		"es": "ya viste la salida, arréglalo. Hice clic en un componente y se cerró la ventana.",
		"id": "kamu sudah lihat outputnya, tolong betulkan. Saya klik komponen dan aplikasinya tertutup.",
	} {
		s := parseFixture(t, traces.NewAider(), ".aider.chat.history.md", aiderRun("lsfl/gui/canvas.py", msg, true))
		cs := ofType(Extract(s, nil, nil), TypeCorrection)
		if len(cs) != 1 {
			t.Errorf("%s: %d corrections, want 1: %+v", lang, len(cs), cs)
			continue
		}
		l := cs[0].Lesson
		second := strings.TrimRight(sentences(msg)[1], ".")
		if !strings.Contains(l, "canvas.py") || !strings.Contains(l, second) || !strings.HasPrefix(l, "Check that") {
			t.Errorf("%s: lesson %q: want the changed file and the report's second sentence", lang, l)
		}
		if strings.HasPrefix(cs[0].Description, "Correction after after") {
			t.Errorf("%s: description %q", lang, cs[0].Description)
		}
	}
	tr := "hataları gördün ve bunları düzelt. Bir devre elemanına tıkladım ve uygulama çöktü."
	s := parseFixture(t, traces.NewAider(), ".aider.chat.history.md", aiderRun("lsfl/gui/canvas.py", tr, false))
	if cs := ofType(Extract(s, nil, nil), TypeCorrection); len(cs) != 0 {
		t.Errorf("output not shown: %+v", cs)
	}
	s = parseFixture(t, traces.NewAider(), ".aider.chat.history.md", aiderRun("lsfl/gui/canvas.py", "perfect, thanks! it works now.", true))
	if cs := ofType(Extract(s, nil, nil), TypeCorrection); len(cs) != 0 {
		t.Errorf("thanks after the output: %+v", cs)
	}
	noChange := strings.Replace(aiderRun("lsfl/gui/canvas.py", tr, true), "> Applied edit to lsfl/gui/canvas.py  \n> Commit abc1234 fix: start  \n", "", 1)
	noChange = strings.Replace(noChange, "lsfl/gui/canvas.py\n```python\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n\n", "I ran it.\n\n", 1)
	s = parseFixture(t, traces.NewAider(), ".aider.chat.history.md", noChange)
	if cs := ofType(Extract(s, nil, nil), TypeCorrection); len(cs) != 0 {
		t.Errorf("no change before the run: %+v", cs)
	}
}

// TestFailureReportsTraditionalKoreanNo: the cue lists read Traditional
// Chinese through lexicon.FoldHant, Korean with or without the space
// before a verb ("안 열려", "안열려"), and a Chinese "不是，" opening the
// answer to the agent's "is this what you wanted?" after it worked is a
// "no" to that work.
// correctionsAfterWrite are the corrections of msg, sent after the agent
// wrote pusher.py and said said.
func correctionsAfterWrite(t *testing.T, said, msg string) []*Observation {
	s := (&ccFixture{}).user("change the digest format").
		call("toolu_1", "Write", `{"file_path":"/repo/pusher.py","content":"x"}`).result("toolu_1", "File updated").
		say(said).user(msg).say("OK.").session(t)
	return ofType(Extract(s, nil, nil), TypeCorrection)
}

// eachCorrectsAfterWrite checks that every message (by language), sent
// right after the agent's Write and its reply said, is one correction.
func eachCorrectsAfterWrite(t *testing.T, said string, msgs map[string]string) {
	t.Helper()
	for lang, msg := range msgs {
		if cs := correctionsAfterWrite(t, said, msg); len(cs) != 1 {
			t.Errorf("%s: %d corrections, want 1", lang, len(cs))
		}
	}
}

// eachCorrectsAfterSay checks that each message, sent after the agent
// only answered (said), is one correction.
func eachCorrectsAfterSay(t *testing.T, said string, msgs map[string]string) {
	t.Helper()
	for lang, msg := range msgs {
		if cs := correctionsAfterSay(t, said, msg); len(cs) != 1 {
			t.Errorf("%s: %d corrections, want 1", lang, len(cs))
		}
	}
}

// correctionsAfterSay are the corrections of a session in which the
// agent only answered (said, no call) before the person's msg.
func correctionsAfterSay(t *testing.T, said, msg string) []*Observation {
	s := (&ccFixture{}).user("go ahead with the task").say(said).user(msg).say("OK.").session(t)
	return ofType(Extract(s, nil, nil), TypeCorrection)
}

func TestFailureReportsTraditionalKoreanNo(t *testing.T) {
	for name, msg := range map[string]string{
		"zh-Hant":    "還是不行，頁面沒有顯示任何東西",
		"ko spaced":  "홈페이지가 안 열려요",
		"ko joined":  "홈페이지가 안열려",
		"zh no":      "不是，链接需要放到每一条分析的下面",
		"zh-Hant no": "不是，連結要放在每一條分析的下面",
	} {
		if cs := correctionsAfterWrite(t, "推送成功了，现在是你想要的格式了。", msg); len(cs) != 1 {
			t.Errorf("%s: %d corrections, want 1", name, len(cs))
		}
	}
	for name, msg := range map[string]string{
		"zh-Hant thanks": "好的，謝謝，沒問題了",
		"ko thanks":      "잘 되네요 감사합니다",
		"zh new task":    "接下来把日志也加上",
	} {
		if cs := correctionsAfterWrite(t, "推送成功了，现在是你想要的格式了。", msg); len(cs) != 0 {
			t.Errorf("%s: %d corrections, want 0: %+v", name, len(cs), cs)
		}
	}
}

// TestShortReportOpensSessionAfterTemplate: a session opened by a prompt
// template the agent then worked through has no message of the person's
// before their short report that the result does not work: it is still a
// report on the work. A long first message after the work sets a task.
func TestShortReportOpensSessionAfterTemplate(t *testing.T) {
	run := func(msg string) []*Observation {
		f := &ccFixture{}
		f.add("user", map[string]any{"role": "user", "content": "<command-name>/speckit.implement</command-name>"}, nil)
		f.add("user", map[string]any{"role": "user", "content": "## User Input\n\n$ARGUMENTS\n\nYou **MUST** consider the user input before proceeding."}, map[string]any{"isMeta": true})
		s := f.call("toolu_1", "Write", `{"file_path":"/repo/src/App.tsx","content":"x"}`).result("toolu_1", "File created").
			say("Implemented the frontend.").user(msg).say("Let me check.").session(t)
		return ofType(Extract(s, nil, nil), TypeCorrection)
	}
	for _, msg := range []string{"홈페이지가 안열려", "the homepage does not open", "页面打不开"} {
		if cs := run(msg); len(cs) != 1 {
			t.Errorf("%q: %d corrections, want 1", msg, len(cs))
		}
	}
	long := "This was the old site; after a decade I want to pick it up again and fix the broken APIs, then figure out the simplest way to serve it locally, and after that we will look at the build."
	if cs := run(long); len(cs) != 0 {
		t.Errorf("a long first message: %d corrections, want 0", len(cs))
	}
}

// TestMisunderstoodAfterWork: "that's not what I meant", right after the
// agent delivered, corrects the work in any language; the same words with
// no work before them correct nothing.
func TestMisunderstoodAfterWork(t *testing.T) {
	for lang, msg := range map[string]string{
		"en": "that's not what I meant, keep the original format and put the link at the end",
		"zh": "重新理解一下我的意思，按刚开始的格式，最后附上链接即可",
		"de": "du hast mich falsch verstanden, das alte Format bitte, nur der Link ans Ende",
		"es": "no es lo que quise decir, deja el formato original y pon el enlace al final",
		"ru": "ты неправильно понял, оставь прежний формат и добавь ссылку в конец",
		"ja": "そういう意味じゃなくて、元の形式のままでリンクを最後に付けて",
	} {
		if cs := correctionsAfterWrite(t, "Done: the digest is now split per platform.", msg); len(cs) != 1 {
			t.Errorf("%s: %d corrections, want 1", lang, len(cs))
		}
		first := (&ccFixture{}).user(msg).say("OK.").session(t)
		if cs := ofType(Extract(first, nil, nil), TypeCorrection); len(cs) != 0 {
			t.Errorf("%s, no work before it: %d corrections", lang, len(cs))
		}
	}
}

// TestProhibitsCodeTheAgentWrote: a message after the agent's change that
// prohibits code the change holds ("no print() in the backend") corrects
// it, in any language, without a refusal or an interrupt; the same words
// about code the agent did not write are a rule for later, not a
// correction of this change.
func TestProhibitsCodeTheAgentWrote(t *testing.T) {
	write := func(code, msg string) []*Observation {
		in, _ := json.Marshal(map[string]string{"file_path": "/repo/apps/fx.py", "content": code})
		s := (&ccFixture{}).user("fix the rounding in the fx conversion").
			call("toolu_1", "Write", string(in)).result("toolu_1", "File created").
			say("Fixed: lines are rounded before the total.").user(msg).say("OK.").session(t)
		return ofType(Extract(s, nil, nil), TypeCorrection)
	}
	code := "def convert(line):\n    print(\"convert\", line)\n    return round(line.amount * rate, 2)\n"
	for name, msg := range map[string]string{
		"en": "two things before you commit. the print goes: no print() in the backend, stdout ends up in CloudWatch as junk. log through structlog",
		"zh": "提交之前：后端代码里不要用 print()，日志走 structlog",
		"de": "bitte kein print() im Backend, nimm structlog",
		// Hindi negates after the verb; the call is written with its
		// arguments elided.
		"hi": "काम कर रहा है, पर backend में `print(...)` मत करो — structlog से log करो",
	} {
		if cs := write(code, msg); len(cs) != 1 {
			t.Errorf("%s: %d corrections, want 1", name, len(cs))
		}
	}
	// The corrected call is the write that holds the code, not the test
	// run after it.
	in, _ := json.Marshal(map[string]string{"file_path": "/repo/apps/fx.py", "content": code})
	s := (&ccFixture{}).user("fix the rounding in the fx conversion").
		call("toolu_1", "Write", string(in)).result("toolu_1", "File created").
		call("toolu_2", "Bash", `{"command":"uv run pytest tests/test_fx.py"}`).result("toolu_2", "1 passed").
		say("Fixed.").user("no print() in the backend, log through structlog").say("OK.").session(t)
	if cs := ofType(Extract(s, nil, nil), TypeCorrection); len(cs) != 1 || !strings.Contains(cs[0].Trigger, "fx.py") {
		t.Errorf("trigger: %+v", cs)
	}
	if cs := write("def convert(line):\n    return round(line.amount * rate, 2)\n", "two things before you commit. the print goes: no print() in the backend, stdout ends up in CloudWatch as junk. log through structlog"); len(cs) != 0 {
		t.Errorf("code the agent did not write: %+v", cs)
	}
}

// TestProhibitedWrittenInExcerpt: the code an edit added that the person's
// negation names is recorded on the excerpt's Agent line, whether the
// person wrote it as code or as a plain package name; prose words, words
// the edit replaced, and commands' words are not.
func TestProhibitedWrittenInExcerpt(t *testing.T) {
	rec := func(tool string, in map[string]string) *traces.Record {
		b, _ := json.Marshal(in)
		return &traces.Record{Tool: tool, Input: b}
	}
	for _, tc := range []struct {
		r    *traces.Record
		said string
		want []string
	}{
		{rec("Edit", map[string]string{"file_path": "a.ts", "old_string": "x", "new_string": "const { data } = await axios.get(url)"}),
			"don't call services with axios (or bare fetch) from the BFF. use upstream('loyalty', ctx)", []string{"axios"}},
		{rec("Write", map[string]string{"file_path": "Svc.kt", "content": "@Autowired\nlateinit var repo: Repo"}),
			"and no @Autowired fields: constructor injection", []string{"@Autowired"}},
		{rec("Edit", map[string]string{"file_path": "B.kt", "old_string": "@ManyToOne", "new_string": "@ManyToOne(fetch = FetchType.EAGER)"}),
			"Нет, FetchType.EAGER не ставим", []string{"FetchType.EAGER"}},
		{rec("Edit", map[string]string{"file_path": "a.py", "old_string": "x", "new_string": "table = load_table()"}),
			"no, don't touch the table", nil},
		{rec("Edit", map[string]string{"file_path": "a.py", "old_string": "axios.get(u)", "new_string": "axios.get(v)"}),
			"don't use axios", nil},
		{rec("Bash", map[string]string{"command": "redis-cli -h redis.staging.internal FLUSHDB"}),
			"never FLUSHDB on the staging redis", nil},
		// A file the person names is no code the agent wrote.
		{rec("Edit", map[string]string{"file_path": "plan.md", "old_string": "x", "new_string": "run instalador.sh step by step"}),
			"com cuidado para não quebrar o instalador.sh", nil},
		// The class, capitalized mid-sentence, is not the variable.
		{rec("Edit", map[string]string{"file_path": "a.rb", "old_string": "x", "new_string": "ChargeJob.perform_later(order)"}),
			"don't pass the Order object to the job, pass its id", nil},
		// A name the code calls is code ("kapt artık yok": Turkish "no
		// longer"); a method of the same name is not ("nie ... create").
		{rec("Edit", map[string]string{"file_path": "build.gradle.kts", "old_string": "x", "new_string": "    kapt(libs.androidx.room.compiler)"}),
			"kapt artık yok, hepsi ksp ile", []string{"kapt"}},
		{rec("Write", map[string]string{"file_path": "C.php", "content": "Booking::query()->create($request->all());"}),
			"nie $request->all() do create/update", []string{"$request"}},
	} {
		if got := prohibitedWritten(tc.r, tc.said, ""); strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%q: %v, want %v", tc.said, got, tc.want)
		}
	}
}

// TestLabelReplyPicksAnOption: the agent lists options (a numbered list
// asked in Japanese, a table of lettered rows) and the person answers with
// a label alone, typed full-width by an IME or not: a decision for the
// option at that place.
func TestLabelReplyPicksAnOption(t *testing.T) {
	for _, c := range []struct{ name, offer, reply, chosen string }{
		{"numbered, ja, full-width", "どう進めますか？\n1. `.codex` の変更を破棄して続行\n2. `.codex` の変更を追加コミットしてから続行\n3. 別ブランチに退避して続行", "２", "`.codex` の変更を追加コミットしてから続行"},
		{"table", "**Recommended:** Option B.\n\n| Option | Description |\n|--------|-------------|\n| A | React (Vite) frontend |\n| B | Next.js frontend |\n\nReply with the option letter.", "B", "Next.js frontend"},
		{"numbered, en", "Which way?\n1. Keep the history and add a new commit\n2. Rewrite the history", "1", "Keep the history and add a new commit"},
		// Next steps offered as a closing numbered list, picked by number
		// in words ("Punkt 2", "2번쪽으로"), an option said as a sentence.
		{"next steps, de", "Build ist grün.\n\nWenn du willst, kann ich als nächsten Schritt:\n1. `CS1591` gezielt für `Release` als Fehler schalten (nur für `src/*`), oder\n2. zuerst die wichtigsten Public-APIs in `MicroCalc.Core` mit XML-Kommentaren nachziehen.",
			"bitte Punkt 2. zuerst die wichtigsten Public-APIs dokumentieren", "zuerst die wichtigsten Public-APIs in `MicroCalc.Core` mit XML-Kommentaren nachziehen."},
		{"next steps, ko", "원하시면 두 가지 중 한 방향으로 바로 맞춰볼 수 있어요:\n1. 시안에서 중요한 구조·색상·배치를 설명해 주시면 CSS와 컴포넌트를 그에 맞게 바꿔 드릴게요.\n2. 이미지를 repo(예: `assets/issue_ticket.png`)에 추가해 주시면, 그대로 참고하겠습니다.\n\n어느 쪽이든 알려주시면 즉시 수정 작업 들어갈게요.",
			"그래. 그러면 2번쪽으로 하자.", "이미지를 repo"},
	} {
		s := (&ccFixture{}).user("set up the project").say(c.offer).user(c.reply).say("OK.").session(t)
		ds := ofType(Extract(s, nil, nil), TypeDecision)
		if len(ds) != 1 || ds[0].Chosen != strings.Trim(c.chosen, "`") && ds[0].Chosen != c.chosen {
			t.Errorf("%s: decisions %+v", c.name, ds)
		}
	}
}

// TestStopWordOpensACorrection: a stop word in any language opening an
// instruction right after the agent changed files (aider: edits, no tool
// calls) corrects it; the stop word and the agent's name are no part of
// the lesson.
func TestStopWordOpensACorrection(t *testing.T) {
	src := "# aider chat started at 2025-11-02 10:00:00\n\n" +
		"#### Optimise les images de la page d'accueil.  \n\n" +
		"src/pages/index.astro\n```astro\n<<<<<<< SEARCH\n<img src=\"/a.png\">\n=======\n<Image src={a} />\n>>>>>>> REPLACE\n```\n\n" +
		"> Applied edit to src/pages/index.astro  \n> Commit 1a2b3c4 aider: optimise images  \n\n" +
		"#### Attends, DeepSeek, utilise l'import moderne : `import { Image } from \"astro:assets\"` au lieu de `@astrojs/image/components`.  \n\n" +
		"Je corrige l'import.\n"
	cs := aiderCorrections(t, src)
	if len(cs) != 1 {
		t.Fatalf("corrections: %+v", cs)
	}
	if l := cs[0].Lesson; strings.HasPrefix(l, "Attends") || strings.Contains(l, "DeepSeek") || !strings.Contains(l, "astro:assets") {
		t.Errorf("lesson %q", l)
	}
}

// aiderCorrections are the corrections extracted from an aider chat history.
func aiderCorrections(t *testing.T, src string) []*Observation {
	t.Helper()
	return ofType(Extract(parseFixture(t, traces.NewAider(), ".aider.chat.history.md", src), nil, nil), TypeCorrection)
}

// TestLikedOptionIsADecision: "But I like option 2" after an agent's reply
// that named its options in prose picks option 2, not the option 1 the
// person mentioned first.
func TestLikedOptionIsADecision(t *testing.T) {
	offer := "Go with the boolean flag: simpler than full Option 2 (one flag vs modes) and cleaner than a separate endpoint (Option 1). Thoughts?"
	s := (&ccFixture{}).user("how do we speed up the first sync?").say(offer).
		user("I did a proof of concept awhile back with option 1. But I like option 2.").say("OK.").session(t)
	ds := ofType(Extract(s, nil, nil), TypeDecision)
	if len(ds) != 1 || ds[0].Chosen != "Option 2" {
		t.Errorf("decisions %+v", ds)
	}
}

// TestDoItYourself: the agent hands a command back to the person ("run
// `alembic upgrade head`") and the person tells it to run it itself, in
// any language: a correction whose lesson stands alone.
func TestDoItYourself(t *testing.T) {
	for lang, msg := range map[string]string{"fr": "fais les commandes toi", "es": "hazlo tu", "en": "do it yourself please", "ru": "сделай сам"} {
		s := (&ccFixture{}).user("set up the database").say("Done. Now run `alembic upgrade head` in backend/ to apply the migrations.").
			user(msg).say("OK, running it.").session(t)
		cs := ofType(Extract(s, nil, nil), TypeCorrection)
		if len(cs) != 1 || !strings.HasPrefix(cs[0].Lesson, "Run the commands yourself") {
			t.Errorf("%s: corrections %+v", lang, cs)
		}
	}
	s := (&ccFixture{}).user("set up the database").say("Done, the schema is created.").user("ok you do it").say("OK.").session(t)
	for _, c := range ofType(Extract(s, nil, nil), TypeCorrection) {
		if strings.HasPrefix(c.Lesson, "Run the commands yourself") {
			t.Errorf("nothing handed back, yet %q", c.Lesson)
		}
	}
}

// TestEndorsedProposalIsADecision: "I like X" or "I'm leaning towards X"
// right after the agent offered ways and asked picks X: a decision, not a
// preference, in any language. The same words with nothing offered, or
// about nothing the agent named, stay a preference.
func TestEndorsedProposalIsADecision(t *testing.T) {
	offer := "Alternative names for the two queues:\n- **ingest/replay**\n- **hot/cold**\n- **primary/backlog**\n\nI'd go with ingest/replay. Which do you prefer?"
	for lang, reply := range map[string]string{
		"en": "I like the names hot and cold for the queues.",
		"de": "Ich tendiere zu hot/cold für die Queues.",
		"es": "Me gusta más primary/backlog para las colas.",
		"zh": "我倾向于 hot/cold 这组名字。",
	} {
		s := (&ccFixture{}).user("we need names for the two queues").say(offer).user(reply).say("OK.").session(t)
		obs := Extract(s, nil, nil)
		if ds := ofType(obs, TypeDecision); len(ds) != 1 {
			t.Errorf("%s: decisions %+v", lang, ds)
		}
		if ps := ofType(obs, TypePreference); len(ps) != 0 {
			t.Errorf("%s: a choice taken as a taste: %+v", lang, ps)
		}
	}
	// Nothing offered: a taste.
	s := (&ccFixture{}).user("add the retry").say("Added the retry with backoff in worker.go.").
		user("I like small commits with one change each.").say("OK.").session(t)
	if ps := ofType(Extract(s, nil, nil), TypePreference); len(ps) != 1 {
		t.Errorf("standing taste: preferences %+v", ps)
	}
	// A pick by label, or a reaction to the offer as a whole, is no taste.
	for _, reply := range []string{"But I like option 2.", "I don't like any approach."} {
		s := (&ccFixture{}).user("how do we split the queues?").say("Option 1: one queue per tenant. Option 2: one shared queue. Which do you prefer?").
			user(reply).say("OK.").session(t)
		if ps := ofType(Extract(s, nil, nil), TypePreference); len(ps) != 0 {
			t.Errorf("%q read as a preference: %+v", reply, ps)
		}
	}
	// An offer, but the person likes something it did not name.
	s = (&ccFixture{}).user("names?").say(offer).user("I like tabs over spaces in every file.").say("OK.").session(t)
	if ds := ofType(Extract(s, nil, nil), TypeDecision); len(ds) != 0 {
		t.Errorf("unrelated taste taken as a choice: %+v", ds)
	}
}

// TestPickFromClosingAlternatives: a number that answers the "1. ... or
// 2. ..." list an agent's report closes with picks from that list, not
// from the report's bullets above it; a closing menu of next steps with no
// "or" between them is no choice among alternatives.
func TestPickFromClosingAlternatives(t *testing.T) {
	report := "Done.\n\n- Created `docs.json`\n- Enabled XML docs in:\n  - core.csproj\n  - cli.csproj\n- `docs --version` works\n- build shows many warnings\n\nAls nächsten Schritt kann ich:\n1. die Warnungen im Release-Build als Fehler behandeln, oder\n2. zuerst die öffentlichen APIs dokumentieren."
	s := (&ccFixture{}).user("enable the docs").say(report).user("bitte Punkt 2.").say("OK.").session(t)
	ds := ofType(Extract(s, nil, nil), TypeDecision)
	if len(ds) != 1 || !strings.Contains(ds[0].Chosen, "öffentlichen APIs") || len(ds[0].Alternatives) != 2 {
		t.Errorf("decisions %+v", ds)
	}
	menu := "Done.\n\n- Created `docs.json`\n- Enabled XML docs\n\nNext:\n1. Run `docs build` to render the site.\n2. If you want, I can also list the three biggest gaps."
	s = (&ccFixture{}).user("enable the docs").say(menu).user("2").say("OK.").session(t)
	if ds := ofType(Extract(s, nil, nil), TypeDecision); len(ds) != 0 {
		t.Errorf("a menu of next steps taken as a decision: %+v", ds)
	}
}

// TestRevertAfterChange: asking to take back the change just made is a
// correction in any language, said in words rather than with /undo; the
// same words with no change before them, or negated, are not.
func TestRevertAfterChange(t *testing.T) {
	eachCorrectsAfterWrite(t, "I split the handler into two files.", map[string]string{
		"en": "honestly this is a bad direction, please revert back to your previous version with one handler",
		"de": "das war keine gute Idee, mach das rückgängig und lass den alten Handler",
		"es": "no me convence, vuelve a la versión anterior con un solo handler",
		"zh": "这样改不好，撤销刚才的修改，保留原来的单个处理函数",
		"ja": "これはよくないので元に戻してください",
	})
	s := (&ccFixture{}).user("how does the pipeline work?").say("It reads the queue and writes batches.").
		user("please revert back to your previous explanation, it was clearer").say("OK.").session(t)
	if cs := ofType(Extract(s, nil, nil), TypeCorrection); len(cs) != 0 {
		t.Errorf("no change before it: %d corrections", len(cs))
	}
	msg := "looks fine, no need to revert anything, now add the tests"
	s = (&ccFixture{}).user("split the handler").
		call("toolu_1", "Write", `{"file_path":"/repo/handler.go","content":"x"}`).result("toolu_1", "File updated").
		say("I split the handler into two files.").user(msg).say("OK.").session(t)
	tl := buildTimeline(s)
	if u := &tl.utts[len(tl.utts)-1]; revertsChange(tl, u, lower(u.text)) {
		t.Errorf("negated revert read as one: %q", u.text)
	}
}

// TestRegressionAndStuckReports: "it used to work", "it gets stuck", "this
// has nothing to do with my drawing", right after a change, report that
// the change failed, in any language.
func TestRegressionAndStuckReports(t *testing.T) {
	eachCorrectsAfterWrite(t, "Done: the runner now starts the emulator first.", map[string]string{
		"en":    "it used to work",
		"en2":   "fix the runner, it gets stuck on the hello world step",
		"en3":   "there is a space in the directory name and it keeps crashing",
		"en4":   "now the build throws an error about the missing module",
		"de":    "das hat vorher funktioniert",
		"fr":    "ça marchait avant ton changement",
		"zh":    "之前是好的，现在卡在启动那一步",
		"ko":    "지금 화면은 내가 그린 그림이랑 전혀 상관없거든?",
		"ja":    "前は動いていたのに",
		"es":    "antes funcionaba bien",
		"ru":    "раньше работало",
		"pt-BR": "funcionava antes da mudança",
	})
}

// TestOverrideOfAgentsRefusal: the agent declines what the person asked
// and the person insists, in any language: a correction. Giving the agent
// what it lacked and saying "go on" is not one.
func TestOverrideOfAgentsRefusal(t *testing.T) {
	declined := "Cannot comply: the repository's protocol requires a human to ship from a feature branch."
	eachCorrectsAfterSay(t, declined, map[string]string{
		"en": "violate it, I'm asking you to",
		"es": "hazlo, te lo pido yo, saltate el protocolo",
		"fr": "fais-le quand même, c'est moi qui décide",
		"de": "mach es trotzdem, ich übernehme das",
	})
	if cs := correctionsAfterSay(t, "I can't run it: docker is not installed on this machine.", "c'est bon, j'ai installé docker, tu peux continuer"); len(cs) != 0 {
		t.Errorf("the blocker removed read as an override: %+v", cs)
	}
}

// TestTemplateArgumentsAnswerNothingBefore: the person's words inside a
// template are a command: no correction of the work before it, but a
// report after the agent's next change still is one, even when the
// template's words were all pasted output.
func TestTemplateArgumentsAnswerNothingBefore(t *testing.T) {
	run := func(args, then string) []*Observation {
		f := &ccFixture{}
		f.user("set up the page")
		f.call("toolu_0", "Write", `{"file_path":"/repo/src/App.tsx","content":"x"}`).result("toolu_0", "File created").say("Done.")
		f.add("user", map[string]any{"role": "user", "content": "<command-name>/speckit.specify</command-name>"}, nil)
		f.add("user", map[string]any{"role": "user", "content": "## User Input\n\n```text\n" + args + "\n```\n\nYou **MUST** consider the user input before proceeding.\n\n## Outline\n\n1. Read.\n2. Write.\n3. Check."}, map[string]any{"isMeta": true})
		s := f.call("toolu_1", "Write", `{"file_path":"/repo/src/Nav.tsx","content":"x"}`).result("toolu_1", "File created").
			say("Added the navigation.").user(then).say("Let me check.").session(t)
		return ofType(Extract(s, nil, nil), TypeCorrection)
	}
	if cs := run("the homepage does not open on mobile, add a nav bar", "looks good, thanks"); len(cs) != 0 {
		t.Errorf("a command's words read as a report on the work before it: %+v", cs)
	}
	if cs := run("Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>", "the nav does not open, it used to work"); len(cs) != 1 {
		t.Errorf("a report after a pasted-only command: %d corrections", len(cs))
	}
}

// TestFixWhatWasJustMade: right after a change, "fix the X ..." naming
// what the agent made sends it back to its own work, in any language; the
// same words about something the agent did not touch start a new task.
func TestFixWhatWasJustMade(t *testing.T) {
	eachCorrectsAfterWrite(t, "Done: the runner script now launches gdb.", map[string]string{
		"en": "fix the runner script, gdb should come from the toolchain path not the system's gdb",
		"es": "arregla el runner script, gdb tiene que venir del toolchain",
		"zh": "修复一下这个 runner script，gdb 要用 toolchain 里的",
	})
	if cs := correctionsAfterWrite(t, "Done: the runner script now launches gdb.", "fix the login page layout on mobile next"); len(cs) != 0 {
		t.Errorf("a new task read as a correction: %+v", cs)
	}
}

// TestStillWantAgainstProposal: "but I still want X" after the agent's
// proposal holds on to what it dropped, in any language.
func TestStillWantAgainstProposal(t *testing.T) {
	proposal := "Simplest is to drop the *_for_response helpers and inline their queries in one CTE. Want me to do that?"
	eachCorrectsAfterSay(t, proposal, map[string]string{
		"en": "But I still want to use the functions ..._for_response like get_monthly_budgets_for_response",
		"de": "aber ich will trotzdem die _for_response Funktionen behalten",
		"es": "pero igual quiero usar las funciones _for_response",
		"zh": "但我还是想用那些 _for_response 函数",
	})
}

// TestBackwardCompatibilityDecision: giving up or requiring backward
// compatibility, said in prose in any language, is a decision.
func TestBackwardCompatibilityDecision(t *testing.T) {
	for lang, c := range map[string]struct{ msg, chosen string }{
		"it":      {"Rompendo la retro-compatibilità che non deve essere garantita in alcun modo, rimuovi questi comandi: brall, mkwrk", "break backward compatibility"},
		"en":      {"remove the old flags, breaking backwards compatibility is fine here", "break backward compatibility"},
		"en keep": {"rename the endpoint but keep backward compatibility for the mobile app", "keep backward compatibility"},
		"es":      {"sin mantener la retrocompatibilidad, elimina los subcomandos viejos", "break backward compatibility"},
		"zh":      {"不需要向后兼容，直接删掉旧的命令", "break backward compatibility"},
	} {
		s := (&ccFixture{}).user("clean up the CLI").say("Which commands should go?").user(c.msg).say("OK.").session(t)
		ds := ofType(Extract(s, nil, nil), TypeDecision)
		if len(ds) != 1 || ds[0].Chosen != c.chosen {
			t.Errorf("%s: decisions %+v", lang, ds)
		}
	}
	s := (&ccFixture{}).user("clean up the CLI").say("Done.").user("does this break backwards compatibility?").say("No.").session(t)
	if ds := ofType(Extract(s, nil, nil), TypeDecision); len(ds) != 0 {
		t.Errorf("a question read as a decision: %+v", ds)
	}
}

// TestAllowedWayIsADecision: "I think it's fine to X" after the agent laid
// out the work settles a way of doing it; a question does not.
func TestAllowedWayIsADecision(t *testing.T) {
	plan := "On conflicts we can either merge the server response or drop it. Which way?"
	for _, msg := range []string{
		"After delta sync I think it's fine to throw away the sync response and wait for the next sync",
		"c'est ok de jeter la réponse et d'attendre la prochaine synchro",
	} {
		s := (&ccFixture{}).user("handle conflicts").say(plan).user(msg).say("OK.").session(t)
		if ds := ofType(Extract(s, nil, nil), TypeDecision); len(ds) != 1 {
			t.Errorf("%q: decisions %+v", msg, ds)
		}
	}
	s := (&ccFixture{}).user("handle conflicts").say(plan).user("is it fine to throw away the response?").say("Yes.").session(t)
	if ds := ofType(Extract(s, nil, nil), TypeDecision); len(ds) != 0 {
		t.Errorf("a question read as a decision: %+v", ds)
	}
}

// A first sentence that only refuses ("So geht das nicht.", "Así no.")
// is not the lesson when an instruction follows, in any language; an
// abbreviation ("bzw.") does not end the sentence; and context that would
// fill the lesson on its own gives way to the instruction after it, the
// first sentence kept longest.
func TestBareRefusalThenInstruction(t *testing.T) {
	for text, want := range map[string]string{
		"Halt, so geht das nicht. Nimm workflow.Now(ctx), workflow.Sleep bzw. workflow.NewTimer im Workflow-Code.": "Nimm workflow.Now(ctx), workflow.Sleep bzw. workflow.NewTimer im Workflow-Code.",
		"No, así no. Usa date-fns para las fechas.":                                                                "Usa date-fns para las fechas.",
		// No instruction: from the negation on, what goes instead too.
		"Not from your machine. Prod only goes out through `just release`.": "Not from your machine. Prod only goes out through `just release`.",
		"Assim não.": "Assim não.",
	} {
		if got, _ := lessonFrom(text); got != want {
			t.Errorf("lessonFrom(%q) = %q, want %q", text, got, want)
		}
	}
	long := "待って、本番のrails consoleでデータをいじるのは禁止です。監査ログが残らないし、去年それで注文データ壊したことがある。" +
		"データ修正は maintenance_tasks のタスク（app/tasks/maintenance/）として書いて、PRでレビューしてもらってから /maintenance_tasks の画面で実行して。"
	got, _ := lessonFrom(long)
	if !strings.Contains(got, "禁止") || !strings.Contains(got, "maintenance_tasks") {
		t.Errorf("lessonFrom(%q) = %q, want the prohibition and the instruction", long, got)
	}
}

// The person refuses what the agent just made, by its name ("i dont want
// a new view"), asks it to do itself what it handed back ("crea tu la
// rama"), or reminds it of an instruction in a question ("참고하라고
// 했었거든?"): each is a correction, in any of the cue languages; the
// possessive "tu" before a noun and an ordinary question are not.
func TestRefusedWorkHandedBackAndReminders(t *testing.T) {
	viewDone := func(msg string) *Session {
		return (&ccFixture{}).user("add an estimating pipeline list to the CRM").
			call("toolu_1", "Write", `{"file_path":"/repo/views/pipeline_view.xml","content":"<tree/>"}`).result("toolu_1", "ok").
			say("Done! I created a new tree view for the Estimating Pipeline with the columns you listed.").
			user(msg).say("OK.").session(t)
	}
	handed := func(msg string) *Session {
		return (&ccFixture{}).user("/ship").
			call("toolu_1", "Bash", `{"command":"git status -sb"}`).result("toolu_1", "## main...origin/main").
			say("No puedo seguir en `main`. Ejecuta `git checkout -b docs/guide` y luego hago el resto.").
			user(msg).say("Vale.").session(t)
	}
	for name, tc := range map[string]struct {
		s    *Session
		want int
	}{
		"en unwanted":        {viewDone("sorry i dont want a new view, just want the default list view filtered and ordered as I asked"), 1},
		"es unwanted":        {viewDone("no quiero una vista nueva, solo filtra la lista por defecto"), 1},
		"es yourself":        {handed("crea tu la rama y shipea los cambios"), 1},
		"es yourself clause": {handed("crea una rama de trabajo tú y shipea los cambios automáticamente"), 1},
		"es your branch":     {handed("crea tu rama con otro nombre"), 0},
		"ko reminder":        {viewDone("그런데, 내가 스펙을 작성할때 ui layout 은 issue_ticket.png 를 참고하라고 했었거든?"), 1},
		"ko question":        {viewDone("ui layout 은 어디에 있어?"), 0},
	} {
		if got := len(ofType(Extract(tc.s, nil, nil), TypeCorrection)); got != tc.want {
			t.Errorf("%s: %d corrections, want %d", name, got, tc.want)
		}
	}
}

// "no" before a "wait" of another language is an interjection, and a
// sentence that says "always" (or "never") with the code it is about is
// the rule: "no aspetta. ... si usa SEMPRE Lhm.change_table".
func TestWaitAfterNoAndAlwaysWithCode(t *testing.T) {
	got, _ := lessonFrom("no aspetta. orders ha 40 milioni di righe, un add_column blocca la tabella. Su orders si usa SEMPRE Lhm.change_table (gem lhm).")
	if strings.Contains(got, "aspetta") || !strings.Contains(got, "Lhm.change_table") {
		t.Errorf("lesson %q: want the rule without the interjection", got)
	}
	for text, want := range map[string]bool{
		"Su orders si usa SEMPRE Lhm.change_table.":      true,
		"En los handlers siempre `?`, nunca unwrap().":   true,
		"Es funktioniert immer noch nicht.":              false,
		"it never worked on my machine, no idea why":     false,
		"Wir nutzen immer find_each für große Tabellen.": true,
	} {
		if got := isDirective(text); got != want {
			t.Errorf("isDirective(%q) = %v, want %v", text, got, want)
		}
	}
}

// Two corrections of the same file in one session that say different
// things stay two lessons: the trigger's words are not what they share.
func TestTwoLessonsOnOneFileStayTwo(t *testing.T) {
	s := (&ccFixture{}).user("add searchByName to CustomerMapper, max 50 results").
		call("toolu_1", "Edit", `{"file_path":"/repo/mapper/CustomerMapper.xml","old_string":"<!-- search -->","new_string":"SELECT ID, NAME FROM CUSTOMER WHERE NAME LIKE '%${name}%' LIMIT 50"}`).refuse("toolu_1", "").
		user("no `${}` in mapper XML, that's raw string substitution, i.e. injection. values always go in as `#{}` bind parameters.").
		call("toolu_2", "Edit", `{"file_path":"/repo/mapper/CustomerMapper.xml","old_string":"<!-- search -->","new_string":"SELECT ID, NAME FROM CUSTOMER WHERE NAME LIKE '%' || #{name} || '%' LIMIT 50"}`).result("toolu_2", "The file has been updated.").
		user("better. but this is Oracle 19c — there's no LIMIT. use `FETCH FIRST 50 ROWS ONLY` instead.").say("Fixed.").session(t)
	cs := ofType(Extract(s, nil, nil), TypeCorrection)
	if len(cs) != 2 {
		for _, c := range cs {
			t.Logf("%q", c.Lesson)
		}
		t.Fatalf("%d corrections, want 2", len(cs))
	}
}

// TestNegationOpeningAClauseIsNoFailure: after the agent's change, a
// negation that opens its clause prohibits, answers or specifies ("así me
// gusta, no toques nada más", "nevermind, no need super admin"): no
// failure report, whose lesson ("check that the change really works")
// would say nothing the person said. A negation inside a clause ("the
// page does not load") still reports one.
func TestNegationOpeningAClauseIsNoFailure(t *testing.T) {
	run := func(msg string) []*Observation {
		s := (&ccFixture{}).user("tighten the card padding").
			call("toolu_1", "Edit", `{"file_path":"/repo/web/card.css","old_string":"padding: 16px","new_string":"padding: 8px"}`).result("toolu_1", "ok").
			say("Done: the card padding is now 8px.").user(msg).say("OK.").session(t)
		return ofType(Extract(s, nil, nil), TypeCorrection)
	}
	for _, msg := range []string{"así me gusta, no toques nada más", "nevermind, no need super admin", "gut so, nicht mehr anfassen"} {
		for _, c := range run(msg) {
			if has(c.Signals, SignalFailure) {
				t.Errorf("%q read as a failure report: %q", msg, c.Lesson)
			}
		}
	}
	for _, msg := range []string{"the card does not render on mobile", "la tarjeta ya no se ve en el móvil"} {
		if cs := run(msg); len(cs) != 1 || !has(cs[0].Signals, SignalFailure) {
			t.Errorf("%q: %d corrections, want one failure report", msg, len(cs))
		}
	}
}

// TestTakeBackAfterActionAnyLanguage: right after the agent acted on what
// the person said before, taking it back and saying what holds now
// ("forget what I said about cs-fixer, we use Pint now") corrects the
// action, in any language.
func TestTakeBackAfterActionAnyLanguage(t *testing.T) {
	run := func(msg string) []*Observation {
		s := (&ccFixture{}).user("format the billing services").
			call("toolu_1", "Bash", `{"command":"composer cs-fix -- app/Services/Billing"}`).result("toolu_1", "Command \"cs-fix\" is not defined.").
			say("The cs-fix script is missing.").user(msg).say("OK.").session(t)
		return ofType(Extract(s, nil, nil), TypeCorrection)
	}
	expectCorrections(t, run, map[string]string{
		"en": "forget what I said about cs-fixer, we are on Pint now: run `vendor/bin/pint <path>`",
		"de": "vergiss, was ich über cs-fixer gesagt habe, wir nutzen jetzt Pint: `vendor/bin/pint <pfad>`",
		"pl": "a, racja, od zeszłego tygodnia jesteśmy na Pint. zapomnij to co mówiłem o cs-fixerze, teraz `vendor/bin/pint <ścieżka>`",
	}, map[string]string{
		"en thanks": "thanks, I'll look at it later",
	})
}

// TestDislikeAfterChangeIsNoFailureLesson: "I don't like this class, let's
// redo it" after the agent's change is not told to the next agent as
// "check that the change really works": nothing failed.
func TestDislikeAfterChangeIsNoFailureLesson(t *testing.T) {
	for _, msg := range []string{
		"Давай переделаем AlarmsLevelViewModel - мне не нравится этот класс",
		"I don't like how the card looks now, redo it",
		"je n'aime pas ce composant, refais-le",
	} {
		s := (&ccFixture{}).user("tighten the card padding").
			call("toolu_1", "Edit", `{"file_path":"/repo/web/card.css","old_string":"padding: 16px","new_string":"padding: 8px"}`).result("toolu_1", "ok").
			say("Done: the card padding is now 8px.").user(msg).say("OK.").session(t)
		for _, c := range ofType(Extract(s, nil, nil), TypeCorrection) {
			if strings.HasPrefix(c.Lesson, "Check that") {
				t.Errorf("%q: %q", msg, c.Lesson)
			}
		}
	}
}

// TestProhibitionOfWhatWasWrittenAnyLanguage: a message that opens with a
// negation and names what the agent's last edit wrote corrects it, in any
// language, also after a message that only approved; a negation that names
// nothing of it is no correction on that ground.
func TestProhibitionOfWhatWasWrittenAnyLanguage(t *testing.T) {
	run := func(msgs ...string) []*Observation {
		f := (&ccFixture{}).user("update the mindset section").
			call("toolu_1", "Edit", `{"file_path":"/repo/CLAUDE.md","old_string":"## 心法\n","new_string":"## 心法\n你不是包工头。Der Rahmen bleibt. El contratista no decide."}`).result("toolu_1", "ok").
			say("Done.")
		for _, m := range msgs {
			f = f.user(m).say("OK.")
		}
		return ofType(Extract(f.session(t), nil, nil), TypeCorrection)
	}
	for _, msgs := range [][]string{
		{"不要在心法里写包工头... 太土了"},
		{"挺好的", "不要在心法里写包工头... 太土了"},
		{"nicht den Rahmen, das ist zu technisch"},
		{"no pongas contratista ahí, suena mal"},
	} {
		if cs := run(msgs...); len(cs) != 1 {
			t.Errorf("%q: %d corrections", msgs, len(cs))
		}
	}
	if cs := run("不要忘了明天的会议"); len(cs) != 0 {
		t.Errorf("a negation about something else: %q", cs[0].Lesson)
	}
}

// TestContrastNotIsAnInstruction: "A not B" right after the agent's work
// says which it should be; it is corrected in the person's words, not
// told as a failure report. A status phrase ("405 Method Not Allowed")
// inside a report stays a report.
func TestContrastNotIsAnInstruction(t *testing.T) {
	run := func(msg string) []*Observation {
		s := (&ccFixture{}).user("handle the missing repo").
			call("toolu_1", "Edit", `{"file_path":"/repo/app/repo.py","old_string":"pass","new_string":"except FileNotFoundError:\n    return None"}`).result("toolu_1", "ok").
			say("Done.").user(msg).say("OK.").session(t)
		return ofType(Extract(s, nil, nil), TypeCorrection)
	}
	if cs := run("catch SuitableRepoNotFound not `FileNotFoundError`"); len(cs) != 1 || !strings.HasPrefix(cs[0].Lesson, "Catch SuitableRepoNotFound") {
		t.Errorf("contrast: %+v", cs)
	}
	if cs := run("the 405 Method Not Allowed error is still there when I open the page"); len(cs) != 1 || !has(cs[0].Signals, SignalFailure) {
		t.Errorf("a report with a status phrase: %+v", cs)
	}
}
