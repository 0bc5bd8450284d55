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

// TestRecallRealToolCalls replays a third of the tool calls of the real
// transcripts against a KB built from the same transcripts and reports how
// often recall puts something into the agent's context, and why. It guards
// against lessons firing on unrelated calls (paths once counted as words:
// every file of a project shared "users", "workspace", the project's name,
// and 38% of calls recalled something, mostly unrelated).
func TestRecallRealToolCalls(t *testing.T) {
	src := trShared(t)
	k := newExtractKB(t)
	exImport(t, k, src)
	exExtract(t, k, ExtractOptions{})
	calls := realToolCalls(t, src)
	ctx := context.Background()
	x, _, err := k.OpenIndex(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
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
