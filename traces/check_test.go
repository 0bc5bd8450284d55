package traces

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestCheckFile(t *testing.T) {
	root := t.TempDir()
	rel := "traces/2026/01/generic-s.jsonl"
	abs := filepath.Join(root, filepath.FromSlash(rel))
	os.MkdirAll(filepath.Dir(abs), 0o755)
	os.WriteFile(abs, []byte(`{"session":"s","seq":0,"kind":"meta"}`+"\n"+
		`{"session":"s","se`+"\n"+ // torn between whole records
		`{"session":"s","seq":1}`+"\n"+
		`{"session":"s","seq":3}`+"\n"+ // a lost record
		"not json at all\n"+
		`{"session":"s","seq":4}`), 0o644) // whole, without its newline
	sessions, probs := CheckFile(root, rel)
	var rules []string
	for _, p := range probs {
		rules = append(rules, p.Rule)
	}
	if !slices.Equal(sessions, []string{"s"}) || !slices.Equal(rules, []string{"torn-line", "trace-seq", "trace-record"}) || probs[1].Line != 4 {
		t.Errorf("sessions %v, problems %+v", sessions, probs)
	}
	if _, probs := CheckFile(root, "traces/none.jsonl"); len(probs) != 1 || probs[0].Rule != "unreadable" {
		t.Errorf("missing file: %+v", probs)
	}
	if StripAgent("claude-code-abc") != "abc" || StripAgent("abc") != "abc" {
		t.Error("StripAgent")
	}
}
