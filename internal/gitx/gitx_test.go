package gitx

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/kbmem/kb/internal/gitdir"
	"github.com/kbmem/kb/internal/testenv"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TestMain isolates the tests from the user's git configuration, for both
// go-git and the git binary.
func TestMain(m *testing.M) {
	home, err := os.MkdirTemp("", "gitx-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("HOME", home)
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	os.Unsetenv("GIT_DIR")
	os.Unsetenv("GIT_WORK_TREE")
	os.Unsetenv("GIT_INDEX_FILE")
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		os.Setenv(k, "Test")
	}
	for _, k := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		os.Setenv(k, "test@example.com")
	}
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

var testSig = Signature{Name: "Tester", Email: "tester@example.com", When: time.Unix(1700000000, 0).UTC()}

func hasGit() bool {
	_, err := exec.LookPath("git")
	return err == nil
}

func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return testenv.Git(t, dir, args...)
}

func writeFile(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// commitAll stages every change in the work tree with go-git and commits.
func commitAll(t *testing.T, dir, msg string) {
	t.Helper()
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Commit(msg, &git.CommitOptions{Author: &object.Signature{Name: "T", Email: "t@x", When: time.Now()}}); err != nil {
		t.Fatal(err)
	}
}

// newRepo makes a repository with two commits and a nested layout.
func newRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := Init(dir); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "README.md", "hello\n")
	writeFile(t, dir, "notes/a.md", "a1\n")
	writeFile(t, dir, "notes/deep/b.md", "b1\n")
	writeFile(t, dir, "old/gone.md", "gone\n")
	writeFile(t, dir, "old/sub/gone2.md", "gone2\n")
	commitAll(t, dir, "first")
	writeFile(t, dir, "notes/a.md", "a1\na2\n")
	writeFile(t, dir, "keep.txt", "keep\n")
	commitAll(t, dir, "second")
	return dir
}

// treeFiles lists path -> content of every file at rev.
func treeFiles(t *testing.T, r *Repo, rev string) map[string]string {
	t.Helper()
	h, err := r.repo.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		t.Fatalf("resolve %s: %v", rev, err)
	}
	c, err := r.repo.CommitObject(*h)
	if err != nil {
		t.Fatal(err)
	}
	files, err := c.Files()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	err = files.ForEach(func(f *object.File) error {
		s, err := f.Contents()
		out[f.Name] = s
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// snapshot captures everything CommitToBranch must not change: the bytes
// of every work-tree file, of .git/index and .git/HEAD, and go-git's status.
type snapshot struct {
	files  map[string]string
	status string
}

func takeSnapshot(t *testing.T, dir string, gitDir string) snapshot {
	t.Helper()
	s := snapshot{files: map[string]string{}}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" && p != dir {
			if d.IsDir() {
				return filepath.SkipDir
			}
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			s.files[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"index", "HEAD"} {
		b, err := os.ReadFile(filepath.Join(gitDir, name))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		s.files["<gitdir>/"+name] = string(b)
	}
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	st, err := wt.Status()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(st.String(), "\n")
	sort.Strings(lines) // Status is a map; its String order varies
	s.status = strings.Join(lines, "\n")
	return s
}

func (s snapshot) mustEqual(t *testing.T, after snapshot) {
	t.Helper()
	if s.status != after.status {
		t.Errorf("status changed:\nbefore:\n%s\nafter:\n%s", s.status, after.status)
	}
	for k, v := range s.files {
		if after.files[k] != v {
			t.Errorf("%s changed: %q -> %q", k, v, after.files[k])
		}
	}
	for k := range after.files {
		if _, ok := s.files[k]; !ok {
			t.Errorf("new file %s appeared", k)
		}
	}
}

func TestInitTopLevelOpen(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "a", "kb")
	if _, ok := gitdir.TopLevel(dir); ok {
		t.Skip("the temp dir is inside a git work tree")
	}
	if err := Init(dir); err != nil {
		t.Fatal(err)
	}
	if err := Init(dir); err != nil {
		t.Fatalf("second Init: %v", err)
	}
	sub := filepath.Join(dir, "x", "y")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	top, ok := gitdir.TopLevel(sub)
	if !ok || top != dir {
		t.Fatalf("gitdir.TopLevel(%s) = %q, %v; want %q", sub, top, ok, dir)
	}
	// Init inside a work tree does nothing.
	if err := Init(sub); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(sub, ".git")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Init inside a work tree created %s/.git (err %v)", sub, err)
	}
	r, err := Open(sub)
	if err != nil {
		t.Fatal(err)
	}
	if r.Root() != dir {
		t.Errorf("Root = %q, want %q", r.Root(), dir)
	}
	branch, hash, err := r.Head()
	if err != nil || branch != DefaultBranch || hash != "" {
		t.Fatalf("Head of a new repo = %q, %q, %v; want %q, \"\", nil", branch, hash, err, DefaultBranch)
	}
	if _, err := Open(base); !errors.Is(err, ErrNotRepo) {
		t.Fatalf("Open(non-repo) error = %v, want ErrNotRepo", err)
	}
	if hasGit() {
		out := strings.TrimSpace(runGit(t, sub, "rev-parse", "--show-toplevel"))
		want, _ := filepath.EvalSymlinks(dir)
		if got, _ := filepath.EvalSymlinks(out); got != want {
			t.Errorf("git rev-parse --show-toplevel = %q, want %q", out, want)
		}
		runGit(t, dir, "status")
	}
}

func TestTopLevelGitFile(t *testing.T) {
	dir := t.TempDir()
	if _, ok := gitdir.TopLevel(dir); ok {
		t.Skip("the temp dir is inside a git work tree")
	}
	writeFile(t, dir, "wt/.git", "gitdir: /somewhere/.git/worktrees/wt\n")
	writeFile(t, dir, "notgit/.git", "something else\n")
	if top, ok := gitdir.TopLevel(filepath.Join(dir, "wt", "a", "b")); !ok || top != filepath.Join(dir, "wt") {
		t.Errorf("TopLevel via .git file = %q, %v", top, ok)
	}
	if top, ok := gitdir.TopLevel(filepath.Join(dir, "notgit")); ok {
		t.Errorf("TopLevel accepted a .git file without gitdir: %q", top)
	}
}

func TestCommitToBranchLeavesWorkTreeAlone(t *testing.T) {
	dir := newRepo(t)
	// Uncommitted state: a staged modification, an unstaged one, a staged
	// new file, an untracked file and an unstaged delete.
	writeFile(t, dir, "notes/a.md", "staged\n")
	writeFile(t, dir, "new-staged.md", "ns\n")
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := repo.Worktree()
	for _, p := range []string{"notes/a.md", "new-staged.md"} {
		if _, err := wt.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, dir, "notes/a.md", "staged then unstaged\n")
	writeFile(t, dir, "README.md", "unstaged\n")
	writeFile(t, dir, "untracked/u.md", "u\n")
	if err := os.Remove(filepath.Join(dir, "keep.txt")); err != nil {
		t.Fatal(err)
	}

	var gitStatusBefore string
	if hasGit() {
		gitStatusBefore = runGit(t, dir, "status", "--porcelain=v1", "-uall")
	}
	before := takeSnapshot(t, dir, filepath.Join(dir, ".git"))

	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	headBranch, headHash, err := r.Head()
	if err != nil || headHash == "" {
		t.Fatalf("Head = %q %q %v", headBranch, headHash, err)
	}
	want := treeFiles(t, r, "HEAD")
	changes := []FileChange{
		{Path: "notes/a.md", Content: []byte("branch a\n")},
		{Path: "notes/deep/new/c.md", Content: []byte("c\n")},
		{Path: "fresh/x/y/z.md", Content: []byte("z\n")},
		{Path: "README.md", Delete: true},
		{Path: "old", Delete: true}, // a whole directory
		{Path: "does/not/exist.md", Delete: true},
		{Path: "bin/run.sh", Content: []byte("#!/bin/sh\n"), Mode: 0o755},
		// Names that exercise git's tree order: "a-b" < "a.txt" < "a/" < "a0".
		{Path: "a/inner.md", Content: []byte("i\n")},
		{Path: "a.txt", Content: []byte("t\n")},
		{Path: "a-b", Content: []byte("ab\n")},
		{Path: "a0", Content: []byte("0\n")},
		{Path: "empty.md", Content: nil},
	}
	commit, err := r.CommitToBranch("kb/proposal-1", "kb: propose\n\nbody", testSig, changes)
	if err != nil {
		t.Fatal(err)
	}

	after := takeSnapshot(t, dir, filepath.Join(dir, ".git"))
	before.mustEqual(t, after)
	if b, h, err := r.Head(); err != nil || b != headBranch || h != headHash {
		t.Fatalf("HEAD moved: %q %q %v; want %q %q", b, h, err, headBranch, headHash)
	}

	for _, c := range changes {
		if c.Delete {
			for p := range want {
				if p == c.Path || strings.HasPrefix(p, c.Path+"/") {
					delete(want, p)
				}
			}
			continue
		}
		want[c.Path] = string(c.Content)
	}
	got := treeFiles(t, r, "kb/proposal-1")
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("branch tree:\n got %v\nwant %v", got, want)
	}

	c, err := r.repo.CommitObject(plumbing.NewHash(commit))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.ParentHashes) != 1 || c.ParentHashes[0].String() != headHash {
		t.Errorf("parents = %v, want [%s]", c.ParentHashes, headHash)
	}
	if c.Message != "kb: propose\n\nbody\n" || c.Author.Name != "Tester" || !c.Author.When.Equal(testSig.When) {
		t.Errorf("commit = %q by %v", c.Message, c.Author)
	}
	if f, err := c.File("bin/run.sh"); err != nil || f.Mode.String() != "0100755" {
		t.Errorf("bin/run.sh mode: %v %v", f, err)
	}
	if _, err := r.CommitToBranch("kb/proposal-1", "again", testSig, nil); !errors.Is(err, ErrBranchExists) {
		t.Errorf("second CommitToBranch error = %v, want ErrBranchExists", err)
	}

	if hasGit() {
		if s := runGit(t, dir, "status", "--porcelain=v1", "-uall"); s != gitStatusBefore {
			t.Errorf("git status changed:\n%s\n->\n%s", gitStatusBefore, s)
		}
		runGit(t, dir, "fsck", "--strict", "--no-dangling")
		ls := runGit(t, dir, "ls-tree", "-r", "--name-only", "kb/proposal-1")
		var names []string
		for p := range want {
			names = append(names, p)
		}
		sort.Strings(names)
		gitNames := strings.Fields(ls)
		sort.Strings(gitNames)
		if strings.Join(gitNames, " ") != strings.Join(names, " ") {
			t.Errorf("git ls-tree = %v, want %v", gitNames, names)
		}
		if out := runGit(t, dir, "show", "kb/proposal-1:notes/a.md"); out != "branch a\n" {
			t.Errorf("git show = %q", out)
		}
	}
}

func TestCommitToBranchUnbornHead(t *testing.T) {
	dir := t.TempDir()
	if err := Init(dir); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "wip.md", "untracked\n")
	before := takeSnapshot(t, dir, filepath.Join(dir, ".git"))
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	h, err := r.CommitToBranch("kb/first", "first", testSig, []FileChange{{Path: "m/one.md", Content: []byte("1\n")}})
	if err != nil {
		t.Fatal(err)
	}
	before.mustEqual(t, takeSnapshot(t, dir, filepath.Join(dir, ".git")))
	if b, hash, err := r.Head(); err != nil || b != DefaultBranch || hash != "" {
		t.Fatalf("HEAD = %q %q %v; want still unborn", b, hash, err)
	}
	c, err := r.repo.CommitObject(plumbing.NewHash(h))
	if err != nil || len(c.ParentHashes) != 0 {
		t.Fatalf("root commit: %v parents %v", err, c)
	}
	if got, err := r.FileAt("kb/first", "m/one.md"); err != nil || string(got) != "1\n" {
		t.Fatalf("FileAt = %q %v", got, err)
	}
	// An empty commit on an unborn HEAD has the empty tree.
	h2, err := r.CommitToBranch("kb/empty", "empty", testSig, nil)
	if err != nil {
		t.Fatal(err)
	}
	c2, _ := r.repo.CommitObject(plumbing.NewHash(h2))
	if c2.TreeHash.String() != "4b825dc642cb6eb9a060e54bf8d69288fbee4904" {
		t.Errorf("empty tree hash = %s", c2.TreeHash)
	}
	if hasGit() {
		runGit(t, dir, "fsck", "--strict", "--no-dangling")
	}
}

func TestCommitToBranchErrors(t *testing.T) {
	dir := newRepo(t)
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		branch  string
		msg     string
		changes []FileChange
		want    error
	}{
		{"bad name", "m", nil, ErrInvalidBranch},
		{"", "m", nil, ErrInvalidBranch},
		{"a..b", "m", nil, ErrInvalidBranch},
		{"x.lock", "m", nil, ErrInvalidBranch},
		{"ok1", "m", []FileChange{{Path: "/abs"}}, ErrInvalidPath},
		{"ok2", "m", []FileChange{{Path: "a/../b"}}, ErrInvalidPath},
		{"ok3", "m", []FileChange{{Path: "a//b"}}, ErrInvalidPath},
		{"ok4", "m", []FileChange{{Path: ".git/config"}}, ErrInvalidPath},
		{"ok4b", "m", []FileChange{{Path: "a/.GIT./x"}}, ErrInvalidPath},
		{"ok4c", "m", []FileChange{{Path: "a/b\tc"}}, ErrInvalidPath},
		{"ok5", "m", []FileChange{{Path: ""}}, ErrInvalidPath},
		{"ok6", "m", []FileChange{{Path: "x/"}}, ErrInvalidPath},
		{"ok7", "m", []FileChange{{Path: "keep.txt/child"}}, ErrPathConflict},
		{"ok8", "m", []FileChange{{Path: "notes"}}, ErrPathConflict},
		{"ok9", "m", []FileChange{{Path: "d", Mode: os.ModeDir}}, nil},
	}
	for _, c := range cases {
		_, err := r.CommitToBranch(c.branch, c.msg, testSig, c.changes)
		if err == nil || (c.want != nil && !errors.Is(err, c.want)) {
			t.Errorf("CommitToBranch(%q, %v) error = %v, want %v", c.branch, c.changes, err, c.want)
		}
		if c.branch != "" && r.BranchExists(c.branch) {
			t.Errorf("failed CommitToBranch(%q) left a branch", c.branch)
		}
	}
	if _, err := r.CommitToBranch("ok", "  \n", testSig, nil); err == nil {
		t.Error("empty message accepted")
	}
	// Deleting a file first makes room for a directory of the same name.
	if _, err := r.CommitToBranch("swap", "swap", testSig, []FileChange{
		{Path: "keep.txt", Delete: true},
		{Path: "keep.txt/child", Content: []byte("c")},
	}); err != nil {
		t.Errorf("delete then create below: %v", err)
	}
}

func TestFileAtBranchesDiff(t *testing.T) {
	dir := newRepo(t)
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.CommitToBranch("kb/b", "b", testSig, []FileChange{
		{Path: "notes/a.md", Content: []byte("a1\nchanged\n")},
		{Path: "nonl.md", Content: []byte("no newline")},
		{Path: "keep.txt", Delete: true},
		{Path: "new/dir/n.md", Content: []byte("n\n")},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.CommitToBranch("kb/a", "a", testSig, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := r.CommitToBranch("other", "o", testSig, nil); err != nil {
		t.Fatal(err)
	}
	bs, err := r.Branches("kb/")
	if err != nil || strings.Join(bs, ",") != "kb/a,kb/b" {
		t.Errorf("Branches(kb/) = %v, %v", bs, err)
	}
	all, _ := r.Branches("")
	if len(all) != 4 {
		t.Errorf("Branches() = %v", all)
	}
	if !r.BranchExists("kb/b") || r.BranchExists("kb/c") {
		t.Error("BranchExists wrong")
	}

	if got, err := r.FileAt("kb/b", "notes/a.md"); err != nil || string(got) != "a1\nchanged\n" {
		t.Errorf("FileAt(kb/b) = %q, %v", got, err)
	}
	if got, err := r.FileAt("HEAD", "notes/a.md"); err != nil || string(got) != "a1\na2\n" {
		t.Errorf("FileAt(HEAD) = %q, %v", got, err)
	}
	_, head, _ := r.Head()
	if got, err := r.FileAt(head, "keep.txt"); err != nil || string(got) != "keep\n" {
		t.Errorf("FileAt(hash) = %q, %v", got, err)
	}
	for _, c := range [][2]string{{"kb/b", "keep.txt"}, {"kb/b", "notes"}, {"nope", "README.md"}, {"", "README.md"}, {"HEAD", ""}} {
		if _, err := r.FileAt(c[0], c[1]); !errors.Is(err, ErrNotFound) {
			t.Errorf("FileAt(%q, %q) error = %v, want ErrNotFound", c[0], c[1], err)
		}
	}

	d, err := r.Diff("HEAD", "kb/b")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"diff --git a/notes/a.md b/notes/a.md", "+changed", "-a2", "deleted file mode", "new file mode", "\\ No newline at end of file"} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
	if same, err := r.Diff("HEAD", "kb/a"); err != nil || same != "" {
		t.Errorf("Diff of identical trees = %q, %v", same, err)
	}
	if _, err := r.Diff("HEAD", "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Diff to a missing rev: %v", err)
	}
	full, err := r.Diff("", "HEAD")
	if err != nil || !strings.Contains(full, "+++ b/README.md") {
		t.Errorf("Diff from the empty tree = %q, %v", full, err)
	}

	changed, err := r.ChangedSince("kb/b")
	if err != nil || strings.Join(changed, ",") != "keep.txt,new/dir/n.md,nonl.md,notes/a.md" {
		t.Errorf("ChangedSince = %v, %v", changed, err)
	}
	changed, err = r.ChangedSince("kb/b", "notes", "new/")
	if err != nil || strings.Join(changed, ",") != "new/dir/n.md,notes/a.md" {
		t.Errorf("ChangedSince(notes, new/) = %v, %v", changed, err)
	}

	if hasGit() {
		// The work tree is clean at HEAD, so git apply must accept the
		// patch and reproduce the branch's files.
		runGitStdin(t, dir, d, "apply", "--check")
		runGitStdin(t, dir, d, "apply")
		for _, p := range []string{"notes/a.md", "nonl.md", "new/dir/n.md"} {
			want, _ := r.FileAt("kb/b", p)
			got, err := os.ReadFile(filepath.Join(dir, p))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("after git apply %s = %q, want %q (%v)", p, got, want, err)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "keep.txt")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("git apply did not delete keep.txt")
		}
	}
}

func runGitStdin(t *testing.T, dir, stdin string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s\npatch:\n%s", strings.Join(args, " "), err, out, stdin)
	}
}

func TestUnifiedDiff(t *testing.T) {
	old := []byte("one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n")
	new := []byte("one\ntwo\nTHREE\nfour\nfive\nsix\nseven\neight\nnine")
	d := UnifiedDiff("dir/file name.md", old, new)
	for _, want := range []string{"--- a/dir/file name.md", "+++ b/dir/file name.md", "-three", "+THREE", "+nine", "@@ -1,"} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
	if d := UnifiedDiff("x", old, old); d != "" {
		t.Errorf("equal contents gave %q", d)
	}
	if d := UnifiedDiff("x", nil, nil); d != "" {
		t.Errorf("nil, nil gave %q", d)
	}
	created := UnifiedDiff("sub/new.md", nil, []byte("hi\n"))
	if !strings.Contains(created, "new file mode") || !strings.Contains(created, "+hi") {
		t.Errorf("create diff:\n%s", created)
	}
	deleted := UnifiedDiff("gone.md", []byte("bye\n"), nil)
	if !strings.Contains(deleted, "deleted file mode") || !strings.Contains(deleted, "-bye") {
		t.Errorf("delete diff:\n%s", deleted)
	}
	emptied := UnifiedDiff("e.md", []byte("x\n"), []byte{})
	if !strings.Contains(emptied, "-x") {
		t.Errorf("emptying diff:\n%s", emptied)
	}
	if !hasGit() {
		return
	}
	// git apply works outside a repository too; check each patch applies.
	dir := t.TempDir()
	writeFile(t, dir, "dir/file name.md", string(old))
	writeFile(t, dir, "gone.md", "bye\n")
	for _, p := range []string{d, created, deleted} {
		runGitStdin(t, dir, p, "apply")
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "dir", "file name.md")); !bytes.Equal(got, new) {
		t.Errorf("applied = %q, want %q", got, new)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "sub", "new.md")); string(got) != "hi\n" {
		t.Errorf("created = %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "gone.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("gone.md not deleted")
	}
}

func TestLinkedWorktree(t *testing.T) {
	if !hasGit() {
		t.Skip("git binary not found; needed to create a linked worktree")
	}
	dir := newRepo(t)
	wtDir := filepath.Join(t.TempDir(), "wt")
	runGit(t, dir, "worktree", "add", "-q", "-b", "feature", wtDir)
	writeFile(t, wtDir, "notes/a.md", "feature work\n")
	runGit(t, wtDir, "commit", "-q", "-am", "feature commit")
	writeFile(t, wtDir, "README.md", "dirty in worktree\n")
	runGit(t, wtDir, "add", "README.md")
	writeFile(t, wtDir, "untracked.md", "u\n")

	gitDir := strings.TrimSpace(runGit(t, wtDir, "rev-parse", "--absolute-git-dir"))
	statusBefore := runGit(t, wtDir, "status", "--porcelain=v1", "-uall")
	before := takeSnapshot(t, wtDir, gitDir)

	if top, ok := gitdir.TopLevel(filepath.Join(wtDir, "notes")); !ok || top != wtDir {
		t.Errorf("TopLevel in worktree = %q, %v", top, ok)
	}
	r, err := Open(filepath.Join(wtDir, "notes"))
	if err != nil {
		t.Fatal(err)
	}
	branch, hash, err := r.Head()
	wantHash := strings.TrimSpace(runGit(t, wtDir, "rev-parse", "HEAD"))
	if err != nil || branch != "feature" || hash != wantHash {
		t.Fatalf("Head in worktree = %q %q %v; want feature %s", branch, hash, err, wantHash)
	}
	h, err := r.CommitToBranch("kb/from-wt", "from worktree", testSig, []FileChange{{Path: "notes/wt.md", Content: []byte("wt\n")}})
	if err != nil {
		t.Fatal(err)
	}
	before.mustEqual(t, takeSnapshot(t, wtDir, gitDir))
	if s := runGit(t, wtDir, "status", "--porcelain=v1", "-uall"); s != statusBefore {
		t.Errorf("git status changed:\n%s\n->\n%s", statusBefore, s)
	}
	// The branch lives in the common git dir: the main checkout sees it,
	// and its parent is the worktree's HEAD.
	if got := strings.TrimSpace(runGit(t, dir, "rev-parse", "kb/from-wt")); got != h {
		t.Errorf("main checkout sees kb/from-wt at %q, want %q", got, h)
	}
	if got := strings.TrimSpace(runGit(t, dir, "rev-parse", "kb/from-wt^")); got != wantHash {
		t.Errorf("parent = %q, want %q", got, wantHash)
	}
	if out := runGit(t, dir, "show", "kb/from-wt:notes/a.md"); out != "feature work\n" {
		t.Errorf("branch has notes/a.md = %q", out)
	}
	if main, _ := Open(dir); main == nil || !main.BranchExists("kb/from-wt") {
		t.Error("main repo does not see the branch")
	}
	if b, _, _ := r.Head(); b != "feature" {
		t.Errorf("worktree HEAD moved to %q", b)
	}
	runGit(t, dir, "fsck", "--strict", "--no-dangling")
}

func TestConcurrentCommitToBranch(t *testing.T) {
	dir := newRepo(t)
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Open(dir) // a second handle on the same repository
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	hashes := make([]string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			repo := r
			if i%2 == 1 {
				repo = r2
			}
			hashes[i], errs[i] = repo.CommitToBranch(fmt.Sprintf("kb/c%d", i), "concurrent", testSig,
				[]FileChange{{Path: fmt.Sprintf("c/%d.md", i), Content: []byte(fmt.Sprint(i))}, {Path: "notes/a.md", Content: []byte("shared\n")}})
		}(i)
	}
	wg.Wait()
	for i := 0; i < n; i++ {
		if errs[i] != nil {
			t.Errorf("goroutine %d: %v", i, errs[i])
			continue
		}
		got, err := r.FileAt(hashes[i], fmt.Sprintf("c/%d.md", i))
		if err != nil || string(got) != fmt.Sprint(i) {
			t.Errorf("branch %d content %q %v", i, got, err)
		}
	}
	if bs, _ := r.Branches("kb/c"); len(bs) != n {
		t.Errorf("branches = %v", bs)
	}
	if hasGit() {
		runGit(t, dir, "fsck", "--strict", "--no-dangling")
	}
}

func TestDefaultSignature(t *testing.T) {
	dir := newRepo(t)
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := DefaultSignature(r)
	if s.Name != "kb" || s.Email != "kb@localhost" || s.When.IsZero() {
		t.Errorf("fallback signature = %+v", s)
	}
	if s := DefaultSignature(nil); s.Name != "kb" {
		t.Errorf("nil repo signature = %+v", s)
	}
	// Global config supplies the email, local config overrides the name.
	writeFile(t, os.Getenv("HOME"), ".gitconfig", "[user]\n\tname = Global Name\n\temail = global@example.com\n")
	defer os.Remove(filepath.Join(os.Getenv("HOME"), ".gitconfig"))
	cfg, err := r.repo.Config()
	if err != nil {
		t.Fatal(err)
	}
	cfg.User.Name = "Local Name"
	if err := r.repo.SetConfig(cfg); err != nil {
		t.Fatal(err)
	}
	s = DefaultSignature(r)
	if s.Name != "Local Name" || s.Email != "global@example.com" {
		t.Errorf("configured signature = %+v", s)
	}
	if s := DefaultSignature(nil); s.Name != "Global Name" {
		t.Errorf("global signature = %+v", s)
	}
}

// HeadTree reads HEAD's files and symlinks without the work tree;
// BranchTips and IsAncestor tell what a branch holds and whether it is
// merged.
func TestHeadTreeBranchTipsIsAncestor(t *testing.T) {
	unborn := t.TempDir()
	if err := Init(unborn); err != nil {
		t.Fatal(err)
	}
	ur, err := Open(unborn)
	if err != nil {
		t.Fatal(err)
	}
	if tr, err := ur.HeadTree(); tr != nil || err != nil {
		t.Errorf("unborn HEAD: tree %v, err %v", tr, err)
	}

	dir := newRepo(t)
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "notes/a.md", "edited in the work tree\n")
	tr, err := r.HeadTree()
	if err != nil || tr == nil {
		t.Fatalf("HeadTree: %v %v", tr, err)
	}
	if got, err := tr.ReadFile("notes/a.md"); err != nil || string(got) != "a1\na2\n" {
		t.Errorf("ReadFile = %q, %v; want HEAD's content", got, err)
	}
	for _, p := range []string{"notes", "nope.md", ""} {
		if _, err := tr.ReadFile(p); !errors.Is(err, ErrNotFound) {
			t.Errorf("ReadFile(%q): %v, want ErrNotFound", p, err)
		}
	}
	if tr.IsSymlink("README.md") || tr.IsSymlink("nope") {
		t.Error("a regular file or a missing one is a symlink")
	}

	merged, err := r.CommitToBranch("kb/p-1", "first proposal\n\nKb-Promoted: a b\n", testSig, []FileChange{
		{Path: "CLAUDE.md", Content: []byte("AGENTS.md"), Mode: os.ModeSymlink},
	})
	if err != nil {
		t.Fatal(err)
	}
	pending, err := r.CommitToBranch("kb/p-2", "second\n", testSig, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.CommitToBranch("other", "o", testSig, nil); err != nil {
		t.Fatal(err)
	}
	tips, err := r.BranchTips("kb/")
	if err != nil || len(tips) != 2 || tips[0].Name != "kb/p-1" || tips[0].Hash != merged || tips[1].Hash != pending ||
		tips[0].Message != "first proposal\n\nKb-Promoted: a b\n" {
		t.Fatalf("BranchTips = %+v, %v", tips, err)
	}
	// Fast-forward main onto kb/p-1: its tip is then an ancestor of HEAD.
	branch, _, _ := r.Head()
	if err := os.WriteFile(filepath.Join(dir, ".git", "refs", "heads", branch), []byte(merged+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		commit string
		want   bool
	}{{merged, true}, {pending, false}} {
		if got, err := r.IsAncestor(c.commit, "HEAD"); err != nil || got != c.want {
			t.Errorf("IsAncestor(%s, HEAD) = %v, %v; want %v", c.commit, got, err, c.want)
		}
	}
	if _, err := r.IsAncestor("nope", "HEAD"); !errors.Is(err, ErrNotFound) {
		t.Errorf("IsAncestor of a missing rev: %v", err)
	}
	tr, _ = r.HeadTree()
	if !tr.IsSymlink("CLAUDE.md") {
		t.Error("CLAUDE.md at the new HEAD is not a symlink")
	}
	if got, err := tr.ReadFile("CLAUDE.md"); err != nil || string(got) != "AGENTS.md" {
		t.Errorf("ReadFile(symlink) = %q, %v", got, err)
	}
}
