package observations

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kbmem/kb/internal/doc"
)

func gmObs(session, trigger string, seen time.Time) *Observation {
	o := &Observation{Type: TypeCorrection, Title: "Stage files by name", Lifecycle: LifecycleSelf, Status: StatusCandidate,
		Confidence: 0.8, Importance: 0.6, Trigger: trigger, ActionType: "git:stage-all", ActionTypes: []string{"git:stage-all"},
		Lesson: "Add the files you changed by name.", Sources: []SourceRef{{Session: session, From: 3, To: 5}}, Sessions: 1,
		FirstSeen: seen, LastSeen: seen, Signals: []string{SignalRejection}}
	o.ID = o.MakeID()
	return o
}

func gmRender(t testing.TB, o *Observation) []byte {
	t.Helper()
	b, err := Render(o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func gmParse(t testing.TB, b []byte) *File {
	t.Helper()
	f, p := ParseFile("observations/correction/x.md", b)
	if p != nil {
		t.Fatalf("merged file does not parse: %s\n%s", p, b)
	}
	return f
}

const gmRel = "observations/correction/x.md"

func TestGitMergeTwoClonesSameCorrection(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	a := gmRender(t, gmObs("alice-s1", "staging with git add -A", t0))
	b := gmRender(t, gmObs("bob-s9", "running git add . before a commit", t0.Add(48*time.Hour)))
	for _, order := range [][2][]byte{{a, b}, {b, a}} {
		out, conflicts, err := GitMerge(gmRel, nil, order[0], order[1])
		if err != nil || len(conflicts) > 0 {
			t.Fatalf("merge: %v %v", err, conflicts)
		}
		f := gmParse(t, out)
		if f.Edited {
			t.Errorf("a merge of two kb-written files reads as edited:\n%s", out)
		}
		if f.Obs.Sessions != 2 || len(f.Obs.Sources) != 2 {
			t.Errorf("sessions %d sources %v, want 2 and both", f.Obs.Sessions, f.Obs.Sources)
		}
		if !slices.Contains(f.Obs.Signals, SignalRecurrence) || !slices.Contains(f.Obs.Signals, SignalReturn) {
			t.Errorf("signals %v lack recurrence/return", f.Obs.Signals)
		}
		if f.Obs.Trigger != "staging with git add -A" {
			t.Errorf("trigger %q: the older extraction's text should stay", f.Obs.Trigger)
		}
		if doc.HasConflictMarkers(out) {
			t.Errorf("conflict markers:\n%s", out)
		}
	}
	ab, _, _ := GitMerge(gmRel, nil, a, b)
	ba, _, _ := GitMerge(gmRel, nil, b, a)
	if !bytes.Equal(ab, ba) {
		t.Errorf("the two merge orders differ:\n%s\n---\n%s", ab, ba)
	}
}

func TestGitMergeSame(t *testing.T) {
	x := gmRender(t, gmObs("s1", "t", time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)))
	out, c, err := GitMerge(gmRel, x, x, x)
	if err != nil || len(c) > 0 || !bytes.Equal(out, x) {
		t.Fatalf("merge(x,x,x) != x: %v %v", err, c)
	}
}

func edit(t *testing.T, b []byte, old, new string) []byte {
	t.Helper()
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("%q not in\n%s", old, b)
	}
	return bytes.ReplaceAll(b, []byte(old), []byte(new))
}

func TestGitMergeHandEditsBothSides(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	base := gmRender(t, gmObs("s1", "staging with git add -A", t0))
	a := edit(t, base, "Add the files you changed by name.", "Stage each file by its path.")
	b := edit(t, base, "Add the files you changed by name.", "Never stage the whole tree.")
	out, conflicts, err := GitMerge(gmRel, base, a, b)
	if err != nil {
		t.Fatal(err)
	}
	f := gmParse(t, out)
	if len(conflicts) == 0 || conflicts[0].Field != "lesson" || conflicts[0].Ours != "Stage each file by its path." || conflicts[0].Theirs != "Never stage the whole tree." {
		t.Fatalf("conflicts %+v", conflicts)
	}
	if f.Obs.Lesson != "Stage each file by its path." || !f.Edited {
		t.Errorf("lesson %q edited %v: ours should stay, still a person's", f.Obs.Lesson, f.Edited)
	}
	if !bytes.Contains(out, []byte("kb_conflicts:")) || !bytes.Contains(out, []byte("Never stage the whole tree.")) {
		t.Errorf("both values should be visible:\n%s", out)
	}
	if doc.HasConflictMarkers(out) {
		t.Errorf("conflict markers:\n%s", out)
	}
}

func TestGitMergeEditAgainstBookkeeping(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	o := gmObs("s1", "staging with git add -A", t0)
	base := gmRender(t, o)
	a := edit(t, base, "Add the files you changed by name.", "Stage each file by its path.")
	// theirs: kb merged a second session in, as extraction does.
	o2 := *o
	Merge(&o2, gmObs("s2", "x", t0.Add(time.Hour)))
	b, err := doc.Update(base, map[string]any{"sources": []string{"s1#3-5", "s2#3-5"}, "sessions": 2, "last_seen": o2.LastSeen.Format(time.RFC3339)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, order := range [][2][]byte{{a, b}, {b, a}} {
		out, conflicts, err := GitMerge(gmRel, base, order[0], order[1])
		if err != nil || len(conflicts) > 0 {
			t.Fatalf("%v %v", err, conflicts)
		}
		f := gmParse(t, out)
		if f.Obs.Lesson != "Stage each file by its path." || !f.Edited || f.Obs.Sessions != 2 {
			t.Errorf("lesson %q edited %v sessions %d:\n%s", f.Obs.Lesson, f.Edited, f.Obs.Sessions, out)
		}
		if !strings.Contains(string(out), "Sources: s1#3-5, s2#3-5") {
			t.Errorf("the body's sources line is not the union:\n%s", out)
		}
	}
}

func TestGitMergeStatus(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	base := gmRender(t, gmObs("s1", "t", t0))
	promoted, _ := doc.SetStatus(base, StatusPromoted)
	rejected, _ := doc.SetStatus(base, StatusRejected)
	for _, c := range []struct {
		a, b []byte
		want string
	}{{promoted, base, StatusPromoted}, {base, promoted, StatusPromoted}, {promoted, rejected, StatusRejected}, {rejected, promoted, StatusRejected}} {
		other := edit(t, c.b, "confidence: 0.8", "confidence: 0.9")
		out, _, err := GitMerge(gmRel, base, c.a, other)
		if err != nil {
			t.Fatal(err)
		}
		if f := gmParse(t, out); f.Obs.Status != c.want || f.Obs.Confidence != 0.9 {
			t.Errorf("status %q confidence %v, want %q 0.9", f.Obs.Status, f.Obs.Confidence, c.want)
		}
	}
}

func TestGitMergeDamaged(t *testing.T) {
	x := gmRender(t, gmObs("s1", "t", time.Time{}))
	if _, _, err := GitMerge(gmRel, nil, x, []byte("---\nid: [\n---\n")); err == nil {
		t.Fatal("a damaged side merged")
	}
}

func FuzzGitMerge(f *testing.F) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	base := gmRender(f, gmObs("s1", "staging with git add -A", t0))
	a := gmRender(f, gmObs("s2", "git add .", t0.Add(time.Hour)))
	b := bytes.ReplaceAll(base, []byte("Add the files"), []byte("Stage the files"))
	f.Add(base, a, b)
	f.Add([]byte{}, a, base)
	f.Add(base, b, []byte("---\nid: x\n---\nbody\n"))
	f.Add([]byte("---\nid: [\n"), base, a)
	f.Fuzz(func(t *testing.T, o, a, b []byte) {
		out, _, err := GitMerge(gmRel, o, a, b)
		_, pa := ParseFile(gmRel, a)
		_, pb := ParseFile(gmRel, b)
		if pa == nil && pb == nil && err != nil {
			t.Fatalf("both sides parse, the merge failed: %v", err)
		}
		if err != nil {
			return
		}
		// When both sides parse, so does the merge (doc.Trivial3: a side
		// nobody changed is taken as it is).
		if _, p := ParseFile(gmRel, out); p != nil && pa == nil && pb == nil {
			t.Fatalf("the merge does not parse: %s", p)
		}
		for _, x := range [][]byte{a, b} {
			if y, _, err := GitMerge(gmRel, x, x, x); err != nil || !bytes.Equal(x, y) {
				t.Fatal("merge(x,x,x) != x")
			}
		}
		if pa != nil || pb != nil {
			return
		}
		back, _, err := GitMerge(gmRel, o, b, a)
		if err != nil {
			t.Fatalf("merged one way, not the other: %v", err)
		}
		f1, _ := ParseFile(gmRel, out)
		f2, _ := ParseFile(gmRel, back)
		s1, s2 := sourceSet(f1.Obs), sourceSet(f2.Obs)
		if !slices.Equal(s1, s2) || f1.Obs.Sessions != f2.Obs.Sessions {
			t.Fatalf("sources differ by merge order: %v / %v", s1, s2)
		}
	})
}

func sourceSet(o *Observation) []string {
	var s []string
	for _, r := range o.Sources {
		s = append(s, r.String())
	}
	slices.Sort(s)
	return slices.Compact(s)
}
