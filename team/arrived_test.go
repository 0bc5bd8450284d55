package team

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"github.com/kbmem/kb/internal/fsx"
)

// A KB in .kb/ of a project repository: the first report records HEAD and
// lists nothing; a pull (here, commits) is classified by layer; HEAD that
// did not move lists only the conflicts, which are found without a pull.
func TestWhatArrived(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git binary")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := t.TempDir()
	root := filepath.Join(dir, ".kb")
	alice := []string{"GIT_AUTHOR_NAME=Alice", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=Alice", "GIT_COMMITTER_EMAIL=a@x"}
	put := func(rel, s string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commit := func(msg string) {
		git(t, dir, alice, "add", "-A")
		git(t, dir, alice, "commit", "-qm", msg)
	}
	git(t, dir, alice, "init", "-q")
	put(".kb/observations/correction/cor-1.md", "---\nid: cor-1\n---\nold\n")
	put("src/main.go", "package main\n")
	commit("one")
	state := filepath.Join(root, ".state", "status.json")
	files := fsx.Tree{Root: root}
	if err := os.MkdirAll(filepath.Dir(state), 0o755); err != nil {
		t.Fatal(err)
	}
	a, err := WhatArrived(files, root, dir, state)
	if err != nil || a.Since != "" || a.Any() || a.Head == "" {
		t.Fatalf("first report = %+v, %v; want HEAD recorded, nothing listed", a, err)
	}
	first := a.Head
	put(".kb/observations/correction/cor-1.md", "---\nid: cor-1\n---\nnew\n")
	put(".kb/observations/correction/cor-2.md", "---\nid: cor-2\n---\n")
	put(".kb/observations/preference/pref-1.md", "---\nid: pref-1\n---\n")
	put(".kb/library/conventions/no-force.md", "---\nid: c\n---\n")
	put(".kb/library/README.md", "about\n")
	put(".kb/episodes/2026/ep-1.md", "---\nid: ep-1\n---\n")
	put("src/main.go", "package main\n\nfunc main() {}\n")
	commit("two")
	put(".kb/episodes/2026/ep-2.md", "---\nid: ep-2\ntitle: x\nkb_conflicts:\n  - field: title\n    ours: x\n    theirs: y\n---\nbody\n")
	put(".kb/library/ref.md", "---\nid: r\n---\nkb_conflicts: in the body is not a conflict\n")
	a, err = WhatArrived(files, root, dir, state)
	if err != nil {
		t.Fatal(err)
	}
	if a.Since != first {
		t.Fatalf("Since = %q, want %q", a.Since, first)
	}
	want := map[string]Count{"correction": {New: 1, Changed: 1}, "preference": {New: 1}}
	if !reflect.DeepEqual(a.Lessons, want) || a.Notes != (Count{New: 1}) || a.Episodes != (Count{New: 1}) {
		t.Fatalf("arrived = %+v", a)
	}
	if !reflect.DeepEqual(a.Conflicts, []string{"episodes/2026/ep-2.md"}) {
		t.Fatalf("Conflicts = %q", a.Conflicts)
	}
	line := a.Summary()
	if !regexp.MustCompile(`^Since [0-9a-f]{7}: 1 new correction, 1 changed correction, 1 new preference, 1 new library note, 1 new episode; 1 file with conflicts to resolve: episodes/2026/ep-2\.md$`).MatchString(line) {
		t.Fatalf("Summary = %q", line)
	}
	// HEAD did not move: only the conflicts.
	a, err = WhatArrived(files, root, dir, state)
	if err != nil || a.Since != "" || len(a.Lessons) != 0 || a.Summary() != "1 file with conflicts to resolve: episodes/2026/ep-2.md" {
		t.Fatalf("unmoved HEAD = %+v, %v", a, err)
	}
	// A damaged state file, or a recorded commit that is gone, is a first report.
	for _, s := range []string{"{not json", `{"head":"0123456789012345678901234567890123456789"}`} {
		if err := os.WriteFile(state, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if a, err := WhatArrived(files, root, dir, state); err != nil || a.Since != "" || len(a.Lessons) != 0 {
			t.Fatalf("state %q: %+v, %v", s, a, err)
		}
	}
	// Outside git: the conflicts only.
	plain := t.TempDir()
	if a, err := WhatArrived(fsx.Tree{Root: plain}, plain, plain, filepath.Join(plain, "s.json")); err != nil || a.Head != "" || a.Any() {
		t.Fatalf("outside git: %+v, %v", a, err)
	}
}
