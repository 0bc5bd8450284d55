package traces

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kbmem/kb/internal/testenv"
)

const aiderFixture = "../testdata/transcripts/aider/fixture.aider.chat.history.md"

// trParse parses data (from start) and returns the records and end.
func trParse(t testing.TB, p Parser, data []byte, name string, start Pos) ([]Record, Pos, []Problem) {
	t.Helper()
	var recs []Record
	end, probs, err := p.Parse(bytes.NewReader(data[start.Offset:]), name, start, func(r Record) error {
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	return recs, end, probs
}

// trShared is the shared transcript folder (../shared from the module
// root), or skips the test when it is absent.
func trShared(t testing.TB) string {
	return testenv.Shared(t, "data", "transcripts")
}

func trRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// trJSON round-trips a Pos through JSON, as the store's checkpoint does.
func trJSON(t testing.TB, p Pos) Pos {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var out Pos
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestAiderFixture(t *testing.T) {
	data := trRead(t, aiderFixture)
	const name = "/repo/.aider.chat.history.md"
	recs, end, probs := trParse(t, NewAider(), data, name, Pos{})
	if len(probs) != 0 {
		t.Fatalf("problems: %v", probs)
	}
	if end.Offset != int64(len(data)) {
		t.Fatalf("end offset %d, want %d", end.Offset, len(data))
	}
	type want struct {
		session, role, kind, text string
		line                      int
		marks                     []string
		model                     string
	}
	hash := recs[len(recs)-1].Session[len(recs[len(recs)-1].Session)-len("-L61")-8 : len(recs[len(recs)-1].Session)-len("-L61")]
	s0 := "aider-unknown-" + hash
	s1 := "aider-20240115T103000-" + hash
	s2 := "aider-20240201T090005-" + hash
	s3 := s2 + "-L61"
	wants := []want{
		{s0, RoleTool, KindToolResult, "Restored previous conversation history.", 1, nil, ""},
		{s1, RoleTool, KindToolResult, "/usr/local/bin/aider --model gpt-4o\nAider v0.50.0\nModel: gpt-4o with diff edit format\nGit repo: .git with 12 files", 5, nil, ""},
		{s1, RoleUser, KindMessage, "Add a --verbose flag to main.py\n\nand print the config when set", 10, nil, ""},
		{s1, RoleAssistant, KindMessage, "I will add the flag.\n\n#### `main` Changes", 14, nil, "gpt-4o"},
		{s1, RoleTool, KindToolResult, "Note: this is a quote in the reply\ncontinued quote text", 18, nil, ""},
		{s1, RoleAssistant, KindMessage, "main.py\n```python\n<<<<<<< SEARCH\nimport sys\n=======\nimport sys\nimport argparse\n>>>>>>> REPLACE\n```", 21, nil, "gpt-4o"},
		{s1, RoleTool, KindToolResult, "Applied edit to main.py\nCommit abc1234 feat: Add --verbose flag", 31, nil, ""},
		{s1, RoleUser, KindMessage, "/add README.md", 34, []string{MarkSlash}, ""},
		{s1, RoleTool, KindToolResult, "Added README.md to the chat", 35, nil, ""},
		{s1, RoleUser, KindMessage, "", 37, nil, ""},
		{s1, RoleUser, KindMessage, "# Fix any errors below, if possible.\n\nmain.py:3:1: F401 unused import", 39, []string{MarkInjected}, ""},
		{s1, RoleAssistant, KindMessage, "Fixed.", 43, nil, "gpt-4o"},
		{s1, RoleTool, KindToolResult, "Create new file tests/test_main.py? (Y)es/(N)o [Yes]: n\nSkipping edits to tests/test_main.py", 45, []string{MarkRejected}, ""},
		{s2, RoleTool, KindToolResult, "/usr/local/bin/aider\nModels: claude-3-5-sonnet-20240620 with diff edit format, weak model claude-3-haiku-20240307", 50, nil, ""},
		{s2, RoleUser, KindMessage, "no, use pytest instead of unittest", 53, nil, ""},
		{s2, RoleTool, KindToolResult, "============================= test session starts ==\nplatform linux\n    \ncollected 3 items\n============================== 3 passed ==", 55, nil, ""},
		{s3, RoleUser, KindMessage, "hello again", 63, nil, ""},
		{s3, RoleAssistant, KindMessage, "Hi!", 65, nil, ""},
	}
	if len(recs) != len(wants) {
		for _, r := range recs {
			t.Logf("%s %s/%s line %d %q", r.Session, r.Role, r.Kind, r.Source.Line, r.Text+r.Output)
		}
		t.Fatalf("%d records, want %d", len(recs), len(wants))
	}
	for i, w := range wants {
		r := recs[i]
		got := r.Text + r.Output
		if r.Session != w.session || r.Role != w.role || r.Kind != w.kind || got != w.text || r.Source.Line != w.line ||
			!reflect.DeepEqual(r.Marks, w.marks) || r.Model != w.model {
			t.Errorf("record %d:\n got  %s %s/%s line %d marks %v model %q %q\n want %s %s/%s line %d marks %v model %q %q",
				i, r.Session, r.Role, r.Kind, r.Source.Line, r.Marks, r.Model, got, w.session, w.role, w.kind, w.line, w.marks, w.model, w.text)
		}
		if r.Agent != AgentAider || r.Source.File != name || r.Cwd != "/repo" {
			t.Errorf("record %d: agent %q source %q cwd %q", i, r.Agent, r.Source.File, r.Cwd)
		}
		if r.Kind == KindToolResult && r.Tool != "aider" {
			t.Errorf("record %d: tool %q", i, r.Tool)
		}
	}
	wantStart := time.Date(2024, 1, 15, 10, 30, 0, 0, time.Local)
	if !recs[1].Time.Equal(wantStart) {
		t.Errorf("start %v, want %v", recs[1].Time, wantStart)
	}
	if !recs[0].Time.IsZero() {
		t.Errorf("record before any header has time %v", recs[0].Time)
	}
	if !recs[10].Human() && recs[10].Has(MarkInjected) == false {
		t.Error("lint prompt should be injected")
	}
}

// Resuming at any block boundary gives the records of one pass.
func TestAiderResume(t *testing.T) {
	for _, path := range []string{aiderFixture, "real"} {
		var data []byte
		if path == "real" {
			data = trRead(t, filepath.Join(trShared(t), "aider", "chat-history.md"))
			data = data[:min(len(data), 150<<10)]
			data = data[:bytes.LastIndexByte(data, '\n')+1]
		} else {
			data = trRead(t, path)
		}
		whole, wholeEnd, _ := trParse(t, NewAider(), data, "h.md", Pos{})
		// Boundaries: the start of a line that opens a block after a blank
		// line or starts a session.
		var cuts []int
		for i := 1; i < len(data); i++ {
			if data[i-1] != '\n' {
				continue
			}
			rest := data[i:]
			line, _, _ := bytes.Cut(rest, []byte("\n"))
			if (aiderIsUser(string(line)) && i >= 2 && data[i-2] == '\n') || bytes.HasPrefix(rest, []byte("# aider chat started")) {
				cuts = append(cuts, i)
			}
		}
		if len(cuts) > 40 {
			step := len(cuts) / 40
			var thin []int
			for i := 0; i < len(cuts); i += step {
				thin = append(thin, cuts[i])
			}
			cuts = thin
		}
		for _, cut := range cuts {
			first, mid, _ := trParse(t, NewAider(), data[:cut], "h.md", Pos{})
			second, end, _ := trParse(t, NewAider(), data, "h.md", trJSON(t, mid))
			got := append(first, second...)
			if !reflect.DeepEqual(trMarshal(t, got), trMarshal(t, whole)) {
				t.Fatalf("%s: resume at %d: %d records, one pass %d", path, cut, len(got), len(whole))
			}
			if end.Offset != wholeEnd.Offset || end.Line != wholeEnd.Line {
				t.Fatalf("%s: resume end %+v, one pass %+v", path, end, wholeEnd)
			}
		}
	}
}

func trMarshal(t testing.TB, recs []Record) []string {
	t.Helper()
	out := make([]string, len(recs))
	for i := range recs {
		b, err := json.Marshal(recs[i])
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(b)
	}
	return out
}

// Every line of the real history ends up in the record whose block holds
// it: nothing is silently dropped.
func TestAiderRealNothingLost(t *testing.T) {
	dir := filepath.Join(trShared(t), "aider")
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) == 0 {
		t.Skip("no aider transcripts")
	}
	for _, path := range files {
		data := trRead(t, path)
		recs, end, probs := trParse(t, NewAider(), data, path, Pos{})
		if len(probs) != 0 {
			t.Errorf("%s: %d problems", path, len(probs))
		}
		if end.Offset != int64(len(data)) && data[len(data)-1] == '\n' {
			t.Errorf("%s: end %d of %d bytes", path, end.Offset, len(data))
		}
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		sessions := map[string]bool{}
		headersWithContent := 0
		ri := -1
		content := false
		for i, l := range lines {
			num := i + 1
			for ri+1 < len(recs) && recs[ri+1].Source.Line <= num {
				ri++
				if ri > 0 && recs[ri].Source.Line < recs[ri-1].Source.Line {
					t.Fatalf("%s: records out of line order at %d", path, recs[ri].Source.Line)
				}
			}
			if aiderHeader.MatchString(l) {
				if content {
					headersWithContent++
				}
				content = false
				continue
			}
			s := strings.TrimSpace(l)
			if s == "" {
				continue
			}
			content = true
			if ri < 0 {
				t.Fatalf("%s:%d: line before any record: %q", path, num, l)
			}
			r := recs[ri]
			sessions[r.Session] = true
			s = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(s, "####"), ">"), " "))
			if s == "<blank>" {
				continue
			}
			if !strings.Contains(r.Text+r.Output, s) {
				t.Fatalf("%s:%d: line %q not in record at line %d (%s/%s)", path, num, l, r.Source.Line, r.Role, r.Kind)
			}
		}
		if content {
			headersWithContent++
		}
		if got := len(sessions); got != headersWithContent {
			t.Errorf("%s: %d sessions with records, %d with content", path, got, headersWithContent)
		}
		t.Logf("%s: %d lines -> %d records in %d sessions", filepath.Base(path), len(lines), len(recs), len(sessions))
	}
}

func TestAiderEmitError(t *testing.T) {
	data := trRead(t, aiderFixture)
	stop := os.ErrClosed
	n := 0
	_, _, err := NewAider().Parse(bytes.NewReader(data), "x", Pos{}, func(Record) error {
		n++
		if n == 3 {
			return stop
		}
		return nil
	})
	if err != stop {
		t.Fatalf("err %v, want the emit error", err)
	}
}

func FuzzAider(f *testing.F) {
	f.Add(trRead(f, aiderFixture), 0)
	f.Add(trRead(f, filepath.Join(authorsDir, ".aider.chat.history.md")), 300)
	f.Add([]byte("#### a  \n\nplan\n\n> Edit the files? (Y)es/(N)o [Yes]: y  \n\n#### plan  \n"), 20)
	f.Add([]byte("# aider chat started at 2024-01-01 00:00:00\n\n#### hi  \n\nhello\n> x"), 10)
	f.Add([]byte("> a\nb\n#### c  \n"), 2)
	f.Add([]byte("\r\n####\r\n>\r\n"), 1)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		recs, end, _ := trParse(t, NewAider(), data, "f.md", Pos{})
		if end.Offset > int64(len(data)) || end.Offset < 0 {
			t.Fatalf("end %d outside input of %d", end.Offset, len(data))
		}
		for _, r := range recs {
			if r.Session == "" || r.Agent != AgentAider || r.Source.Line < 1 || !containsString(Authors, r.Author) {
				t.Fatalf("bad record %+v", r)
			}
			if _, err := json.Marshal(r); err != nil {
				t.Fatal(err)
			}
		}
		// Resuming from any returned position never fails or panics.
		if cut >= 0 && cut <= len(data) {
			_, mid, _ := trParse(t, NewAider(), data[:cut], "f.md", Pos{})
			trParse(t, NewAider(), data, "f.md", trJSON(t, mid))
		}
	})
}

// A Ctrl-C right after the person's message stops the model's reply: an
// interrupt. One after aider's own output (a file added) or a slash
// command stops nothing the agent did.
func TestAiderCtrlCInterrupt(t *testing.T) {
	src := "# aider chat started at 2024-08-06 10:00:00\n\n" +
		"#### use the tmp helper everywhere  \n>  \n>  \n> ^C again to exit  \n\n" +
		"Certainly! I'll replace it\n\n" +
		"#### /add aider/repomap.py  \n> Added aider/repomap.py to the chat  \n>  \n> ^C again to exit  \n\n" +
		"#### /clear  \n>  \n> ^C again to exit  \n\n" +
		"#### only in test_subtree_only  \n\nOk.\n"
	recs, _, _ := trParse(t, NewAider(), []byte(src), "h.md", Pos{})
	var marks []bool
	for _, r := range recs {
		if r.Kind == KindToolResult {
			marks = append(marks, r.Has(MarkInterrupt))
		}
	}
	if want := []bool{true, false, false}; !reflect.DeepEqual(marks, want) {
		t.Fatalf("interrupt marks of the tool blocks: %v, want %v", marks, want)
	}
	// Resumed between the message and its Ctrl-C, the same.
	cut := strings.Index(src, ">  \n>  \n> ^C")
	_, mid, _ := trParse(t, NewAider(), []byte(src[:cut]), "h.md", Pos{})
	second, _, _ := trParse(t, NewAider(), []byte(src), "h.md", trJSON(t, mid))
	if len(second) == 0 || second[0].Kind != KindToolResult || !second[0].Has(MarkInterrupt) {
		t.Fatalf("resumed: %+v", second)
	}
}

// TestAiderBareSession: some aider builds (0.50 on Windows, seen in a
// public history) log the person's input without the two-space hard
// break, and "> " lines end at their text. Such a session must still yield
// the person's messages (it once came out as one tool result of 66 KB),
// while a session of the same file that writes the break keeps reading a
// break-less "#### " line as the model's heading.
func TestAiderBareSession(t *testing.T) {
	data := []byte("# aider chat started at 2024-08-20 14:08:19\n\n" +
		"> Aider v0.50.1  \n> Use /help <question> for help\n\n" +
		"#### /add instructions.md\n\n" +
		"> Added instructions.md to the chat\n\n" +
		"#### posun to trochu nahoru\n\n" +
		"Rozumím, upravím styl.\n\n#### Změny\n\nhotovo\n\n" +
		"> Applied edit to app.css\n\n" +
		"#### odsad to navbar trochu z vrchu\n\n" +
		"Dobře.\n\n" +
		"# aider chat started at 2024-08-20 21:00:03\n\n" +
		"> Aider v0.50.1  \n\n" +
		"#### fix the navbar padding  \n\n" +
		"#### Plan\n\nI will edit app.css.\n")
	recs, _, probs := trParse(t, NewAider(), data, "/repo/.aider.chat.history.md", Pos{})
	if len(probs) != 0 {
		t.Fatalf("problems: %v", probs)
	}
	var users, assistant []string
	for _, r := range recs {
		switch r.Role {
		case RoleUser:
			users = append(users, fmt.Sprintf("%d %s", r.Source.Line, r.Text))
		case RoleAssistant:
			assistant = append(assistant, r.Text)
		}
	}
	wantUsers := []string{"6 /add instructions.md", "10 posun to trochu nahoru", "20 odsad to navbar trochu z vrchu", "28 fix the navbar padding"}
	if !slices.Equal(users, wantUsers) {
		t.Errorf("user records:\n got %q\nwant %q", users, wantUsers)
	}
	// In the bare session "#### Změny" inside the reply stays the reply's.
	wantAssistant := []string{"Rozumím, upravím styl.\n\n#### Změny\n\nhotovo", "Dobře.", "#### Plan\n\nI will edit app.css."}
	if !slices.Equal(assistant, wantAssistant) {
		t.Errorf("assistant records:\n got %q\nwant %q", assistant, wantAssistant)
	}
}

// TestAiderTurn: the files aider applied edits to and whether the person
// had a command's output added to the chat, in the prompt forms of aider's
// versions; a "no" adds nothing, and another record tells nothing.
func TestAiderTurn(t *testing.T) {
	for _, c := range []struct {
		out    string
		edited []string
		shown  bool
	}{
		{"Applied edit to a/b.py\nApplied edit to c.py\nApplied edit to a/b.py\nCommit 1 x\nRunning python main.py\nAdd command output to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y\nAdded 11 lines of output to the chat.", []string{"a/b.py", "c.py"}, true},
		{"Applied edit to x.go\nRunning go test\nAdd command output to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: n", []string{"x.go"}, false},
		{"Add 0.2k tokens of command output to the chat? (Y)es/(N)o [Yes]: y", nil, true},
		{"Add the output to the chat?\n(y/n/instructions) y", nil, true},
		{"Add the output to the chat?\n(y/n/instructions) n", nil, false},
		{"Tokens: 5k sent, 1k received.", nil, false},
	} {
		r := Record{Agent: AgentAider, Role: RoleTool, Kind: KindToolResult, Tool: "aider", Output: c.out}
		edited, shown := AiderTurn(&r)
		if !slices.Equal(edited, c.edited) || shown != c.shown {
			t.Errorf("%q: edited %v shown %v, want %v %v", c.out, edited, shown, c.edited, c.shown)
		}
	}
	r := Record{Agent: AgentClaudeCode, Role: RoleTool, Kind: KindToolResult, Output: "Applied edit to a.py\nAdded 3 lines of output to the chat."}
	if edited, shown := AiderTurn(&r); edited != nil || shown {
		t.Errorf("a Claude Code record: %v %v", edited, shown)
	}
}

// TestAiderOldPromptRefusal: aider before 0.50 logged a confirm prompt as
// the question and the answer alone. A no to what the model proposed
// (creating a file, running a command) is a refusal; a no to aider's own
// offers (a URL or files into the chat, a lint fix, creating a file the
// person's /add did not match) refuses nothing.
func TestAiderOldPromptRefusal(t *testing.T) {
	for block, want := range map[string]bool{
		"> Allow creation of new file src/providers/openai.provider.ts? n  \n> Skipping edits to src/providers/openai.provider.ts  \n": true,
		"> Run pip install? n  \n":                                           true,
		"> Allow creation of new file src/x.ts? y  \n":                       false,
		"> Add https://openrouter.ai/api/v1 to the chat? n  \n":              false,
		"> Add these files to the chat? n  \n":                               false,
		"> Attempt to fix lint errors? n  \n":                                false,
		"> No files matched 'app.mod'. Do you want to create app.mod? n  \n": false,
	} {
		src := "\n# aider chat started at 2024-06-11 02:29:05\n\n#### make a provider  \n\nHere it is.\n\n" + block + "\n#### ok  \n"
		var got bool
		_, _, err := NewAider().Parse(strings.NewReader(src), ".aider.chat.history.md", Pos{}, func(r Record) error {
			if r.Kind == KindToolResult && r.Has(MarkRejected) {
				got = true
			}
			return nil
		})
		if err != nil || got != want {
			t.Errorf("%q: rejected %v, want %v (%v)", block, got, want, err)
		}
	}
}

// TestAiderPromptLoggedAsInput: some aider versions log a confirm prompt
// and its answer with the person's "#### " marker. The text is aider's: it
// becomes a tool record as its "> " lines do, never a person's message,
// and a no to the model's proposal there is a refusal.
func TestAiderPromptLoggedAsInput(t *testing.T) {
	src := "\n# aider chat started at 2025-05-01 10:00:00\n\n#### add the validator  \n\nI need these files.\n\n" +
		"> validators/PoIValidator.ts  \n\n" +
		"#### Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: skip  \n" +
		"> Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: s  \n\n" +
		"Here is the change.\n\n" +
		"#### Create new file src/x.ts? (Y)es/(N)o [Yes]: n  \n\n" +
		"#### are you sure? use the existing module instead  \n"
	var users []string
	rejected := 0
	_, _, err := NewAider().Parse(strings.NewReader(src), ".aider.chat.history.md", Pos{}, func(r Record) error {
		if r.Role == RoleUser {
			users = append(users, r.Text)
		}
		if r.Has(MarkRejected) {
			rejected++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(users, []string{"add the validator", "are you sure? use the existing module instead"}) {
		t.Errorf("person messages %q", users)
	}
	if rejected != 1 {
		t.Errorf("%d refusals, want 1 (the no to creating src/x.ts)", rejected)
	}
}
