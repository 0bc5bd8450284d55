package traces

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const testMarker = "[REDACTED:manual]"

// TestRewrite: a purge replaces the value in every string of a record,
// keys included, keeps every other byte of the line (member order, number
// spelling, other lines), keeps the file's mode, and drops the summary the
// store kept, which held the value.
func TestRewrite(t *testing.T) {
	s := trStore(t)
	rel := "traces/2026/01/generic-s.jsonl"
	abs := filepath.Join(s.Root, filepath.FromSlash(rel))
	os.MkdirAll(filepath.Dir(abs), 0o755)
	lines := []string{
		`{"session":"s","seq":0,"kind":"meta","agent":"generic","time":"2026-01-02T03:04:05Z"}`,
		`{"session":"s","seq":1,"role":"user","kind":"message","text":"my token is hunter2, ok?","n":1.50}`,
		`{"session":"s","seq":2,"role":"user","kind":"message","text":"nothing here"}`,
		`{"z":1,"session":"s","seq":3,"kind":"tool_call","input":{"hunter2":"a\u0068unter2"}}`,
	}
	os.WriteFile(abs, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	infos, err := s.Sessions()
	if err != nil || len(infos) != 1 || !strings.Contains(infos[0].FirstPrompt, "hunter2") {
		t.Fatalf("sessions before: %v %+v", err, infos)
	}
	re := regexp.MustCompile("hunter2")
	var recs, n int
	changed, err := s.Rewrite(rel, func(b []byte) ([]byte, error) {
		out, r, m := ReplaceInRecords(b, re, testMarker)
		recs, n = r, m
		return out, nil
	})
	if err != nil || !changed || recs != 2 || n != 3 {
		t.Fatalf("rewrite: changed %v, %d records, %d matches, %v", changed, recs, n, err)
	}
	got, _ := os.ReadFile(abs)
	want := []string{lines[0],
		`{"session":"s","seq":1,"role":"user","kind":"message","text":"my token is [REDACTED:manual], ok?","n":1.50}`,
		lines[2],
		`{"z":1,"session":"s","seq":3,"kind":"tool_call","input":{"[REDACTED:manual]":"a[REDACTED:manual]"}}`,
	}
	if string(got) != strings.Join(want, "\n")+"\n" {
		t.Errorf("rewritten:\n%s", got)
	}
	if fi, _ := os.Stat(abs); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	infos, _ = s.Sessions()
	if len(infos) != 1 || strings.Contains(infos[0].FirstPrompt, "hunter2") {
		t.Errorf("summary still holds the value: %+v", infos)
	}
	// Nothing left: no second write.
	if changed, err := s.Rewrite(rel, func(b []byte) ([]byte, error) {
		out, _, _ := ReplaceInRecords(b, re, testMarker)
		return out, nil
	}); err != nil || changed {
		t.Errorf("second rewrite: %v %v", changed, err)
	}
	if got := s.Files(); len(got) != 1 || got[0] != rel {
		t.Errorf("Files: %v", got)
	}
}

// FuzzReplaceInRecords: replacing keeps valid record lines valid JSON and
// leaves nothing for a second pass, on any content.
func FuzzReplaceInRecords(f *testing.F) {
	f.Add([]byte(`{"session":"s","seq":1,"text":"the host is abc123"}`+"\n"), "abc123")
	f.Add([]byte(`{"session":"s","input":{"command":"ssh abc123","abc123":[1,"abc123"]}}`+"\n{broken abc123\n"), "abc123")
	f.Add([]byte(`{"text":"\u0061bc"}`+"\n"+`{"text":"a\nabc"}`), "abc")
	f.Add([]byte("\n\n"), "x")
	f.Fuzz(func(t *testing.T, data []byte, value string) {
		if value == "" || strings.Contains(testMarker, value) || strings.IndexFunc(value, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
		}) >= 0 {
			return
		}
		re := regexp.MustCompile(regexp.QuoteMeta(value))
		out, _, _ := ReplaceInRecords(data, re, testMarker)
		again, _, n := ReplaceInRecords(out, re, testMarker)
		if n != 0 || !bytes.Equal(again, out) {
			t.Fatalf("second pass: %d occurrences\n%q\n%q", n, out, again)
		}
		inLines := bytes.Split(data, []byte("\n"))
		outLines := bytes.Split(out, []byte("\n"))
		if len(inLines) != len(outLines) {
			t.Fatalf("line count %d -> %d", len(inLines), len(outLines))
		}
		for i := range inLines {
			if json.Valid(inLines[i]) && !json.Valid(outLines[i]) {
				t.Fatalf("line %d no longer JSON: %q", i+1, outLines[i])
			}
		}
	})
}

// TestPurgedPatterns: a purge's pattern is remembered once and redacts
// what later imports bring, in text and in JSON strings; a corrupt list
// is an error and redacts nothing.
func TestPurgedPatterns(t *testing.T) {
	s := trStore(t)
	re := regexp.MustCompile(`hunter\d`)
	for range 2 {
		if err := s.AddPurgedPattern(re); err != nil {
			t.Fatal(err)
		}
	}
	pats, err := s.PurgedPatterns()
	if err != nil || len(pats) != 1 {
		t.Fatalf("patterns %v %v", pats, err)
	}
	r := NewRedactor(nil, pats, nil)
	if out, _ := r.Text("pw hunter2"); out != "pw "+ManualMarker {
		t.Errorf("text: %q", out)
	}
	if out, _ := r.JSON([]byte(`{"cmd":"login hunter3","n":2}`)); string(out) != `{"cmd":"login `+ManualMarker+`","n":2}` {
		t.Errorf("json: %s", out)
	}
	os.WriteFile(filepath.Join(s.Root, stateDir, purgedFile), []byte("{oops"), 0o600)
	if pats, err := s.PurgedPatterns(); err == nil || len(pats) != 0 {
		t.Errorf("corrupt list: %v %v", pats, err)
	}
}
