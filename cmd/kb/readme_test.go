package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/rogpeppe/go-internal/testscript"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// TestREADME runs every kb command that README.md shows in a ```sh block,
// in the order shown, as a testscript transcript in a scratch project: a
// git repository with the bundled example sessions in a private home's
// ~/.claude/projects and ~/.codex/sessions, and the files the examples name
// (path/to/session.jsonl, ./exports). Each must exit 0: a README change
// that shows a flag kb does not have, or a command that fails on a fresh
// project, fails here.
//
// Not run, and why: `go test ./...` (this is it); `git push` and the `git`
// half of `git pull && kb ...` (they need a remote; the kb half runs).
// `go run ./cmd/kb demo` runs as `kb demo` (the same program).
func TestREADME(t *testing.T) {
	cmds, err := readmeCommands("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) < 10 {
		t.Fatalf("found only %d kb commands in README.md: is the parser still right?", len(cmds))
	}
	var script strings.Builder
	script.WriteString("# generated from README.md by TestREADME\n")
	for _, c := range cmds {
		where := "$WORK/project"
		if c.repo {
			where = "$REPO"
		}
		words, err := shellWords(c.cmd)
		if err != nil {
			t.Fatalf("README.md:%d: %v", c.line, err)
		}
		for i, w := range words {
			words[i] = "'" + strings.ReplaceAll(w, "'", "''") + "'"
		}
		fmt.Fprintf(&script, "# README.md:%d: %s\ncd %s\nexec %s\n", c.line, c.cmd, where, strings.Join(words, " "))
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "readme.txtar"), []byte(script.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	examples := filepath.Join(repo, "testdata")
	testscript.Run(t, testscript.Params{
		Dir: dir,
		Setup: func(env *testscript.Env) error {
			env.Setenv("KB_DIR", "")
			env.Setenv("NO_COLOR", "1")
			home := filepath.Join(env.WorkDir, "home")
			env.Setenv("HOME", home)
			env.Setenv("CODEX_HOME", "")
			env.Setenv("REPO", repo)
			return readmeProject(filepath.Join(env.WorkDir, "project"), home, examples)
		},
		Cmds: scriptCmds(),
	})
}

type readmeCommand struct {
	line int
	cmd  string
	repo bool // shown in a block that runs from the kb repository (go run ./cmd/kb)
}

var (
	fenceRE   = regexp.MustCompile("^\\s*```(\\w*)")
	commentRE = regexp.MustCompile(`\s+#\s.*$`)
)

// readmeCommands are the kb commands of the file's sh blocks, comments
// cut, each part of an "a && b" line that is a kb command.
func readmeCommands(path string) ([]readmeCommand, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []readmeCommand
	in, lang, first := false, "", 0
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := fenceRE.FindStringSubmatch(line); m != nil {
			if in {
				in = false
			} else {
				in, lang, first = true, m[1], len(out)
			}
			continue
		}
		if !in || (lang != "sh" && lang != "bash" && lang != "console") {
			continue
		}
		line = strings.TrimPrefix(strings.TrimSpace(commentRE.ReplaceAllString(line, "")), "$ ")
		for _, part := range strings.Split(line, "&&") {
			part = strings.TrimSpace(part)
			if strings.HasPrefix(part, "go run ./cmd/kb ") {
				part = strings.Replace(part, "go run ./cmd/kb ", "kb ", 1)
				for i := first; i < len(out); i++ {
					out[i].repo = true
				}
				out = append(out, readmeCommand{n, part, true})
				continue
			}
			if strings.HasPrefix(part, "kb ") {
				out = append(out, readmeCommand{n, part, first < len(out) && out[first].repo})
			}
		}
	}
	return out, sc.Err()
}

// readmeProject makes the scratch project the README's commands run in.
func readmeProject(project, home, testdata string) error {
	if _, err := git.PlainInit(project, false); err != nil {
		return err
	}
	abs, err := filepath.EvalSymlinks(project)
	if err != nil {
		return err
	}
	// Claude Code sessions of this project, as Claude Code keeps them.
	cc := filepath.Join(home, ".claude", "projects", strings.NewReplacer("/", "-", ".", "-").Replace(abs))
	sessions, err := filepath.Glob(filepath.Join(testdata, "examples", "transcripts", "*.jsonl"))
	if err != nil || len(sessions) == 0 {
		return fmt.Errorf("no example sessions: %v", err)
	}
	for _, s := range sessions {
		if err := copyReplacing(s, filepath.Join(cc, filepath.Base(s)), `"/home/dev/ledger"`, fmt.Sprintf("%q", abs)); err != nil {
			return err
		}
	}
	// A Codex rollout whose cwd is the project.
	rollouts, _ := filepath.Glob(filepath.Join(testdata, "transcripts", "codex", "rollout-*.jsonl"))
	for _, r := range rollouts {
		if err := copyReplacing(r, filepath.Join(home, ".codex", "sessions", "2025", "12", "01", filepath.Base(r)), `"/home/dev/demo"`, fmt.Sprintf("%q", abs)); err != nil {
			return err
		}
	}
	// The files the README's examples name.
	if err := copyReplacing(sessions[0], filepath.Join(project, "path", "to", "session.jsonl"), "", ""); err != nil {
		return err
	}
	// A generic export: the fixture's well-formed lines (it ends with bad
	// ones, for the parser's tests).
	b, err := os.ReadFile(filepath.Join(testdata, "transcripts", "generic", "chat.jsonl"))
	if err != nil {
		return err
	}
	lines := strings.SplitAfter(string(b), "\n")
	if err := os.MkdirAll(filepath.Join(project, "exports"), 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(project, "exports", "chat.jsonl"), []byte(strings.Join(lines[:min(10, len(lines))], "")), 0o644)
}

// shellWords splits a command line as sh does (mvdan.cc/sh, the shell
// parser the action taxonomy uses), quotes removed.
func shellWords(s string) ([]string, error) {
	f, err := syntax.NewParser().Parse(strings.NewReader(s), "")
	if err != nil {
		return nil, err
	}
	if len(f.Stmts) != 1 {
		return nil, fmt.Errorf("%q: not one command", s)
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok {
		return nil, fmt.Errorf("%q: not a simple command", s)
	}
	var out []string
	for _, w := range call.Args {
		lit, err := expand.Literal(nil, w)
		if err != nil {
			return nil, err
		}
		out = append(out, lit)
	}
	return out, nil
}

func copyReplacing(from, to, old, new string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if old != "" {
		b = []byte(strings.ReplaceAll(string(b), old, new))
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}
