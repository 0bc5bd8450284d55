package team

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kbmem/kb/internal/gitx"
)

func git(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// A committed source is its committer's; a source only in the work tree is
// the local git user's; outside git nobody is named without a global user.
func TestPeople(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git binary")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := t.TempDir()
	alice := []string{"GIT_AUTHOR_NAME=Alice", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=Alice", "GIT_COMMITTER_EMAIL=a@x"}
	git(t, dir, alice, "init", "-q")
	git(t, dir, nil, "config", "user.name", "Dana")
	const p = "observations/correction/cor-1.md"
	write := func(s string) {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("---\nsources:\n  - s1#2-4\n---\n")
	git(t, dir, alice, "add", "-A")
	git(t, dir, alice, "commit", "-qm", "alice")
	write("---\nsources:\n  - s1#2-4\n  - s2#1\n---\n")
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := People(repo, [][]Sourced{
		{{Path: p, Sources: []string{"s1#2-4", "s2#1"}}},
		{{Path: p, Sources: []string{"s1#2-4"}}},
		{},
	})
	want := [][]string{{"Alice", "Dana"}, {"Alice"}, {}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("People = %q, want %q", got, want)
	}
	if got := People(nil, [][]Sourced{{{Path: p, Sources: []string{"s1#2-4"}}}}); !reflect.DeepEqual(got, [][]string{{}}) {
		t.Fatalf("People without git or a global user = %q", got)
	}
}
