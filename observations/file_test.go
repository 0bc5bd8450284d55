package observations

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kbmem/kb/internal/doc"
)

func sampleCorrection(session string) *Observation {
	t := time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC)
	o := &Observation{
		Type: TypeCorrection, Title: "Stage files by name", Lifecycle: LifecycleSelf,
		Status: StatusCandidate, Confidence: 0.8, Importance: 0.6,
		Trigger: "staging changes with `git add -A`", ActionType: "git:stage-all", ActionTypes: []string{"git:stage-all", "git:add"},
		Lesson: "Add the files you changed by name.", Consequence: "scratch notes live in the repo",
		Signals:  []string{SignalRejection},
		Sources:  []SourceRef{{Session: session, From: 3, To: 5}},
		Sessions: 1, FirstSeen: t, LastSeen: t,
		Excerpt: "user: no, don't stage everything\n  with trailing spaces  ",
	}
	o.ID = o.MakeID()
	return o
}

// TestFileFormatIsStable: testdata/kb-written.md is what kb wrote for
// sampleCorrection before the format moved here; Render writes it byte for
// byte, and reads it back unedited.
func TestFileFormatIsStable(t *testing.T) {
	want, err := os.ReadFile("testdata/kb-written.md")
	if err != nil {
		t.Fatal(err)
	}
	o := sampleCorrection("s1")
	got, err := Render(o)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("Render changed the file format:\n%s\nwant:\n%s", got, want)
	}
	f, prob := ParseFile(FilePath(o.Type, o.ID), want)
	if prob != nil || f.Edited || f.Obs.Lesson != o.Lesson || f.Obs.Sources[0] != o.Sources[0] {
		t.Fatalf("read back: %v %+v", prob, f)
	}
	// Rendering what was read changes nothing.
	if _, _, changed, err := RenderFile(f.Obs, f); err != nil || changed {
		t.Errorf("re-render changed the file: %v %v", changed, err)
	}
	// A status set surgically (kb promote reject) is no edit.
	rej, _ := os.ReadFile("testdata/kb-written-rejected.md")
	if f, prob := ParseFile("r.md", rej); prob != nil || f.Edited || f.Obs.Status != StatusRejected {
		t.Errorf("rejected file: %v %+v", prob, f)
	}
}

func TestFileEditedKeepsText(t *testing.T) {
	raw, _ := Render(sampleCorrection("s1"))
	edited, err := doc.Update(raw, map[string]any{"lesson": "Stage with git add -p, by hand.", "owner": "dana"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, prob := ParseFile("observations/correction/x.md", edited)
	if prob != nil || !f.Edited {
		t.Fatalf("edit not detected: %v", prob)
	}
	m := *f.Obs
	Merge(&m, sampleCorrection("s2"))
	m.Lesson = "kb's own lesson"
	_, out, changed, err := RenderFile(&m, f)
	if err != nil || !changed {
		t.Fatalf("render: %v %v", changed, err)
	}
	for _, want := range []string{"Stage with git add -p, by hand.", "owner: dana", "sessions: 2", "s2#3-5"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "kb's own lesson") {
		t.Errorf("person's text overwritten:\n%s", out)
	}
	// A key a person added to an unedited file survives a re-render.
	withKey, _ := doc.Update(raw, map[string]any{"reviewed_by": "dana"}, nil)
	f, _ = ParseFile("observations/correction/x.md", withKey)
	if f.Edited {
		t.Fatal("an added unknown key counts as an edit")
	}
	m = *f.Obs
	Merge(&m, sampleCorrection("s3"))
	_, out, _, _ = RenderFile(&m, f)
	if !strings.Contains(string(out), "reviewed_by: dana") || !strings.Contains(string(out), "s3#3-5") {
		t.Errorf("foreign key lost or not merged:\n%s", out)
	}
}

func TestParseFileProblems(t *testing.T) {
	for name, src := range map[string]string{
		"yaml":  "---\nid: [unclosed\n---\nx\n",
		"shape": "---\nid: x\ntype: correction\nconfidence: high\n---\n",
	} {
		f, p := ParseFile("observations/correction/"+name+".md", []byte(src))
		if f != nil || p == nil || p.Line == 0 || p.Path == "" {
			t.Errorf("%s: %+v %+v", name, f, p)
		}
	}
	// Without an id, the file name is the id.
	f, p := ParseFile("observations/correction/my-note.md", []byte("---\ntype: correction\n---\n"))
	if p != nil || f.Obs.ID != "my-note" {
		t.Errorf("id from name: %+v %v", f, p)
	}
}

func FuzzParseFile(f *testing.F) {
	good, _ := Render(sampleCorrection("s1"))
	f.Add(good)
	f.Add([]byte("---\nsources: [1, {from: x}]\nalternatives: 3\n---\n"))
	f.Add([]byte("---\nfirst_seen: yesterday\nanswered: maybe\n---\nbody"))
	f.Add([]byte("no frontmatter"))
	f.Fuzz(func(t *testing.T, data []byte) {
		of, prob := ParseFile("observations/x.md", data)
		if (of == nil) == (prob == nil) {
			t.Fatalf("want exactly one of file and problem: %v %v", of, prob)
		}
		if of != nil {
			if _, err := Render(of.Obs); err != nil && of.Obs.Type != "" {
				t.Logf("render: %v", err)
			}
		}
	})
}
