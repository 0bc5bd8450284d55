package episodes

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/markdown"
	"github.com/kbmem/kb/observations"
	"github.com/kbmem/kb/traces"
)

var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

func sess(id string, hours float64, branch string, files []string, prompts ...string) SessionSummary {
	start := t0.Add(time.Duration(hours * float64(time.Hour)))
	return SessionSummary{ID: id, Start: start, End: start.Add(time.Hour), Branch: branch, Files: files, Prompts: prompts}
}

func sessionsOf(eps []Episode) [][]string {
	var out [][]string
	for _, e := range eps {
		out = append(out, e.Scope.Sessions)
	}
	return out
}

func TestGroupHeuristics(t *testing.T) {
	in := []SessionSummary{
		sess("a1", 0, "main", []string{"pay/client.go", "pay/retry.go"}, "fix the retry bug in #412"),
		sess("b1", 2, "feature/search", []string{"search/index.go"}, "add fuzzy matching to search"),
		sess("c1", 3, "main", []string{"README.md"}, "what does the reconcile job do?"),
		sess("a2", 100, "main", []string{"pay/other.go"}, "back on #412: the retry still double-charges"), // task ref, 4 days later
		sess("b2", 20, "feature/search", []string{"search/rank.go"}, "now rank the results"),              // same feature branch
		sess("d1", 30, "main", []string{"cart/merge.go", "cart/cart.go"}, "merge carts on login"),
		sess("d2", 40, "main", []string{"cart/merge.go", "cart/cart.go", "cart/x.go"}, "the merge drops quantities"), // shared files
		sess("e1", 41, "main", []string{"cart/merge.go", "cart/cart.go"}, "Starting work on the cart API v2"),        // explicit start
		sess("e2", 42, "main", []string{"cart/merge.go", "cart/api.go"}, "continue with the cart API, done with it after this"),
		sess("e3", 43, "main", []string{"cart/merge.go", "cart/api.go"}, "cart API follow-up"), // e ended: new episode
	}
	eps := Group(in, nil, Options{})
	got := sessionsOf(eps)
	want := [][]string{{"a1", "a2"}, {"b1", "b2"}, {"c1"}, {"d1", "d2"}, {"e1", "e2"}, {"e3"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("groups = %v\nwant %v", got, want)
	}
	if eps[0].Tasks[0] != "#412" || !strings.HasPrefix(eps[0].Title, "#412") {
		t.Errorf("task episode: %+v", eps[0])
	}
	if eps[1].Scope.Branch != "feature/search" {
		t.Errorf("branch = %q", eps[1].Scope.Branch)
	}
	if eps[4].Title != "the cart API v2" || eps[4].Outcome != OutcomeAccomplished {
		t.Errorf("marker episode: %q %s", eps[4].Title, eps[4].Outcome)
	}
	if eps[2].Outcome != OutcomeOpen || len(eps[2].OpenThreads) == 0 {
		t.Errorf("open episode: %+v", eps[2])
	}
	// Deterministic ids from the sorted session ids, whatever the input order.
	rev := append([]SessionSummary(nil), in...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	again := Group(rev, nil, Options{})
	for i := range eps {
		if eps[i].ID != again[i].ID || eps[i].ID != MakeID(eps[i].Scope.Sessions) {
			t.Errorf("episode %d id %s vs %s", i, eps[i].ID, again[i].ID)
		}
	}
	if MakeID([]string{"b", "a"}) != MakeID([]string{"a", "b"}) {
		t.Error("id depends on order")
	}
}

func TestGroupTopicAndObservations(t *testing.T) {
	in := []SessionSummary{
		sess("s1", 0, "main", nil, "migrate the billing service to postgres"),
		sess("s2", 5, "main", []string{"x.go"}, "continue the billing postgres migration service work"),
		sess("s3", 6, "main", nil, "abandon the billing postgres migration, give up on it"),
		sess("s4", 7, "main", nil, "billing postgres migration service again"),
	}
	obs := []*observations.Observation{
		{ID: "dec-1", Type: observations.TypeDecision, Chosen: "pgx", Reasons: []string{"pure Go"}, Sources: []observations.SourceRef{{Session: "s1"}}},
		{ID: "cor-1", Type: observations.TypeCorrection, Lesson: "Run migrations in a transaction.", Sources: []observations.SourceRef{{Session: "s2"}}},
		{ID: "neg-1", Type: observations.TypeNegativeResult, Approach: "pg_dump restore", Failure: "too slow", Sources: []observations.SourceRef{{Session: "s2"}}},
		{ID: "q-1", Type: observations.TypeQuestion, Question: "Do we need downtime?", Sources: []observations.SourceRef{{Session: "s3"}}},
		{ID: "other", Type: observations.TypeCorrection, Lesson: "x", Sources: []observations.SourceRef{{Session: "zz"}}},
	}
	eps := Group(in, obs, Options{Notes: map[string][]string{"cor-1": {"run-migrations-in-a-transaction"}}})
	if got := sessionsOf(eps); !reflect.DeepEqual(got, [][]string{{"s1", "s2", "s3"}, {"s4"}}) {
		t.Fatalf("groups = %v", got)
	}
	e := eps[0]
	if e.Outcome != OutcomeAbandoned || !reflect.DeepEqual(e.Decisions, []string{"dec-1"}) || !reflect.DeepEqual(e.Corrections, []string{"cor-1"}) ||
		!reflect.DeepEqual(e.Artifacts.Notes, []string{"run-migrations-in-a-transaction"}) {
		t.Errorf("episode = %+v", e)
	}
	if strings.Join(e.Lessons, "|") != "Chose pgx because pure Go|Run migrations in a transaction.|Did not work: pg_dump restore (too slow)" {
		t.Errorf("lessons = %q", e.Lessons)
	}
	if strings.Join(e.OpenThreads, "|") != "Do we need downtime?|Unresolved: pg_dump restore" {
		t.Errorf("open threads = %q", e.OpenThreads)
	}
}

func TestSummarize(t *testing.T) {
	rec := func(r traces.Record) traces.Record { return r }
	recs := []traces.Record{
		rec(traces.Record{Role: traces.RoleUser, Kind: traces.KindMessage, Text: "<system-reminder>x</system-reminder>", Marks: []string{traces.MarkInjected}, Cwd: "/r", Time: t0}),
		rec(traces.Record{Role: traces.RoleUser, Kind: traces.KindMessage, Text: "fix #12", Branch: "fix-12", Time: t0.Add(time.Minute)}),
		rec(traces.Record{Role: traces.RoleAssistant, Kind: traces.KindToolCall, Tool: "Edit", CallID: "1", Input: json.RawMessage(`{"file_path":"/r/a/b.go"}`)}),
		rec(traces.Record{Role: traces.RoleAssistant, Kind: traces.KindToolCall, Tool: "Write", CallID: "2", Input: json.RawMessage(`{"file_path":"/r/secret.go"}`)}),
		rec(traces.Record{Role: traces.RoleTool, Kind: traces.KindToolResult, CallID: "2", Marks: []string{traces.MarkRejected}}),
		rec(traces.Record{Role: traces.RoleAssistant, Kind: traces.KindToolCall, Tool: "Bash", CallID: "3", Input: json.RawMessage(`{"command":"git add a/b.go && git commit -m \"fix: nil map (#12)\""}`)}),
		rec(traces.Record{Role: traces.RoleAssistant, Kind: traces.KindToolCall, Tool: "Read", CallID: "4", Input: json.RawMessage(`{"file_path":"/elsewhere/c.go"}`)}),
		rec(traces.Record{Role: traces.RoleAssistant, Kind: traces.KindToolCall, Tool: "Bash", CallID: "5", Input: json.RawMessage(`not json`), Time: t0.Add(time.Hour)}),
	}
	s := Summarize("x", recs)
	if !reflect.DeepEqual(s.Files, []string{"/elsewhere/c.go", "a/b.go"}) || !reflect.DeepEqual(s.Commits, []string{"fix: nil map (#12)"}) ||
		!reflect.DeepEqual(s.Prompts, []string{"fix #12"}) || s.Branch != "fix-12" || !s.End.Equal(t0.Add(time.Hour)) || !s.Start.Equal(t0) {
		t.Errorf("summary = %+v", s)
	}
	if got := Tasks("see #12, PROJ-7 and (#3) but not abc-1 or x#4"); !reflect.DeepEqual(got, []string{"#12", "PROJ-7", "#3"}) {
		t.Errorf("tasks = %v", got)
	}
}

func TestRenderParse(t *testing.T) {
	e := &Episode{ID: "ep-1", Title: "Fix retries", Goal: "fix the retry bug: it double-charges", Outcome: OutcomeAccomplished,
		Scope: Scope{Sessions: []string{"a", "b"}, From: t0, To: t0.Add(2 * time.Hour), Branch: "fix-retry"},
		Tasks: []string{"#412"}, Decisions: []string{"dec-1"}, Corrections: []string{"cor-1"}, Lessons: []string{"Use idempotency keys."},
		OpenThreads: []string{"Add a metric"}, Artifacts: Artifacts{Files: []string{"pay/retry.go"}, Commits: []string{"fix: retry"}, Notes: []string{"idem"}}}
	b, err := Render(e)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse("episodes/ep-1.md", b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, e) {
		t.Errorf("round trip:\n%+v\n%+v", got, e)
	}
	if Edited(b) {
		t.Error("fresh render counts as edited")
	}
	b2, _ := Render(e)
	if string(b2) != string(b) {
		t.Error("render not deterministic")
	}
	if !Edited([]byte(strings.Replace(string(b), "Use idempotency keys.", "Use idempotency keys everywhere.", 1))) {
		t.Error("edit not detected")
	}
	if !Edited([]byte("---\nid: x\ntype: episode\n---\nhand written\n")) {
		t.Error("file without digest not treated as a person's")
	}
	for _, bad := range []string{
		"---\ntype: note\n---\n",
		"---\ntype: episode\noutcome: maybe\n---\n",
		"---\ntype: episode\nsessions: {a: 1}\n---\n",
		"---\ntype: episode\nfrom: yesterday\n---\n",
		"---\ntype: episode\nsessions: [[a]]\n---\n",
		"---\ntype: [\n---\n",
	} {
		if _, err := Parse("x.md", []byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		} else if pe, ok := err.(*ParseError); !ok || pe.Path != "x.md" {
			t.Errorf("%q: error %T %v", bad, err, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	e := &Episode{ID: "ep-1", Title: "T", Goal: "g", Outcome: OutcomeOpen, Scope: Scope{Sessions: []string{"a"}, From: t0, To: t0}}
	b, _ := Render(e)
	f.Add(b)
	f.Add([]byte("---\ntype: episode\nsessions: [a, b]\nfrom: 2026-01-01\n---\nbody"))
	f.Add([]byte("---\nlessons: {x: [1, 2]}\n---\n"))
	f.Add([]byte("no frontmatter"))
	f.Fuzz(func(t *testing.T, src []byte) {
		e, err := Parse("f.md", src)
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error type %T", err)
			}
			return
		}
		if _, err := Render(e); err != nil {
			t.Fatalf("render of a parsed episode: %v", err)
		}
		_ = Edited(src)
	})
}

func BenchmarkGroup1000(b *testing.B) {
	var in []SessionSummary
	for i := range 1000 {
		in = append(in, sess("s"+string(rune('a'+i%26))+itoa(i), float64(i*7), "main",
			[]string{"pkg" + itoa(i%40) + "/a.go", "pkg" + itoa(i%40) + "/b.go"}, "work on component "+itoa(i%40)))
	}
	b.ResetTimer()
	for b.Loop() {
		Group(in, nil, Options{})
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for n > 0 {
		d = append([]byte{byte('0' + n%10)}, d...)
		n /= 10
	}
	return string(d)
}

func TestGoalPrompt(t *testing.T) {
	cases := []struct {
		prompts []string
		want    string
	}{
		{[]string{"please fix these", "Can you please add tests for the new cache version compatibility check?"}, "Can you please add tests for the new cache version compatibility check?"},
		{[]string{"Add retries to the rates client with exponential backoff"}, "Add retries to the rates client with exponential backoff"},
		{[]string{"continue", "ok", "yes do it"}, "continue"},
		{[]string{"ship the cart fix", "no, never force push to main. Push a branch and open a pull request instead."}, "ship the cart fix"},
		{nil, ""},
	}
	for _, c := range cases {
		s := SessionSummary{Prompts: c.prompts}
		if got := s.GoalPrompt(); got != c.want {
			t.Errorf("GoalPrompt(%q) = %q, want %q", c.prompts, got, c.want)
		}
	}
}

// TestEditedReadsBothDigests: testdata/byte-digest.md was written when an
// episode's kb_digest hashed the file's bytes. It still reads as kb's own
// (so a build may rewrite it), an edit of it still shows, and what Render
// writes now carries the one digest every layer uses (doc.Digest).
func TestEditedReadsBothDigests(t *testing.T) {
	old, err := os.ReadFile("testdata/byte-digest.md")
	if err != nil {
		t.Fatal(err)
	}
	if Edited(old) {
		t.Error("a file kb wrote with the byte digest reads as edited")
	}
	if !Edited([]byte(strings.Replace(string(old), "run the tests twice", "run the tests three times", 1))) {
		t.Error("an edit of a byte-digest file is not seen")
	}
	e, err := Parse("episodes/ep-0123456789.md", old)
	if err != nil {
		t.Fatal(err)
	}
	now, err := Render(e)
	if err != nil {
		t.Fatal(err)
	}
	if Edited(now) {
		t.Error("fresh render reads as edited")
	}
	d, _ := markdown.Parse("", now)
	if d.Fields[DigestKey] != doc.Digest(d.Fields, d.Body, nil, nil) {
		t.Errorf("Render's digest %v is not doc.Digest", d.Fields[DigestKey])
	}
	// Apart from the digest, the file is what it was.
	strip := func(b []byte) string {
		var keep []string
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(l, DigestKey+":") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	if strip(now) != strip(old) {
		t.Errorf("render changed:\n%s\nwas:\n%s", now, old)
	}
}

// TestPlanBuild: a person's episode is kept and so are its sessions (a new
// episode sharing one is not written); a kb-written episode no grouping
// makes any more is removed; the rest is rendered.
func TestPlanBuild(t *testing.T) {
	ep := func(id string, sessions ...string) Episode {
		return Episode{ID: id, Title: id, Goal: "g", Outcome: OutcomeOpen, Scope: Scope{Sessions: sessions}}
	}
	mine := ep("ep-mine", "s1")
	existing := []*File{
		{Path: FilePath("ep-mine"), Episode: &mine, Edited: true},
		{Path: FilePath("ep-stale"), Episode: &Episode{ID: "ep-stale"}},
		{Path: FilePath("ep-kept-by-kb"), Episode: &Episode{ID: "ep-kept-by-kb"}},
	}
	b, err := PlanBuild([]Episode{ep("ep-mine", "s1"), ep("ep-clash", "s1", "s2"), ep("ep-new", "s3"), ep("ep-kept-by-kb", "s4")}, existing)
	if err != nil {
		t.Fatal(err)
	}
	var written []string
	for _, w := range b.Write {
		written = append(written, w.Path)
	}
	if !slices.Equal(written, []string{FilePath("ep-new"), FilePath("ep-kept-by-kb")}) ||
		!slices.Equal(b.Kept, []string{FilePath("ep-mine")}) || !slices.Equal(b.Remove, []string{FilePath("ep-stale")}) {
		t.Errorf("write %v, kept %v, remove %v", written, b.Kept, b.Remove)
	}
}

// TestTitleWithoutPrompts: a session with no prompt is named by what it
// did (commit, files, branch and day), never by its id.
func TestTitleWithoutPrompts(t *testing.T) {
	files := sess("f1", 0, "main", []string{"web/timeline.html", "web/renderer.py", "web/app.js", "web/x.css"})
	commit := sess("c1", 50, "main", nil)
	commit.Commits = []string{"Fix the rounding of totals\n\nlonger body"}
	bare := sess("0d3e9b20-0000-4000-8000-000000000009", 100, "feature/x", nil)
	for _, c := range []struct {
		in   SessionSummary
		want string
	}{
		{files, "Work on app.js, renderer.py, timeline.html and 1 more"},
		{commit, "Fix the rounding of totals"},
		{bare, "Session on branch feature/x on " + bare.Start.Format("2006-01-02")},
	} {
		eps := Group([]SessionSummary{c.in}, nil, Options{})
		if len(eps) != 1 || eps[0].Title != c.want || strings.Contains(eps[0].Title, c.in.ID) {
			t.Errorf("%s: title %q, want %q", c.in.ID, eps[0].Title, c.want)
		}
	}
}
