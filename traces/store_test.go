package traces

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kbmem/kb/internal/redact"
)

func trStore(t testing.TB) *Store {
	t.Helper()
	return &Store{Root: t.TempDir()}
}

// trFiles returns the content of every session file under root.
func trFiles(t testing.TB, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	filepath.WalkDir(filepath.Join(root, tracesDir), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out[p] = trRead(t, p)
		}
		return nil
	})
	return out
}

// trAll reads every record of every session, checking Seq runs 0..n.
func trAll(t testing.TB, s *Store) map[string][]Record {
	t.Helper()
	infos, err := s.Sessions()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]Record{}
	for _, in := range infos {
		var recs []Record
		_, probs, err := s.ReadFile(in.Path, func(r Record) error { recs = append(recs, r); return nil })
		if err != nil || len(probs) != 0 {
			t.Fatalf("read %s: %v %v", in.Path, err, probs)
		}
		for i, r := range recs {
			if r.Seq != i {
				t.Fatalf("%s: record %d has seq %d", in.Path, i, r.Seq)
			}
		}
		if len(recs) == 0 || recs[0].Kind != KindMeta {
			t.Fatalf("%s: no meta record first", in.Path)
		}
		out[in.ID] = recs
	}
	return out
}

// trKeys renders records without Seq, for comparing stores.
func trKeys(t testing.TB, all map[string][]Record) []string {
	var out []string
	for _, recs := range all {
		for _, r := range recs[1:] {
			r.Seq = 0
			b, _ := json.Marshal(r)
			out = append(out, string(b))
		}
	}
	sort.Strings(out)
	return out
}

func trImport(t testing.TB, s *Store, path string, opts ImportOptions) ImportResult {
	t.Helper()
	res, err := s.Import(path, opts)
	if err != nil {
		t.Fatalf("import %s: %v", path, err)
	}
	return res
}

func trWrite(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// trCutAtSession returns the offset of the n-th "# aider chat started" line.
func trCutAtSession(data []byte, n int) int {
	off := 0
	for i := 0; i < n; i++ {
		j := bytes.Index(data[off+1:], []byte("\n# aider chat started"))
		if j < 0 {
			return len(data)
		}
		off += j + 2
	}
	return off
}

func TestStoreImportAiderMultiSession(t *testing.T) {
	s := trStore(t)
	src := filepath.Join(t.TempDir(), ".aider.chat.history.md")
	trWrite(t, src, trRead(t, aiderFixture))
	res := trImport(t, s, src, ImportOptions{})
	if res.Format != AgentAider || res.Appended != 18 || len(res.Sessions) != 4 || res.Unchanged {
		t.Fatalf("result %+v", res)
	}
	infos, err := s.Sessions()
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 4 {
		t.Fatalf("%d sessions", len(infos))
	}
	byID := map[string]SessionInfo{}
	for _, in := range infos {
		byID[in.ID] = in
	}
	var jan SessionInfo
	for id, in := range byID {
		if strings.HasPrefix(id, "aider-20240115T103000-") {
			jan = in
		}
	}
	wantPath := SessionFile(AgentAider, jan.ID, time.Date(2024, 1, 15, 10, 30, 0, 0, time.Local))
	if jan.Path != wantPath || !strings.HasPrefix(jan.Path, "traces/2024/01/aider-aider-20240115T103000-") {
		t.Errorf("path %q, want %q", jan.Path, wantPath)
	}
	if jan.Messages != 7 || jan.ToolCalls != 0 || jan.FirstPrompt != "Add a --verbose flag to main.py\n\nand print the config when set" ||
		jan.Cwd != filepath.Dir(src) || jan.Source != src || jan.Agent != AgentAider {
		t.Errorf("summary %+v", jan)
	}
	// Unchanged: nothing read, nothing written.
	before := trFiles(t, s.Root)
	res = trImport(t, s, src, ImportOptions{})
	if !res.Unchanged || res.Appended != 0 || len(res.Sessions) != 4 {
		t.Fatalf("re-import %+v", res)
	}
	if after := trFiles(t, s.Root); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatal("re-import changed session files")
	}
}

// Growing a source appends only the new records, keeps old bytes as a
// prefix, and ends with what a one-shot import gives. Then deleting .state,
// and replaying the append without its checkpoint, add nothing.
func TestStoreGrowCrashAndDeletedState(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		cuts []int
	}{
		{"aider", trRead(t, aiderFixture), nil},
		{"generic", trRead(t, genericFixture), nil},
		{"gemini-jsonl", trRead(t, geminiFixture), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.data
			// Cut in the middle at a line start (aider: at a session).
			cut := bytes.IndexByte(data[len(data)/2:], '\n') + len(data)/2 + 1
			if tc.name == "aider" {
				cut = trCutAtSession(data, 2)
			}
			name := filepath.Base(geminiFixture)
			if tc.name != "gemini-jsonl" {
				name = "src.jsonl"
				if tc.name == "aider" {
					name = "x.aider.chat.history.md"
				}
			}
			src := filepath.Join(t.TempDir(), name)

			// One-shot import into a reference store.
			ref := trStore(t)
			trWrite(t, src, data)
			trImport(t, ref, src, ImportOptions{})
			want := trKeys(t, trAll(t, ref))

			s := trStore(t)
			trWrite(t, src, data[:cut])
			r1 := trImport(t, s, src, ImportOptions{})
			before := trFiles(t, s.Root)
			ckpt := trRead(t, s.importsPath())

			trWrite(t, src, data)
			os.Chtimes(src, time.Now().Add(time.Second), time.Now().Add(time.Second))
			r2 := trImport(t, s, src, ImportOptions{})
			after := trFiles(t, s.Root)
			for p, old := range before {
				if !bytes.HasPrefix(after[p], old) {
					t.Fatalf("%s: old bytes are not a prefix after re-import", p)
				}
			}
			if got := trKeys(t, trAll(t, s)); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("grown import: %d records, one-shot %d", len(got), len(want))
			}
			if r1.Appended+r2.Appended != len(want) {
				t.Errorf("appended %d+%d, want %d", r1.Appended, r2.Appended, len(want))
			}

			// Crash window: the appends happened, the checkpoint did not.
			trWrite(t, s.importsPath(), ckpt)
			s2 := &Store{Root: s.Root}
			if r := trImport(t, s2, src, ImportOptions{}); r.Appended != 0 {
				t.Errorf("after lost checkpoint: appended %d", r.Appended)
			}
			// Deleted .state.
			os.RemoveAll(filepath.Join(s.Root, stateDir))
			if r := trImport(t, s2, src, ImportOptions{}); r.Appended != 0 || r.Unchanged {
				t.Errorf("after deleted state: %+v", r)
			}
			if got := trKeys(t, trAll(t, s2)); len(got) != len(want) {
				t.Errorf("duplicates: %d records, want %d", len(got), len(want))
			}
			if fmt.Sprint(trFiles(t, s.Root)) != fmt.Sprint(after) {
				t.Error("session files changed by no-op imports")
			}
		})
	}
}

// A whole-document Gemini chat rewritten with more messages: re-parsed, and
// only the new records are appended.
func TestStoreGeminiDocumentGrows(t *testing.T) {
	s := trStore(t)
	src := filepath.Join(t.TempDir(), "session-x.json")
	doc := func(n int, result bool) []byte {
		msgs := []string{`{"id":"u1","timestamp":"2025-12-09T19:51:29Z","type":"user","content":"hello"}`}
		if n > 1 {
			tc := `{"id":"c1","name":"ls","args":{},"status":"executing","timestamp":"2025-12-09T19:51:31Z"}`
			if result {
				tc = `{"id":"c1","name":"ls","args":{},"status":"success","timestamp":"2025-12-09T19:51:31Z","result":[{"functionResponse":{"id":"c1","name":"ls","response":{"output":"a"}}}]}`
			}
			msgs = append(msgs, `{"id":"g1","timestamp":"2025-12-09T19:51:30Z","type":"gemini","content":"ok","toolCalls":[`+tc+`]}`)
		}
		return []byte(`{"sessionId":"sess-1","projectHash":"p","startTime":"2025-12-09T19:51:29Z","lastUpdated":"` +
			time.Now().Format(time.RFC3339Nano) + `","messages":[` + strings.Join(msgs, ",") + "]}")
	}
	trWrite(t, src, doc(1, false))
	if r := trImport(t, s, src, ImportOptions{}); r.Appended != 2 {
		t.Fatalf("first import %+v", r)
	}
	trWrite(t, src, doc(2, false))
	if r := trImport(t, s, src, ImportOptions{}); r.Appended != 2 {
		t.Fatalf("second import %+v", r)
	}
	trWrite(t, src, append(doc(2, true), ' '))
	if r := trImport(t, s, src, ImportOptions{}); r.Appended != 1 {
		t.Fatalf("third import %+v", r)
	}
	recs := trAll(t, s)["sess-1"]
	if len(recs) != 6 || recs[5].Kind != KindToolResult || recs[5].Output != "a" {
		t.Fatalf("records %+v", recs)
	}
	if !strings.HasPrefix(SessionFile(AgentGemini, "sess-1", recs[0].Time), "traces/2025/12/") {
		t.Error("gemini session not filed by its start")
	}
}

// A source that shrank or was replaced is re-parsed from the start: old
// records are not duplicated, new ones are appended.
func TestStoreReplacedSource(t *testing.T) {
	s := trStore(t)
	src := filepath.Join(t.TempDir(), "r.jsonl")
	lines := []string{
		`{"session":"r","role":"user","content":"one","ts":"2025-01-01T00:00:00Z"}`,
		`{"role":"assistant","content":"two"}`,
		`{"role":"user","content":"three"}`,
	}
	trWrite(t, src, []byte(strings.Join(lines, "\n")+"\n"))
	trImport(t, s, src, ImportOptions{})
	// Truncated and rewritten: the first line kept, then new content.
	trWrite(t, src, []byte(lines[0]+"\n"+`{"role":"assistant","content":"TWO, revised"}`+"\n"))
	r := trImport(t, s, src, ImportOptions{})
	if r.Appended != 1 {
		t.Fatalf("replaced import appended %d, want 1", r.Appended)
	}
	recs := trAll(t, s)["r"]
	if len(recs) != 5 || recs[4].Text != "TWO, revised" {
		t.Fatalf("records %v", trMarshal(t, recs))
	}
	if r := trImport(t, s, src, ImportOptions{}); !r.Unchanged {
		t.Fatalf("%+v", r)
	}
}

func TestStoreImportRealFiles(t *testing.T) {
	dir := trShared(t)
	s := trStore(t)
	// The whole aider history is checked record by record at the parser
	// level (TestAiderRealNothingLost); the store gets its first 40
	// sessions (one file each, each created with an fsync).
	aider := trRead(t, filepath.Join(dir, "aider/chat-history.md"))
	aiderPart := filepath.Join(t.TempDir(), "chat-history.md")
	trWrite(t, aiderPart, aider[:trCutAtSession(aider, 40)])
	for _, src := range []string{aiderPart, filepath.Join(dir, "gemini-cli/gemini_session.json")} {
		rel := filepath.Base(src)
		var want int
		var parser Parser = NewAider()
		if strings.HasSuffix(rel, ".json") {
			parser = NewGemini()
		}
		recs, _, _ := trParse(t, parser, trRead(t, src), src, Pos{})
		want = len(recs)
		r := trImport(t, s, src, ImportOptions{})
		if r.Appended != want || len(r.Problems) != 0 {
			t.Errorf("%s: appended %d of %d records, problems %v", rel, r.Appended, want, r.Problems)
		}
		if r := trImport(t, s, src, ImportOptions{}); !r.Unchanged {
			t.Errorf("%s: second import not unchanged", rel)
		}
	}
	infos, err := s.Sessions()
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range infos {
		if in.Agent == AgentGemini && (in.ToolCalls != 5 || in.Messages != 9 ||
			in.FirstPrompt != "add myapp directory and create myapp/hoge.py which shows result of print(1+1).") {
			t.Errorf("gemini summary %+v", in)
		}
	}
}

func TestStoreSessionsFirstPromptSkipsInjected(t *testing.T) {
	s := trStore(t)
	src := filepath.Join(t.TempDir(), "chat.jsonl")
	trWrite(t, src, trRead(t, genericFixture))
	trImport(t, s, src, ImportOptions{})
	demo2, err := s.Find("demo-2")
	if err != nil {
		t.Fatal(err)
	}
	if demo2.FirstPrompt != "now add tests" || demo2.Messages != 3 || demo2.ToolCalls != 1 || demo2.Agent != "my-agent" {
		t.Errorf("demo-2 %+v", demo2)
	}
	demo1, err := s.Find("demo-1")
	if err != nil {
		t.Fatal(err)
	}
	if demo1.FirstPrompt != "Rename foo to bar in main.go" || demo1.ToolCalls != 2 || demo1.Messages != 2 ||
		!demo1.Start.Equal(time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)) || !demo1.End.Equal(time.UnixMilli(1740823202500)) {
		t.Errorf("demo-1 %+v", demo1)
	}
	// The summary cache is used and stays right as a session grows.
	if _, err := s.Append([]Record{{Session: "demo-1", Agent: "my-agent", Kind: KindToolCall, Role: RoleAssistant, Tool: "x"}}); err != nil {
		t.Fatal(err)
	}
	if d, _ := s.Find("demo-1"); d.ToolCalls != 3 {
		t.Errorf("after append: %d tool calls", d.ToolCalls)
	}
}

func TestStoreFind(t *testing.T) {
	s := trStore(t)
	now := time.Date(2025, 5, 1, 0, 0, 0, 0, time.UTC)
	s.Now = func() time.Time { return now }
	for _, id := range []string{"abc-111", "abc-222", "xyz-333"} {
		if _, err := s.Append([]Record{{Session: id, Role: RoleUser, Text: "hi " + id}}); err != nil {
			t.Fatal(err)
		}
	}
	if in, err := s.Find("abc-1"); err != nil || in.ID != "abc-111" {
		t.Errorf("unique prefix: %v %v", in, err)
	}
	if in, err := s.Find("generic-xyz"); err != nil || in.ID != "xyz-333" {
		t.Errorf("agent-qualified prefix: %v %v", in, err)
	}
	_, err := s.Find("abc")
	var amb *AmbiguousError
	if !errors.Is(err, ErrAmbiguous) || !errors.As(err, &amb) || len(amb.Matches) != 2 {
		t.Errorf("ambiguous: %v", err)
	}
	if _, err := s.Find("nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("not found: %v", err)
	}
	if _, err := s.Find(""); !errors.Is(err, ErrNotFound) {
		t.Errorf("empty: %v", err)
	}
	if _, err := s.Read("zzz", func(Record) error { return nil }); !errors.Is(err, ErrNotFound) {
		t.Errorf("read missing: %v", err)
	}
}

func TestSessionFileSanitizes(t *testing.T) {
	start := time.Date(2025, 7, 9, 23, 0, 0, 0, time.UTC)
	seen := map[string]string{}
	for _, id := range []string{"../../etc", "a/b", "a_b", "", "..", ".", "a\x00b\nc", "a\\b", strings.Repeat("x", 500), "ok-id_1.2"} {
		p := SessionFile("cl/aude", id, start)
		dir, base := filepath.Split(p)
		if dir != "traces/2025/07/" || strings.Contains(base, "..") || strings.ContainsAny(base, "/\\\x00\n") || len(base) > 200 {
			t.Errorf("%q -> %q", id, p)
		}
		if prev, dup := seen[p]; dup {
			t.Errorf("%q and %q share %q", prev, id, p)
		}
		seen[p] = id
	}
	if got := SessionFile("codex", "ok-id_1.2", start); got != "traces/2025/07/codex-ok-id_1.2.jsonl" {
		t.Errorf("clean id changed: %q", got)
	}
	if got := SessionFile("codex", "x", time.Time{}); got != "traces/undated/codex-x.jsonl" {
		t.Errorf("zero time: %q", got)
	}
	// Hostile ids through the store stay inside Root/traces.
	s := trStore(t)
	for _, id := range []string{"../../etc", "a/b", "/abs"} {
		if _, err := s.Append([]Record{{Session: id, Agent: "../x", Role: RoleUser, Text: "t"}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Append([]Record{{Role: RoleUser}}); err == nil {
		t.Error("record without session accepted")
	}
	entries, _ := os.ReadDir(s.Root)
	for _, e := range entries {
		if e.Name() != tracesDir && e.Name() != stateDir {
			t.Errorf("unexpected %s in root", e.Name())
		}
	}
	if infos, _ := s.Sessions(); len(infos) != 3 {
		t.Errorf("%d sessions", len(infos))
	}
	if in, err := s.Find("../../etc"); err != nil || in.ID != "../../etc" {
		t.Errorf("find hostile id: %v %v", in, err)
	}
}

func TestStoreAppendAndRead(t *testing.T) {
	s := trStore(t)
	t0 := time.Date(2025, 2, 3, 4, 5, 6, 0, time.UTC)
	out, err := s.Append([]Record{
		{Session: "s1", Agent: AgentClaudeCode, Role: RoleUser, Text: "first", Time: t0, Cwd: "/w"},
		{Session: "s1", Agent: AgentClaudeCode, Role: RoleAssistant, Text: "second", Time: t0.Add(time.Second)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Seq != 1 || out[1].Seq != 2 {
		t.Fatalf("seqs %d %d", out[0].Seq, out[1].Seq)
	}
	big := strings.Repeat("x", 10<<20)
	if out, err = s.Append([]Record{{Session: "s1", Agent: AgentClaudeCode, Role: RoleTool, Kind: KindToolResult, Output: big}}); err != nil || out[0].Seq != 3 {
		t.Fatalf("append big: %v %+v", err, out)
	}
	p := filepath.Join(s.Root, filepath.FromSlash(SessionFile(AgentClaudeCode, "s1", t0)))
	// A torn last line (a writer crashed mid-append) is ignored.
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"session":"s1","seq":4,"te`)
	f.Close()
	var got []Record
	probs, err := s.Read("s1", func(r Record) error { got = append(got, r); return nil })
	if err != nil || len(probs) != 0 || len(got) != 4 || got[3].Output != big || got[0].Kind != KindMeta || got[0].Cwd != "/w" || !got[0].Time.Equal(t0) {
		t.Fatalf("read: err %v problems %v, %d records", err, probs, len(got))
	}
	// The next append cuts the torn fragment off first: it was no record,
	// and left in place it would sit between whole records for good.
	if out, err = s.Append([]Record{{Session: "s1", Agent: AgentClaudeCode, Role: RoleUser, Text: "after"}}); err != nil || out[0].Seq != 4 {
		t.Fatalf("append after torn: %v %+v", err, out)
	}
	got = nil
	probs, err = s.Read("s1", func(r Record) error { got = append(got, r); return nil })
	if err != nil || len(probs) != 0 || len(got) != 5 || got[4].Text != "after" {
		t.Fatalf("read after: %v %v %d", err, probs, len(got))
	}
	if b := trRead(t, p); bytes.Contains(b, []byte(`"te`+"\n")) || bytes.Count(b, []byte("\n")) != 5 {
		t.Fatalf("torn fragment left in the file:\n%s", b[len(b)-200:])
	}
	stop := errors.New("stop")
	if _, err := s.Read("s1", func(Record) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("callback error: %v", err)
	}
}

// stringRedactor is a Redactor applying a function to every string,
// those inside JSON values included.
type stringRedactor func(string) string

func (f stringRedactor) Text(s string) (string, []redact.Secret) { return f(s), nil }

func (f stringRedactor) JSON(raw []byte) ([]byte, []redact.Secret) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return []byte(mustJSON(f(string(raw)))), nil
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case string:
			return f(x)
		case []any:
			for i := range x {
				x[i] = walk(x[i])
			}
		case map[string]any:
			out := make(map[string]any, len(x))
			for k, e := range x {
				out[f(k)] = walk(e)
			}
			return out
		}
		return v
	}
	return []byte(mustJSON(walk(v))), nil
}

// bytesRedactor is a Redactor applying a function to raw JSON.
type bytesRedactor func([]byte) []byte

func (f bytesRedactor) Text(s string) (string, []redact.Secret)   { return string(f([]byte(s))), nil }
func (f bytesRedactor) JSON(raw []byte) ([]byte, []redact.Secret) { return f(raw), nil }

func TestStoreRedaction(t *testing.T) {
	const secret = "sk-SECRET-1234567890"
	s := trStore(t)
	s.Redactor = stringRedactor(func(v string) string { return strings.ReplaceAll(v, secret, "[REDACTED]") })
	src := filepath.Join(t.TempDir(), "leak.jsonl")
	trWrite(t, src, []byte(`{"session":"leak","role":"user","content":"my key is `+secret+`","ts":"2025-01-01T00:00:00Z"}
{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"sh","arguments":"{\"env\":{\"KEY\":\"`+secret+`\"},\"list\":[\"`+secret+`\"]}"}}]}
{"role":"tool","tool_call_id":"c","content":"echo `+secret+`","note":{"deep":["`+secret+`"]}}
`))
	trImport(t, s, src, ImportOptions{})
	if _, err := s.Append([]Record{{Session: "leak", Role: RoleUser, Text: secret, Input: json.RawMessage(`{"k":"` + secret + `"}`),
		Extra: map[string]json.RawMessage{"x": json.RawMessage(`"` + secret + `"`)}}}); err != nil {
		t.Fatal(err)
	}
	n := 0
	filepath.WalkDir(s.Root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
			if bytes.Contains(trRead(t, p), []byte(secret)) {
				t.Errorf("secret reached %s", p)
			}
		}
		return nil
	})
	if n < 2 {
		t.Fatalf("only %d files written", n)
	}
	// Redacted re-imports stay idempotent.
	os.RemoveAll(filepath.Join(s.Root, stateDir))
	if r := trImport(t, s, src, ImportOptions{}); r.Appended != 0 {
		t.Errorf("re-import after redaction appended %d", r.Appended)
	}
	// The Redactor's JSON is used for Input and Extra.
	s.Redactor = bytesRedactor(func(b []byte) []byte { return bytes.ReplaceAll(b, []byte(secret), []byte("XX")) })
	out, err := s.Append([]Record{{Session: "leak2", Role: RoleUser, Input: json.RawMessage(`{"k":"` + secret + `"}`)}})
	if err != nil || string(out[0].Input) != `{"k":"XX"}` {
		t.Errorf("json redactor: %v %s", err, out[0].Input)
	}
}

func TestStoreImportErrors(t *testing.T) {
	s := trStore(t)
	if _, err := s.Import(filepath.Join(t.TempDir(), "missing"), ImportOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	if _, err := s.Import(t.TempDir(), ImportOptions{}); err == nil {
		t.Error("directory accepted")
	}
	empty := filepath.Join(t.TempDir(), "empty.jsonl")
	trWrite(t, empty, nil)
	if r, err := s.Import(empty, ImportOptions{}); err != nil || r.Appended != 0 || !r.Unchanged {
		t.Errorf("empty file: %v %+v", err, r)
	}
	junk := filepath.Join(t.TempDir(), "junk.txt")
	trWrite(t, junk, []byte("hello world\n"))
	if _, err := s.Import(junk, ImportOptions{}); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("junk: %v", err)
	}
	// A forced format and an agent override.
	g := filepath.Join(t.TempDir(), "g.jsonl")
	trWrite(t, g, []byte(`{"role":"user","content":"x"}`+"\n"))
	r, err := s.Import(g, ImportOptions{Format: AgentGeneric, Agent: "cursor"})
	if err != nil || r.Appended != 1 {
		t.Fatalf("%v %+v", err, r)
	}
	if in, err := s.Find("g"); err != nil || in.Agent != "cursor" {
		t.Errorf("agent override: %+v %v", in, err)
	}
	// A corrupt checkpoint file is only a cache.
	trWrite(t, s.importsPath(), []byte("{not json"))
	if r, err := (&Store{Root: s.Root}).Import(g, ImportOptions{Format: AgentGeneric, Agent: "cursor"}); err != nil || r.Appended != 0 {
		t.Errorf("corrupt checkpoint: %v %+v", err, r)
	}
}

// BenchmarkReimportUnchanged re-imports 1,000 unchanged sessions; one op is
// the whole round.
func BenchmarkReimportUnchanged(b *testing.B) {
	s := &Store{Root: b.TempDir()}
	dir := b.TempDir()
	var srcs []string
	for i := 0; i < 1000; i++ {
		p := filepath.Join(dir, fmt.Sprintf("s%04d.jsonl", i))
		os.WriteFile(p, []byte(fmt.Sprintf(`{"session":"s%d","role":"user","content":"hello %d","ts":"2025-01-01T00:00:00Z"}`+"\n"+`{"role":"assistant","content":"hi"}`+"\n", i, i)), 0o644)
		srcs = append(srcs, p)
		if _, err := s.Import(p, ImportOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, p := range srcs {
			r, err := s.Import(p, ImportOptions{})
			if err != nil || !r.Unchanged {
				b.Fatal(err, r)
			}
		}
	}
}

// BenchmarkImportAiderReal imports the biggest real transcript into an
// empty store.
func BenchmarkImportAiderReal(b *testing.B) {
	src := filepath.Join(trShared(b), "aider", "chat-history.md")
	fi, err := os.Stat(src)
	if err != nil {
		b.Skip(err)
	}
	b.SetBytes(fi.Size())
	for i := 0; i < b.N; i++ {
		s := &Store{Root: b.TempDir()}
		if _, err := s.Import(src, ImportOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkImportGrowAider measures a grown import: the last session of the
// real history arrives after the rest was imported.
func BenchmarkImportGrowAider(b *testing.B) {
	data := trRead(b, filepath.Join(trShared(b), "aider", "chat-history.md"))
	cut := bytes.LastIndex(data, []byte("\n# aider chat started")) + 1
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s := &Store{Root: b.TempDir()}
		src := filepath.Join(b.TempDir(), "h.md")
		trWrite(b, src, data[:cut])
		if _, err := s.Import(src, ImportOptions{Format: AgentAider}); err != nil {
			b.Fatal(err)
		}
		trWrite(b, src, data)
		b.StartTimer()
		if _, err := s.Import(src, ImportOptions{Format: AgentAider}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestStoreRedactionPipelineKeepsOrder imports thousands of records over
// several sessions with a redactor whose time varies per record, so that
// the pipeline's batches finish out of order: the stored sessions must
// hold every record, redacted, in source order, and equal an import with
// redaction on one goroutine.
func TestStoreRedactionPipelineKeepsOrder(t *testing.T) {
	const secret = "sk-SECRET-1234567890"
	var spin atomic.Int64
	var b strings.Builder
	for i := range 3000 {
		sess := fmt.Sprintf("s%d", i%3)
		body := fmt.Sprintf("message %d key %s %s", i, secret, strings.Repeat("x", i%700))
		fmt.Fprintf(&b, `{"session":%q,"role":"user","content":%q,"ts":"2025-01-01T00:00:00Z"}`+"\n", sess, body)
	}
	src := filepath.Join(t.TempDir(), "many.jsonl")
	trWrite(t, src, []byte(b.String()))
	redactor := func(v string) string {
		if len(v)%7 == 0 { // uneven work: batches finish out of order
			for i := 0; i < 2000; i++ {
				spin.Add(int64(i))
			}
		}
		return strings.ReplaceAll(v, secret, "[REDACTED]")
	}
	read := func(s *Store) map[string][]string {
		out := map[string][]string{}
		for _, id := range []string{"s0", "s1", "s2"} {
			seq := 0
			if _, err := s.Read(id, func(r Record) error {
				if r.Kind == KindMeta {
					return nil
				}
				seq++
				if r.Seq != seq {
					t.Errorf("%s: seq %d at position %d", id, r.Seq, seq)
				}
				out[id] = append(out[id], r.Text)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	par := trStore(t)
	par.Redactor = stringRedactor(redactor)
	trImport(t, par, src, ImportOptions{})
	got := read(par)

	prev := runtime.GOMAXPROCS(1) // no pipeline: one record at a time
	seqStore := trStore(t)
	seqStore.Redactor = stringRedactor(redactor)
	trImport(t, seqStore, src, ImportOptions{})
	runtime.GOMAXPROCS(prev)
	want := read(seqStore)

	for i, id := range []string{"s0", "s1", "s2"} {
		if len(got[id]) != 1000 || !reflect.DeepEqual(got[id], want[id]) {
			t.Fatalf("%s: %d records, one goroutine %d; equal %v", id, len(got[id]), len(want[id]), reflect.DeepEqual(got[id], want[id]))
		}
		for j, text := range got[id] {
			if strings.Contains(text, secret) || !strings.HasPrefix(text, fmt.Sprintf("message %d ", j*3+i)) {
				t.Fatalf("%s record %d: %.60q", id, j, text)
			}
		}
	}
}

// TestReadFile: the size counts complete lines only, a malformed line is a
// problem with its line, and a session file that is a link out of the KB
// is not followed.
func TestReadFile(t *testing.T) {
	s := trStore(t)
	rel := "traces/2026/01/generic-s.jsonl"
	abs := filepath.Join(s.Root, filepath.FromSlash(rel))
	os.MkdirAll(filepath.Dir(abs), 0o755)
	whole := `{"session":"s","seq":0,"kind":"meta"}` + "\n" + "{oops\n" + `{"session":"s","seq":1,"kind":"message","text":"hi"}` + "\n"
	os.WriteFile(abs, []byte(whole+`{"session":"s","seq":2`), 0o644)
	var seqs []int
	size, probs, err := s.ReadFile(rel, func(r Record) error { seqs = append(seqs, r.Seq); return nil })
	if err != nil || size != int64(len(whole)) || len(seqs) != 2 {
		t.Fatalf("size %d (want %d), seqs %v, err %v", size, len(whole), seqs, err)
	}
	if len(probs) != 1 || probs[0].Line != 2 || probs[0].Path != rel || probs[0].Rule != "trace" {
		t.Errorf("problems %+v", probs)
	}
	outside := filepath.Join(t.TempDir(), "secret.jsonl")
	os.WriteFile(outside, []byte(whole), 0o644)
	link := "traces/2026/01/generic-l.jsonl"
	if err := os.Symlink(outside, filepath.Join(s.Root, filepath.FromSlash(link))); err != nil {
		t.Skip(err)
	}
	if _, _, err := s.ReadFile(link, func(Record) error { return nil }); err == nil {
		t.Error("a session file linking out of the KB was read")
	}
}
