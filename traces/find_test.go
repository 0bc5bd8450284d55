package traces

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kbmem/kb/internal/fsx"
)

// TestFindTranscripts: what a directory import walks into, and what it
// passes over.
func TestFindTranscripts(t *testing.T) {
	dir := t.TempDir()
	put := func(rel, content string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("a.jsonl", "{}\n")
	put("sub/b.json", "{}")
	put("sub/agent-1.jsonl", "{}\n")
	put("sub/agent-1.meta.json", "{}")             // Claude Code's companion of agent-1.jsonl
	put("sub/lonely.meta.json", "{}")              // no transcript beside it: a candidate
	put("chat.aider.chat.history.md", "# aider\n") // by name
	put("notes.md", "# just notes\n")
	put(".aider/x.jsonl", "{}\n")
	put(".git/y.jsonl", "{}\n")
	put(".hidden/z.jsonl", "{}\n")
	put("node_modules/m.jsonl", "{}\n")
	put("kb/traces/s.jsonl", "{}\n")
	put("sub/"+fsx.TempPrefix+"1.jsonl", "{}\n")
	files, unreadable := FindTranscripts(dir, filepath.Join(dir, "kb"))
	var got []string
	for _, f := range files {
		r, _ := filepath.Rel(dir, f)
		got = append(got, filepath.ToSlash(r))
	}
	want := []string{".aider/x.jsonl", "a.jsonl", "chat.aider.chat.history.md", "sub/agent-1.jsonl", "sub/b.json", "sub/lonely.meta.json"}
	if !slices.Equal(got, want) || len(unreadable) != 0 {
		t.Errorf("found %v (unreadable %v), want %v", got, unreadable, want)
	}
}
