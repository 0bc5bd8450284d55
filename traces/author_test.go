package traces

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const authorsDir = "../testdata/transcripts/authors"

// atAuthors parses a fixture and returns "role/kind author: text" for each
// record, checking every record has a known author.
func atAuthors(t *testing.T, p Parser, name string) []Record {
	t.Helper()
	path := filepath.Join(authorsDir, name)
	recs, _, probs := trParse(t, p, trRead(t, path), path, Pos{})
	if len(probs) > 0 {
		t.Fatalf("%s: problems %v", name, probs)
	}
	for _, r := range recs {
		if !containsString(Authors, r.Author) {
			t.Fatalf("%s: record %+v has author %q", name, r, r.Author)
		}
	}
	return recs
}

// atWant checks the author of the records whose text (or output) starts
// with each prefix.
func atWant(t *testing.T, recs []Record, want map[string]string) {
	t.Helper()
	for prefix, author := range want {
		found := false
		for _, r := range recs {
			text := r.Text
			if text == "" {
				text = r.Output
			}
			if strings.HasPrefix(text, prefix) {
				found = true
				if r.Author != author {
					t.Errorf("%q: author %q, want %q", prefix, r.Author, author)
				}
				if r.Human() != (author == AuthorPerson) {
					t.Errorf("%q: Human() %v with author %q", prefix, r.Human(), author)
				}
			}
		}
		if !found {
			t.Errorf("no record starts with %q", prefix)
		}
	}
}

func TestAuthorsClaudeCode(t *testing.T) {
	recs := atAuthors(t, NewClaudeCode(), "claude-code.jsonl")
	atWant(t, recs, map[string]string{
		"make the checkout page":           AuthorPerson,
		"User has answered your questions": AuthorPersonChoice, // AskUserQuestion answer
		"<task-notification>":              AuthorHarness,
		"/plan":                            AuthorPerson,   // the command line the person typed
		"## User Input":                    AuthorTemplate, // its expanded prompt file (isMeta after the command)
		"<system-reminder>":                AuthorHarness,
		"keep the tax line":                AuthorPerson,
	})
	for _, r := range recs {
		if r.Kind == KindToolCall && r.Author != AuthorModel {
			t.Errorf("tool call author %q", r.Author)
		}
	}
}

func TestAuthorsCodex(t *testing.T) {
	recs := atAuthors(t, NewCodex(), "rollout-2026-01-06T09-00-00-019b0000-0000-7000-8000-00000000a001.jsonl")
	atWant(t, recs, map[string]string{
		"# AGENTS.md instructions": AuthorHarness,
		"<environment_context>":    AuthorHarness,
		"## User Input":            AuthorTemplate, // a prompt file expanded into the user turn: its shape
		"Plan written to":          AuthorModel,
		"the budget should be":     AuthorPerson,
	})
}

func TestAuthorsGemini(t *testing.T) {
	recs := atAuthors(t, NewGemini(), "session-2026-01-07T08-00-9e000000.json")
	atWant(t, recs, map[string]string{
		"rename the config loader": AuthorPerson,
		"Renamed it.":              AuthorModel,
		"## User Input":            AuthorTemplate,
		"<session_context>":        AuthorHarness, // a whole turn in a harness-style tag
		"/stats":                   AuthorPerson,
	})
}

// TestAuthorsAiderArchitect: aider's architect mode logs the architect
// model's answer handed to the editor model with the person's "#### "
// marker; that block is the model's, with or without the "Edit the files?"
// prompt, and the person's next message is theirs again. A refused hand-off
// hands nothing over.
func TestAuthorsAiderArchitect(t *testing.T) {
	recs := atAuthors(t, NewAider(), ".aider.chat.history.md")
	var users []Record
	for _, r := range recs {
		if r.Role == RoleUser {
			users = append(users, r)
		}
	}
	want := []struct{ prefix, author string }{
		{"make the retry delay grow", AuthorPerson},
		{"To make the delay grow", AuthorModel}, // after "Edit the files? y"
		{"also add jitter", AuthorPerson},
		{"Add random jitter", AuthorModel}, // auto-accepted: same text as the architect's answer
		{"no, keep jitter out of the cap", AuthorPerson},
		{"just explain it", AuthorPerson}, // after "Edit the files? n"
	}
	if len(users) != len(want) {
		t.Fatalf("%d user records, want %d: %+v", len(users), len(want), users)
	}
	for i, w := range want {
		if !strings.HasPrefix(users[i].Text, w.prefix) || users[i].Author != w.author {
			t.Errorf("user record %d: %q by %q, want %q by %q", i, users[i].Text, users[i].Author, w.prefix, w.author)
		}
	}
	// Resumed at every line boundary, the hand-off is still the model's.
	data := trRead(t, filepath.Join(authorsDir, ".aider.chat.history.md"))
	for cut := 0; cut <= len(data); cut++ {
		if cut > 0 && data[cut-1] != '\n' {
			continue
		}
		_, mid, _ := trParse(t, NewAider(), data[:cut], "h.md", Pos{})
		rest, _, _ := trParse(t, NewAider(), data, "h.md", trJSON(t, mid))
		for _, r := range rest {
			if r.Role == RoleUser && strings.HasPrefix(r.Text, "To make the delay") && r.Author != AuthorModel {
				t.Errorf("resumed at %d: hand-off by %q", cut, r.Author)
			}
		}
	}
}

func TestAuthorsGeneric(t *testing.T) {
	data := []byte(`{"role":"user","content":"<user_instructions>\nBe brief.\n</user_instructions>"}` + "\n" +
		`{"role":"user","content":"fix the flaky test"}` + "\n" +
		`{"role":"assistant","content":"Fixed."}` + "\n" +
		`{"role":"tool","content":"ok","tool_call_id":"c1"}` + "\n")
	recs, _, _ := trParse(t, NewGeneric(), data, "chat.jsonl", Pos{})
	atWant(t, recs, map[string]string{
		"<user_instructions>": AuthorHarness,
		"fix the flaky test":  AuthorPerson,
		"Fixed.":              AuthorModel,
		"ok":                  AuthorTool,
	})
}

// TestDeriveAuthor: records stored before Author existed get it from role,
// kind and marks, and Human() keeps its old meaning for them.
func TestDeriveAuthor(t *testing.T) {
	cases := []struct {
		r    Record
		want string
	}{
		{Record{Role: RoleUser, Kind: KindMessage, Text: "hi"}, AuthorPerson},
		{Record{Role: RoleUser, Kind: KindMessage, Marks: []string{MarkInjected}}, AuthorHarness},
		{Record{Role: RoleUser, Kind: KindMessage, Marks: []string{MarkSidechain}}, AuthorModel},
		{Record{Role: RoleUser, Kind: KindMessage, Marks: []string{MarkInterrupt, MarkInjected}}, AuthorHarness},
		{Record{Role: RoleUser, Kind: KindMessage, Marks: []string{MarkRejected}, Text: "use pnpm"}, AuthorPerson},
		{Record{Role: RoleUser, Kind: KindSummary, Marks: []string{MarkCompaction, MarkInjected}}, AuthorHarness},
		{Record{Role: RoleTool, Kind: KindToolResult, Marks: []string{MarkRejected}}, AuthorPersonChoice},
		{Record{Role: RoleTool, Kind: KindToolResult}, AuthorTool},
		{Record{Role: RoleAssistant, Kind: KindToolCall}, AuthorModel},
		{Record{Role: RoleAssistant, Kind: KindMessage, Marks: []string{MarkThinking}}, AuthorModel},
		{Record{Role: RoleSystem, Kind: KindMeta}, AuthorHarness},
	}
	for i, c := range cases {
		if got := c.r.Who(); got != c.want {
			t.Errorf("case %d %+v: %q, want %q", i, c.r, got, c.want)
		}
		old := c.r.Role == RoleUser && c.r.Kind == KindMessage && !c.r.Has(MarkInjected) && !c.r.Has(MarkSidechain)
		if c.r.Human() != old {
			t.Errorf("case %d: Human() %v, the old rule %v", i, c.r.Human(), old)
		}
	}
	r := Record{Role: RoleUser, Kind: KindMessage, Author: AuthorTemplate}
	if r.Human() {
		t.Error("a template is not the person's")
	}
}

func TestTemplateShape(t *testing.T) {
	long := strings.Repeat("The uploader retries failed parts. ", 20)
	cases := []struct {
		name string
		text string
		want bool
	}{
		{"spec-kit shape, expanded", "## User Input\n\n```text\nadd caching\n```\n\nYou **MUST** consider the user input.\n\n## Outline\n\n1. Read the plan.\n2. Write it.\n3. Stop.\n" + long, true},
		{"placeholder left in", "# Review\n\n## Steps\n\nReview $ARGUMENTS carefully.\n" + long, true},
		{"front matter and input section", "---\ndescription: review code\n---\n\n## Arguments\n\nthe diff\n\n## Notes\n" + long, true},
		{"pasted plan written for a model, no mark of reuse", "# PROMPT\n\n## Context\n\nYou MUST keep the API. You MUST NOT break the CLI.\n\n## Requirements\n\n1. a\n2. b\n3. c\n" + long, false},
		{"short structured turn", "## User Input\n\n$ARGUMENTS\n\n## Outline\n1. x\n2. y\n3. z", false},
		{"long prose", long + long, false},
		{"CJK prose with a list", strings.Repeat("请把上传重试的延迟改成指数增长，并且最多三十秒。", 30) + "\n1. 第一\n2. 第二\n3. 第三\n", false},
		{"CJK template", "## 用户输入\n\n## Arguments\n\n$ARGUMENTS\n\n" + strings.Repeat("你必须先阅读计划文件再修改代码。", 40), true},
	}
	for _, c := range cases {
		if got := TemplateShape(c.text); got != c.want {
			t.Errorf("%s: TemplateShape %v, want %v", c.name, got, c.want)
		}
	}
}

// TestAttributionRecurrence: a long turn in two sessions is a template's in
// both once the second is imported (derived: the stored records keep their
// author); a person re-sending their own prose in the same project stays
// theirs, the same prose in another project does not; a copy of a record
// (a resumed session, same id) is not a recurrence.
func TestAttributionRecurrence(t *testing.T) {
	kbDir := t.TempDir()
	st := &Store{Root: kbDir}
	listed := "Checklist before you start on this repo, follow it every time:\n1. run the full test suite first\n2. read CONTRIBUTING.md and the style guide\n3. keep every change behind a feature flag until review"
	prose := "this app works well as a command line tool but I want a web interface too, and the core keeps asking the terminal for confirmations synchronously, which a browser cannot answer; how would you restructure that?"
	mk := func(id, cwd string, day int, texts ...string) []Record {
		var out []Record
		for i, x := range texts {
			out = append(out, Record{Session: id, Agent: AgentGeneric, Role: RoleUser, Kind: KindMessage, Text: x, Cwd: cwd,
				Time: time.Date(2026, 1, day, 9, i, 0, 0, time.UTC)})
		}
		return out
	}
	if _, err := st.Append(mk("s1", "/p/one", 1, listed, prose, "fix the flaky upload test")); err != nil {
		t.Fatal(err)
	}
	check := func(stage string, want map[string]string) {
		t.Helper()
		a, err := st.Attribution()
		if err != nil {
			t.Fatal(err)
		}
		infos, _ := st.Sessions()
		for _, si := range infos {
			st.ReadFile(si.Path, func(r Record) error {
				if r.Kind != KindMessage {
					return nil
				}
				if w, ok := want[si.ID+":"+r.Text[:8]]; ok && a.Author(&r, si.Path) != w {
					t.Errorf("%s: %s %q by %q, want %q", stage, si.ID, r.Text[:20], a.Author(&r, si.Path), w)
				}
				return nil
			})
		}
	}
	check("one session", map[string]string{"s1:" + listed[:8]: AuthorPerson, "s1:" + prose[:8]: AuthorPerson})
	if _, err := st.Append(mk("s2", "/p/one", 2, listed, prose, "the upload test is still flaky")); err != nil {
		t.Fatal(err)
	}
	check("two sessions, one project", map[string]string{
		"s1:" + listed[:8]: AuthorTemplate, "s2:" + listed[:8]: AuthorTemplate,
		"s1:" + prose[:8]: AuthorPerson, "s2:" + prose[:8]: AuthorPerson,
		"s1:fix the ": AuthorPerson,
	})
	if _, err := st.Append(mk("s3", "/p/two", 3, prose)); err != nil {
		t.Fatal(err)
	}
	check("another project", map[string]string{"s1:" + prose[:8]: AuthorTemplate, "s3:" + prose[:8]: AuthorTemplate})

	// The index is derived: lost, it is rebuilt with the same answers.
	if err := os.Remove(filepath.Join(kbDir, stateDir, TurnsFile)); err != nil {
		t.Fatal(err)
	}
	check("rebuilt", map[string]string{"s2:" + listed[:8]: AuthorTemplate, "s3:" + prose[:8]: AuthorTemplate})

	// A copy with the same record id (a resumed session) is no recurrence.
	k2 := &Store{Root: t.TempDir()}
	for _, id := range []string{"r1", "r2"} {
		r := mk(id, "/p/x", 4, listed)[0]
		r.Extra = map[string]json.RawMessage{"uuid": json.RawMessage(`"0d0d0d0d-0000-4000-8000-000000000001"`)}
		if _, err := k2.Append([]Record{r}); err != nil {
			t.Fatal(err)
		}
	}
	a2, err := k2.Attribution()
	if err != nil {
		t.Fatal(err)
	}
	infos, _ := k2.Sessions()
	for _, si := range infos {
		k2.ReadFile(si.Path, func(r Record) error {
			if r.Kind == KindMessage && a2.Author(&r, si.Path) != AuthorPerson {
				t.Errorf("copied record in %s attributed to %q", si.ID, a2.Author(&r, si.Path))
			}
			return nil
		})
	}
}

// TestAttributionPromptFile: a turn that is a prompt file of its project
// expanded is a template's, though it is short, unstructured and seen once.
func TestAttributionPromptFile(t *testing.T) {
	proj := t.TempDir()
	os.MkdirAll(filepath.Join(proj, ".git"), 0o755)
	os.MkdirAll(filepath.Join(proj, ".codex", "prompts"), 0o755)
	os.MkdirAll(filepath.Join(proj, ".gemini", "commands"), 0o755)
	os.WriteFile(filepath.Join(proj, ".codex", "prompts", "ship.md"), []byte("---\ndescription: ship it\n---\nBump the version in package.json, write the changelog entry for $ARGUMENTS, then tag the release and push the tag.\n"), 0o644)
	os.WriteFile(filepath.Join(proj, ".gemini", "commands", "review.toml"), []byte("description = \"review\"\nprompt = \"\"\"\nReview the staged diff for missing tests.\nPoint at each function that changed without a test.\nSuggest the smallest test that would cover it.\nSay nothing about formatting; the linter owns that.\n{{args}}\n\"\"\"\n"), 0o644)
	sub := filepath.Join(proj, "web")
	os.MkdirAll(sub, 0o755)
	a := &Attribution{prompts: map[string][]promptFile{}, roots: map[string]string{}}
	cases := []struct {
		text, cwd, want string
	}{
		{"Bump the version in package.json, write the changelog entry for v2.3 hotfix, then tag the release and push the tag.", proj, AuthorTemplate},
		{"Review the staged diff for missing tests.\nPoint at each function that changed without a test.\nSuggest the smallest test that would cover it.\nSay nothing about formatting; the linter owns that.\nfocus on the parser", sub, AuthorTemplate},
		{"bump the version and push the tag please", proj, AuthorPerson},
		{"Bump the version in package.json, write the changelog entry for v2.3 hotfix, then tag the release and push the tag.", "/nonexistent/elsewhere", AuthorPerson},
	}
	for _, c := range cases {
		r := Record{Role: RoleUser, Kind: KindMessage, Text: c.text, Cwd: c.cwd, Author: AuthorPerson}
		if got := a.Author(&r, ""); got != c.want {
			t.Errorf("%q in %s: %q, want %q", c.text[:30], c.cwd, got, c.want)
		}
	}
}

// FuzzPromptFile: prompt files and turns of any content never panic the
// matcher, and a prompt file's own text always matches itself.
func FuzzPromptFile(f *testing.F) {
	f.Add("---\ndescription: x\n---\nReview $ARGUMENTS carefully and list every risk you see in it.\n", false, "Review the diff carefully and list every risk you see in it.")
	f.Add("prompt = \"\"\"\nExplain {{args}} to a new team member in plain words.\n\"\"\"\n", true, "Explain the cache to a new team member in plain words.")
	f.Add("prompt = \"a\\nb\"", true, "")
	f.Add("## User Input\n\n$ARGUMENTS\n\n## Outline\n\n1. a\n2. b\n3. c\n", false, strings.Repeat("x ", 400))
	f.Fuzz(func(t *testing.T, body string, isTOML bool, turn string) {
		TemplateShape(turn)
		TemplateHint(turn)
		textAuthor(turn)
		turnHashes(turn)
		pf, ok := parsePromptFile(body, isTOML)
		if !ok {
			return
		}
		lines := map[string]bool{}
		for _, l := range strings.Split(turn, "\n") {
			lines[normTurn(l)] = true
		}
		pf.matches(normTurn(turn), lines)
	})
}

// TestTemplateArguments: the person's words inside an expanded template
// are found whether the expansion put them in the user-input section's
// fenced block or left the placeholder and the person typed after it; a
// template with nothing of the person's yields nothing.
func TestTemplateArguments(t *testing.T) {
	steps := "## Outline\n\n1. Read the spec.\n2. Write the plan.\n3. Check it.\n\n"
	for _, c := range []struct{ name, text, want string }{
		{"fenced section", "---\ndescription: plan\n---\n\n## User Input\n\n```text\n我需要按照 TDD 来完成这个项目\n```\n\nYou **MUST** consider the user input before proceeding.\n\n" + steps, "我需要按照 TDD 来完成这个项目"},
		{"typed after the placeholder", "# Update the requirements\n\n" + steps + "<h2 id=\"users-request\">User's Request</h2>\n\n$ARGUMENTS\nRename the command brall to lsbr and keep the old name as an alias\n", "Rename the command brall to lsbr and keep the old name as an alias"},
		{"placeholder only", "## User Input\n\n```text\n$ARGUMENTS\n```\n\nYou **MUST** consider the user input.\n\n" + steps, ""},
		{"template prose after the placeholder", "## User Input\n\n$ARGUMENTS\n\nYou **MUST** consider the user input before proceeding.", ""},
		{"section prose, no block", "## Arguments\n\nThe text after the command names the feature.\n\n" + steps, ""},
		{"steps after the placeholder", "Task: $ARGUMENTS\n\n" + steps, ""},
	} {
		if got := TemplateArguments(c.text); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func FuzzTemplateArguments(f *testing.F) {
	f.Add("## User Input\n\n```text\nuse pnpm\n```\n")
	f.Add("$ARGUMENTS\nrename it")
	f.Add("<h2>Input</h2>\n```\n")
	f.Fuzz(func(t *testing.T, s string) {
		got := TemplateArguments(s)
		if len(got) > len(s) {
			t.Fatalf("%q longer than its template", got)
		}
	})
}
