package kb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbmem/kb/internal/gitx"
	"github.com/kbmem/kb/internal/testenv"
	"github.com/kbmem/kb/learn"
	"github.com/kbmem/kb/observations"
)

// lnProject makes a git work tree with a KB at .kb and a private HOME, so
// that the automatic agent directories are empty.
func lnProject(t testing.TB) (string, *KB) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CODEX_HOME", filepath.Join(home, ".codex"))
	proj := t.TempDir()
	if err := gitx.Init(proj); err != nil {
		t.Fatal(err)
	}
	if _, err := Init(filepath.Join(proj, DefaultDirName)); err != nil {
		t.Fatal(err)
	}
	k, err := OpenRoot(filepath.Join(proj, DefaultDirName))
	if err != nil {
		t.Fatal(err)
	}
	if k.ProjectRoot != proj {
		r1, _ := filepath.EvalSymlinks(k.ProjectRoot)
		r2, _ := filepath.EvalSymlinks(proj)
		if r1 != r2 {
			t.Fatalf("project root %s, want %s", k.ProjectRoot, proj)
		}
	}
	k.Logf = t.Logf
	return k.ProjectRoot, k
}

func lnWrite(t testing.TB, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// lnRead returns a file's bytes, or nil when it does not exist.
func lnRead(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var lnDay = time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)

// lnObs builds an observation seen in the given sessions, one day apart.
func lnObs(typ, text string, imp float64, sessions ...string) *observations.Observation {
	o := &observations.Observation{Type: typ, Importance: imp, Confidence: 0.8, Status: observations.StatusCandidate,
		Lifecycle: observations.LifecycleOf(typ)}
	for i, s := range sessions {
		at := lnDay.Add(time.Duration(i) * 24 * time.Hour)
		o.Sources = append(o.Sources, observations.SourceRef{Session: s, From: 1, To: 3, Time: at})
		if o.FirstSeen.IsZero() {
			o.FirstSeen = at
		}
		o.LastSeen = at
	}
	o.Sessions = len(sessions)
	switch typ {
	case observations.TypeCorrection:
		o.Lesson = text
	case observations.TypePreference:
		o.Statement = text
	case observations.TypeDiscovery:
		o.Claim = text
	case observations.TypeNegativeResult:
		o.Approach, o.Failure, o.FollowedBy = text, "it timed out", "run it with -short"
	case observations.TypeQuestion:
		o.Question = text
	}
	return o
}

func lnSave(t testing.TB, k *KB, obs ...*observations.Observation) {
	t.Helper()
	for _, o := range obs {
		if _, _, err := k.SaveObservation(o, nil); err != nil {
			t.Fatal(err)
		}
	}
}

func lnLearn(t testing.TB, k *KB, o LearnOptions) *LearnResult {
	t.Helper()
	res, err := k.Learn(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func lnIndex(t testing.TB, proj string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(lnRead(t, filepath.Join(proj, LearnIndexFile)), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func lnFacts(t testing.TB, proj string) []string {
	t.Helper()
	var out []string
	for _, e := range lnIndex(t, proj)["entries"].([]any) {
		out = append(out, e.(map[string]any)["fact"].(string))
	}
	return out
}

func lnDropReason(res *LearnResult, factPart string) string {
	for _, d := range res.Dropped {
		if strings.Contains(d.Fact, factPart) {
			return d.Reason
		}
	}
	return ""
}

const lnRecurring = "Never force-push to main; open a pull request instead."

// Steps 3, 6 and 7: a recurring correction is written to both files; the
// second tick on the same material is an explicit no-update, also when the
// tick record is lost (dedup against the index then does it).
func TestLearnUpdateThenIdempotent(t *testing.T) {
	proj, k := lnProject(t)
	lnSave(t, k,
		lnObs(observations.TypeCorrection, lnRecurring, 0.5, "sess-a", "sess-b"),
		lnObs(observations.TypeQuestion, "What does the deploy script do?", 0.9, "sess-a", "sess-b"))
	res := lnLearn(t, k, LearnOptions{})
	if res.Result != LearnUpdated || len(res.Applied) != 1 {
		t.Fatalf("first tick: %+v", res)
	}
	a := res.Applied[0]
	if a.Category != CategoryConstraint || a.SourceSession != "sess-a" || a.Date != "2026-03-05" || a.Fact != lnRecurring {
		t.Errorf("applied %+v", a)
	}
	agents := string(lnRead(t, filepath.Join(proj, "AGENTS.md")))
	if !strings.Contains(agents, LearnBegin+"\n") || !strings.Contains(agents, "### Constraints\n\n- "+lnRecurring+"\n") || !strings.HasSuffix(agents, LearnEnd+"\n") {
		t.Errorf("AGENTS.md:\n%s", agents)
	}
	if got := lnFacts(t, proj); len(got) != 1 || got[0] != lnRecurring {
		t.Errorf("index facts %q", got)
	}
	e := lnIndex(t, proj)["entries"].([]any)[0].(map[string]any)
	if e["source_session"] != "sess-a" || e["date"] != "2026-03-05" || e["category"] != "constraint" || len(e) != 4 {
		t.Errorf("index entry %v", e)
	}
	before := [2][]byte{lnRead(t, filepath.Join(proj, "AGENTS.md")), lnRead(t, filepath.Join(proj, LearnIndexFile))}

	res = lnLearn(t, k, LearnOptions{})
	if res.Result != LearnNoUpdate || res.Reason != ReasonNoNewTranscripts {
		t.Fatalf("second tick: %+v", res)
	}
	os.Remove(filepath.Join(k.learnFiles().State, learn.TicksFile))
	res = lnLearn(t, k, LearnOptions{})
	if res.Result != LearnNoUpdate || res.Reason != ReasonAllDuplicates {
		t.Fatalf("tick without its record: %+v", res)
	}
	after := [2][]byte{lnRead(t, filepath.Join(proj, "AGENTS.md")), lnRead(t, filepath.Join(proj, LearnIndexFile))}
	if !bytes.Equal(before[0], after[0]) || !bytes.Equal(before[1], after[1]) {
		t.Error("a no-update tick changed the files")
	}
	if n := len(k.learnFiles().Snapshots()); n != 1 {
		t.Errorf("%d snapshots, want 1", n)
	}
}

// Step 4: a near-duplicate of a hand-written bullet outside kb's section is
// dropped as a duplicate naming the line; nothing is written.
func TestLearnDedupAgainstHandWritten(t *testing.T) {
	proj, k := lnProject(t)
	hand := "# Guide\n\n- Never force-push to the main branch; open a pull request.\n"
	lnWrite(t, proj, "AGENTS.md", hand)
	lnSave(t, k, lnObs(observations.TypeCorrection, lnRecurring, 0.5, "s1", "s2"))
	res := lnLearn(t, k, LearnOptions{})
	if res.Result != LearnNoUpdate || res.Reason != ReasonAllDuplicates {
		t.Fatalf("result %+v", res)
	}
	if r := lnDropReason(res, "force-push"); r != "duplicate: AGENTS.md:3" {
		t.Errorf("drop reason %q", r)
	}
	if got := string(lnRead(t, filepath.Join(proj, "AGENTS.md"))); got != hand {
		t.Errorf("AGENTS.md changed:\n%s", got)
	}
	if lnRead(t, filepath.Join(proj, LearnIndexFile)) != nil {
		t.Error("index written on no-update")
	}
}

// Step 5: one-off, task-bound, obvious and derivable candidates are dropped
// with their reasons; a governing convention passes.
func TestLearnGate(t *testing.T) {
	proj, k := lnProject(t)
	lnWrite(t, proj, "config/server.yaml", "server:\n  listen_port: 8080\n")
	lnSave(t, k,
		lnObs(observations.TypeCorrection, "Rename the helper to parseHeaderLine.", 0.5, "s1"),
		lnObs(observations.TypeCorrection, "Check whether we need the legacy exporter.", 0.9, "s1"),
		lnObs(observations.TypePreference, "Be careful.", 0.9, "s1", "s2"),
		lnObs(observations.TypeDiscovery, "The dev server port is `listen_port: 8080`.", 0.8, "s1", "s2"),
		lnObs(observations.TypeDiscovery, "The staging database is rebuilt from the nightly dump every Sunday.", 0.6, "s2"),
		lnObs(observations.TypeCorrection, "We use pnpm for every package install.", 0.4, "s2"),
		lnObs(observations.TypeCorrection, "Always check that migrations are reversible.", 0.3, "s3"),
	)
	res := lnLearn(t, k, LearnOptions{})
	if res.Result != LearnUpdated {
		t.Fatalf("result %+v", res)
	}
	for part, want := range map[string]string{
		"parseHeaderLine":  "gate: one-off",
		"legacy exporter":  "gate: one-off",
		"Be careful":       "gate: obvious",
		"listen_port":      "gate: derivable (config/server.yaml)",
		"nightly dump":     "",
		"pnpm for every p": "",
		"migrations":       "",
	} {
		if got := lnDropReason(res, part); got != want {
			t.Errorf("%q: drop reason %q, want %q", part, got, want)
		}
	}
	facts := strings.Join(lnFacts(t, proj), "\n")
	for _, bad := range []string{"parseHeaderLine", "legacy exporter", "careful", "listen_port"} {
		if strings.Contains(facts, bad) {
			t.Errorf("index holds gated fact %q:\n%s", bad, facts)
		}
	}
	if len(res.Applied) != 3 {
		t.Errorf("applied %+v", res.Applied)
	}
	// A tick where everything is below the gate says so.
	proj2, k2 := lnProject(t)
	lnSave(t, k2, lnObs(observations.TypeCorrection, "Rename the helper to parseHeaderLine.", 0.5, "s1"))
	res = lnLearn(t, k2, LearnOptions{})
	if res.Result != LearnNoUpdate || res.Reason != ReasonAllBelowGate {
		t.Errorf("result %+v", res)
	}
	if lnRead(t, filepath.Join(proj2, "AGENTS.md")) != nil {
		t.Error("AGENTS.md created on no-update")
	}
}

// Failure rule: a corrupt index blocks the tick, names the file, and
// nothing is written.
func TestLearnCorruptIndexBlocks(t *testing.T) {
	for name, idx := range map[string]string{
		"truncated":   `{"entries": [{"fact": "x"`,
		"not object":  `[1, 2]`,
		"entries map": `{"entries": {"fact": "x"}}`,
		"fact number": `{"entries": [{"fact": 3}]}`,
		"empty":       ``,
	} {
		t.Run(name, func(t *testing.T) {
			proj, k := lnProject(t)
			lnWrite(t, proj, "AGENTS.md", "# Guide\n")
			lnWrite(t, proj, LearnIndexFile, idx)
			lnSave(t, k, lnObs(observations.TypeCorrection, lnRecurring, 0.5, "s1", "s2"))
			res := lnLearn(t, k, LearnOptions{})
			if res.Result != LearnBlocked || !strings.Contains(res.Reason, LearnIndexFile) {
				t.Fatalf("result %+v", res)
			}
			if string(lnRead(t, filepath.Join(proj, "AGENTS.md"))) != "# Guide\n" || string(lnRead(t, filepath.Join(proj, LearnIndexFile))) != idx {
				t.Error("files changed")
			}
			if len(k.learnFiles().Snapshots()) != 0 {
				t.Error("snapshot taken")
			}
		})
	}
	// Unbalanced section markers block too.
	proj, k := lnProject(t)
	lnWrite(t, proj, "AGENTS.md", "x\n"+LearnBegin+"\n- a\n")
	lnSave(t, k, lnObs(observations.TypeCorrection, lnRecurring, 0.5, "s1", "s2"))
	if res := lnLearn(t, k, LearnOptions{}); res.Result != LearnBlocked || !strings.Contains(res.Reason, "AGENTS.md") {
		t.Errorf("result %+v", res)
	}
}

// Failure rule: a candidate contradicting a recorded entry is surfaced as a
// conflict; the entry is unchanged and the candidate not written.
func TestLearnConflict(t *testing.T) {
	proj, k := lnProject(t)
	idx := `{"entries": [
  {"fact": "Use npm for installing packages.", "source_session": "old", "date": "2025-01-02", "category": "convention"},
  {"fact": "Always run the linter before committing.", "source_session": "old", "date": "2025-01-02", "category": "convention"}
]}
`
	lnWrite(t, proj, LearnIndexFile, idx)
	lnSave(t, k,
		lnObs(observations.TypePreference, "Use pnpm for installing packages.", 0.9, "s1", "s2"),
		lnObs(observations.TypeCorrection, "Do not run the linter before committing.", 0.9, "s1", "s2"))
	res := lnLearn(t, k, LearnOptions{})
	if res.Result != LearnNoUpdate || len(res.Conflicts) != 2 {
		t.Fatalf("result %+v", res)
	}
	for _, c := range res.Conflicts {
		switch {
		case strings.Contains(c.Fact, "pnpm"):
			if c.Where != "index entry 1" || !strings.Contains(c.Why, "different option") {
				t.Errorf("conflict %+v", c)
			}
		case strings.Contains(c.Fact, "linter"):
			if c.Where != "index entry 2" || !strings.Contains(c.Why, "polarity") {
				t.Errorf("conflict %+v", c)
			}
		default:
			t.Errorf("conflict %+v", c)
		}
	}
	if string(lnRead(t, filepath.Join(proj, LearnIndexFile))) != idx {
		t.Error("index changed")
	}
}

// Rollback restores both files byte for byte, including "did not exist",
// and drops the snapshot it used.
func TestLearnRollback(t *testing.T) {
	t.Run("files did not exist", func(t *testing.T) {
		proj, k := lnProject(t)
		lnSave(t, k, lnObs(observations.TypeCorrection, lnRecurring, 0.5, "s1", "s2"))
		if res := lnLearn(t, k, LearnOptions{}); res.Result != LearnUpdated {
			t.Fatalf("learn %+v", res)
		}
		res := lnLearn(t, k, LearnOptions{Rollback: true})
		if res.Result != LearnRolledBack {
			t.Fatalf("rollback %+v", res)
		}
		for _, p := range []string{"AGENTS.md", LearnIndexFile, ".continual-learning"} {
			if _, err := os.Stat(filepath.Join(proj, p)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s exists after rollback (%v)", p, err)
			}
		}
		if len(k.learnFiles().Snapshots()) != 0 {
			t.Error("snapshot kept")
		}
		if res := lnLearn(t, k, LearnOptions{Rollback: true}); res.Result != LearnNoUpdate {
			t.Errorf("second rollback %+v", res)
		}
	})
	t.Run("files existed", func(t *testing.T) {
		proj, k := lnProject(t)
		agents := "# Guide\r\n\r\nNo trailing newline"
		idx := "{\"entries\":[],\n \"x\": 1}"
		lnWrite(t, proj, "AGENTS.md", agents)
		lnWrite(t, proj, LearnIndexFile, idx)
		lnSave(t, k, lnObs(observations.TypeCorrection, lnRecurring, 0.5, "s1", "s2"))
		if res := lnLearn(t, k, LearnOptions{}); res.Result != LearnUpdated {
			t.Fatalf("learn %+v", res)
		}
		if string(lnRead(t, filepath.Join(proj, "AGENTS.md"))) == agents {
			t.Fatal("learn did not change AGENTS.md")
		}
		if res := lnLearn(t, k, LearnOptions{Rollback: true, DryRun: true}); res.Result != LearnRolledBack || !strings.Contains(res.Diff, "-- a/AGENTS.md") {
			t.Fatalf("dry rollback %+v", res)
		}
		if string(lnRead(t, filepath.Join(proj, "AGENTS.md"))) == agents {
			t.Fatal("dry-run rollback wrote")
		}
		lnLearn(t, k, LearnOptions{Rollback: true})
		if got := string(lnRead(t, filepath.Join(proj, "AGENTS.md"))); got != agents {
			t.Errorf("AGENTS.md %q", got)
		}
		if got := string(lnRead(t, filepath.Join(proj, LearnIndexFile))); got != idx {
			t.Errorf("index %q", got)
		}
	})
}

// Failure rule: unreadable transcript sources are skipped and reported; the
// tick goes on with the rest.
func TestLearnSkipsUnreadableSources(t *testing.T) {
	proj, k := lnProject(t)
	src := t.TempDir()
	lnWrite(t, src, "notes.jsonl", "this is not a transcript\n{\"hello\": 1}\n")
	if err := os.MkdirAll(filepath.Join(src, "dir.jsonl"), 0o755); err != nil {
		t.Fatal(err)
	}
	locked := filepath.Join(src, "locked.jsonl")
	lnWrite(t, src, "locked.jsonl", `{"type":"user","message":{"role":"user","content":"hi"},"sessionId":"x","timestamp":"2026-01-01T00:00:00Z","uuid":"u1"}`+"\n")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(locked, 0o644)
	_, rerr := os.ReadFile(locked)
	missing := filepath.Join(src, "missing.jsonl")
	lnSave(t, k, lnObs(observations.TypeCorrection, lnRecurring, 0.5, "s1", "s2"))
	res := lnLearn(t, k, LearnOptions{Sources: []string{src, missing}})
	if res.Result != LearnUpdated {
		t.Fatalf("result %+v", res)
	}
	skipped := map[string]string{}
	for _, s := range res.Skipped {
		skipped[filepath.Base(s.Source)] = s.Reason
	}
	if !strings.Contains(skipped["notes.jsonl"], "not a transcript") {
		t.Errorf("skipped %v", skipped)
	}
	if skipped["missing.jsonl"] == "" {
		t.Errorf("missing source not reported: %v", skipped)
	}
	if rerr != nil && skipped["locked.jsonl"] == "" { // root reads through chmod 000
		t.Errorf("unreadable source not reported: %v", skipped)
	}
	if len(lnFacts(t, proj)) != 1 {
		t.Error("the tick did not go on")
	}
}

// Step 6: every byte of the target outside kb's section is kept, including
// the promoted block; the section keeps its bullets and gains new ones.
func TestLearnKeepsTextOutsideSection(t *testing.T) {
	proj, k := lnProject(t)
	head := "# Project\r\n\r\nHand text  with trailing spaces   \n\n<!-- kb:begin promoted -->\n- promoted rule\n<!-- kb:end promoted -->\n\n"
	tail := "\n\n## Footer\nno newline at end"
	agents := head + LearnBegin + "\n### Conventions\n\n- Kept learned bullet about widgets.\n" + LearnEnd + tail
	lnWrite(t, proj, "AGENTS.md", agents)
	lnSave(t, k, lnObs(observations.TypeCorrection, lnRecurring, 0.5, "s1", "s2"))
	res := lnLearn(t, k, LearnOptions{})
	if res.Result != LearnUpdated {
		t.Fatalf("result %+v", res)
	}
	got := string(lnRead(t, filepath.Join(proj, "AGENTS.md")))
	if !strings.HasPrefix(got, head+LearnBegin) || !strings.HasSuffix(got, LearnEnd+tail) {
		t.Fatalf("text outside the section changed:\n%q", got)
	}
	if !strings.Contains(got, "- Kept learned bullet about widgets.\n") || !strings.Contains(got, "- "+lnRecurring+"\n") {
		t.Errorf("section:\n%s", got)
	}
}

// Step 6: unknown top-level keys and entry fields of index.json survive,
// in order; new entries are appended.
func TestLearnIndexKeepsUnknownKeys(t *testing.T) {
	proj, k := lnProject(t)
	idx := `{"version": 2, "team": {"owner": "infra"}, "entries": [
  {"fact": "Releases are cut from the release branch on Tuesdays.", "source_session": "s0", "date": "2025-12-01", "category": "decision", "reviewer": "bob"}
], "zeta": [1, 2, "<&>"]}`
	lnWrite(t, proj, LearnIndexFile, idx)
	lnSave(t, k, lnObs(observations.TypeCorrection, lnRecurring, 0.5, "s1", "s2"))
	if res := lnLearn(t, k, LearnOptions{}); res.Result != LearnUpdated {
		t.Fatalf("result %+v", res)
	}
	raw := string(lnRead(t, filepath.Join(proj, LearnIndexFile)))
	m := lnIndex(t, proj)
	if m["version"] != float64(2) || m["team"].(map[string]any)["owner"] != "infra" || len(m["zeta"].([]any)) != 3 {
		t.Errorf("top-level keys lost:\n%s", raw)
	}
	ents := m["entries"].([]any)
	if len(ents) != 2 || ents[0].(map[string]any)["reviewer"] != "bob" || ents[1].(map[string]any)["fact"] != lnRecurring {
		t.Errorf("entries:\n%s", raw)
	}
	iv, it, ie, iz := strings.Index(raw, `"version"`), strings.Index(raw, `"team"`), strings.Index(raw, `"entries"`), strings.Index(raw, `"zeta"`)
	if !(iv < it && it < ie && ie < iz) || !strings.Contains(raw, `"<&>"`) {
		t.Errorf("key order or escaping changed:\n%s", raw)
	}
}

// --dry-run shows the diff of both files and writes nothing.
func TestLearnDryRun(t *testing.T) {
	proj, k := lnProject(t)
	lnSave(t, k, lnObs(observations.TypeCorrection, lnRecurring, 0.5, "s1", "s2"))
	res := lnLearn(t, k, LearnOptions{DryRun: true})
	if res.Result != LearnUpdated || !res.DryRun || !strings.Contains(res.Diff, "+- "+lnRecurring) ||
		!strings.Contains(res.Diff, LearnIndexFile) {
		t.Fatalf("result %+v", res)
	}
	if lnRead(t, filepath.Join(proj, "AGENTS.md")) != nil || lnRead(t, filepath.Join(proj, LearnIndexFile)) != nil || len(k.learnFiles().Snapshots()) != 0 {
		t.Error("dry run wrote")
	}
	// And the real tick after it still applies.
	if res := lnLearn(t, k, LearnOptions{}); res.Result != LearnUpdated {
		t.Errorf("after dry run: %+v", res)
	}
}

// --target writes another file; the index is shared.
func TestLearnTargetAndSnapshotsPruned(t *testing.T) {
	proj, k := lnProject(t)
	k.Config.Learn.KeepSnapshots = 2
	for i, lesson := range []string{lnRecurring, "Always pin tool versions in the toolchain file.", "Never commit generated protobuf code.", "Always squash merge feature branches."} {
		lnSave(t, k, lnObs(observations.TypeCorrection, lesson, 0.5, "s1", "s2"))
		res := lnLearn(t, k, LearnOptions{Target: "CLAUDE.md"})
		if res.Result != LearnUpdated || len(res.Applied) != 1 {
			t.Fatalf("tick %d: %+v", i, res)
		}
	}
	if lnRead(t, filepath.Join(proj, "AGENTS.md")) != nil {
		t.Error("AGENTS.md written with --target CLAUDE.md")
	}
	if n := strings.Count(string(lnRead(t, filepath.Join(proj, "CLAUDE.md"))), "\n- "); n != 4 {
		t.Errorf("%d bullets in CLAUDE.md", n)
	}
	if n := len(k.learnFiles().Snapshots()); n != 2 {
		t.Errorf("%d snapshots kept, want 2", n)
	}
	if _, err := k.Learn(context.Background(), LearnOptions{Target: "../outside.md"}); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("target outside the project: %v", err)
	}
}

// An empty KB has no transcripts: blocked, naming the missing input.
func TestLearnNoTranscriptsBlocked(t *testing.T) {
	_, k := lnProject(t)
	res := lnLearn(t, k, LearnOptions{})
	if res.Result != LearnBlocked || !strings.Contains(res.Reason, "no transcripts") {
		t.Errorf("result %+v", res)
	}
}

// lnSharedTranscripts finds ../shared/data/transcripts beside the
// repository root, or skips.
func lnSharedTranscripts(t testing.TB) string {
	return testenv.Shared(t, "data", "transcripts")
}

// The real transcripts: the tick completes, writes only gated facts, and is
// idempotent. One project's transcripts keep the test fast; set
// KB_LEARN_ALL_TRANSCRIPTS=1 to run it on all of them.
func TestLearnRealTranscripts(t *testing.T) {
	src := lnSharedTranscripts(t)
	if os.Getenv("KB_LEARN_ALL_TRANSCRIPTS") == "" {
		src = filepath.Join(src, "claude-code", "projects", "-Users-dain-workspace-JSSoundRecorder")
		if _, err := os.Stat(src); err != nil {
			t.Skipf("%s: %v", src, err)
		}
	}
	proj, k := lnProject(t)
	res := lnLearn(t, k, LearnOptions{Sources: []string{src}})
	t.Logf("result %s (%s): %d sessions, %d candidates, %d applied, %d dropped, %d conflicts, %d skipped",
		res.Result, res.Reason, res.Sessions, res.Candidates, len(res.Applied), len(res.Dropped), len(res.Conflicts), len(res.Skipped))
	for _, a := range res.Applied {
		t.Logf("applied [%s] %s (%s, %d sessions, %s)", a.Category, a.Fact, a.SourceSession, len(a.Sessions), a.Date)
	}
	for _, d := range res.Dropped {
		t.Logf("dropped %s: %s", d.Reason, d.Fact)
	}
	for _, c := range res.Conflicts {
		t.Logf("conflict %s vs %s", c.Fact, c.Existing)
	}
	for _, s := range res.Skipped {
		t.Logf("skipped %s: %s", s.Source, s.Reason)
	}
	if res.Result == LearnBlocked || res.Sessions == 0 {
		t.Fatalf("result %+v", res)
	}
	for _, a := range res.Applied {
		if strings.HasSuffix(a.Fact, "?") || a.SourceSession == "" || len(a.Date) != 10 {
			t.Errorf("bad entry %+v", a)
		}
	}
	before := lnRead(t, filepath.Join(proj, "AGENTS.md"))
	if again := lnLearn(t, k, LearnOptions{Sources: []string{src}}); again.Result != LearnNoUpdate {
		t.Errorf("second tick %+v", again)
	}
	if !bytes.Equal(before, lnRead(t, filepath.Join(proj, "AGENTS.md"))) {
		t.Error("second tick changed AGENTS.md")
	}
	t.Logf("AGENTS.md:\n%s", before)
}

// Step 3: observation types map to categories; questions and unresolved
// negative results are not facts.
func TestLearnCandidatesMapping(t *testing.T) {
	dec := lnObs(observations.TypeDecision, "", 0.9, "s1")
	dec.Question, dec.Chosen, dec.Reasons = "Which queue?", "NATS", []string{"already deployed"}
	dec.Alternatives = []observations.Alternative{{Name: "NATS"}, {Name: "Kafka"}}
	proc := lnObs(observations.TypeProcedure, "", 0.5, "s1", "s2")
	proc.Goal, proc.Steps = "Release a version", []string{"make changelog", "git tag vX.Y.Z", "make publish"}
	mined := lnObs(observations.TypeProcedure, "", 0.5, "s1", "s2")
	mined.Goal, mined.Steps = "Recurring workflow: Read → Edit", []string{"Read", "Edit"}
	unresolved := lnObs(observations.TypeNegativeResult, "running the e2e suite in parallel", 0.9, "s1")
	unresolved.FollowedBy = ""
	var files []learn.File
	for _, o := range []*observations.Observation{
		lnObs(observations.TypeCorrection, "Do not edit generated files.", 0.9, "s1"),
		lnObs(observations.TypeCorrection, "Run gofmt before committing.", 0.9, "s1"),
		lnObs(observations.TypePreference, "Prefer table-driven tests.", 0.9, "s1"),
		dec, proc, mined,
		lnObs(observations.TypeNegativeResult, "running the e2e suite in parallel", 0.9, "s1"),
		unresolved,
		lnObs(observations.TypeDiscovery, "The billing service owns the invoices table.", 0.9, "s1"),
		lnObs(observations.TypeQuestion, "Why is CI slow?", 0.9, "s1"),
	} {
		o.ID = o.MakeID()
		files = append(files, learn.File{Obs: o})
	}
	got := map[string]string{}
	for _, c := range learn.Candidates(files) {
		got[c.Fact] = c.Category
	}
	want := map[string]string{
		"Do not edit generated files.":                                                         CategoryConstraint,
		"Run gofmt before committing.":                                                         CategoryConvention,
		"Prefer table-driven tests.":                                                           CategoryConvention,
		"Use NATS rather than Kafka (already deployed).":                                       CategoryDecision,
		"To release a version: make changelog, then git tag vX.Y.Z, then make publish.":        CategoryConvention,
		"To recurring workflow: Read → Edit: Read, then Edit.":                                 CategoryConvention,
		"Running the e2e suite in parallel fails (it timed out); instead: run it with -short.": CategoryResolvedProblem,
		"The billing service owns the invoices table.":                                         CategoryProjectKnowledge,
	}
	if len(got) != len(want) {
		t.Errorf("got %d candidates, want %d: %v", len(got), len(want), got)
	}
	for f, c := range want {
		if got[f] != c {
			t.Errorf("%q: category %q, want %q (all: %v)", f, got[f], c, got)
		}
	}
}

// A fact kb wrote and a person then removed is not written again; after a
// rollback the facts of the undone tick may be learned again.
func TestLearnRespectsHandRemoval(t *testing.T) {
	proj, k := lnProject(t)
	lnSave(t, k, lnObs(observations.TypeCorrection, lnRecurring, 0.5, "s1", "s2"))
	if res := lnLearn(t, k, LearnOptions{}); res.Result != LearnUpdated {
		t.Fatalf("learn %+v", res)
	}
	lnWrite(t, proj, "AGENTS.md", "# Guide\n")
	lnWrite(t, proj, LearnIndexFile, `{"entries": []}`)
	lnSave(t, k, lnObs(observations.TypeQuestion, "Is anything new?", 0.5, "s3")) // new material
	res := lnLearn(t, k, LearnOptions{})
	if res.Result != LearnNoUpdate || !strings.Contains(lnDropReason(res, "force-push"), "removed by hand") {
		t.Fatalf("result %+v", res)
	}
	// Rollback of a tick forgets what it applied.
	lnSave(t, k, lnObs(observations.TypeCorrection, "Always squash merge feature branches.", 0.5, "s1", "s2"))
	if res := lnLearn(t, k, LearnOptions{}); res.Result != LearnUpdated {
		t.Fatalf("learn %+v", res)
	}
	lnLearn(t, k, LearnOptions{Rollback: true})
	lnSave(t, k, lnObs(observations.TypeQuestion, "Anything else?", 0.5, "s4"))
	res = lnLearn(t, k, LearnOptions{})
	if res.Result != LearnUpdated || len(res.Applied) != 1 || !strings.Contains(res.Applied[0].Fact, "squash") {
		t.Fatalf("after rollback %+v", res)
	}
}
