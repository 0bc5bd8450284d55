package reliability

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecondPathDoesNotDuplicate (defect 7 of issue 12): kb import a
// project's Claude Code directory, copy it elsewhere (a moved project,
// ~/.claude restored from a backup), kb import the copy. The session files
// must not grow: a record is known by its session and its own id, not by
// the path it was read from. The copy, grown by two lines, adds exactly
// those two; the original then adds nothing; and with .state/ deleted a
// third copy adds nothing either. Before the fix the second import doubled
// every session file (70 -> 139 records in the newcomer's run).
func TestSecondPathDoesNotDuplicate(t *testing.T) {
	projects := []string{filepath.Join(repoRoot, "testdata", "transcripts", "claude-code", "projects", "-home-dev-demo")}
	if sh := sharedTranscripts(); sh != "" {
		projects = append(projects, filepath.Join(sh, "claude-code", "projects", "-src-experiments-claude_p"))
	}
	for _, proj := range projects {
		t.Run(filepath.Base(proj), func(t *testing.T) {
			k := newKB(t)
			base := filepath.Join(k.Home, ".claude", "projects")
			orig := filepath.Join(base, "-home-dev-app")
			copyTree(t, proj, orig)
			k.must(t, "import", orig)
			want, probs := traceState(k.Root)
			if len(probs) > 0 || len(want) == 0 {
				t.Fatalf("first import: %d session files, problems %v", len(want), probs)
			}
			records := func(st map[string]*sessionState) int {
				n := 0
				for _, s := range st {
					n += s.Records
				}
				return n
			}
			n0 := records(want)

			moved := filepath.Join(base, "-home-dev-app-renamed")
			copyTree(t, orig, moved)
			k.must(t, "import", moved)
			got, probs := traceState(k.Root)
			if len(probs) > 0 || len(got) != len(want) || records(got) != n0 {
				t.Fatalf("after importing the copy: %d session files with %d records, want %d with %d (problems %v)",
					len(got), records(got), len(want), n0, probs)
			}

			// The copy grows by two records of its main session.
			main := largestJSONL(t, moved)
			grow := growClaudeCode(t, main, 2)
			k.must(t, "import", moved)
			got, _ = traceState(k.Root)
			if records(got) != n0+2 {
				t.Fatalf("after the copy grew by 2: %d records, want %d", records(got), n0+2)
			}
			// The original grows the same way: nothing new.
			appendFile(t, filepath.Join(orig, strings.TrimPrefix(main, moved)), grow)
			k.must(t, "import", orig)
			// A third copy with the derived state gone.
			os.RemoveAll(filepath.Join(k.Root, ".state"))
			third := filepath.Join(k.Home, "backup", "projects", "-home-dev-app")
			copyTree(t, moved, third)
			k.must(t, "import", third)
			got, probs = traceState(k.Root)
			if len(probs) > 0 || records(got) != n0+2 || len(got) != len(want) {
				t.Fatalf("after the original grew and a third copy: %d records in %d files, want %d in %d (problems %v)",
					records(got), len(got), n0+2, len(want), probs)
			}
			rep, _ := k.doctor(t, false)
			if errs := rep.errorsOf(); len(errs) > 0 {
				t.Errorf("kb doctor: %s", strings.Join(errs, "\n"))
			}
			t.Logf("RESULT %s: %d records in %d session files; imported from 3 paths, +2 grown records, 0 duplicated",
				filepath.Base(proj), n0, len(want))
		})
	}
}

// largestJSONL returns the largest .jsonl under dir (a main session).
func largestJSONL(t testing.TB, dir string) string {
	t.Helper()
	var best string
	var bestSize int64 = -1
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && strings.HasSuffix(p, ".jsonl") && filepath.Dir(p) == dir && fi.Size() > bestSize {
			best, bestSize = p, fi.Size()
		}
		return nil
	})
	if best == "" {
		t.Fatalf("no transcript in %s", dir)
	}
	return best
}

// growClaudeCode appends n user messages, with new uuids, to a Claude Code
// transcript, in its session, and returns the bytes appended.
func growClaudeCode(t testing.TB, p string, n int) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	sid := strings.TrimSuffix(filepath.Base(p), ".jsonl")
	for _, ln := range bytes.Split(b, []byte("\n")) {
		var rec struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(ln, &rec) == nil && rec.SessionID != "" {
			sid = rec.SessionID
		}
	}
	var add []byte
	for i := range n {
		add = append(add, []byte(`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/app","sessionId":"`+sid+
			`","version":"2.0.42","type":"user","message":{"role":"user","content":"one more thing, number `+string(rune('1'+i))+
			`"},"uuid":"0000000`+string(rune('1'+i))+`-grow-4000-8000-000000000000","timestamp":"2026-01-0`+string(rune('1'+i))+`T10:00:00.000Z"}`+"\n")...)
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		add = append([]byte("\n"), add...)
	}
	appendFile(t, p, add)
	return add
}

func appendFile(t testing.TB, p string, data []byte) {
	t.Helper()
	os.Chmod(p, 0o644) // copies of ../shared are read-only
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
}
