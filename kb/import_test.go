package kb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kbmem/kb/internal/testenv"

	"github.com/kbmem/kb/internal/redact/redacttest"
	"github.com/kbmem/kb/traces"
)

// trNewKB creates and opens a standalone KB in a temp dir, with HOME
// pointed at another temp dir so agent directories are the test's own.
func trNewKB(t testing.TB) *KB {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("CODEX_HOME", "")
	root := filepath.Join(t.TempDir(), "kb")
	if _, err := Init(root); err != nil {
		t.Fatal(err)
	}
	k, err := OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	k.Logf = t.Logf
	return k
}

func trRepoRoot(t testing.TB) string { return testenv.ModuleRoot(t) }

func trShared(t testing.TB) string {
	return testenv.Shared(t, "data", "transcripts")
}

func TestImportRealTranscripts(t *testing.T) {
	src := trShared(t)
	k := trNewKB(t)
	ctx := context.Background()
	// Redaction is covered by TestRedactionEndToEnd; over 13 MB of real
	// transcripts it doubles the run time (see BenchmarkImportReal).
	rep, err := k.Import(ctx, []string{src}, ImportOptions{NoRedact: true})
	var pe *PartialImportError
	if err != nil && !errors.As(err, &pe) {
		t.Fatal(err)
	}
	tot := rep.Totals
	t.Logf("totals: %+v, skipped: %v", tot, rep.Skipped)
	if tot.Files < 20 || tot.Appended < 1000 || tot.Sessions < 20 {
		t.Errorf("implausible totals: %+v", tot)
	}
	if tot.Errors != 0 {
		for _, f := range rep.Files {
			if f.Error != "" {
				t.Errorf("%s: %s", f.File, f.Error)
			}
		}
	}
	for _, f := range rep.Files {
		if f.Error == "" && f.Format == "" && !f.Empty { // empty files have no format yet
			t.Errorf("%s: no format reported", f.File)
		}
	}
	// A second import is a no-op.
	rep2, err := k.Import(ctx, []string{src}, ImportOptions{NoRedact: true})
	if err != nil && !errors.As(err, &pe) {
		t.Fatal(err)
	}
	for _, f := range rep2.Files {
		if f.Appended != 0 {
			t.Errorf("re-import appended %d records from %s", f.Appended, f.File)
		}
	}
	if rep2.Totals.Files != tot.Files {
		t.Errorf("re-import saw %d files, first import %d", rep2.Totals.Files, tot.Files)
	}
	// Every session reads back, records in Seq order. (TraceShow looks the
	// session up first; with 500 sessions the lookups would dominate.)
	list, err := (&traces.Store{Root: k.Root}).Sessions()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) < 20 {
		t.Fatalf("%d sessions listed", len(list))
	}
	if _, err := k.TraceShow(list[0].Agent+"-"+list[0].ID, TraceOptions{}); err != nil {
		t.Fatal(err)
	}
	records := 0
	for _, s := range list {
		tr, err := k.readTrace(s, TraceOptions{})
		if err != nil {
			t.Errorf("show %s: %v", s.ID, err)
			continue
		}
		if len(tr.Problems) > 0 {
			t.Errorf("show %s: problems %v", s.ID, tr.Problems)
		}
		for i := 1; i < len(tr.Records); i++ {
			if tr.Records[i].Seq <= tr.Records[i-1].Seq {
				t.Errorf("%s: seq %d after %d", s.ID, tr.Records[i].Seq, tr.Records[i-1].Seq)
				break
			}
		}
		records += len(tr.Records)
	}
	// Meta records are in the files but not counted as appended.
	if records != tot.Appended+len(list) {
		t.Errorf("sessions hold %d records, import appended %d (+%d meta)", records, tot.Appended, len(list))
	}
}

// BenchmarkImportReal imports every real transcript into a fresh KB, with
// redaction on (the default).
func BenchmarkImportReal(b *testing.B) {
	src := trShared(b)
	for b.Loop() {
		b.StopTimer()
		k := trNewKB(b)
		b.StartTimer()
		if _, err := k.Import(context.Background(), []string{src}, ImportOptions{}); err != nil {
			var pe *PartialImportError
			if !errors.As(err, &pe) {
				b.Fatal(err)
			}
		}
	}
}

func trWriteFile(t testing.TB, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestImportReport(t *testing.T) {
	k := trNewKB(t)
	dir := t.TempDir()
	cc := filepath.Join(dir, "cc.jsonl")
	trWriteFile(t, cc, ccLine("u1", "2025-11-17T10:00:00Z", ccUser("fix the flaky test"))+
		"{this is not json\n"+
		ccLine("a1", "2025-11-17T10:00:01Z", ccAssistantText("Looking."))+"\n")
	bad := filepath.Join(dir, "notes.json")
	trWriteFile(t, bad, `{"hello": "world"}`+"\n")
	readme := filepath.Join(dir, "README.md")
	trWriteFile(t, readme, "# not a transcript\n")

	// Walking: the malformed line is a problem, the .json is skipped, the
	// README ignored.
	rep, err := k.Import(context.Background(), []string{dir}, ImportOptions{})
	var pe *PartialImportError
	if !errors.As(err, &pe) || pe.Problems != 1 || pe.Errors != 0 {
		t.Fatalf("err = %v, want a partial import with 1 problem", err)
	}
	if rep.Totals.Files != 1 || rep.Totals.Appended != 2 || rep.Totals.Skipped != 1 {
		t.Fatalf("totals %+v", rep.Totals)
	}
	if p := rep.Files[0].Problems[0]; !strings.HasPrefix(p, cc+":2: ") {
		t.Errorf("problem %q does not start with file:line", p)
	}
	if rep.Skipped[0].File != bad || !strings.Contains(rep.Skipped[0].Reason, "not a transcript") {
		t.Errorf("skipped %+v", rep.Skipped)
	}
	// Named explicitly, a non-transcript is an error; the rest still imports.
	rep, err = k.Import(context.Background(), []string{bad, cc, filepath.Join(dir, "missing.jsonl")}, ImportOptions{})
	if !errors.As(err, &pe) || pe.Errors != 2 {
		t.Fatalf("err = %v, want 2 failed files", err)
	}
	if rep.Files[0].Error == "" || rep.Files[2].Error == "" || rep.Files[1].Appended != 0 || !rep.Files[1].Unchanged {
		t.Errorf("files %+v", rep.Files)
	}
	if _, err := k.Import(context.Background(), []string{cc}, ImportOptions{Format: "nope"}); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("bad format: %v", err)
	}
}

// --- Claude Code transcript builders -------------------------------------

const ccSession = "7d1e2f3a-0000-4000-8000-00000000beef"

func ccLine(uuid, ts string, fields map[string]any) string {
	m := map[string]any{"parentUuid": nil, "isSidechain": false, "userType": "external", "cwd": "/home/dev/app",
		"sessionId": ccSession, "version": "2.0.42", "gitBranch": "main", "uuid": uuid, "timestamp": ts}
	for k, v := range fields {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return string(b) + "\n"
}

func ccUser(text string) map[string]any {
	return map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}}
}

func ccAssistantText(text string) map[string]any {
	return map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "model": "claude-sonnet-4-5",
		"content": []any{map[string]any{"type": "text", "text": text}}}}
}

func ccToolUse(id, name string, input json.RawMessage) map[string]any {
	return map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "model": "claude-sonnet-4-5",
		"content": []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}}}}
}

func ccToolResult(id, out string) map[string]any {
	return map[string]any{"type": "user", "message": map[string]any{"role": "user",
		"content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": out, "is_error": false}}},
		"toolUseResult": map[string]any{"stdout": out, "stderr": "", "interrupted": false}}
}

// secretTranscript writes a Claude Code transcript carrying the secret
// corpus of testdata/redact/secrets: the .txt fixtures as user messages and
// as tool output, the .json fixtures as tool inputs. It returns the path and
// the secrets used by kind.
func secretTranscript(t testing.TB, dir string) (string, map[string]redacttest.Fake) {
	t.Helper()
	cases, fk, err := redacttest.LoadCorpus(filepath.Join(trRepoRoot(t), "testdata", "redact", "secrets"))
	if err != nil {
		t.Skipf("secret corpus not available: %v", err)
	}
	used := map[string]redacttest.Fake{}
	var b strings.Builder
	ts := time.Date(2025, 11, 17, 10, 0, 0, 0, time.UTC)
	n := 0
	next := func() string {
		n++
		return ts.Add(time.Duration(n) * time.Second).Format(time.RFC3339)
	}
	for _, c := range cases {
		for _, kind := range c.Kinds {
			used[kind] = fk[kind]
		}
		isJSON, text := c.JSON, c.Text
		id := fmt.Sprintf("toolu_%02d", n)
		if isJSON {
			b.WriteString(ccLine(fmt.Sprintf("a%d", n), next(), ccToolUse(id, "Write", json.RawMessage(text))))
			b.WriteString(ccLine(fmt.Sprintf("r%d", n), next(), ccToolResult(id, "File written")))
			continue
		}
		b.WriteString(ccLine(fmt.Sprintf("u%d", n), next(), ccUser(text)))
		b.WriteString(ccLine(fmt.Sprintf("a%d", n), next(), ccToolUse(id, "Bash", json.RawMessage(`{"command":"cat notes.txt"}`))))
		b.WriteString(ccLine(fmt.Sprintf("r%d", n), next(), ccToolResult(id, text)))
	}
	if len(used) < 15 {
		t.Fatalf("corpus uses %d kinds of secrets, want at least 15", len(used))
	}
	p := filepath.Join(dir, ccSession+".jsonl")
	trWriteFile(t, p, b.String())
	return p, used
}

// trLeaks lists the secret parts found in any file under dir.
func trLeaks(t testing.TB, dir string, secrets map[string]redacttest.Fake) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for kind, s := range secrets {
			for _, part := range s.Parts {
				if bytes.Contains(data, []byte(part)) {
					out = append(out, fmt.Sprintf("%s: %s", p, kind))
					break
				}
			}
		}
		return nil
	})
	slices.Sort(out)
	return out
}

func TestRedactionEndToEnd(t *testing.T) {
	k := trNewKB(t)
	ctx := context.Background()
	src, secrets := secretTranscript(t, t.TempDir())
	rep, err := k.Import(ctx, []string{src}, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Redacted || rep.Totals.Redacted < len(secrets) || rep.Totals.Appended == 0 {
		t.Fatalf("report %+v", rep.Totals)
	}
	t.Logf("%d kinds of secrets, %d redactions, %d records", len(secrets), rep.Totals.Redacted, rep.Totals.Appended)
	// Listing sessions fills .state/sessions.json with the first prompt.
	if _, err := k.Sessions(SessionsOptions{}); err != nil {
		t.Fatal(err)
	}
	x, _, err := k.OpenIndex(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	// No byte of the KB (traces, state, index) holds a secret.
	if l := trLeaks(t, k.Root, secrets); len(l) > 0 {
		t.Errorf("secrets stored:\n%s", strings.Join(l, "\n"))
	}
	// Trace search works, and finds no secret.
	res, err := x.Search(SearchOptions{Query: "the key token password secret cat export api", Layers: []string{LayerTraces}, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) < 20 {
		t.Errorf("%d trace hits for common words", len(res.Hits))
	}
	for kind, s := range secrets {
		for _, part := range s.Parts {
			q := `"` + strings.NewReplacer(`"`, " ", `\`, " ").Replace(part) + `"`
			r, err := x.Search(SearchOptions{Query: q, Layers: []string{LayerTraces}})
			if err != nil {
				continue // not expressible as a query
			}
			for _, h := range r.Hits {
				if strings.Contains(h.Snippet, part) || strings.Contains(h.Title, part) {
					t.Errorf("%s: search hit %s shows the secret", kind, h.ID)
				}
			}
		}
	}
	for _, h := range res.Hits {
		for kind, s := range secrets {
			for _, part := range s.Parts {
				if strings.Contains(h.Snippet+h.Title, part) {
					t.Errorf("%s in hit %s", kind, h.ID)
				}
			}
		}
	}
	x.Close()

	// --no-redact stores as is (into another KB).
	k2 := trNewKB(t)
	if _, err := k2.Import(ctx, []string{src}, ImportOptions{NoRedact: true}); err != nil {
		t.Fatal(err)
	}
	if l := trLeaks(t, filepath.Join(k2.Root, LayerTraces), secrets); len(l) == 0 {
		t.Error("--no-redact: no secret stored, redaction was not turned off")
	}
}

// TestManualRedact: kb trace redact --value removes a value from the
// session files, the index and an observation quoting it, and the next
// import neither duplicates records nor brings the value back.
func TestManualRedact(t *testing.T) {
	k := trNewKB(t)
	ctx := context.Background()
	dir := t.TempDir()
	const value = "frobnicator-9931"
	src := filepath.Join(dir, ccSession+".jsonl")
	trWriteFile(t, src, ccLine("u1", "2025-11-17T10:00:00Z", ccUser("the internal host is "+value+", deploy there"))+
		ccLine("a1", "2025-11-17T10:00:01Z", ccToolUse("t1", "Bash", json.RawMessage(`{"command":"ssh `+value+` uptime"}`)))+
		ccLine("r1", "2025-11-17T10:00:02Z", ccToolResult("t1", "up 3 days"))+
		ccLine("a2", "2025-11-17T10:00:03Z", ccAssistantText("Deployed to the host.")))
	if _, err := k.Import(ctx, []string{src}, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	obs := filepath.Join(k.Root, LayerObservations, "host.md")
	trWriteFile(t, obs, "---\nid: obs-host\ntype: discovery\n---\nDeploys go to "+value+".\n")
	if _, err := k.Sessions(SessionsOptions{}); err != nil {
		t.Fatal(err)
	}
	hits := func() int {
		x, _, err := k.OpenIndex(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer x.Close()
		r, err := x.Search(SearchOptions{Query: `"` + value + `"`, Layers: []string{"all"}})
		if err != nil {
			t.Fatal(err)
		}
		return len(r.Hits)
	}
	if n := hits(); n < 3 {
		t.Fatalf("before: %d hits, want the message, the tool call and the observation", n)
	}
	dry, err := k.RedactTraces(ctx, RedactOptions{Value: value, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if dry.Occurrences != 3 || len(dry.Files) != 2 || dry.Records != 2 {
		t.Fatalf("dry run %+v", dry)
	}
	if l := trLeaks(t, k.Root, map[string]redacttest.Fake{"v": {Text: value, Parts: []string{value}}}); len(l) == 0 {
		t.Fatal("dry run changed files")
	}
	rep, err := k.RedactTraces(ctx, RedactOptions{Value: value})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Occurrences != 3 || !rep.Reindexed {
		t.Fatalf("report %+v", rep)
	}
	if n := hits(); n != 0 {
		t.Errorf("after: %d hits", n)
	}
	// Only the pattern list that keeps later imports clean holds it.
	if l := trLeaks(t, filepath.Join(k.Root), map[string]redacttest.Fake{"v": {Text: value, Parts: []string{value}}}); len(l) != 1 || !strings.Contains(l[0], "manual-redactions.json") {
		t.Errorf("value still stored: %v", l)
	}
	// The session still reads, the tool input is still JSON.
	tr, err := k.TraceShow(ccSession[:8], TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Records) != 5 || !strings.Contains(string(tr.Records[2].Input), ManualMarker) {
		t.Fatalf("records after redact: %+v", tr.Records)
	}
	// The transcript grows, with the value again: imported once, redacted.
	f, err := os.OpenFile(src, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(ccLine("u2", "2025-11-17T10:01:00Z", ccUser("again: "+value)))
	f.Close()
	rep2, err := k.Import(ctx, []string{src}, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep2.Totals.Appended != 1 {
		t.Errorf("import after redact appended %d, want 1", rep2.Totals.Appended)
	}
	tr, err = k.TraceShow(ccSession, TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Records) != 6 || tr.Records[5].Seq != 5 {
		t.Errorf("after re-import: %d records, last seq %d", len(tr.Records), tr.Records[len(tr.Records)-1].Seq)
	}
	if l := trLeaks(t, filepath.Join(k.Root, LayerTraces), map[string]redacttest.Fake{"v": {Text: value, Parts: []string{value}}}); len(l) > 0 {
		b, _ := os.ReadFile(filepath.Join(k.Root, tr.Session.Path))
		t.Errorf("re-import stored the value again: %v\n%s", l, b)
	}
	// Losing the checkpoints does not duplicate either.
	os.Remove(filepath.Join(k.Root, StateDir, "imports.json"))
	rep3, err := k.Import(ctx, []string{src}, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep3.Totals.Appended != 0 {
		t.Errorf("import without checkpoints appended %d", rep3.Totals.Appended)
	}
	if _, err := k.RedactTraces(ctx, RedactOptions{Pattern: regexp.MustCompile(`x*`)}); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("empty-matching pattern: %v", err)
	}
}

func TestAppendTraces(t *testing.T) {
	k := trNewKB(t)
	tok := redacttest.Fakes()["github-pat"].Text
	recs, err := k.AppendTraces(context.Background(), []traces.Record{
		{Session: "manual-1", Role: traces.RoleUser, Text: "remember: token " + tok},
		{Session: "manual-1", Role: traces.RoleAssistant, Text: "noted"},
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Seq != 1 || recs[1].Seq != 2 || strings.Contains(recs[0].Text, tok) {
		t.Fatalf("appended %+v", recs)
	}
	tr, err := k.TraceShow("manual", TraceOptions{Grep: regexp.MustCompile("noted")})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Records) != 1 || tr.Session.Messages != 2 {
		t.Errorf("show: %+v", tr)
	}
	if _, err := k.TraceShow("nope", TraceOptions{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown session: %v", err)
	}
}
