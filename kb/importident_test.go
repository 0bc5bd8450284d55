package kb

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kbmem/kb/agents"
	"github.com/kbmem/kb/traces"
)

// longFirstLine is a Claude Code transcript whose first line (a queued
// prompt over 64 KB, keys in Claude Code's order) names its session only
// after the long text.
func longFirstLine() string {
	return `{"type":"queue-operation","operation":"enqueue","timestamp":"2025-11-17T09:59:00Z","content":"` +
		strings.Repeat("pasted log line ", 70<<10/16) + `","sessionId":"` + ccSession + `"}` + "\n" +
		ccLine("u1", "2025-11-17T10:00:00Z", ccUser("fix the flaky test")) +
		ccLine("a1", "2025-11-17T10:00:01Z", ccAssistantText("Looking."))
}

// TestImportProjectMoved: a project's Claude Code directory moved (the
// encoded cwd changed) and imported again: nothing is appended, the session
// file keeps its records, and the moved copy's new records come in.
func TestImportProjectMoved(t *testing.T) {
	k := trNewKB(t)
	ctx := context.Background()
	projects := filepath.Join(agents.Home(), ".claude", "projects")
	old := filepath.Join(projects, agents.EncodeClaudeProject("/home/dev/app"), ccSession+".jsonl")
	body := ccLine("u1", "2025-11-17T10:00:00Z", ccUser("fix the flaky test")) +
		ccLine("a1", "2025-11-17T10:00:01Z", ccAssistantText("Looking.")) +
		ccLine("a2", "2025-11-17T10:00:02Z", ccToolUse("toolu_1", "Bash", []byte(`{"command":"go test ./..."}`)))
	trWriteFile(t, old, body)
	if _, err := k.ImportSources(ctx, []Source{{Kind: traces.AgentClaudeCode, Path: projects}}, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(projects, agents.EncodeClaudeProject("/home/dev/app-renamed"), ccSession+".jsonl")
	trWriteFile(t, moved, body+ccLine("u2", "2025-11-17T10:01:00Z", ccUser("and the lint")))
	os.RemoveAll(filepath.Dir(old))
	rep, err := k.ImportSources(ctx, []Source{{Kind: traces.AgentClaudeCode, Path: projects}}, ImportOptions{})
	if err != nil || rep.Totals.Appended != 1 {
		t.Fatalf("moved project: %+v %v", rep.Totals, err)
	}
	tr, err := k.TraceShow(ccSession, TraceOptions{})
	if err != nil || len(tr.Records) != 5 {
		t.Fatalf("session holds %d records, want meta + 4: %v", len(tr.Records), err)
	}
}

// TestImportAgentDirReportsWhatItCannotRead: in an agent's own directory a
// file kb cannot read is an error with its path (the rest imported); a
// first line over 64 KB is read whole to find the format; empty transcripts
// and Claude Code's .meta.json companions are normal. Outside an agent's
// directory a file that is no transcript is still only skipped.
func TestImportAgentDirReportsWhatItCannotRead(t *testing.T) {
	k := trNewKB(t)
	ctx := context.Background()
	dir := agents.ClaudeCodeDirs(k.ProjectRoot)[0]
	trWriteFile(t, filepath.Join(dir, ccSession+".jsonl"), longFirstLine())
	trWriteFile(t, filepath.Join(dir, "empty.jsonl"), "")
	sub := filepath.Join(dir, ccSession, "subagents")
	trWriteFile(t, filepath.Join(sub, "agent-a1.jsonl"), ccLine("s1", "2025-11-17T10:00:05Z", ccUser("look for flaky tests")))
	trWriteFile(t, filepath.Join(sub, "agent-a1.meta.json"), `{"agentType":"general-purpose","description":"search"}`)
	bad := filepath.Join(dir, "0b1c2d3e-0000-4000-8000-000000000bad.jsonl")
	trWriteFile(t, bad, "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")

	rep, err := k.ImportSources(ctx, k.TraceSources(true, false, false), ImportOptions{})
	var pe *PartialImportError
	if !errors.As(err, &pe) || pe.Errors != 1 {
		t.Fatalf("err = %v, want one file failed; report %+v", err, rep)
	}
	var failed []string
	for _, f := range rep.Files {
		if f.Error != "" {
			failed = append(failed, f.File+": "+f.Error)
		}
	}
	if len(failed) != 1 || !strings.HasPrefix(failed[0], bad+": not a transcript") {
		t.Errorf("failed files %v", failed)
	}
	if len(rep.Skipped) != 0 {
		t.Errorf("skipped in an agent's directory: %+v", rep.Skipped)
	}
	tr, err := k.TraceShow(ccSession, TraceOptions{})
	// meta, the queued prompt, two messages, the sub-agent's message and its .meta.json
	if err != nil || len(tr.Records) != 6 || !strings.HasPrefix(tr.Records[1].Text, "pasted log line") {
		t.Fatalf("long first line: %v, %d records", err, len(tr.Records))
	}

	// The same files elsewhere: the unreadable one is skipped, as before.
	other := t.TempDir()
	trWriteFile(t, filepath.Join(other, "x.jsonl"), "\x89PNG\r\n\x1a\n")
	rep, err = k.Import(ctx, []string{other}, ImportOptions{})
	if err != nil || rep.Totals.Skipped != 1 || rep.Totals.Errors != 0 {
		t.Errorf("outside an agent's directory: %+v %v", rep.Totals, err)
	}
}

// TestImportCodexDirReportsUnreadableRollout: a rollout whose first line is
// not JSON cannot be told to belong to another project, so it is imported
// (and fails, by name) instead of being left out.
func TestImportCodexDirReportsUnreadableRollout(t *testing.T) {
	k := trNewKB(t)
	day := filepath.Join(agents.CodexSessionsDir(), "2025", "12", "01")
	trWriteFile(t, filepath.Join(day, "rollout-2025-12-01T10-00-00-a.jsonl"), "garbage, not a rollout\n")
	trWriteFile(t, filepath.Join(day, "rollout-2025-12-01T10-00-00-b.jsonl"), `{"timestamp":"2025-12-01T10:00:00Z","type":"session_meta","payload":{"id":"b","cwd":"/somewhere/else"}}`+"\n")
	trWriteFile(t, filepath.Join(day, "rollout-2025-12-01T10-00-00-c.jsonl"), `{"timestamp":"2025-12-01T10:00:00Z","type":"sess`) // still being written
	rep, err := k.ImportSources(context.Background(), k.TraceSources(false, true, false), ImportOptions{})
	var pe *PartialImportError
	if !errors.As(err, &pe) || pe.Errors != 1 || len(rep.Files) != 1 || !strings.HasSuffix(rep.Files[0].File, "-a.jsonl") {
		t.Fatalf("err %v, files %+v", err, rep.Files)
	}
}

// TestDrainQueueLogsFailedImport: the SessionEnd hook's drain runs detached;
// a transcript it cannot import is written to the hook log.
func TestDrainQueueLogsFailedImport(t *testing.T) {
	k := trNewKB(t)
	bad := filepath.Join(t.TempDir(), "s.jsonl")
	trWriteFile(t, bad, "\x89PNG\r\n\x1a\n")
	if err := k.EnqueueSession(bad); err != nil {
		t.Fatal(err)
	}
	if _, err := k.DrainQueue(context.Background()); err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(filepath.Join(k.Root, StateDir, "hook.log"))
	if err != nil || !bytes.Contains(log, []byte("SessionEnd error: import failed: import "+bad)) {
		t.Fatalf("hook log: %q %v", log, err)
	}
}

// TestDoctorRepairsTornLine: the state an older kb left after a full disk
// and a re-import (a torn record between whole ones) is reported by file
// and line, and --fix drops it, keeping every record, and re-imports the
// transcript so that nothing it held is missing.
func TestDoctorRepairsTornLine(t *testing.T) {
	k := trNewKB(t)
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), ccSession+".jsonl")
	trWriteFile(t, src, ccLine("u1", "2025-11-17T10:00:00Z", ccUser("fix the flaky test"))+
		ccLine("a1", "2025-11-17T10:00:01Z", ccAssistantText("Looking."))+
		ccLine("u2", "2025-11-17T10:00:02Z", ccUser("and the lint")))
	if _, err := k.Import(ctx, []string{src}, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	tr, _ := k.TraceShow(ccSession, TraceOptions{})
	p := filepath.Join(k.Root, tr.Session.Path)
	clean, _ := os.ReadFile(p)
	lines := bytes.SplitAfter(clean, []byte("\n"))
	// Line 3 (seq 2) torn, then written again whole after it.
	var b []byte
	b = append(b, lines[0]...)
	b = append(b, lines[1]...)
	b = append(b, lines[2][:len(lines[2])/2]...)
	b = append(b, '\n')
	b = append(b, lines[2]...)
	b = append(b, lines[3]...)
	os.WriteFile(p, b, 0o644)

	d, err := k.Doctor(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	var torn []Check
	for _, c := range d.Checks {
		if c.Rule == "torn-line" {
			torn = append(torn, c)
		}
	}
	if len(torn) != 1 || torn[0].Path != tr.Session.Path || torn[0].Line != 3 || !torn[0].Fixable || torn[0].Severity != "warning" {
		t.Fatalf("doctor: %+v", d.Checks)
	}
	if d.Errors() != 0 {
		t.Errorf("doctor errors: %+v", d.Checks)
	}
	d, err = k.Doctor(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	fixed := 0
	for _, c := range d.Checks {
		if c.Rule == "torn-line" && c.Fixed {
			fixed++
		} else if c.Rule == "torn-line" || c.Rule == "trace-seq" || c.Rule == "trace-record" {
			t.Errorf("left after --fix: %+v", c)
		}
	}
	if fixed != 1 {
		t.Errorf("--fix: %+v", d.Checks)
	}
	if got, _ := os.ReadFile(p); !bytes.Equal(got, clean) {
		t.Errorf("repaired file:\n%s\nwant:\n%s", got, clean)
	}
	d, _ = k.Doctor(ctx, false)
	for _, c := range d.Checks {
		if strings.HasPrefix(c.Path, LayerTraces) {
			t.Errorf("after --fix: %+v", c)
		}
	}
	// The torn record had no whole copy (the disk filled up, nothing was
	// imported since): --fix writes it again from the transcript.
	os.WriteFile(p, append(append(append([]byte{}, lines[0]...), lines[1]...), lines[2][:len(lines[2])/2]...), 0o644)
	if d, err = k.Doctor(ctx, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); !bytes.Equal(got, clean) {
		t.Errorf("restored file:\n%s\nwant:\n%s", got, clean)
	}
}
