package kb

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kbmem/kb/internal/failpoint"
	"github.com/kbmem/kb/internal/testenv"
)

// TestExtractJournalChild is the child process of TestExtractKilledAtEveryWrite:
// it runs kb extract on the KB it is given, with a failpoint armed.
func TestExtractJournalChild(t *testing.T) {
	dir := os.Getenv("KB_JOURNAL_CHILD")
	if dir == "" {
		t.Skip("child process of TestExtractKilledAtEveryWrite")
	}
	k, err := OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Extract(context.Background(), ExtractOptions{}); err != nil {
		t.Fatal(err)
	}
}

// killedExtract copies template, runs kb extract on the copy in a child
// process killed at the nth pass through point, and returns the copy.
func killedExtract(t *testing.T, template, point string, n int) *KB {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mem")
	testenv.CopyTree(t, template, dir)
	cmd := exec.Command(os.Args[0], "-test.run=^TestExtractJournalChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "KB_JOURNAL_CHILD="+dir, failpoint.Env+"="+point+"="+strconv.Itoa(n))
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("%s=%d: extract was not killed:\n%s", point, n, out)
	}
	k, err := OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	k.Logf = t.Logf
	return k
}

// TestExtractKilledAtEveryWrite kills kb extract at every point between its
// writes (after the journal, after each observation file, after the
// session markers) and checks that the next run ends byte for byte where an
// uninterrupted run ends.
func TestExtractKilledAtEveryWrite(t *testing.T) {
	dir := exRenderScenarios(t, filepath.Join("..", "testdata", "observations", "recurring-scenarios.json"))
	tmpl := newExtractKB(t)
	exImport(t, tmpl, dir)

	ref := filepath.Join(t.TempDir(), "ref")
	testenv.CopyTree(t, tmpl.Root, ref)
	rk, err := OpenRoot(ref)
	if err != nil {
		t.Fatal(err)
	}
	rep := exExtract(t, rk, ExtractOptions{})
	want := exSnapshot(t, rk)
	writes := len(rep.Written)
	if writes < 3 {
		t.Fatalf("fixture writes only %d files", writes)
	}
	if _, err := os.Stat(rk.journalPath()); err == nil {
		t.Fatal("an uninterrupted run left its journal")
	}

	points := []struct {
		name string
		n    int
	}{{"extract.journal", 1}, {"extract.marks", 1}}
	for n := 1; n < writes; n++ { // the last write's kill is extract.marks' state but for the markers
		points = append(points, struct {
			name string
			n    int
		}{"extract.write", n})
	}
	points = append(points, struct {
		name string
		n    int
	}{"extract.write", writes})
	t.Logf("a clean run writes %d files; killing at %d points", writes, len(points))
	for _, p := range points {
		k := killedExtract(t, tmpl.Root, p.name, p.n)
		if _, err := os.Stat(k.journalPath()); err != nil {
			t.Fatalf("%s=%d: no journal after the kill: %v", p.name, p.n, err)
		}
		// doctor reports the interrupted run.
		d, err := k.Doctor(context.Background(), false)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, c := range d.Checks {
			found = found || c.Rule == "extract-journal"
		}
		if !found {
			t.Errorf("%s=%d: doctor does not report the interrupted run: %+v", p.name, p.n, d.Checks)
		}
		r := exExtract(t, k, ExtractOptions{})
		if _, err := os.Stat(k.journalPath()); err == nil {
			t.Errorf("%s=%d: journal left after the re-run", p.name, p.n)
		}
		if p.name == "extract.write" && len(r.Resumed) != writes-p.n {
			t.Errorf("%s=%d: resumed %d files, want %d", p.name, p.n, len(r.Resumed), writes-p.n)
		}
		if len(r.Sessions) != 0 {
			t.Errorf("%s=%d: the re-run extracted sessions again (%v): the finished run's markers are missing", p.name, p.n, r.Sessions)
		}
		got := exSnapshot(t, k)
		if len(got) != len(want) {
			t.Errorf("%s=%d: %d files, a clean run %d", p.name, p.n, len(got), len(want))
		}
		for path, w := range want {
			if got[path] != w {
				t.Errorf("%s=%d: %s differs from a clean run:\n%s\n--- want\n%s", p.name, p.n, path, got[path], w)
			}
		}
	}
}

// TestExtractJournalKeepsEdits: a file changed after the interruption (by a
// person, or put in the way) is neither as the run found it nor as it would
// leave it; finishing the run leaves it alone and says so.
func TestExtractJournalKeepsEdits(t *testing.T) {
	dir := exRenderScenarios(t, filepath.Join("..", "testdata", "observations", "recurring-scenarios.json"))
	tmpl := newExtractKB(t)
	exImport(t, tmpl, dir)
	k := killedExtract(t, tmpl.Root, "extract.write", 1)
	b, err := os.ReadFile(k.journalPath())
	if err != nil {
		t.Fatal(err)
	}
	var j extractJournal
	if err := json.Unmarshal(b, &j); err != nil {
		t.Fatal(err)
	}
	last := j.Writes[len(j.Writes)-1]
	mine := []byte("---\nid: mine\ntype: discovery\nclaim: a person's note\n---\nmine\n")
	abs := filepath.Join(k.Root, filepath.FromSlash(last.Path))
	os.MkdirAll(filepath.Dir(abs), 0o755)
	if err := os.WriteFile(abs, mine, 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := k.Doctor(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, c := range d.Checks {
		msgs = append(msgs, c.Path+": "+c.Msg)
	}
	all := strings.Join(msgs, "\n")
	if !strings.Contains(all, last.Path+": changed since the extraction run that was interrupted") {
		t.Errorf("doctor --fix did not report the changed file:\n%s", all)
	}
	if got, _ := os.ReadFile(abs); string(got) != string(mine) {
		t.Errorf("finishing the run overwrote a changed file:\n%s", got)
	}
	if _, err := os.Stat(k.journalPath()); err == nil {
		t.Error("doctor --fix left the journal")
	}
	for _, w := range j.Writes[:len(j.Writes)-1] {
		got, err := os.ReadFile(filepath.Join(k.Root, filepath.FromSlash(w.Path)))
		if err != nil || sum(got) != w.After {
			t.Errorf("%s not finished (%v)", w.Path, err)
		}
	}
}

// TestExtractJournalDamaged: a journal that does not parse is reported and
// discarded; the sessions are extracted again, as if it never existed.
func TestExtractJournalDamaged(t *testing.T) {
	dir := exRenderScenarios(t, filepath.Join("..", "testdata", "observations", "recurring-scenarios.json"))
	k := newExtractKB(t)
	exImport(t, k, dir)
	os.MkdirAll(filepath.Dir(k.journalPath()), 0o755)
	os.WriteFile(k.journalPath(), []byte(`{"version":1,"writes":[{"path":"../../etc/x"`), 0o600)
	rep := exExtract(t, k, ExtractOptions{})
	if len(rep.Problems) == 0 || rep.Problems[0].Rule != "journal" {
		t.Errorf("problems %+v", rep.Problems)
	}
	if len(rep.Sessions) == 0 || len(rep.Written) == 0 {
		t.Errorf("extraction did not run: %+v", rep)
	}
	// A journal whose content does not match its hash is discarded, not
	// retried forever.
	bad, _ := json.Marshal(extractJournal{Version: 1, Writes: []*obsWrite{{Path: "observations/correction/x.md", After: sum([]byte("x")), Content: []byte("y")}}})
	os.WriteFile(k.journalPath(), bad, 0o600)
	rep = exExtract(t, k, ExtractOptions{})
	if len(rep.Problems) == 0 || !strings.Contains(rep.Problems[0].Msg, "does not match its hash") {
		t.Errorf("problems %+v", rep.Problems)
	}
	if _, err := os.Stat(k.journalPath()); err == nil {
		t.Error("damaged journal kept")
	}
	// A journal naming a path outside the KB writes nothing there.
	out := filepath.Join(t.TempDir(), "outside.md")
	rel, _ := filepath.Rel(k.Root, out)
	j, _ := json.Marshal(extractJournal{Version: 1, Writes: []*obsWrite{{Path: filepath.ToSlash(rel), After: sum([]byte("x")), Content: []byte("x")}}})
	os.WriteFile(k.journalPath(), j, 0o600)
	rep = exExtract(t, k, ExtractOptions{})
	if _, err := os.Stat(out); err == nil {
		t.Error("a journal wrote outside the KB")
	}
	if len(rep.Problems) == 0 || !strings.Contains(rep.Problems[0].Msg, "outside the KB") {
		t.Errorf("problems %+v", rep.Problems)
	}
}

// FuzzResumeExtract feeds arbitrary journals to a KB: finishing them must
// never panic, and never create a file outside the KB.
func FuzzResumeExtract(f *testing.F) {
	f.Add([]byte(`{"version":1,"writes":[{"path":"observations/correction/x.md","after":"` + sum([]byte("x")) + `","content":"eA=="}],"marks":{"s":{"size":3,"types":["correction"]}}}`))
	f.Add([]byte(`{"version":1,"writes":[{"path":"../../outside.md","after":"","content":""}]}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`{"version":1,"writes":[null]}`))
	f.Add([]byte("\xff\xfe"))
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		dir, err := os.MkdirTemp(root, "kb")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		k := &KB{Root: filepath.Join(dir, "mem")}
		os.MkdirAll(filepath.Join(k.Root, StateDir), 0o755)
		if err := os.WriteFile(k.journalPath(), b, 0o600); err != nil {
			t.Fatal(err)
		}
		written, _, _ := k.resumeExtract()
		for _, w := range written {
			abs, err := k.Path(w)
			if err != nil || !strings.HasPrefix(abs, k.Root+string(filepath.Separator)) {
				t.Fatalf("wrote %q outside the KB", w)
			}
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 {
			t.Fatalf("files beside the KB: %v", entries)
		}
	})
}

// TestDryRunFinishesJournal: promote --dry-run and status read the state
// an interrupted extraction would have left, not the half-written one.
func TestDryRunFinishesJournal(t *testing.T) {
	dir := exRenderScenarios(t, filepath.Join("..", "testdata", "observations", "recurring-scenarios.json"))
	tmpl := newExtractKB(t)
	exImport(t, tmpl, dir)
	k := killedExtract(t, tmpl.Root, "extract.write", 1)
	if _, err := k.Promote(context.Background(), PromoteOptions{DryRun: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(k.journalPath()); err == nil {
		t.Error("promote --dry-run left the journal")
	}
	k2 := killedExtract(t, tmpl.Root, "extract.write", 2)
	if _, err := k2.Status(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(k2.journalPath()); err == nil {
		t.Error("status left the journal")
	}
}
