package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kbmem/kb/kb"
	"github.com/kbmem/kb/observations"
)

// testKB is a fresh, quiet KB holding two corrections a person made:
// never force-push main (git:push-force), conventional commits
// (git:commit). PreToolUse recall asks.
func testKB(t *testing.T) *kb.KB {
	t.Helper()
	root := filepath.Join(t.TempDir(), "kb")
	if _, err := kb.Init(root); err != nil {
		t.Fatal(err)
	}
	k, err := kb.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	k.Logf = func(string, ...any) {}
	k.Config.Recall.PreToolUse = "ask"
	now := time.Now().UTC().Add(-24 * time.Hour).Truncate(time.Second)
	for _, c := range []struct {
		trigger, lesson string
		types           []string
	}{
		{"force-pushing a branch", "Never force-push main; open a revert PR instead.", []string{"git:push-force", "git:push"}},
		{"committing", "Use conventional commits: type(scope): summary.", []string{"git:commit"}},
	} {
		o := &observations.Observation{Type: observations.TypeCorrection, Title: c.lesson, Trigger: c.trigger, Lesson: c.lesson,
			ActionTypes: c.types, ActionType: c.types[0], Importance: 0.8, Confidence: 0.9, Status: observations.StatusCandidate,
			Lifecycle: observations.LifecycleSelf, FirstSeen: now, LastSeen: now, Sessions: 1,
			Sources: []observations.SourceRef{{Session: "6f1c0d3e-aaaa-bbbb-cccc-000000000001", From: 2, To: 4, Time: now}}}
		if _, _, err := k.SaveObservation(o, nil); err != nil {
			t.Fatal(err)
		}
	}
	return k
}

// writeDoc writes a file of the KB.
func writeDoc(t *testing.T, k *kb.KB, rel, content string) {
	t.Helper()
	p := filepath.Join(k.Root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func testClient(t *testing.T, k *kb.KB) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, k, "test", st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		<-done
	})
	return cs
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out map[string]any
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &out)
	}
	return res, out
}

func toolText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestMCPTools(t *testing.T) {
	k := testKB(t)
	writeDoc(t, k, "library/adrs/adr-0001-bleve.md", "---\nid: adr-0001-bleve\ntype: adr\ntitle: Use bleve for search\ndescription: We chose bleve over sqlite FTS for stemming.\n---\nSee [[wrap-errors]].\n")
	writeDoc(t, k, "library/conventions/errors.md", "---\nid: wrap-errors\ntype: convention\ntitle: Wrap errors once\n---\nBody.\n")
	cs := testClient(t, k)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if strings.Join(names, ",") != "links,recall,remember,search,show,why" {
		t.Errorf("tools = %v", names)
	}

	res, out := callTool(t, cs, "recall", map[string]any{"action": "git push --force origin main"})
	if res.IsError || !strings.Contains(toolText(res), "Never force-push main") || !strings.Contains(out["markdown"].(string), "You are about to run") {
		t.Errorf("recall: %s %v", toolText(res), out)
	}
	res, _ = callTool(t, cs, "recall", map[string]any{"tool": "Bash", "input": map[string]any{"command": "git status"}})
	if res.IsError || toolText(res) != "Nothing recorded applies." {
		t.Errorf("recall distractor: %s", toolText(res))
	}
	if res, _ = callTool(t, cs, "recall", map[string]any{}); !res.IsError {
		t.Errorf("empty recall accepted")
	}

	_, out = callTool(t, cs, "search", map[string]any{"query": "bleve"})
	if hits, _ := out["hits"].([]any); len(hits) != 1 {
		t.Errorf("search: %v", out)
	}
	_, out = callTool(t, cs, "why", map[string]any{"topic": "search engine bleve"})
	if hits, _ := out["hits"].([]any); len(hits) != 1 || !strings.Contains(hits[0].(map[string]any)["id"].(string), "adr-0001") {
		t.Errorf("why: %v", out)
	}
	_, out = callTool(t, cs, "show", map[string]any{"id": "adr-0001-bleve"})
	if out["title"] != "Use bleve for search" {
		t.Errorf("show: %v", out)
	}
	if res, _ := callTool(t, cs, "show", map[string]any{"id": "nope"}); !res.IsError {
		t.Errorf("show of a missing id is not an error")
	} else if msg := toolText(res); strings.Contains(msg, "kb search") || !strings.Contains(msg, "search tool") {
		// The agent speaks MCP: name the tool, not a shell command.
		t.Errorf("show of a missing id says %q", msg)
	}
	_, out = callTool(t, cs, "links", map[string]any{"id": "adr-0001-bleve"})
	if l, _ := out["links"].([]any); len(l) != 1 {
		t.Errorf("links: %v", out)
	}

	// remember: a correction that recall then finds; twice is one file.
	args := map[string]any{"type": "correction", "text": "Run the migrations with make migrate, never psql by hand.", "trigger": "running database migrations"}
	_, out = callTool(t, cs, "remember", args)
	if out["created"] != true || !strings.HasPrefix(out["path"].(string), "observations/correction/") {
		t.Fatalf("remember: %v", out)
	}
	_, again := callTool(t, cs, "remember", args)
	if again["created"] != false || again["id"] != out["id"] {
		t.Errorf("remember twice: %v", again)
	}
	if res, _ := callTool(t, cs, "remember", map[string]any{"type": "bogus", "text": "x"}); !res.IsError {
		t.Errorf("bad type accepted")
	}
	r, err := k.Recall(context.Background(), kb.RecallQuery{Task: "run the database migrations for the new table"})
	if err != nil || len(r.Items) != 1 || !strings.Contains(r.Items[0].Text, "make migrate") {
		t.Errorf("remembered correction not recalled: %+v", r.Items)
	}
	files, _, _ := k.LoadObservations(context.Background())
	for _, f := range files {
		if f.Obs.ID == out["id"] && (len(f.Obs.Sources) == 0 || f.Obs.Sources[0].Session != "mcp") {
			t.Errorf("source = %+v", f.Obs.Sources)
		}
		// The agent's words, kept as such until a person reviews them.
		if f.Obs.ID == out["id"] && (!f.Obs.NeedsReview() || f.Obs.Origin != observations.OriginMCPRemember) {
			t.Errorf("remembered over MCP: %+v", f.Obs)
		}
	}
}

// TestMCPBinary runs `kb mcp` as a process and talks to it over stdio.
func TestMCPBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the kb binary; skipped with -short")
	}
	_, file, _, _ := runtime.Caller(0)
	bin := filepath.Join(t.TempDir(), "kb")
	build := exec.Command("go", "build", "-o", bin, "./cmd/kb")
	build.Dir = filepath.Dir(filepath.Dir(file))
	if b, err := build.CombinedOutput(); err != nil {
		t.Skipf("cannot build kb: %v\n%s", err, b)
	}
	k := testKB(t)
	cmd := exec.Command(bin, "--kb", k.Root, "mcp")
	cmd.Env = append(os.Environ(), "KB_DIR=")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, _ := callTool(t, cs, "recall", map[string]any{"task": "force push the branch"})
	if !strings.Contains(toolText(res), "Never force-push main") {
		t.Errorf("recall over stdio: %s", toolText(res))
	}
}
