package gitx

import (
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

// gitAs runs git in dir as the author name (a real git binary, so merges
// are git's own).
func gitAs(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME="+name, "GIT_COMMITTER_NAME="+name,
		"GIT_AUTHOR_EMAIL="+strings.ToLower(name)+"@example.com", "GIT_COMMITTER_EMAIL="+strings.ToLower(name)+"@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// Two people each add a source line to the same file on their own branch;
// after the merge each line is credited to the person who added it, not to
// whoever merged, and a line nobody committed is absent.
func TestIntroducedByAcrossAMerge(t *testing.T) {
	if !hasGit() {
		t.Skip("no git binary")
	}
	dir := t.TempDir()
	gitAs(t, dir, "Alice", "init", "-q", "-b", "main")
	const p = "kb/observations/correction/cor-1.md"
	writeFile(t, dir, p, "---\nsources:\n  - s1#2-4\n---\nSources: s1#2-4\n")
	gitAs(t, dir, "Alice", "add", "-A")
	gitAs(t, dir, "Alice", "commit", "-qm", "alice")
	gitAs(t, dir, "Bob", "checkout", "-q", "-b", "bob")
	writeFile(t, dir, p, "---\nsources:\n  - s1#2-4\n  - s2#2-40\n---\nSources: s1#2-4, s2#2-40\n")
	gitAs(t, dir, "Bob", "commit", "-qam", "bob")
	gitAs(t, dir, "Alice", "checkout", "-q", "main")
	writeFile(t, dir, "other.txt", "x\n")
	gitAs(t, dir, "Alice", "add", "-A")
	gitAs(t, dir, "Alice", "commit", "-qm", "unrelated")
	gitAs(t, dir, "Carol", "merge", "-q", "--no-ff", "--no-edit", "bob")

	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.IntroducedBy(map[string][]string{p: {"s1#2-4", "s2#2-40", "s2#2-4", "s3#1"}, "missing.md": {"s1#2-4"}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for nd, sig := range got[p] {
		names[nd] = sig.Name
	}
	want := map[string]string{"s1#2-4": "Alice", "s2#2-40": "Bob"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("IntroducedBy = %v, want %v", names, want)
	}
	if len(got["missing.md"]) != 0 {
		t.Fatalf("a file not in history got authors: %v", got["missing.md"])
	}
	// The walk is bounded: one commit back (the merge) credits nobody.
	got, err = r.IntroducedBy(map[string][]string{p: {"s1#2-4", "s2#2-40"}}, 1)
	if err != nil || len(got[p]) != 0 {
		t.Fatalf("bounded walk = %v, %v; want nothing", got, err)
	}
}

func TestIntroducedByUnbornHead(t *testing.T) {
	dir := t.TempDir()
	if err := Init(dir); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.IntroducedBy(map[string][]string{"a.md": {"x"}}, 0)
	if err != nil || len(got) != 0 {
		t.Fatalf("unborn HEAD: %v, %v", got, err)
	}
}

func TestHasToken(t *testing.T) {
	for _, c := range []struct {
		text, needle string
		want         bool
	}{
		{"  - s#2-4\n", "s#2-4", true},
		{"Sources: a#1, s#2-4", "s#2-4", true},
		{"  - s#2-40\n", "s#2-4", false},
		{"  - xs#2-4\n", "s#2-4", false},
		{"s#2-40 s#2-4", "s#2-4", true},
		{"anything", "", false},
	} {
		if got := HasToken(c.text, c.needle); got != c.want {
			t.Errorf("HasToken(%q, %q) = %v, want %v", c.text, c.needle, got, c.want)
		}
	}
}

func TestChanges(t *testing.T) {
	dir := newRepo(t)
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Changes("HEAD~1", "HEAD", "notes", "keep.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{{Path: "keep.txt", Action: "added"}, {Path: "notes/a.md", Action: "modified"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Changes = %v, want %v", got, want)
	}
	got, err = r.Changes("HEAD", "HEAD~1")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != (Change{Path: "keep.txt", Action: "deleted"}) {
		t.Fatalf("Changes back = %v", got)
	}
}

func FuzzHasToken(f *testing.F) {
	f.Add("Sources: s#2-4, t#1", "s#2-4")
	f.Add("s#2-40", "s#2-4")
	f.Fuzz(func(t *testing.T, text, needle string) {
		if HasToken(text, needle) && !strings.Contains(text, needle) {
			t.Fatalf("HasToken(%q, %q) without the needle in the text", text, needle)
		}
	})
}
