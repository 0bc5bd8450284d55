package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kbmem/kb/kb"
)

// TestEveryKBErrorHasAnExitCode: each error kb exports (ErrX variables,
// parsed from its sources so that a new one cannot be forgotten) and each
// typed error is matched by an entry of exitCodes, and gets its code.
func TestEveryKBErrorHasAnExitCode(t *testing.T) {
	want := map[string]struct {
		err  error
		code int
	}{
		"ErrNoKB":         {kb.ErrNoKB, exitNoKB},
		"ErrNotFound":     {kb.ErrNotFound, exitNotFound},
		"ErrAmbiguousID":  {kb.ErrAmbiguousID, exitUsage},
		"ErrExists":       {kb.ErrExists, exitError},
		"ErrLocked":       {kb.ErrLocked, exitLocked},
		"ErrInvalidInput": {kb.ErrInvalidInput, exitUsage},
		"ErrNotGit":       {kb.ErrNotGit, exitError},
	}
	fset := token.NewFileSet()
	files, _ := filepath.Glob("../../kb/*.go")
	found := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, sp := range g.Specs {
				for _, n := range sp.(*ast.ValueSpec).Names {
					if regexp.MustCompile(`^Err[A-Z]`).MatchString(n.Name) {
						found++
						if _, ok := want[n.Name]; !ok {
							t.Errorf("kb.%s has no exit code: add it to exitCodes and to this test", n.Name)
						}
					}
				}
			}
		}
	}
	if found != len(want) {
		t.Errorf("found %d kb.Err variables, the test knows %d", found, len(want))
	}
	matched := func(err error) bool {
		for _, c := range exitCodes {
			if c.match(err) {
				return true
			}
		}
		return false
	}
	for name, w := range want {
		err := fmt.Errorf("context: %w", w.err)
		if !matched(err) || exitCode(err) != w.code {
			t.Errorf("%s: exit %d, want %d (explicitly listed: %v)", name, exitCode(err), w.code, matched(err))
		}
	}
	for _, c := range []struct {
		err  error
		code int
	}{
		{findingsError{2}, exitFindings},
		{usageError{fmt.Errorf("bad")}, exitUsage},
		{&kb.PartialImportError{Errors: 1}, exitError},
		{&kb.ConfigError{Path: "kb.yaml", Line: 3, Msg: "unknown key"}, exitError},
	} {
		if err := fmt.Errorf("wrapped: %w", c.err); !matched(err) || exitCode(err) != c.code {
			t.Errorf("%T: exit %d, want %d", c.err, exitCode(err), c.code)
		}
	}
}

// TestREADMEExitCodes: the README states the exit codes every command's
// help ends with.
func TestREADMEExitCodes(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	if !strings.Contains(flat(string(b)), flat(exitCodesHelp)) {
		t.Errorf("README.md does not say %q", flat(exitCodesHelp))
	}
}
