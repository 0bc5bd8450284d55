package kb

import (
	"bufio"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kbmem/kb/recall"
)

// realToolCalls returns every tool call of the Claude Code transcripts
// under dir, in file order.
func realToolCalls(t *testing.T, dir string) []RecallQuery {
	var files []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	var out []RecallQuery
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var line struct {
				Cwd     string `json:"cwd"`
				Message struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &line) != nil {
				continue
			}
			var blocks []struct {
				Type  string          `json:"type"`
				Name  string          `json:"name"`
				Input json.RawMessage `json:"input"`
			}
			if json.Unmarshal(line.Message.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				if b.Type == "tool_use" && b.Name != "" {
					out = append(out, RecallQuery{Tool: b.Name, Input: b.Input, Cwd: line.Cwd, Project: line.Cwd})
				}
			}
		}
		fh.Close()
	}
	return out
}

// realCallsKB is a KB built from the shared transcripts, its open index
// (closed with the test) and the transcripts' tool calls.
func realCallsKB(t *testing.T) (*KB, *Searcher, []RecallQuery) {
	src := trShared(t)
	k := newExtractKB(t)
	exImport(t, k, src)
	exExtract(t, k, ExtractOptions{})
	x, _, err := k.OpenIndex(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return k, x, realToolCalls(t, src)
}

// TestRecallRealToolCalls replays a third of the tool calls of the real
// transcripts against a KB built from the same transcripts and reports how
// often recall puts something into the agent's context, and why. It guards
// against lessons firing on unrelated calls (paths once counted as words:
// every file of a project shared "users", "workspace", the project's name,
// and 38% of calls recalled something, mostly unrelated).
func TestRecallRealToolCalls(t *testing.T) {
	_, x, calls := realCallsKB(t)
	ctx := context.Background()
	fired, items, tried := 0, 0, 0
	why := map[string]int{}
	for i := 0; i < len(calls); i += 3 {
		tried++
		res, err := x.Recall(ctx, calls[i])
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Items) > 0 {
			fired++
		}
		items += len(res.Items)
		for _, it := range res.Items {
			for _, r := range it.Reasons {
				r, _, _ = strings.Cut(r, ":")
				why[r]++
			}
		}
	}
	rate := float64(fired) / float64(max(tried, 1))
	t.Logf("%d tool calls tried (every third of %d): recall answered %d (%.0f%%) with %d items; reasons %v", tried, len(calls), fired, 100*rate, items, why)
	if rate > 0.3 {
		t.Errorf("recall answered %.0f%% of real tool calls: lessons fire on unrelated calls", 100*rate)
	}
}

// TestActivationIndexRecallsAsTheIndex replays the real tool calls against
// recall over the activation index (what hooks read) and over the bleve
// index (kb recall), on a KB built from the same transcripts: the items
// must be the same. The two rank the lexical candidates with their own
// scoring (BM25 over the compiled postings, bleve's over its fields), so
// a call whose words match more documents than the candidate limit may
// differ; the test allows a few and logs them.
func TestActivationIndexRecallsAsTheIndex(t *testing.T) {
	k, x, calls := realCallsKB(t)
	ctx := context.Background()
	c, err := recall.OpenCompiled(k.activationPath())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	e, err := recall.CompiledEngine(c, k.Config, k.ProjectRoot == k.Root, k.Root)
	if err != nil {
		t.Fatal(err)
	}
	ids := func(r *RecallResult) string {
		var out []string
		for _, it := range r.Items {
			out = append(out, it.ID)
		}
		return strings.Join(out, " ")
	}
	tried, differ, fired := 0, 0, 0
	for i := 0; i < len(calls); i += 3 {
		tried++
		want, err := x.Recall(ctx, calls[i])
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.Recall(ctx, calls[i])
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Items) > 0 {
			fired++
		}
		if ids(got) != ids(want) {
			differ++
			t.Logf("%s %.80s: activation index [%s], index [%s]", calls[i].Tool, calls[i].Input, ids(got), ids(want))
		}
	}
	t.Logf("%d calls, %d answered by the index, %d answered differently by the activation index", tried, fired, differ)
	// A new session's standing context, whose candidates the activation
	// index decodes in part until their files are read
	// (Compiled.standingRecord), is the index's, word for word.
	for _, q := range []recall.Query{{Standing: true}, {Standing: true, Project: calls[0].Project, Cwd: calls[0].Cwd}} {
		want, err := x.Recall(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.Recall(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if got.Markdown() != want.Markdown() || q.Project == "" && len(want.Items) == 0 {
			t.Errorf("standing context (project %q): activation index\n%s\nindex\n%s", q.Project, got.Markdown(), want.Markdown())
		}
	}
	if fired == 0 || differ > tried/50 {
		t.Errorf("%d of %d calls answered differently", differ, tried)
	}
}
