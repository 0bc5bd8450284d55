package traces

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kbmem/kb/internal/redact"
)

// rulesRedactor is the Redactor of redact's rules, as kb builds it.
type rulesRedactor struct{ r *redact.Redactor }

func (x rulesRedactor) Text(s string) (string, []redact.Secret) {
	out, _, found := x.r.Redact(s)
	return out, found
}

func (x rulesRedactor) JSON(b []byte) ([]byte, []redact.Secret) {
	out, _, found := x.r.RedactJSON(b)
	return out, found
}

func newRulesStore(t testing.TB) *Store {
	t.Helper()
	r, err := redact.New(redact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &Store{Root: t.TempDir(), Redactor: rulesRedactor{r}}
}

// kbBytes returns every file under the KB root, .state included.
func kbBytes(t testing.TB, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out[p] = trRead(t, p)
		}
		return nil
	})
	return out
}

func genericLine(session, role, content string) string {
	b, _ := json.Marshal(map[string]string{"session": session, "role": role, "content": content, "ts": "2025-11-20T10:00:00Z"})
	return string(b) + "\n"
}

// TestStoreSessionMemory: a password is assigned once, in the middle of a
// session; every occurrence of it and of its hash and base64 is redacted,
// before the assignment (in the same import), after it, in a later import
// of the grown transcript, after .state/ is lost, and in kb trace append.
// .state/secrets.json holds none of them.
func TestStoreSessionMemory(t *testing.T) {
	pw := "Zq8kLm2" + "Vx9pTw4r"
	sum := sha256.Sum256([]byte(pw))
	forms := []string{pw, hex.EncodeToString(sum[:]), base64.StdEncoding.EncodeToString([]byte(pw))}
	s := newRulesStore(t)
	var remembered int
	s.Remembered = func(n int) { remembered += n }
	src := filepath.Join(t.TempDir(), "s.jsonl")
	lines := genericLine("mem", "assistant", "I'll create the admin account with "+pw+" and tell the person.") +
		genericLine("mem", "assistant", "export ADMIN_PASSWORD='"+pw+"' && ./create-admin.sh") +
		genericLine("mem", "tool", forms[1]+"  -") +
		genericLine("mem", "assistant", "Done. As base64 for the chart: "+forms[2])
	trWrite(t, src, []byte(lines))
	leaks := func(when string) {
		t.Helper()
		for p, b := range kbBytes(t, s.Root) {
			for _, f := range forms {
				if bytes.Contains(bytes.ToLower(b), []byte(strings.ToLower(f))) {
					t.Errorf("%s: %.12s... reached %s", when, f, filepath.Base(p))
				}
			}
		}
	}
	r := trImport(t, s, src, ImportOptions{})
	if r.Appended != 4 {
		t.Fatalf("appended %d", r.Appended)
	}
	leaks("first import")
	if remembered < 3 {
		t.Errorf("session memory redacted %d places, want 3 or more", remembered)
	}
	if _, err := os.Stat(filepath.Join(s.Root, stateDir, secretsName)); err != nil {
		t.Fatalf("no session memory saved: %v", err)
	}

	// The transcript grows; the new records repeat the value with no
	// context: only the saved memory can tell.
	grow := func(text string) {
		f, err := os.OpenFile(src, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(genericLine("mem", "assistant", text))
		f.Close()
	}
	grow("For the runbook: admin " + pw + ".")
	s2 := newRulesStore(t)
	s2.Root = s.Root
	if r := trImport(t, s2, src, ImportOptions{}); r.Appended != 1 {
		t.Fatalf("second import appended %d", r.Appended)
	}
	leaks("second import")

	// .state/ lost: the source is read from its start again, and the
	// stored records teach the memory anew.
	os.RemoveAll(filepath.Join(s.Root, stateDir))
	grow("Once more: " + strings.ToUpper(pw))
	s3 := newRulesStore(t)
	s3.Root = s.Root
	if r := trImport(t, s3, src, ImportOptions{}); r.Appended != 1 {
		t.Fatalf("import after losing .state appended %d", r.Appended)
	}
	leaks("import after losing .state")

	// kb trace append: the records of one call are redacted alike.
	other := "Kp3x9Qw" + "Lm2vTz8s"
	out, err := s3.Append([]Record{
		{Session: "app", Role: RoleAssistant, Text: "will use " + other},
		{Session: "app", Role: RoleTool, Kind: KindToolCall, Tool: "Bash", Input: json.RawMessage(`{"command":"export DB_PASSWORD=` + other + `"}`)},
		{Session: "app", Role: RoleAssistant, Text: "again " + other, Branch: "fix/" + other, Cwd: "/wt/" + other},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range out {
		b, _ := json.Marshal(rec)
		if strings.Contains(string(b), other) {
			t.Errorf("append returned %s", b)
		}
	}
	forms = append(forms, other)
	leaks("append")
}
