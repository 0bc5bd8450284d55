package kb

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/observations"
)

func exSampleCorrection(session string) *observations.Observation {
	t := time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC)
	o := &observations.Observation{
		Type: observations.TypeCorrection, Title: "Stage files by name", Lifecycle: observations.LifecycleSelf,
		Status: observations.StatusCandidate, Confidence: 0.8, Importance: 0.6,
		Trigger: "staging changes with `git add -A`", ActionType: "git:stage-all", ActionTypes: []string{"git:stage-all", "git:add"},
		Lesson: "Add the files you changed by name.", Consequence: "scratch notes live in the repo",
		Signals:  []string{observations.SignalRejection},
		Sources:  []observations.SourceRef{{Session: session, From: 3, To: 5}},
		Sessions: 1, FirstSeen: t, LastSeen: t,
		Excerpt: "user: no, don't stage everything\n  with trailing spaces  ",
	}
	o.ID = o.MakeID()
	return o
}

func TestObservationRoundTrip(t *testing.T) {
	k := newExtractKB(t)
	o := exSampleCorrection("s1")
	rel, changed, err := k.SaveObservation(o, nil)
	if err != nil || !changed {
		t.Fatalf("save: %v %v", changed, err)
	}
	if rel != ObservationPath(o.Type, o.ID) {
		t.Errorf("path %s", rel)
	}
	files := exLoadObs(t, k)
	if len(files) != 1 || files[0].Edited || files[0].Obs.Lesson != o.Lesson || files[0].Obs.Sources[0] != o.Sources[0] {
		t.Fatalf("round trip: %+v", files[0])
	}
	// Saving the same observation again is a no-op.
	if _, changed, err := k.SaveObservation(files[0].Obs, files[0]); err != nil || changed {
		t.Errorf("re-save changed the file: %v %v", changed, err)
	}
}

func TestObservationEditedKeepsText(t *testing.T) {
	k := newExtractKB(t)
	o := exSampleCorrection("s1")
	rel, _, err := k.SaveObservation(o, nil)
	if err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(k.Root, rel)
	raw, _ := os.ReadFile(abs)
	edited, err := doc.Update(raw, map[string]any{"lesson": "Stage with git add -p, by hand.", "owner": "dana"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(abs, edited, 0o644)
	f := exLoadObs(t, k)[0]
	if !f.Edited {
		t.Fatal("edit not detected")
	}
	m := *f.Obs
	observations.Merge(&m, exSampleCorrection("s2"))
	m.Lesson = "kb's own lesson"
	if _, changed, err := k.SaveObservation(&m, f); err != nil || !changed {
		t.Fatalf("save: %v %v", changed, err)
	}
	after, _ := os.ReadFile(abs)
	for _, want := range []string{"Stage with git add -p, by hand.", "owner: dana", "sessions: 2", "s2#3-5"} {
		if !strings.Contains(string(after), want) {
			t.Errorf("missing %q in:\n%s", want, after)
		}
	}
	if strings.Contains(string(after), "kb's own lesson") {
		t.Errorf("person's text overwritten:\n%s", after)
	}
	// A key a person added to an unedited file survives a re-render.
	k2 := newExtractKB(t)
	rel, _, _ = k2.SaveObservation(exSampleCorrection("s1"), nil)
	abs = filepath.Join(k2.Root, rel)
	raw, _ = os.ReadFile(abs)
	withTag, _ := doc.Update(raw, map[string]any{"reviewed_by": "dana"}, nil)
	os.WriteFile(abs, withTag, 0o644)
	f = exLoadObs(t, k2)[0]
	if f.Edited {
		t.Fatal("an added unknown key counts as an edit")
	}
	m = *f.Obs
	observations.Merge(&m, exSampleCorrection("s3"))
	if _, _, err := k2.SaveObservation(&m, f); err != nil {
		t.Fatal(err)
	}
	after, _ = os.ReadFile(abs)
	if !strings.Contains(string(after), "reviewed_by: dana") || !strings.Contains(string(after), "s3#3-5") {
		t.Errorf("foreign key lost or not merged:\n%s", after)
	}
}

func TestForgetAndTombstones(t *testing.T) {
	k := newExtractKB(t)
	ctx := context.Background()
	o := exSampleCorrection("s1")
	rel, _, _ := k.SaveObservation(o, nil)
	if _, err := k.Forget(ctx, "nope", ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("forget unknown: %v", err)
	}
	ts, err := k.Forget(ctx, o.ID, "wrong")
	if err != nil || ts.Key != o.Key() {
		t.Fatalf("forget: %v %+v", err, ts)
	}
	if _, err := os.Stat(filepath.Join(k.Root, rel)); err == nil {
		t.Error("file not deleted")
	}
	// A malformed tombstone line is skipped, not fatal.
	tp := filepath.Join(k.Root, TombstoneFile)
	b, _ := os.ReadFile(tp)
	os.WriteFile(tp, append(b, []byte("{oops\n")...), 0o644)
	all, err := k.Tombstones()
	if err != nil || len(all) != 1 {
		t.Fatalf("tombstones: %v %v", all, err)
	}
	if !Forgotten(all, exSampleCorrection("s9")) {
		t.Error("same key in another session not forgotten")
	}
	// A tombstoned file left by an interrupted forget is removed by extract.
	if _, _, err := k.SaveObservation(o, nil); err != nil {
		t.Fatal(err)
	}
	rep := &ExtractReport{}
	if _, err := k.mergeObservations(ctx, nil, rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Removed) != 1 {
		t.Errorf("removed %v", rep.Removed)
	}
}

func TestLoadObservationsBadFiles(t *testing.T) {
	k := newExtractKB(t)
	dir := filepath.Join(k.Root, LayerObservations, "correction")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "bad.md"), []byte("---\nid: [unclosed\n---\nx\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "shape.md"), []byte("---\nid: x\ntype: correction\nconfidence: high\n---\n"), 0o644)
	files, probs, err := k.LoadObservations(context.Background())
	if err != nil || len(files) != 0 || len(probs) != 2 {
		t.Fatalf("files %d probs %v err %v", len(files), probs, err)
	}
	for _, p := range probs {
		if p.Line == 0 {
			t.Errorf("problem without a line: %v", p)
		}
	}
}
