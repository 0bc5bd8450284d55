package fsx

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kbmem/kb/internal/failpoint"
)

// hostileTree is a KB-like root next to an "outside" directory holding a
// file that must never be read or changed, with the links a cloned
// repository could commit.
func hostileTree(t *testing.T) (tr Tree, outside, rc string) {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "kb")
	outside = filepath.Join(base, "home")
	rc = filepath.Join(outside, ".bashrc")
	for _, d := range []string{filepath.Join(root, "library"), filepath.Join(root, "state"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(rc, []byte("# rc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"state/hook.log":  rc,                   // absolute, out
		"state/rel.log":   "../../home/.bashrc", // relative, out
		"lib-out":         outside,              // directory, out
		"library/chain":   "../state/inner",     // in, then out
		"state/inner":     "../../home",         // out
		"library/inside":  "../state",           // in
		"CLAUDE.md":       "AGENTS.md",          // in, dangling until written
		"library/abs-in":  filepath.Join(root, "state"),
		"state/dangling":  "../../home/new-file", // out, dangling
		"state/loop":      "loop",
		"library/to-file": "../state/file.txt",
	}
	for l, target := range links {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(l))); err != nil {
			t.Skip("symlinks unsupported:", err)
		}
	}
	return Tree{Root: root, Tmp: filepath.Join(root, "state", "tmp")}, outside, rc
}

func TestTreeRefusesLinksOut(t *testing.T) {
	tr, outside, rc := hostileTree(t)
	cases := []struct{ path, link string }{
		{"state/hook.log", "state/hook.log"},
		{"state/rel.log", "state/rel.log"},
		{"lib-out/x.md", "lib-out"},
		{"lib-out", "lib-out"},
		{"library/chain/x.md", "state/inner"},
		{"state/dangling", "state/dangling"},
	}
	for _, c := range cases {
		p := filepath.Join(tr.Root, filepath.FromSlash(c.path))
		for op, f := range map[string]func() error{
			"resolve": func() error { _, err := tr.Resolve(p); return err },
			"read":    func() error { _, err := tr.ReadFile(p); return err },
			"write":   func() error { return tr.WriteFile(p, []byte("$(touch pwned)\n"), 0o644) },
			"append":  func() error { return tr.Append(p, []byte("$(touch pwned)\n")) },
			"mkdir":   func() error { return tr.MkdirAll(filepath.Join(p, "sub")) },
			"stat":    func() error { _, err := tr.Stat(p); return err },
		} {
			err := f()
			var ee *EscapeError
			if !errors.As(err, &ee) || !errors.Is(err, ErrOutsideRoot) {
				t.Errorf("%s %s: err = %v, want an EscapeError", op, c.path, err)
				continue
			}
			if ee.Link != filepath.FromSlash(c.link) {
				t.Errorf("%s %s: names link %q, want %q (%v)", op, c.path, ee.Link, c.link, err)
			}
			if !strings.Contains(err.Error(), filepath.ToSlash(c.link)) {
				t.Errorf("%s %s: message %q does not name the link", op, c.path, err)
			}
		}
	}
	for _, p := range []string{"../x", "/etc/passwd", "library/../../x"} {
		if err := tr.WriteFile(p, []byte("x"), 0o644); !errors.Is(err, ErrOutsideRoot) {
			t.Errorf("write %s: %v, want ErrOutsideRoot", p, err)
		}
	}
	if b, _ := os.ReadFile(rc); string(b) != "# rc\n" {
		t.Fatalf("the file outside changed: %q", b)
	}
	ents, _ := os.ReadDir(outside)
	if len(ents) != 1 {
		t.Fatalf("files created outside: %v", ents)
	}
}

func TestTreeFollowsLinksInside(t *testing.T) {
	tr, _, _ := hostileTree(t)
	// A person's CLAUDE.md -> AGENTS.md: the write goes to AGENTS.md and the
	// link stays a link.
	if err := tr.WriteFile(filepath.Join(tr.Root, "CLAUDE.md"), []byte("rules\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(tr.Root, "AGENTS.md")); err != nil || string(b) != "rules\n" {
		t.Fatalf("AGENTS.md = %q, %v", b, err)
	}
	if fi, err := os.Lstat(filepath.Join(tr.Root, "CLAUDE.md")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("CLAUDE.md is no longer a symlink: %v %v", fi, err)
	}
	for _, p := range []string{"library/inside/a.txt", "library/abs-in/b.txt"} {
		if err := tr.WriteFile(p, []byte(p), 0o644); err != nil {
			t.Errorf("write %s: %v", p, err)
		}
		if b, err := tr.ReadFile(p); err != nil || string(b) != p {
			t.Errorf("read %s: %q %v", p, b, err)
		}
	}
	if _, err := os.Stat(filepath.Join(tr.Root, "state", "a.txt")); err != nil {
		t.Errorf("write through library/inside did not land in state/: %v", err)
	}
	if _, err := tr.Resolve("state/loop/x"); err == nil {
		t.Errorf("a symlink loop resolved")
	}
}

func TestTreeAppendRefusesAnySymlink(t *testing.T) {
	tr, _, _ := hostileTree(t)
	if err := tr.WriteFile("state/file.txt", []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := tr.Append("library/to-file", []byte("two\n"))
	if !errors.Is(err, ErrSymlink) {
		t.Fatalf("append through an inside link: %v, want ErrSymlink", err)
	}
	if err := tr.Append("library/inside/file.txt", []byte("two\n")); err != nil {
		t.Fatalf("append through a directory link inside: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(tr.Root, "state", "file.txt")); string(b) != "one\ntwo\n" {
		t.Fatalf("content %q", b)
	}
}

func TestAppendRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "rc")
	os.WriteFile(target, []byte("# rc\n"), 0o644)
	link := filepath.Join(dir, "hook.log")
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	if err := Append(link, []byte("$(touch x)\n")); err == nil {
		t.Fatal("Append followed a symlink")
	}
	if b, _ := os.ReadFile(target); string(b) != "# rc\n" {
		t.Fatalf("target changed: %q", b)
	}
}

func TestTreeTempFilesStayInTmp(t *testing.T) {
	tr, _, _ := hostileTree(t)
	st, err := tr.Stage("library/note.md", 0o644, func(w io.Writer) error { _, err := w.Write([]byte("x")); return err })
	if err != nil {
		t.Fatal(err)
	}
	if got, want := filepath.Dir(st.tmp), filepath.Join(tr.Root, "state", "tmp"); got != want {
		t.Errorf("temp file in %s, want %s", got, want)
	}
	if err := st.Commit(nil); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(filepath.Join(tr.Root, "state", "tmp")); len(ents) != 0 {
		t.Errorf("temp files left: %v", ents)
	}
	if ents, _ := os.ReadDir(filepath.Join(tr.Root, "library")); len(ents) != 5 { // 4 links + note.md
		t.Errorf("library holds %d entries: %v", len(ents), ents)
	}
	// A temp area that leads out of the tree is not used.
	out := Tree{Root: tr.Root, Tmp: filepath.Join(tr.Root, "lib-out")}
	st, err = out.Stage("library/n2.md", 0o644, func(w io.Writer) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(st.tmp) != filepath.Join(tr.Root, "library") {
		t.Errorf("temp file in %s", st.tmp)
	}
	st.Abort()
}

func TestCommitKeepsAPersonsEdit(t *testing.T) {
	tr := Tree{Root: t.TempDir()}
	p := filepath.Join(tr.Root, "AGENTS.md")
	os.WriteFile(p, []byte("old\n"), 0o644)
	old, _ := tr.ReadFile(p)
	st, err := tr.Stage(p, 0o644, func(w io.Writer) error { _, err := w.Write([]byte("kb's\n")); return err })
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p, []byte("person's\n"), 0o644) // during kb's write and fsync
	err = st.Commit(Unchanged(old, true))
	var ce *ChangedError
	if !errors.As(err, &ce) || ce.Path != p {
		t.Fatalf("Commit = %v, want a ChangedError for %s", err, p)
	}
	if b, _ := os.ReadFile(p); string(b) != "person's\n" {
		t.Fatalf("content %q", b)
	}
	if ents, _ := os.ReadDir(tr.Root); len(ents) != 1 {
		t.Fatalf("temp file left: %v", ents)
	}
	// Created meanwhile while kb expected none.
	q := filepath.Join(tr.Root, "new.md")
	err = tr.Replace(q, []byte("kb"), 0o644, func(cur []byte, exists bool) error {
		return Unchanged(nil, false)(cur, exists)
	})
	if err != nil {
		t.Fatalf("replace of an absent file: %v", err)
	}
}

// TestReplaceChecksRightBeforeRename edits the file at the failpoint that
// sits after the temp file is written and synced (where a slow fsync used
// to leave a window): the edit is kept.
func TestReplaceChecksRightBeforeRename(t *testing.T) {
	tr := Tree{Root: t.TempDir()}
	p := filepath.Join(tr.Root, "obs.md")
	os.WriteFile(p, []byte("v1"), 0o644)
	var note string
	defer failpoint.OnHit("fsx.replace", func(n string) {
		note = n
		os.WriteFile(p, []byte("v1 edited"), 0o644)
	})()
	err := tr.Replace(p, []byte("v2"), 0o644, Unchanged([]byte("v1"), true))
	if !errors.Is(err, ErrChanged) {
		t.Fatalf("Replace = %v, want ErrChanged", err)
	}
	if note != p {
		t.Errorf("failpoint note %q, want %q", note, p)
	}
	if b, _ := os.ReadFile(p); string(b) != "v1 edited" {
		t.Fatalf("content %q", b)
	}
}

func TestTreeRemoveTakesTheLinkOnly(t *testing.T) {
	tr, _, rc := hostileTree(t)
	if err := tr.Remove("state/hook.log"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(tr.Root, "state", "hook.log")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("link still there: %v", err)
	}
	if b, err := os.ReadFile(rc); err != nil || string(b) != "# rc\n" {
		t.Fatalf("target: %q %v", b, err)
	}
	if err := tr.Remove("lib-out/.bashrc"); !errors.Is(err, ErrOutsideRoot) {
		t.Fatalf("remove through a link out: %v", err)
	}
}

// TestTreeRootThroughSymlink: a KB whose own path goes through a symlink
// (a home directory on another disk, /tmp on macOS) works as any other.
func TestTreeRootThroughSymlink(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	os.MkdirAll(filepath.Join(real, "state"), 0o755)
	via := filepath.Join(base, "via")
	if err := os.Symlink(real, via); err != nil {
		t.Skip(err)
	}
	tr := Tree{Root: via, Tmp: filepath.Join(via, "state", "tmp")}
	p := filepath.Join(via, "state", "log")
	for i := 0; i < 2; i++ {
		if err := tr.Append(p, []byte("line\n")); err != nil {
			t.Fatal(err)
		}
	}
	if err := tr.Replace(p, []byte("new\n"), 0o644, Unchanged([]byte("line\nline\n"), true)); err != nil {
		t.Fatal(err)
	}
	if b, err := tr.ReadFile(p); err != nil || string(b) != "new\n" {
		t.Fatalf("%q %v", b, err)
	}
	if _, err := tr.Resolve(filepath.Join(real, "state", "log")); err != nil {
		t.Fatalf("the real spelling of a path inside: %v", err)
	}
}
