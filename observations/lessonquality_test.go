package observations

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kbmem/kb/traces"
)

// Lesson quality on the shapes real sessions produced (synthetic text in
// Claude Code's format): a failure report names the files the agent
// changed, not a `git add`; a person's statement of what the agent fails
// to do is the rule; different failure reports in one session stay apart;
// "go ahead" is no correction; agent filler is never the object; a build
// log pasted with its stamps on lines of their own, and a terminal session
// after a shell prompt, stay out of the lesson.

func failureSession(t *testing.T, reports ...string) *Session {
	f := (&ccFixture{}).user("add the exporter").
		call("toolu_1", "Write", `{"file_path":"/repo/export.py","content":"def export(): pass"}`).result("toolu_1", "File created").
		call("toolu_2", "Bash", `{"command":"git add export.py tests/test_export.py && git commit -m export"}`).result("toolu_2", "ok").
		say("Done: the exporter is in export.py.")
	for i, r := range reports {
		id := "toolu_e" + string(rune('a'+i))
		f = f.user(r).call(id, "Edit", `{"file_path":"/repo/export.py","old_string":"pass","new_string":"return 1"}`).
			result(id, "ok").say("Fixed.")
	}
	return f.session(t)
}

func TestFailureLessonNamesTheChangedFiles(t *testing.T) {
	cs := ofType(Extract(failureSession(t, "I clicked the export button, but nothing was downloaded"), nil, nil), TypeCorrection)
	if len(cs) != 1 {
		t.Fatalf("%d corrections", len(cs))
	}
	l := cs[0].Lesson
	if strings.Contains(l, "git add") || !strings.Contains(l, "export.py") || !strings.Contains(l, "nothing was downloaded") {
		t.Errorf("lesson %q", l)
	}
}

func TestShortfallStatementIsTheRule(t *testing.T) {
	cs := ofType(Extract(failureSession(t, "I suspect you are not adding tests for new features or even trying to run the actual code: python -m app.main"), nil, nil), TypeCorrection)
	if len(cs) != 1 {
		t.Fatalf("%d corrections", len(cs))
	}
	want := "Make sure you are adding tests for new features and trying to run the actual code."
	if cs[0].Lesson != want {
		t.Errorf("lesson %q, want %q", cs[0].Lesson, want)
	}
	for in, want := range map[string]string{
		"you didn't run the test suite before saying done": "Make sure you run the test suite before saying done.",
		"you forgot to update the changelog again":         "Do not forget to update the changelog again.",
		"you don't need to do that":                        "",
		"it is broken":                                     "",
	} {
		if got := shortfallRule(in); got != want {
			t.Errorf("shortfallRule(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDifferentFailureReportsStayApart(t *testing.T) {
	s := failureSession(t,
		"the export button doesn't work, nothing was downloaded",
		"the login page doesn't work anymore, it shows a blank screen",
		"the export button doesn't work, nothing was downloaded at all")
	cs := ofType(Extract(s, nil, nil), TypeCorrection)
	// The two export reports are one; the login report is another.
	if len(cs) != 2 {
		for _, c := range cs {
			t.Logf("%v %q", c.Sources, c.Lesson)
		}
		t.Fatalf("%d corrections", len(cs))
	}
	m := &Merger{}
	res, err := m.Merge(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Types[TypeCorrection].New; got != 2 {
		for _, f := range m.Files {
			t.Logf("%s: %s", f.Obs.ID, f.Obs.Lesson)
		}
		t.Errorf("%d files, want 2", got)
	}
}

func TestGoAheadIsNoCorrection(t *testing.T) {
	s := (&ccFixture{}).user("make the diff colorized").
		say("Thank you for providing the content of the source.py file. I'll add the colorizing to cmd_diff.").
		call("toolu_1", "Edit", `{"file_path":"/repo/cmd.py","old_string":"a","new_string":"b"}`).refuse("toolu_1", "").
		user("go ahead").say("ok").session(t)
	for _, c := range ofType(Extract(s, nil, nil), TypeCorrection) {
		t.Errorf("correction %q", c.Lesson)
	}
	if got := proposalOf("Thank you for providing the file. I'll change cmd_diff to use the pager."); got != "I'll change cmd_diff to use the pager." {
		t.Errorf("proposalOf = %q", got)
	}
	if got := proposalOf("You're right, the test is broken due to incorrect mocking."); got != "" {
		t.Errorf("filler proposal %q", got)
	}
}

func TestPastedStampedLogAndTerminal(t *testing.T) {
	words, pasted := splitPasted("maybe we should use the https address?\n\n01:12:38.208\n Running \"git submodule update\"\n01:12:38.301\n \n01:12:38.301\n Please make sure you have the correct access rights\n01:12:38.302\n fatal: clone failed")
	if words != "maybe we should use the https address?" || !strings.Contains(pasted, "access rights") {
		t.Errorf("stamped log: words %q", words)
	}
	words, pasted = splitPasted("mira estos errores:(venv) (base) ana@laptop:~/src/app$ app run\nSession expired, the server rejected your stored key. Run app login to authenticate again.")
	if strings.Contains(words, "Session expired") || strings.Contains(words, "ana@") || !strings.Contains(pasted, "Run app login") {
		t.Errorf("terminal: words %q pasted %q", words, pasted)
	}
}

// A failure report with frustration ("Oh no, ... :(") that the agent
// concedes is a correction on both counts; its lesson is built from the
// change that failed, with the report quoted, not the exclamation as an
// instruction; in any language.
func TestFrustratedFailureReportIsAFailure(t *testing.T) {
	for _, tc := range []struct{ report, concede string }{
		{"Oh no, we lost the download button from the export page somehow :(", "You're absolutely right, the button is gone. Let me restore it."},
		{"Oh nein, der Download-Knopf ist verschwunden :(", "Sie haben recht, der Knopf fehlt. Ich stelle ihn wieder her."},
		{"啊，下载按钮不见了 :(", "你说得对，按钮不见了。我来恢复它。"},
	} {
		s := (&ccFixture{}).user("add the exporter").
			call("toolu_1", "Write", `{"file_path":"/repo/export.py","content":"def export(): pass"}`).result("toolu_1", "File created").
			call("toolu_2", "Bash", `{"command":"uv run python -c 'import export'"}`).result("toolu_2", "ok").
			say("Done: the exporter is in export.py.").
			user(tc.report).say(tc.concede).
			call("toolu_3", "Edit", `{"file_path":"/repo/export.py","old_string":"pass","new_string":"return 1"}`).result("toolu_3", "ok").
			session(t)
		cs := ofType(Extract(s, nil, nil), TypeCorrection)
		if len(cs) != 1 {
			t.Errorf("%q: %d corrections", tc.report, len(cs))
			continue
		}
		if l := cs[0].Lesson; !strings.Contains(l, "export.py") || !strings.Contains(l, "really works") {
			t.Errorf("%q: lesson %q (signals %v)", tc.report, l, cs[0].Signals)
		}
	}
}

// A program prints the same line for every item it reports; a person
// rarely types one sentence twice. Lines that recur in a message, whole or
// after the name that changes, are pasted output in any language, and the
// person's own line after them stays theirs.
func TestRepeatedLinesArePasted(t *testing.T) {
	for lang, msg := range map[string]string{
		"zh": "'reate' 不是内部或外部命令，也不是可运行的程序\n或批处理文件。\n'potDaily' 不是内部或外部命令，也不是可运行的程序\n或批处理文件。\n这是右键管理员身份运行之后的界面",
		"en": "'reate' is not recognized as an internal or external command,\noperable program or batch file.\n'potDaily' is not recognized as an internal or external command,\noperable program or batch file.\nthis is what I get after running it as admin",
		"de": "Der Befehl \"reate\" ist entweder falsch geschrieben oder\nkonnte nicht gefunden werden.\nDer Befehl \"potDaily\" ist entweder falsch geschrieben oder\nkonnte nicht gefunden werden.\ndas kommt nach dem Start als Administrator",
	} {
		words, pasted := splitPasted(msg)
		lines := strings.Split(msg, "\n")
		if words != lines[len(lines)-1] || !strings.Contains(pasted, lines[0]) {
			t.Errorf("%s: words %q pasted %q", lang, words, pasted)
		}
	}
	for _, msg := range []string{
		"add tests for parser.go\nadd tests for lexer.go\nadd tests for printer.go",
		"fix the login form\nand the signup form\nthen run the tests",
		"ok\nok\nplease also update the README",
		"| a | b |\n|---|---|\n|---|---|\nkeep the table as it is",
	} {
		if words, _ := splitPasted(msg); words != msg && !strings.HasPrefix(msg, "|") && !strings.HasPrefix(msg, "ok") {
			t.Errorf("%q: words %q", msg, words)
		}
	}
}

// A change that added what the person does not want ("we don't need the
// banner", "この白枠はいらないね") is reported as such, not as a change to
// check; a Japanese correction keeps the request after the "no"
// ("そこじゃない。戻して。…にして").
func TestUnwantedAdditionAndJapaneseRequests(t *testing.T) {
	run := func(msg string) []*Observation {
		f := (&ccFixture{}).user("make the header nicer").
			call("toolu_1", "Edit", `{"file_path":"/repo/web/header.css","old_string":"a","new_string":"b"}`).result("toolu_1", "ok")
		s := f.say("Done: the header has a banner and a frame now.").user(msg).say("OK.").session(t)
		return ofType(Extract(s, nil, nil), TypeCorrection)
	}
	for msg, want := range map[string]string{
		"We don't need the banner at the top.": "Do without the banner at the top.",
		"We don't need to animate the banner.": "Do not animate the banner.",
		"この楕円の白枠は一切いらないね":                      "Leave out of the change to `repo/web/header.css` what the person does not want",
	} {
		if cs := run(msg); len(cs) != 1 || !strings.HasPrefix(cs[0].Lesson, want) {
			t.Errorf("%q: %d, %q", msg, len(cs), cs[0].Lesson)
		}
	}
	if cs := run("そこじゃない。戻して。ここは三層構造にして"); len(cs) != 1 || !strings.Contains(cs[0].Lesson, "三層構造にして") {
		t.Errorf("Japanese request lost: %+v", cs)
	}
}

// TestRomanceNoIsNoProhibition: "no seria mejor que ..." is Spanish for
// "wouldn't it be better ...", not the English "no X" that prohibits X.
func TestRomanceNoIsNoProhibition(t *testing.T) {
	for _, s := range []string{"no seria mejor que el archivo estuviese dentro de .codex", "no è così che funziona"} {
		if got := phrase(s); strings.HasPrefix(got, "Do not use") {
			t.Errorf("%q phrased %q", s, got)
		}
	}
	if got := phrase("no hardcoded hosts in the config"); !strings.HasPrefix(got, "Do not use") {
		t.Errorf("the English prohibition lost: %q", got)
	}
}

// TestShouldWeIsASuggestion: "Should we reuse X?" as the person's reason
// for a refusal reads as the instruction it suggests.
func TestShouldWeIsASuggestion(t *testing.T) {
	for in, want := range map[string]string{
		"Should we reuse BudgetSyncType?":          "Reuse BudgetSyncType.",
		"shouldn't we just keep the old endpoint?": "Keep the old endpoint.",
	} {
		if got := phrase(in); got != want {
			t.Errorf("phrase(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestBuildToolOutputIsPasted: the lines a build tool prints (Next.js,
// webpack, tsc) are pasted output, never the person's lesson.
func TestBuildToolOutputIsPasted(t *testing.T) {
	for _, l := range []string{
		"Failed to compile.",
		"Unhandled Runtime Error",
		"⨯ components/x.tsx (246:19) @ Brain",
		"× Expected a semicolon",
		"Info  - Need to disable some ESLint rules? Learn more here",
		"✓ Compiled successfully",
		"src/app.ts(3,7): error TS2304: Cannot find name 'response'.",
	} {
		if !isLogLine(l) {
			t.Errorf("%q not read as output", l)
		}
	}
	for _, l := range []string{"Failed attempts should be retried twice", "Info boxes go at the top of the page"} {
		if isLogLine(l) {
			t.Errorf("%q read as output", l)
		}
	}
}

// A rule stated as how things are ("on big tables it's always X",
// "everything goes through X") is part of the lesson; an approval before
// the instruction ("Looks fine logic-wise.") is not.
func TestRuleStatementsAndApprovalInLesson(t *testing.T) {
	l, _ := lessonFrom("wait — orders has ~40M rows in prod. a plain add_index takes a lock that blocks writes for minutes. on big tables it's always `algorithm: :concurrently` together with `disable_ddl_transaction!`.")
	if !strings.Contains(l, "algorithm: :concurrently") {
		t.Errorf("the rule was cut: %q", l)
	}
	l, _ = lessonFrom("looks fine logic-wise. one thing though: don't read process.env directly. everything goes through `env` from `@/env`.")
	if strings.HasPrefix(l, "Looks fine") || !strings.Contains(l, "@/env") {
		t.Errorf("approval kept or rule cut: %q", l)
	}
}

// TestFailureReportWithRuleKeepsTheRule: a report that the work fell short
// which also says what must (not) be done, in words that bind any verb in
// the person's language ("нужно", "il faudrait", "希望 ... 不允许",
// "해야"), is corrected by that rule: the lesson is the person's rule, not
// the generic "check that it really works".
func TestFailureReportWithRuleKeepsTheRule(t *testing.T) {
	for msg, want := range map[string]string{
		"так лучше но как будто не достаточно. Нужно создать расширение RadiationType + BluetoothCommands": "RadiationType",
		"ça ne marche toujours pas, il faudrait plutôt passer par le service de cache":                     "service de cache",
		"导出还是不对。希望导出时保留原来的列顺序，不允许自动排序":                                                                     "列顺序",
		"아직 안 돼요. 날짜 필터는 서버에서 해야 해요":                                                                       "서버에서",
	} {
		cs := ofType(Extract(failureSession(t, msg), nil, nil), TypeCorrection)
		if len(cs) != 1 {
			t.Errorf("%q: %d corrections", msg, len(cs))
			continue
		}
		if l := cs[0].Lesson; strings.Contains(l, "really works") || !strings.Contains(l, want) {
			t.Errorf("%q: lesson %q, want the person's rule (%q)", msg, l, want)
		}
	}
	// A report with no rule keeps the generic lesson.
	cs := ofType(Extract(failureSession(t, "导出还是不对，文件是空的"), nil, nil), TypeCorrection)
	if len(cs) != 1 || !strings.Contains(cs[0].Lesson, "really works") {
		t.Errorf("a plain report: %+v", cs)
	}
}

// TestQuestionToThePersonIsNoCorrectedCall: a question the agent put to
// the person (AskUserQuestion) or a plan it wrote down acts on nothing; a
// correction after it is about the call before, not "calling
// AskUserQuestion" (which would fire on every later question).
func TestQuestionToThePersonIsNoCorrectedCall(t *testing.T) {
	s := (&ccFixture{}).user("add the alarm thresholds to the device settings").
		call("toolu_1", "Edit", `{"file_path":"/repo/Model/Alarm.swift","old_string":"a","new_string":"b"}`).result("toolu_1", "ok").
		say("Done. Should encode/decode live in Alarm.swift?").user("not sure, ask me properly").
		call("toolu_2", "AskUserQuestion", `{"questions":[{"question":"Where should encode/decode go?","options":[{"label":"Alarm.swift"},{"label":"A new file"}]}]}`).
		result("toolu_2", `User has answered your questions: "Where should encode/decode go?"="Alarm.swift"`).
		say("Done.").user("нет, так не пойдёт: нужно создать расширение RadiationType+BluetoothCommands").say("OK.").session(t)
	for _, c := range ofType(Extract(s, nil, nil), TypeCorrection) {
		if strings.Contains(c.Trigger, "AskUserQuestion") {
			t.Errorf("trigger %q: a question to the person is no action", c.Trigger)
		}
	}
	// Nor is a task handed to a subagent.
	s = (&ccFixture{}).user("find where the alarms are read").
		call("toolu_1", "Agent", `{"description":"Find alarm reads","prompt":"Search the code base for alarm reads","subagent_type":"Explore"}`).
		result("toolu_1", "Found them in Alarm.swift").say("They are in Alarm.swift.").
		user("noooo, we have a notes board for that, ai-collab.md, read it first").say("OK.").session(t)
	for _, c := range ofType(Extract(s, nil, nil), TypeCorrection) {
		if strings.Contains(c.Trigger, "calling Agent") {
			t.Errorf("trigger %q: a task handed to a subagent is no action", c.Trigger)
		}
	}
}

// TestApplyPatchTriggerNamesItsFile: Codex's apply_patch is an edit of the
// files its patch names; the trigger says which ("editing `x`"), not
// "calling apply_patch", which would fire on every later patch.
func TestApplyPatchTriggerNamesItsFile(t *testing.T) {
	patch := "*** Begin Patch\n*** Update File: web/src/Dashboard.jsx\n@@\n-const a = 1\n+const a = 2\n*** End Patch"
	r := &traces.Record{Tool: "apply_patch", Input: json.RawMessage(strconv.Quote(patch)), Cwd: "/repo"}
	if got := describeCall(r, nil, Default()); got != "editing `web/src/Dashboard.jsx`" {
		t.Errorf("trigger %q", got)
	}
}

// TestTriggerNeedsATask: "when asked to ..." quotes a request the person
// made; a greeting or "that's all" before the correction is none.
func TestTriggerNeedsATask(t *testing.T) {
	for _, prev := range []string{"всё", "สวัสดี", "ok thanks"} {
		s := (&ccFixture{}).user(prev).say("Hello! I will make the greeting more formal.").
			user("No, don't write it so formally, keep every greeting casual.").say("OK.").session(t)
		cs := ofType(Extract(s, nil, nil), TypeCorrection)
		if len(cs) != 1 || strings.HasPrefix(cs[0].Trigger, "when asked to") {
			t.Errorf("%q before: %+v", prev, cs)
		}
	}
	for text, want := range map[string]bool{"write the welcome message for the onboarding screen": true, "всё": false, "ok thanks": false, "continue": false} {
		if asksForWork(text) != want {
			t.Errorf("asksForWork(%q) = %v", text, !want)
		}
	}
}

// TestRussianIndefiniteIsNoReferent: "каких-то", "что-то" say "some"; a
// lesson with one points back at nothing, so no "(about ...)" is added.
func TestRussianIndefiniteIsNoReferent(t *testing.T) {
	for s, want := range map[string]bool{
		"Запомни правило не делать основываясь на каких то догадках": false,
		"что-то не так с тестами":  false,
		"не делай это":             true,
		"убери то, что ты добавил": true,
	} {
		if hasReferent(s) != want {
			t.Errorf("hasReferent(%q) = %v", s, !want)
		}
	}
}

// A type the corrected call has only through what it wrote, and that the
// person's words do not speak of, does not describe the trigger: the
// person reported the filter logic of an edit that also wrote a raw
// colour.
func TestTriggerNotDescribedByUnspokenContent(t *testing.T) {
	s := (&ccFixture{}).user("make the history filter work per item").
		call("e1", "Edit", `{"file_path":"/w/web/src/Dashboard.jsx","old_string":"a","new_string":"<div style={{color: '#ff0000', fontSize: '13px'}}>{filtered.map(render)}</div>"}`).
		result("e1", "ok").say("Done, the filter now works per item.").
		user("the filter still does not work, check the logic again").say("Checking.").session(t)
	cs := ofType(Extract(s, nil, nil), TypeCorrection)
	if len(cs) != 1 {
		t.Fatalf("corrections %+v", cs)
	}
	if !slices.Contains(cs[0].ActionTypes, "ui:hardcoded-style") {
		t.Skipf("the edit was not typed ui:hardcoded-style (%v): the test needs a content-only type", cs[0].ActionTypes)
	}
	if !strings.HasPrefix(cs[0].Trigger, "editing `") {
		t.Errorf("trigger %q", cs[0].Trigger)
	}
}

// TestNoThatAnswers: "no" before a subject or a verb of telling turns
// down what came before; the rest is the instruction ("no analyse the
// project ..." is no "Do not use analyse ..."). "no emojis" forbids.
func TestNoThatAnswers(t *testing.T) {
	for in, want := range map[string]string{
		"no analyse project and tell about tech stack used": "Analyse project and tell about tech stack used.",
		"no I mean the unit tests":                          "I mean the unit tests.",
		"no emojis in commit messages":                      "Do not use emojis in commit messages.",
	} {
		if got := phrase(in); got != want {
			t.Errorf("phrase(%q) = %q, want %q", in, got, want)
		}
	}
	if !opensWithRequest("hey now analyse project and give me everything about the model") {
		t.Error("a greeting before a request: no request")
	}
}

// TestReferentIsNotALook: a look at a file (sed -n, cat) just before
// "remove it if it's not working" is not what "it" is; the agent's
// proposal is.
func TestReferentIsNotALook(t *testing.T) {
	s := newSession("r").
		user("is the frontend wired up?").
		say("The React + Vite frontend itself is implemented and renders, but its API call is not wired to the backend yet.").
		call("Bash", `{"command":"sed -n '1,260p' frontend/src/App.css"}`, "body { margin: 0 }").
		say("Want me to wire it to /predict?").
		user("no, remove it if its not working").s
	cs := ofType(Extract(s, nil, nil), TypeCorrection)
	if len(cs) != 1 || strings.Contains(cs[0].Lesson, "sed -n") || !strings.Contains(cs[0].Lesson, "agent's proposal") {
		t.Fatalf("corrections %d, want one about the frontend, not the sed: %q", len(cs), lessonsOf(cs))
	}
}

func lessonsOf(os []*Observation) []string {
	var out []string
	for _, o := range os {
		out = append(out, o.Lesson)
	}
	return out
}

// TestRemovalOfWhatWasShown: right after a change, a removal of what the
// person points at ("remove all this graph", "去掉这些图表", "これを消して")
// corrects the change; the same words with no change before them ask for
// new work.
func TestRemovalOfWhatWasShown(t *testing.T) {
	for _, msg := range []string{
		"remove all this graph just have explainable ai feature and the name on top",
		"去掉这些图表，只保留结论",
		"これを消して、結果だけ表示して",
	} {
		if cs := correctionsAfter("make the dashboard nicer", "/app/app.py", "I replaced the old dashboard with a security console.", msg); len(cs) != 1 {
			t.Errorf("%q after a change: %d corrections, want 1", msg, len(cs))
		}
		asked := newSession("a").
			user("what does the dashboard show?").
			say("It shows the scan history and a verdict panel.").
			user(msg).s
		if cs := ofType(Extract(asked, nil, nil), TypeCorrection); len(cs) != 0 {
			t.Errorf("%q with no change: %q, want none", msg, lessonsOf(cs))
		}
	}
}

// TestSetupNotToBe: "I don't want my dev env to be a hot pot of
// dependencies" is how the person's setup must never be: a preference,
// worded as an instruction.
func TestSetupNotToBe(t *testing.T) {
	st, explicit := preferenceIn("I don't want my future dev env to be a hot pot of dependencies from tons of different project.")
	if !explicit || st != "Do not let the future dev env be a hot pot of dependencies from tons of different project." {
		t.Errorf("preference %q (%v)", st, explicit)
	}
	if st, _ := preferenceIn("I don't want to wait for the build."); strings.Contains(st, "let the") {
		t.Errorf("a wish about now: %q", st)
	}
}

// TestContrastAfterARequest: "A not B" in the second sentence, after a
// request and before a closing question, corrects the change just made.
func TestContrastAfterARequest(t *testing.T) {
	cs := correctionsAfter("highlight the rows due this week", "/x/views.xml", "The view now highlights rows with dates in the next 7 days.",
		"hide the column \nHas Dates This Week, and color the row background not the letters. Is it not possible to group by default?")
	if len(cs) != 1 || !strings.Contains(cs[0].Lesson, "row background not the letters") {
		t.Fatalf("corrections %q, want one with the contrast", lessonsOf(cs))
	}
}

// TestEchoIsNoTrigger: an agent that talks through its shell (`echo
// 'Current branch is main; shipping needs a feature branch'`) acts on
// nothing; the correction after it is not about that echo.
func TestEchoIsNoTrigger(t *testing.T) {
	s := newSession("e").
		user("ship the AGENTS.md change").
		call("Bash", `{"command":"git status --short"}`, "?? .codex/AGENTS.md").
		call("Bash", `{"command":"echo 'Current branch is main; shipping requires a feature branch, so I will wait for you to switch'"}`, "Current branch is main").
		say("Please create a feature branch and I will ship.").
		user("crea una rama de trabajo tu y shipea los cambios automaticamente").s
	cs := ofType(Extract(s, nil, nil), TypeCorrection)
	for _, c := range cs {
		if strings.Contains(c.Trigger, "echo") {
			t.Errorf("trigger %q", c.Trigger)
		}
	}
	if !onlyPrints(&traces.Record{Input: json.RawMessage(`{"cmd":"echo 'a; b | c'"}`)}) || onlyPrints(&traces.Record{Input: json.RawMessage(`{"command":"echo x > f"}`)}) {
		t.Error("onlyPrints")
	}
}

// TestOwnMemoryIsNoTrigger: the agent writing its own memory notes
// (~/.claude/projects/<p>/memory/) acts on nothing of the person's; the
// person's next words are not about that write.
func TestOwnMemoryIsNoTrigger(t *testing.T) {
	mem := &traces.Record{Tool: "Edit", Kind: traces.KindToolCall, Input: json.RawMessage(`{"file_path":"/root/.claude/projects/-root-esp32/memory/project_env.md","old_string":"a","new_string":"b"}`)}
	if !writesOwnMemory(mem) {
		t.Error("a memory note")
	}
	settings := &traces.Record{Tool: "Edit", Kind: traces.KindToolCall, Input: json.RawMessage(`{"file_path":"/repo/.claude/settings.json","old_string":"a","new_string":"b"}`)}
	if writesOwnMemory(settings) {
		t.Error("the project's .claude/settings.json is the person's")
	}
}

// TestRedoAfterAGreeting: "hey, change everything in the UI, make it a
// simple one" right after the agent's change asks for the work again.
func TestRedoAfterAGreeting(t *testing.T) {
	if cs := correctionsAfter("make the dashboard nicer", "/app/app.py", "I rebuilt the dashboard.", "hey change everything in the UI, have a simple one"); len(cs) != 1 {
		t.Errorf("corrections %q, want one", lessonsOf(cs))
	}
}

// TestCorrectionSourcesLeaveOutTheHarness: the records of a correction run
// from the corrected call to the person's words, less the messages between
// that the person did not type (an interrupt marker, a harness notice).
func TestCorrectionSourcesLeaveOutTheHarness(t *testing.T) {
	s := (&ccFixture{}).user("set up nvim").
		call("toolu_1", "Bash", `{"command":"nvim --version"}`).refuse("toolu_1", "").interrupt().
		user("I don't have ~/vim").say("OK.").session(t)
	cs := ofType(Extract(s, nil, nil), TypeCorrection)
	if len(cs) != 1 {
		t.Fatalf("corrections %q", lessonsOf(cs))
	}
	for _, src := range cs[0].Sources {
		for i := src.From; i <= src.To; i++ {
			if r := s.Records[i-1]; r.Role == traces.RoleUser && r.Kind == traces.KindMessage && !r.Human() {
				t.Errorf("source %v holds the harness's %q", src, r.Text)
			}
		}
	}
	if len(cs[0].Sources) < 2 {
		t.Errorf("sources %v: want the call and the words apart", cs[0].Sources)
	}
}

// TestNowThenWanted: right after a change, how it works now set against
// how the person wants it corrects the change, in any language; the
// lesson is about the edit, not the build run after it.
func TestNowThenWanted(t *testing.T) {
	for _, msg := range []string{
		"currently it reconnects once every retryDelayMs, I want it like redis: the delay grows by retryDelayMs each attempt",
		"hiện tại là cứ 1 đơn vị retryDelayMs thì tự connect lại 1 lần, tôi muốn giống redis là mỗi lần tăng thêm retryDelayMs",
		"目前是每隔 retryDelayMs 重连一次，我想要像 redis 那样每次增加 retryDelayMs",
	} {
		cs := correctionsAfter("add db reconnect", "/src/db.ts", "Done: the DB reconnects every retryDelayMs.", msg)
		if len(cs) != 1 || !strings.Contains(cs[0].Trigger, "db.ts") {
			t.Errorf("%q: corrections %q", msg, lessonsOf(cs))
		}
	}
	if n := correctionsAfterEdit("add db reconnect", "/src/db.ts", "Done.", "I want a retry limit too"); n != 0 {
		t.Errorf("a wish with no now: %d corrections", n)
	}
}

// TestNoNeedForWhatTheChangeDidNotWrite: "no need for X" after a change
// that did not write X asks for new work; after one that wrote it, it
// corrects the change.
func TestNoNeedForWhatTheChangeDidNotWrite(t *testing.T) {
	s := newSession("n").
		user("crop the uploaded faces").
		call("Edit", `{"file_path":"/web/components/upload-card.tsx","old_string":"a","new_string":"const cropped = crop(img)"}`, "ok").
		say("Done: uploads are cropped.").
		user("我觉得没有必要提示 Image A Face found 这些信息").s
	if cs := ofType(Extract(s, nil, nil), TypeCorrection); len(cs) != 0 {
		t.Errorf("corrections %q, want none", lessonsOf(cs))
	}
	s = newSession("w").
		user("crop the uploaded faces").
		call("Edit", `{"file_path":"/web/components/upload-card.tsx","old_string":"a","new_string":"<p>Image A Face found</p>"}`, "ok").
		say("Done, with a notice when a face is found.").
		user("我觉得没有必要提示 Image A Face found 这些信息").s
	if cs := ofType(Extract(s, nil, nil), TypeCorrection); len(cs) != 1 {
		t.Errorf("after writing it: corrections %q, want one", lessonsOf(cs))
	}
}
