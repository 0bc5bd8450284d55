package kb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kbmem/kb/observations"
)

// rcKB is a fresh KB in a temp dir, quiet.
func rcKB(t testing.TB) *KB {
	t.Helper()
	root := filepath.Join(t.TempDir(), "kb")
	if _, err := Init(root); err != nil {
		t.Fatal(err)
	}
	k, err := OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	k.Logf = func(string, ...any) {}
	return k
}

// rcCorrection saves a correction seen in the given sessions.
// rcProject is the working directory of the fixture sessions: extracted
// lessons know their project.
const rcProject = "/p"

func rcCorrection(t testing.TB, k *KB, trigger, lesson string, types []string, sessions ...string) *observations.Observation {
	t.Helper()
	if len(sessions) == 0 {
		sessions = []string{"6f1c0d3e-aaaa-bbbb-cccc-000000000001"}
	}
	now := time.Now().UTC().Add(-24 * time.Hour).Truncate(time.Second)
	o := &observations.Observation{Type: observations.TypeCorrection, Title: lesson, Trigger: trigger, Lesson: lesson,
		ActionTypes: types, Importance: 0.8, Confidence: 0.9, Status: observations.StatusCandidate,
		Lifecycle: observations.LifecycleSelf, FirstSeen: now, LastSeen: now, Projects: []string{rcProject}}
	if len(types) > 0 {
		o.ActionType = types[0]
	}
	for i, s := range sessions {
		o.Sources = append(o.Sources, observations.SourceRef{Session: s, From: 2 + i, To: 4 + i, Time: now})
	}
	o.Sessions = len(sessions)
	rcSave(t, k, o)
	return o
}

func rcSave(t testing.TB, k *KB, o *observations.Observation) {
	t.Helper()
	if _, _, err := k.SaveObservation(o, nil); err != nil {
		t.Fatal(err)
	}
}

func rcWrite(t testing.TB, k *KB, rel, content string) {
	t.Helper()
	p := filepath.Join(k.Root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func rcRecall(t testing.TB, k *KB, q RecallQuery) *RecallResult {
	t.Helper()
	r, err := k.Recall(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func rcBash(cmd string) (string, json.RawMessage) {
	b, _ := json.Marshal(map[string]string{"command": cmd})
	return "Bash", b
}

func TestRecallActionTypeMatch(t *testing.T) {
	k := rcKB(t)
	o := rcCorrection(t, k, "a migration that drops a column",
		"Three-phase column removal: add the new column, deploy, then drop the old one in a separate migration.",
		[]string{"sql:drop-column", "db:migration"})
	in, _ := json.Marshal(map[string]string{"file_path": "/src/app/migrations/0042.sql", "content": "ALTER TABLE users DROP COLUMN legacy_flag;"})
	r := rcRecall(t, k, RecallQuery{Tool: "Write", Input: in, Cwd: "/src/app"})
	if len(r.Items) != 1 {
		t.Fatalf("items = %+v", r.Items)
	}
	it := r.Items[0]
	if it.ID != o.ID || it.Kind != KindCorrections || it.Path == "" {
		t.Errorf("item = %+v", it)
	}
	if !strings.HasPrefix(it.Text, "You are about to write `migrations/0042.sql`. In session 6f1c0d3e… this was corrected: Three-phase") {
		t.Errorf("text = %q", it.Text)
	}
	if !strings.HasSuffix(it.Text, "["+o.ID+"]") {
		t.Errorf("text lacks the id: %q", it.Text)
	}
	if !strings.Contains(strings.Join(it.Reasons, "; "), "action type sql:drop-column matches") {
		t.Errorf("reasons = %v", it.Reasons)
	}
	if !it.HighConsequence || it.ActionType != "sql:drop-column" {
		t.Errorf("high consequence not flagged: %+v", it)
	}
	md := r.Markdown()
	if !strings.Contains(md, it.Text) || !strings.Contains(md, "kb show") {
		t.Errorf("markdown = %q", md)
	}
	// The same lesson from the task text alone (no tool call): BEFORE form.
	r = rcRecall(t, k, RecallQuery{Task: "remove the deprecated column from the users table"})
	if len(r.Items) != 1 || !strings.HasPrefix(r.Items[0].Text, "BEFORE a migration that drops a column: Three-phase") {
		t.Fatalf("task recall = %+v", r.Items)
	}
}

func TestRecallDistractorsSayNothing(t *testing.T) {
	k := rcKB(t)
	rcCorrection(t, k, "committing: `git commit -m 'Updated the ledger balance code'`",
		"Use conventional commits: type(scope): summary, like fix(ledger): round balances half-even.", []string{"git:commit"})
	rcCorrection(t, k, "hand-editing a generated file: Edit `api/gen/transfer.pb.go`",
		"Never hand-edit generated code under api/gen. Change the .proto file and run make generate.",
		[]string{"edit:generated-file", "api:schema", "code:generate"})
	for _, q := range []RecallQuery{
		{Action: "git status"},
		{Action: "ls api/proto"},
		{Tool: "Edit", Input: json.RawMessage(`{"file_path":"/p/docs/ledger.md","old_string":"Balances","new_string":"Account balances"}`), Cwd: "/p"},
		{Task: "summarise what the reconcile job does"},
		{Tool: "Read", Input: json.RawMessage(`{"file_path":"/p/api/gen/transfer.pb.go"}`)},
		{},
	} {
		if r := rcRecall(t, k, q); len(r.Items) != 0 {
			t.Errorf("%+v fired: %+v", q, r.Items)
		}
	}
	// And the real cues do fire.
	tool, in := rcBash("git commit -m 'Added retries'")
	if r := rcRecall(t, k, RecallQuery{Tool: tool, Input: in}); len(r.Items) != 1 {
		t.Errorf("commit: %+v", r.Items)
	}
	if r := rcRecall(t, k, RecallQuery{Task: "add a memo field to the Payment API message"}); len(r.Items) != 1 {
		t.Errorf("api message: %+v", r.Items)
	}
}

func TestRecallLexical(t *testing.T) {
	k := rcKB(t)
	o := &observations.Observation{Type: observations.TypeNegativeResult, Title: "Caching the exchange rates in Redis",
		Approach: "caching exchange rates in redis with a one hour ttl", Failure: "stale rates broke the nightly reconciliation",
		FollowedBy: "fetch rates per batch", Importance: 0.6, Sessions: 1}
	rcSave(t, k, o)
	r := rcRecall(t, k, RecallQuery{Task: "let's cache the exchange rates in redis"})
	if len(r.Items) != 1 || r.Items[0].Kind != KindPrecedents || !strings.HasPrefix(r.Items[0].Text, "AVOID: caching exchange rates") {
		t.Fatalf("items = %+v", r.Items)
	}
	if rs := strings.Join(r.Items[0].Reasons, "; "); !strings.Contains(rs, "trigger words: ") || !strings.Contains(rs, "redis") {
		t.Errorf("reasons = %q", rs)
	}
	// Two words in common with a long text are not enough.
	if r := rcRecall(t, k, RecallQuery{Task: "print the exchange rates table"}); len(r.Items) != 0 {
		t.Errorf("weak overlap fired: %+v", r.Items)
	}
}

func TestRecallLibraryTriggers(t *testing.T) {
	k := rcKB(t)
	rcWrite(t, k, "library/conventions/signing-keys.md", `---
id: signing-keys
type: convention
title: Rotating signing keys
description: Rotate keys with scripts/rotate.sh, never by hand, and announce it in #ops first.
triggers: ["rotate the signing keys", "deploy:production"]
---
Body.
`)
	rcWrite(t, k, "library/notes/unrelated.md", "---\nid: unrelated\ntype: note\ntitle: Office plants\n---\nWater them.\n")
	r := rcRecall(t, k, RecallQuery{Task: "we need to rotate the signing keys today"})
	if len(r.Items) != 1 || r.Items[0].ID != "signing-keys" || r.Items[0].Kind != KindLibrary {
		t.Fatalf("phrase trigger: %+v", r.Items)
	}
	if !strings.HasPrefix(r.Items[0].Text, "CONVENTION Rotating signing keys: Rotate keys with") {
		t.Errorf("text = %q", r.Items[0].Text)
	}
	tool, in := rcBash("kubectl apply -f deploy.yaml --context prod-eu")
	r = rcRecall(t, k, RecallQuery{Tool: tool, Input: in})
	if len(r.Items) != 1 || !strings.Contains(strings.Join(r.Items[0].Reasons, ";"), "deploy:production") {
		t.Fatalf("type trigger: %+v", r.Items)
	}
}

func TestRecallPriorityAndStatus(t *testing.T) {
	k := rcKB(t)
	old := rcCorrection(t, k, "running the whole test suite", "Run go test -short locally.", []string{"test:run-all"})
	often := rcCorrection(t, k, "running the whole test suite", "Start the database container before the integration tests.",
		[]string{"test:run-all", "test:run"}, "s-1", "s-2", "s-3")
	gone := &observations.Observation{Type: observations.TypeCorrection, Trigger: "running the whole test suite",
		Lesson: "Use make test-all.", ActionTypes: []string{"test:run-all"}, Status: observations.StatusSuperseded, Sessions: 1}
	rcSave(t, k, gone)
	tool, in := rcBash("go test ./...")
	r := rcRecall(t, k, RecallQuery{Tool: tool, Input: in})
	if len(r.Items) != 2 {
		t.Fatalf("items = %+v", r.Items)
	}
	if r.Items[0].ID != often.ID || r.Items[1].ID != old.ID {
		t.Errorf("order = %s, %s", r.Items[0].ID, r.Items[1].ID)
	}
	if !strings.Contains(strings.Join(r.Items[0].Reasons, ";"), "seen in 3 sessions") || !strings.Contains(r.Items[0].Text, "3 times") {
		t.Errorf("frequency not reported: %+v", r.Items[0])
	}
	if r.Items[0].Score <= r.Items[1].Score {
		t.Errorf("scores %v <= %v", r.Items[0].Score, r.Items[1].Score)
	}
}

func TestRecallBudget(t *testing.T) {
	k := rcKB(t)
	for i := 0; i < 40; i++ {
		rcCorrection(t, k, "force-pushing a branch", fmt.Sprintf("Lesson number %d: never force-push a shared branch; open a revert PR and ask in the channel first.", i),
			[]string{"git:push-force"})
	}
	rcSave(t, k, &observations.Observation{Type: observations.TypePreference, Domain: "git", Statement: "Prefer rebasing feature branches before pushing.",
		ActionTypes: []string{"git:push"}, Sessions: 2, Importance: 0.3})
	tool, in := rcBash("git push --force origin feature")
	for _, budget := range []int{60, 300, 1200} {
		r := rcRecall(t, k, RecallQuery{Tool: tool, Input: in, Budget: budget})
		if r.Tokens > budget || Tokens(r.Markdown()) > budget {
			t.Errorf("budget %d: %d tokens", budget, r.Tokens)
		}
		if r.Dropped == 0 || len(r.Items) == 0 {
			t.Errorf("budget %d: kept %d dropped %d", budget, len(r.Items), r.Dropped)
		}
		if budget == 1200 {
			// The preference keeps its reserved share against 40 corrections.
			found := false
			for _, it := range r.Items {
				found = found || it.Kind == KindPreferences
			}
			if !found {
				t.Errorf("preference crowded out: %+v", r.Items)
			}
		}
	}
}

func TestRecallStanding(t *testing.T) {
	k := rcKB(t)
	rcCorrection(t, k, "committing", "Use conventional commits.", []string{"git:commit"}, "s-1", "s-2")
	rcCorrection(t, k, "committing", "Sign this one commit with the release key.", []string{"git:commit"}) // one-off: not standing
	rcSave(t, k, &observations.Observation{Type: observations.TypeDiscovery, Claim: "The reconcile job runs nightly.", Sessions: 1})
	rcWrite(t, k, "library/conventions/errors.md", "---\nid: wrap-errors\ntype: convention\ntitle: Wrap errors once\ndescription: Wrap errors with context once, at the boundary.\n---\n")
	r := rcRecall(t, k, RecallQuery{Standing: true})
	if len(r.Items) != 2 {
		t.Fatalf("items = %+v", r.Items)
	}
	for _, it := range r.Items {
		if it.Kind != KindCorrections && it.Kind != KindLibrary {
			t.Errorf("unexpected standing item %+v", it)
		}
	}
}

func TestRecallBroaderTypeNeedsWords(t *testing.T) {
	k := rcKB(t)
	rcCorrection(t, k, "running the whole test suite: `go test ./...`", "Run go test -short ./... locally; the integration tests run in CI.",
		[]string{"test:run-all", "test:run"})
	rcCorrection(t, k, "adding a dependency: `pip install httpx`", "This project is managed with uv: uv add for dependencies, uv run to execute anything.",
		[]string{"pkg:install", "pkg:pip", "py:run"})
	cases := map[string]string{
		"go test ./...":          "-short", // the corrected action itself
		"go test ./store/":       "",       // only the broader "running tests"
		"python scripts/fx.py":   "uv run", // a secondary type of another domain
		"pip install -r req.txt": "uv add", // exact
		"go vet ./...":           "",       // unrelated
	}
	for cmd, want := range cases {
		tool, in := rcBash(cmd)
		md := rcRecall(t, k, RecallQuery{Tool: tool, Input: in}).Markdown()
		if want == "" && md != "" || want != "" && !strings.Contains(md, want) {
			t.Errorf("%s: got %q, want %q", cmd, md, want)
		}
	}
}

func TestRecallFollowingTheLessonIsNoCue(t *testing.T) {
	k := rcKB(t)
	rcCorrection(t, k, "deleting files recursively (rm -r): `rm -rf dist build node_modules`",
		"Never rm -rf node_modules here, it takes ages to reinstall. Use pnpm run clean which only removes dist and build.",
		[]string{"fs:delete-recursive", "fs:delete", "edit:vendored", "pkg:npm"})
	rcCorrection(t, k, "force-pushing a branch: `git push --force origin main`",
		"Never force push to main. Use --force-with-lease, and only on your own feature branch.", []string{"git:push-force", "git:push"})
	for cmd, want := range map[string]bool{
		"rm -rf node_modules":                     true,
		"pnpm test":                               false, // runs what the lesson prescribes
		"git push -f origin main":                 true,
		"git push origin feature/cart-totals":     false, // a plain push: the broader type, no words of the lesson
		"git push --force-with-lease origin x":    false, // the lesson's own advice, on a branch of one's own
		"git push --force-with-lease origin main": true,
	} {
		tool, in := rcBash(cmd)
		if got := len(rcRecall(t, k, RecallQuery{Tool: tool, Input: in}).Items) > 0; got != want {
			t.Errorf("%s: fired = %v, want %v", cmd, got, want)
		}
	}
}

func TestRecallIncidentalTypes(t *testing.T) {
	k := rcKB(t)
	rcCorrection(t, k, "leaving console.log calls in code: Edit `src/handler.ts`",
		"Do not use console.log in committed code. Use the pino logger: logger.info with fields.", []string{"js:console-log", "git:commit"})
	rcCorrection(t, k, "regenerating test snapshots or golden files: `npx jest -u`",
		"Do not just update the snapshots to make the test pass. Find out why the output changed first.",
		[]string{"test:update-snapshots", "pkg:npm", "test:run"})
	rcCorrection(t, k, "making files world-writable (chmod 777): `sudo chmod -R 777 /var/cache`",
		"Do not use sudo in the dev container and never chmod 777.", []string{"fs:chmod-world-writable", "fs:permissions", "sys:sudo"})
	edit, _ := json.Marshal(map[string]string{"file_path": "/p/src/a.ts", "old_string": "x", "new_string": "console.log(x)"})
	for _, c := range []struct {
		tool  string
		input json.RawMessage
		want  string
	}{
		{"Edit", edit, "pino"},
		{"Bash", json.RawMessage(`{"command":"git commit -m 'fix: totals'"}`), ""}, // git:commit came from "committed code"
		{"Bash", json.RawMessage(`{"command":"npx jest -u"}`), "snapshots"},
		{"Bash", json.RawMessage(`{"command":"npx jest src/orders.test.ts"}`), ""},    // npx is incidental to the snapshot lesson
		{"Bash", json.RawMessage(`{"command":"sudo apt-get install -y jq"}`), "sudo"}, // the lesson names sudo
	} {
		md := rcRecall(t, k, RecallQuery{Tool: c.tool, Input: c.input, Cwd: "/p"}).Markdown()
		if c.want == "" && md != "" || c.want != "" && !strings.Contains(md, c.want) {
			t.Errorf("%s %s: got %q, want %q", c.tool, c.input, md, c.want)
		}
	}
}

func TestRecallQuestionsNeedTheLessonsWords(t *testing.T) {
	k := rcKB(t)
	rcCorrection(t, k, "committing: `git commit -m 'wip'`", "Use conventional commits: type(scope): summary.", []string{"git:commit"})
	rcCorrection(t, k, "adding a dependency: `pip install httpx`", "This project is managed with uv: uv add for dependencies.", []string{"pkg:install", "pkg:pip"})
	for task, want := range map[string]bool{
		"what does the commit hook do?":      false, // asks about commits, commits nothing
		"can you commit this?":               true,  // a request phrased as a question
		"how do I add the pandas dependency": true,  // the lesson's own words
		"explain how pip resolves versions":  false,
	} {
		if got := len(rcRecall(t, k, RecallQuery{Task: task}).Items) > 0; got != want {
			t.Errorf("%q: fired = %v, want %v", task, got, want)
		}
	}
}

// rcEmbedServer is an OpenAI-compatible /v1/embeddings endpoint whose
// "model" maps words to a few concepts, so that texts about the same
// concept embed close together whatever their words.
func rcEmbedServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	concepts := map[string]int{"drop": 0, "remove": 0, "removal": 0, "delete": 0, "rid": 0, "obsolete": 0,
		"column": 1, "field": 1, "columns": 1, "fields": 1, "attribute": 1,
		"deploy": 2, "release": 2, "ship": 2, "production": 2, "prod": 2}
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct{ Input []string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/v1/embeddings" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		for i, in := range req.Input {
			v := make([]float32, 8)
			v[7] = 0.2 // every text shares a little
			for _, w := range strings.FieldsFunc(strings.ToLower(in), func(r rune) bool { return r < 'a' || r > 'z' }) {
				if c, ok := concepts[w]; ok {
					v[c]++
				}
			}
			data = append(data, item{Index: i, Embedding: v})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data, "model": "concepts"})
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestRecallEmbeddings(t *testing.T) {
	k := rcKB(t)
	rcCorrection(t, k, "a migration that drops a column",
		"Three-phase column removal: stop writing it, deploy, then drop it in a later migration.", []string{"sql:drop-column"})
	rcCorrection(t, k, "deploying to production", "Only the release pipeline ships to production.", []string{"deploy:production"})
	task := "get rid of the obsolete attribute on invoices"
	if r := rcRecall(t, k, RecallQuery{Task: task}); len(r.Items) != 0 {
		t.Fatalf("without embeddings: %+v", r.Items)
	}
	srv, calls := rcEmbedServer(t)
	k.Config.Embeddings = EmbeddingsConfig{Enabled: true, BaseURL: srv.URL, Model: "concepts"}
	r := rcRecall(t, k, RecallQuery{Task: task})
	if len(r.Items) != 1 || !strings.Contains(r.Items[0].Text, "Three-phase column removal") ||
		!strings.Contains(strings.Join(r.Items[0].Reasons, ";"), "semantic similarity") {
		t.Fatalf("with embeddings: %+v", r.Items)
	}
	// Vectors are cached: the same recall embeds nothing new.
	n := calls.Load()
	rcRecall(t, k, RecallQuery{Task: task})
	if calls.Load() != n {
		t.Errorf("cached vectors were embedded again")
	}
	// Distractors stay silent with embeddings on.
	if r := rcRecall(t, k, RecallQuery{Task: "rename the invoice module"}); len(r.Items) != 0 {
		t.Errorf("distractor: %+v", r.Items)
	}
	// A dead endpoint only turns the layer off.
	srv.Close()
	if r := rcRecall(t, k, RecallQuery{Task: "something else entirely about fields"}); len(r.Items) != 0 {
		t.Errorf("dead endpoint: %+v", r.Items)
	}
}

// TestRecallFastPath: after a sync, recall trusts the index when no layer
// directory changed, and notices a new observation (an atomic write changes
// its directory) without a full scan.
func TestRecallFastPath(t *testing.T) {
	k := rcKB(t)
	rcCorrection(t, k, "force-pushing a branch", "Never force-push main; open a revert PR instead.", []string{"git:push-force"})
	x, _, err := k.OpenIndex(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	x.Close()
	if !k.dirsUnchanged() {
		t.Fatal("right after a sync the directories should be unchanged")
	}
	rcCorrection(t, k, "dropping a column", "Drop columns in three phases, never in one migration.", []string{"sql:drop-column"})
	if k.dirsUnchanged() {
		t.Fatal("a new observation file did not change its directory's stamp")
	}
	r := rcRecall(t, k, RecallQuery{Action: `psql -c "ALTER TABLE accounts DROP COLUMN legacy_flag"`})
	if len(r.Items) == 0 || !strings.Contains(r.Items[0].Text, "three phases") {
		t.Fatalf("the new observation was not recalled: %+v", r.Items)
	}
	if !k.dirsUnchanged() {
		t.Fatal("recall's sync did not record the directories")
	}
}

// TestRecallEquivalentsFromConfig: kb.yaml's recall.equivalents extend the
// lexicon of equivalents, so a request in the team's own words reaches the
// cue of the action they stand for; a malformed line is a config error.
func TestRecallEquivalentsFromConfig(t *testing.T) {
	k := rcKB(t)
	rcCorrection(t, k, "deploying to production", "Never deploy prod from a laptop; the release pipeline does it.", []string{"deploy:production"})
	prompt := RecallQuery{Task: "cut the ledger tag for the customers"}
	if r := rcRecall(t, k, prompt); len(r.Items) != 0 {
		t.Fatalf("recalled before the equivalent was configured: %+v", r.Items)
	}
	k.Config.Recall.Equivalents = []string{"cut the * tag => deploy production"}
	if r := rcRecall(t, k, prompt); len(r.Items) != 1 || !strings.Contains(r.Items[0].Text, "release pipeline") {
		t.Errorf("with recall.equivalents: %+v", r.Items)
	}
	_, err := ParseConfig([]byte("version: 1\nrecall:\n  equivalents: [\"no arrow here\"]\n"))
	var ce *ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "recall.equivalents") {
		t.Errorf("bad equivalents line: %v", err)
	}
}

// TestRecallBroadTypeNeedsSignal: on a tool call, a broad action type
// alone does not fire a lesson about something else: an install of
// another ecosystem does not get the pnpm lesson (one of its own tools
// does), a commit does not get a lesson whose advice merely mentions
// committing, and a lesson that is a pasted error fires on nothing.
func TestRecallBroadTypeNeedsSignal(t *testing.T) {
	k := rcKB(t)
	rcCorrection(t, k, "adding or installing a dependency: `cd web && npm install date-fns`",
		"This is a pnpm workspace: `pnpm --filter console add <pkg>` from web/. No npm/npx/yarn in here.", []string{"pkg:install", "pkg:npm"})
	rcCorrection(t, k, "applying infrastructure changes: `terraform apply tfplan`",
		"Nothing gets applied to prod from your shell. Commit the change, push the branch and open a PR.", []string{"infra:terraform-apply", "git:commit", "git:push"})
	rcCorrection(t, k, "when asked to fix the retry test",
		"E AssertionError: Expected 'get' to have been called once. Called 2 times.", []string{"test:modify"})
	ids := func(cmd string) []string {
		tool, in := rcBash(cmd)
		var out []string
		for _, it := range rcRecall(t, k, RecallQuery{Tool: tool, Input: in}).Items {
			out = append(out, it.Text)
		}
		return out
	}
	if got := ids("go get github.com/jackc/pgx/v5@v5.7.2"); len(got) != 0 {
		t.Errorf("go get got %q", got)
	}
	if got := ids("cd web/driver-app && yarn add zod"); len(got) != 1 || !strings.Contains(got[0], "pnpm workspace") {
		t.Errorf("yarn add got %q", got)
	}
	if got := ids(`git commit -m "feat(dispatch): expose depot opening hours"`); len(got) != 0 {
		t.Errorf("a plain commit got %q", got)
	}
	if got := ids("terraform apply tfplan"); len(got) != 1 {
		t.Errorf("the corrected action itself got %q", got)
	}
	r := rcRecall(t, k, RecallQuery{Task: "the assertion error says expected get to have been called once"})
	if len(r.Items) != 0 {
		t.Errorf("a pasted error fired: %+v", r.Items)
	}
}
