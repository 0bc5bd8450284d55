// Package testenv holds what kb's tests share about their environment:
// the module root, and the project's shared data (../shared beside the
// repository: real transcripts, LoCoMo, the evaluation sets), which a
// user's clone does not have, so tests that need it skip with a message.
package testenv

import (
	"os"
	"path/filepath"
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
// test when it is absent.
func Shared(t testing.TB, elem ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{filepath.Dir(ModuleRoot(t)), "shared"}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared data not available at %s (only in the project workspace): %v", p, err)
	}
	return p
}
