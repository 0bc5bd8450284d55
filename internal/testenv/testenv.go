// Package testenv holds what kb's tests share about their environment:
// the module root, and the project's shared data (../shared beside the
// repository: real transcripts, LoCoMo, the evaluation sets), which a
// user's clone does not have, so tests that need it skip with a message.
package testenv

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ModuleRoot returns the directory holding go.mod above the working
// directory (a package's directory under `go test`), or skips.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no go.mod above the package directory")
		}
		dir = parent
	}
}

// Shared returns ../shared/<elem...> beside the module root, or skips the
// test when it is absent (a user's clone has no ../shared).
func Shared(t testing.TB, elem ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{filepath.Dir(ModuleRoot(t)), "shared"}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared data not available at %s (only in the project workspace): %v", p, err)
	}
	return p
}

// RenderScenarios renders a scenario file into Claude Code transcripts with
// the development set's make_sessions.py and returns their directory; it
// skips without ../shared or python3.
func RenderScenarios(t testing.TB, scenario string) string {
	t.Helper()
	script := Shared(t, "eval", "make_sessions.py")
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not available to render the development transcripts")
	}
	out := t.TempDir()
	if b, err := exec.Command(py, script, scenario, out).CombinedOutput(); err != nil {
		t.Fatalf("make_sessions.py: %v\n%s", err, b)
	}
	return filepath.Join(out, "transcripts")
}

// CopyTree copies a directory tree (directories, regular files with their
// times, symlinks as symlinks), failing t on any error.
func CopyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(out, info.Mode().Perm()|0o700)
		case d.Type()&fs.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(l, out)
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if err := os.WriteFile(out, b, info.Mode().Perm()|0o600); err != nil {
				return err
			}
			return os.Chtimes(out, info.ModTime(), info.ModTime())
		}
		return nil
	})
	if err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
}

// Git runs the git command in dir, failing t with its output when it
// fails, and returns its output; without a git command t is skipped
// (kb needs none: tests use git only to make what a person's git makes).
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// File is the text of a test data file (a path relative to the package
// directory under `go test`), for package-level test fixtures: it panics
// when the file cannot be read, as a fixture that is not there is a broken
// test.
func File(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// Strings are the strings of the JSON list in test data file path (File).
func Strings(path string) []string {
	var out []string
	if err := json.Unmarshal([]byte(File(path)), &out); err != nil {
		panic(fmt.Sprintf("%s: %v", path, err))
	}
	return out
}
