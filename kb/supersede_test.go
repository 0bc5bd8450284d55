package kb

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kbmem/kb/observations"
)

// supLine is one Claude Code transcript line of the person or the agent.
func supLine(t *testing.T, sess, uuid, parent, role, text, ts, cwd string) string {
	t.Helper()
	var content any = text
	if role == "assistant" {
		content = []map[string]any{{"type": "text", "text": text}}
	}
	m := map[string]any{"parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": cwd, "sessionId": sess,
		"version": "2.0.55", "type": role, "uuid": uuid, "timestamp": ts,
		"message": map[string]any{"role": role, "content": content}}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// supSession writes a Claude Code session of alternating agent and person
// turns (the person's words are texts[1], texts[3], ...).
func supSession(t *testing.T, dir, sess, cwd, day string, texts ...string) string {
	t.Helper()
	var lines []string
	parent := ""
	for i, tx := range texts {
		role := "assistant"
		if i%2 == 1 {
			role = "user"
		}
		uuid := sess + "-" + string(rune('a'+i))
		lines = append(lines, supLine(t, sess, uuid, parent, role, tx, day+"T10:0"+string(rune('0'+i))+":00.000Z", cwd))
		parent = uuid
	}
	p := filepath.Join(dir, sess+".jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func supExtract(t *testing.T, k *KB, files ...string) *ExtractReport {
	t.Helper()
	ctx := context.Background()
	if len(files) == 0 {
	} else if _, err := k.Import(ctx, files, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	rep, err := k.Extract(ctx, ExtractOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func supFiles(t *testing.T, k *KB) map[string]*ObsFile {
	t.Helper()
	files, probs, err := k.LoadObservations(context.Background())
	if err != nil || len(probs) > 0 {
		t.Fatal(err, probs)
	}
	out := map[string]*ObsFile{}
	for _, f := range files {
		if f.Obs.Type == observations.TypePreference || f.Obs.Type == observations.TypeCorrection {
			out[f.Obs.Summary()] = f
		}
	}
	return out
}

func supFind(m map[string]*ObsFile, word string) *ObsFile {
	for s, f := range m {
		if strings.Contains(strings.ToLower(s), word) {
			return f
		}
	}
	return nil
}

// TestSupersedeChangeOfMind: the person dislikes the polling wait in one
// session and later wants a very simple poll, in the same project: only the
// later one stays active, the earlier one is superseded (status,
// superseded_by, supersedes), recall stops showing it and kb status counts
// it. An unrelated later preference supersedes nothing.
func TestSupersedeChangeOfMind(t *testing.T) {
	k := newExtractKB(t)
	dir := t.TempDir()
	s1 := supSession(t, dir, "s1", "/work/app", "2025-03-01",
		"I added a wait loop that polls the job status every second until it finishes.",
		"I don't like the polling wait in the deploy command, it blocks the terminal.",
		"Understood, I will look for another way.",
		"thanks")
	rep := supExtract(t, k, s1)
	before := supFiles(t, k)
	old := supFind(before, "polling wait")
	if old == nil {
		t.Fatalf("no preference about the polling wait: %v (report %+v)", supKeys(before), rep.Types)
	}
	s2 := supSession(t, dir, "s2", "/work/app", "2025-03-04",
		"Here is the deploy command with the event stream.",
		"Actually I just want a very simple poll in the deploy command, nothing fancy.",
		"Done.",
		"I prefer tabs over spaces in the Makefile of this repo.")
	rep = supExtract(t, k, s2)
	after := supFiles(t, k)
	oldNow := supFind(after, "polling wait in the deploy command, it blocks")
	newer := supFind(after, "simple poll")
	tabs := supFind(after, "tabs")
	if oldNow == nil || newer == nil || tabs == nil {
		t.Fatalf("observations: %v", supKeys(after))
	}
	if oldNow.Obs.Status != observations.StatusSuperseded || oldNow.Obs.SupersededBy != newer.Obs.ID {
		t.Errorf("old: status %q superseded_by %q, want superseded by %s", oldNow.Obs.Status, oldNow.Obs.SupersededBy, newer.Obs.ID)
	}
	if len(newer.Obs.Supersedes) != 1 || newer.Obs.Supersedes[0] != oldNow.Obs.ID {
		t.Errorf("new supersedes %v, want [%s]", newer.Obs.Supersedes, oldNow.Obs.ID)
	}
	if newer.Obs.Status == observations.StatusSuperseded || tabs.Obs.Status == observations.StatusSuperseded || len(tabs.Obs.Supersedes) > 0 {
		t.Errorf("new %q, tabs %q %v: an unrelated preference superseded something", newer.Obs.Status, tabs.Obs.Status, tabs.Obs.Supersedes)
	}
	if oldNow.Edited || newer.Edited {
		t.Errorf("supersession made a file look edited by a person")
	}
	if len(rep.Superseded) != 1 || rep.Superseded[0].Old != oldNow.Obs.ID {
		t.Errorf("report superseded = %+v", rep.Superseded)
	}
	// Recall no longer shows the superseded one; the later one it does.
	r := rcRecall(t, k, RecallQuery{Standing: true, Cwd: "/work/app", Project: "/work/app"})
	for _, it := range r.Items {
		if it.ID == oldNow.Obs.ID {
			t.Errorf("recall shows the superseded %s", it.ID)
		}
	}
	st, err := k.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Superseded != 1 {
		t.Errorf("status superseded = %d, want 1", st.Superseded)
	}
	// Extracting again changes nothing.
	rep = supExtract(t, k)
	if len(rep.Written) != 0 || len(rep.Superseded) != 0 {
		t.Errorf("second run wrote %v, superseded %+v", rep.Written, rep.Superseded)
	}
}

// TestSupersedeKeepsEditedFile: an earlier observation a person edited is
// never rewritten by a supersession; the contradiction is reported.
func TestSupersedeKeepsEditedFile(t *testing.T) {
	k := newExtractKB(t)
	dir := t.TempDir()
	s1 := supSession(t, dir, "e1", "/work/app", "2025-03-01",
		"I added a wait loop that polls the job status.",
		"I don't like the polling wait in the deploy command, it blocks the terminal.")
	supExtract(t, k, s1)
	old := supFind(supFiles(t, k), "polling wait")
	if old == nil {
		t.Fatal("no preference")
	}
	abs := filepath.Join(k.Root, filepath.FromSlash(old.Path))
	b, _ := os.ReadFile(abs)
	edited := strings.Replace(string(b), "it blocks the terminal", "it blocks my terminal", 1)
	if edited == string(b) {
		t.Fatalf("fixture: nothing to edit in\n%s", b)
	}
	if err := os.WriteFile(abs, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	s2 := supSession(t, dir, "e2", "/work/app", "2025-03-04",
		"Here is the deploy command with the event stream.",
		"Actually I just want a very simple poll in the deploy command, nothing fancy.")
	rep := supExtract(t, k, s2)
	got, _ := os.ReadFile(abs)
	if string(got) != edited {
		t.Errorf("the edited file was rewritten:\n%s", got)
	}
	if len(rep.Superseded) != 1 || !rep.Superseded[0].Kept {
		t.Errorf("report superseded = %+v, want one kept", rep.Superseded)
	}
	found := false
	for _, p := range rep.Problems {
		found = found || (p.Path == old.Path && p.Rule == "superseded")
	}
	if !found {
		t.Errorf("no problem reported for the kept file: %+v", rep.Problems)
	}
}

func supKeys(m map[string]*ObsFile) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
