package episodes

import (
	"bytes"
	"slices"
	"testing"
	"time"
)

func gmEpisode(t testing.TB, sessions ...string) []byte {
	t.Helper()
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	e := &Episode{ID: "ep-1", Title: "Fix the build", Goal: "make CI green", Outcome: OutcomeAccomplished,
		Scope: Scope{Sessions: sessions, From: t0, To: t0.Add(time.Hour)}, Artifacts: Artifacts{Files: []string{sessions[len(sessions)-1] + ".go"}}}
	b, err := Render(e)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestGitMergeEpisode(t *testing.T) {
	base := gmEpisode(t, "s1")
	a, b := gmEpisode(t, "s1", "s2"), gmEpisode(t, "s1", "s3")
	out, conflicts, err := GitMerge("episodes/ep-1.md", base, a, b)
	if err != nil || len(conflicts) > 0 {
		t.Fatalf("%v %v", err, conflicts)
	}
	f, p := ParseFile("episodes/ep-1.md", out)
	if p != nil {
		t.Fatal(p)
	}
	if !slices.Equal(f.Episode.Scope.Sessions, []string{"s1", "s2", "s3"}) || f.Edited {
		t.Errorf("sessions %v edited %v:\n%s", f.Episode.Scope.Sessions, f.Edited, out)
	}
	// Both edited the title: ours stays, both are shown.
	ea := bytes.Replace(a, []byte("# Fix the build"), []byte("# Fix the build (alice)"), 1)
	ea = bytes.Replace(ea, []byte("title: Fix the build"), []byte("title: Alice's title"), 1)
	eb := bytes.Replace(b, []byte("title: Fix the build"), []byte("title: Bob's title"), 1)
	out, conflicts, err = GitMerge("episodes/ep-1.md", base, ea, eb)
	if err != nil || len(conflicts) != 1 || conflicts[0].Field != "title" {
		t.Fatalf("%v %+v\n%s", err, conflicts, out)
	}
	if !bytes.Contains(out, []byte("Bob's title")) || !bytes.Contains(out, []byte("title: Alice's title")) {
		t.Errorf("both titles should be visible:\n%s", out)
	}
}

func FuzzGitMergeEpisode(f *testing.F) {
	f.Add(gmEpisode(f, "s1"), gmEpisode(f, "s1", "s2"), gmEpisode(f, "s3"))
	f.Add([]byte(""), []byte("---\ntitle: x\n---\n"), gmEpisode(f, "s1"))
	f.Fuzz(func(t *testing.T, o, a, b []byte) {
		out, _, err := GitMerge("episodes/e.md", o, a, b)
		_, pa := ParseFile("episodes/e.md", a)
		_, pb := ParseFile("episodes/e.md", b)
		if pa == nil && pb == nil && err != nil {
			t.Fatalf("both parse, the merge failed: %v", err)
		}
		// When both sides parse, so does the merge. (A side nobody changed
		// is taken as it is, parsing or not, as git itself would: the
		// contract learn's index merge has too.)
		if err == nil && pa == nil && pb == nil {
			if _, p := ParseFile("episodes/e.md", out); p != nil {
				t.Fatalf("merged episode does not parse: %s", p)
			}
		}
		if y, _, err := GitMerge("episodes/e.md", a, a, a); err != nil || !bytes.Equal(y, a) {
			t.Fatal("merge(x,x,x) != x")
		}
	})
}
