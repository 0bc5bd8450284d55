package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/kbmem/kb/kb"
)

// Exit codes, documented in every command's help.
const (
	exitOK       = 0
	exitFindings = 1 // the command ran and found problems (lint, doctor)
	exitError    = 1 // the command failed
	exitUsage    = 2 // bad flags or arguments
	exitNoKB     = 3 // no KB found
	exitLocked   = 4 // the KB write lock is held by another process
	exitNotFound = 5 // an id, path or session does not exist
)

const exitCodesHelp = `Exit codes: 0 ok; 1 failure or problems found; 2 usage error; 3 no KB found;
4 KB locked by another process; 5 not found.`

// env carries the process's streams and global flags, so tests can capture
// output and commands never touch os.Stdout directly.
type env struct {
	in       io.Reader
	out, err io.Writer
	getenv   func(string) string

	kbDir   string
	json    bool
	noColor bool
	quiet   bool
	tty     bool
}

func newEnv() *env {
	return &env{
		in: os.Stdin, out: os.Stdout, err: os.Stderr, getenv: os.Getenv,
		tty: isatty.IsTerminal(os.Stdout.Fd()) || isatty.IsCygwinTerminal(os.Stdout.Fd()),
	}
}

// open finds and opens the KB named by --kb, $KB_DIR or the working directory.
func (e *env) open() (*kb.KB, error) {
	k, err := kb.Open(kb.FindOptions{Dir: e.kbDir, Env: e.getenv("KB_DIR")})
	if err != nil {
		return nil, err
	}
	k.Logf = func(format string, args ...any) {
		if !e.quiet {
			fmt.Fprintf(e.err, "kb: "+format+"\n", args...)
		}
	}
	return k, nil
}

func (e *env) color() bool {
	return e.tty && !e.noColor && e.getenv("NO_COLOR") == "" && e.getenv("TERM") != "dumb"
}

// paint wraps s in an ANSI style when color is on.
func (e *env) paint(style, s string) string {
	if !e.color() {
		return s
	}
	codes := map[string]string{"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "blue": "34", "magenta": "35", "cyan": "36"}
	c, ok := codes[style]
	if !ok {
		return s
	}
	return "\x1b[" + c + "m" + s + "\x1b[0m"
}

// emit prints v as indented JSON.
func (e *env) emit(v any) error {
	enc := json.NewEncoder(e.out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func (e *env) printf(format string, args ...any) { fmt.Fprintf(e.out, format, args...) }

func (e *env) warnf(format string, args ...any) {
	fmt.Fprintf(e.err, "kb: "+format+"\n", args...)
}

// exitCode maps an error to the process exit code, in one place.
func exitCode(err error) int {
	var fe findingsError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &fe):
		return exitFindings
	case errors.Is(err, kb.ErrNoKB):
		return exitNoKB
	case errors.Is(err, kb.ErrLocked):
		return exitLocked
	case errors.Is(err, kb.ErrNotFound):
		return exitNotFound
	case isUsage(err):
		return exitUsage
	}
	return exitError
}

// findingsError is returned by commands that ran fine but found problems.
type findingsError struct{ n int }

func (f findingsError) Error() string { return fmt.Sprintf("%d problem(s) found", f.n) }

type usageError struct{ error }

func isUsage(err error) bool {
	var u usageError
	if errors.As(err, &u) {
		return true
	}
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "invalid argument", "flag needs an argument", "required flag"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// run builds the command tree and executes it, returning the exit code.
func run(args []string, e *env) int {
	root := newRootCmd(e)
	root.SetArgs(args)
	root.SetIn(e.in)
	root.SetOut(e.out)
	root.SetErr(e.err)
	cmd, err := root.ExecuteC()
	if err != nil {
		var fe findingsError
		if !errors.As(err, &fe) {
			fmt.Fprintf(e.err, "kb: %v\n", err)
			if isUsage(err) && cmd != nil {
				fmt.Fprintf(e.err, "Run '%s --help' for usage.\n", cmd.CommandPath())
			}
		}
	}
	return exitCode(err)
}

func newRootCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "kb",
		Short: "A durable memory for coding agents, made of plain files in git",
		Long: `kb stores everything an agent session produced (traces), extracts typed
observations from it (corrections, preferences, procedures, decisions...),
compresses work into episodes, promotes what recurs into a curated library,
and recalls the right few lines into an agent's context at the right moment.

` + exitCodesHelp,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(),
	}
	pf := root.PersistentFlags()
	pf.StringVar(&e.kbDir, "kb", "", "KB root directory (default: $KB_DIR, else the nearest kb.yaml or .kb/kb.yaml above the working directory)")
	pf.BoolVar(&e.json, "json", false, "print machine-readable JSON")
	pf.BoolVar(&e.noColor, "no-color", false, "never color the output (color is used only on a terminal)")
	pf.BoolVarP(&e.quiet, "quiet", "q", false, "print only errors on stderr")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	for _, c := range commands(e) {
		root.AddCommand(c)
	}
	return root
}
