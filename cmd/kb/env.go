package main

import (
	"cmp"
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

// Exit codes, documented in every command's help and in the README.
const (
	exitOK       = 0
	exitFindings = 1 // the command ran and found problems (lint, doctor)
	exitError    = 1 // the command failed
	exitUsage    = 2 // bad flags, arguments or input
	exitNoKB     = 3 // no KB found
	exitLocked   = 4 // the KB write lock is held by another process
	exitNotFound = 5 // an id, path or session does not exist
)

const exitCodesHelp = `Exit codes: 0 ok; 1 failure or problems found; 2 usage error (bad flags, arguments
or input, an ambiguous id); 3 no KB found; 4 KB locked by another process; 5 not found.`

// exitCodes gives every typed error a command can end with its exit code,
// in one place; the first that matches wins. An error none matches is a
// failure (1).
var exitCodes = []struct {
	code  int
	match func(error) bool
}{
	{exitFindings, isA[findingsError]},
	{exitNoKB, is(kb.ErrNoKB)},
	{exitLocked, is(kb.ErrLocked)},
	{exitNotFound, is(kb.ErrNotFound)},
	{exitUsage, isA[usageError]},
	{exitUsage, is(kb.ErrInvalidInput)},
	{exitUsage, is(kb.ErrAmbiguousID)},
	{exitError, is(kb.ErrExists)},            // kb new: the note is there; nothing overwritten
	{exitError, is(kb.ErrNotGit)},            // kb promote --branch outside a git work tree
	{exitError, isA[*kb.PartialImportError]}, // the report is printed; what could be imported was
	{exitError, isA[*kb.ConfigError]},        // kb.yaml: path:line: message
}

func is(target error) func(error) bool { return func(err error) bool { return errors.Is(err, target) } }

func isA[T error](err error) bool {
	var t T
	return errors.As(err, &t)
}

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
	if exe := kbExe(); exe != "" {
		k.StartKeeper = k.KeeperStarter(exe)
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

// printf prints human output; --quiet silences it (--json output, which a
// caller asked for, is emit's and still printed).
func (e *env) printf(format string, args ...any) {
	if !e.quiet {
		fmt.Fprintf(e.out, format, args...)
	}
}

func (e *env) warnf(format string, args ...any) {
	fmt.Fprintf(e.err, "kb: "+format+"\n", args...)
}

// exitCode maps an error to the process exit code (see exitCodes).
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	for _, c := range exitCodes {
		if c.match(err) {
			return c.code
		}
	}
	return exitError
}

// findingsError is returned by commands that ran fine but found problems.
type findingsError struct{ n int }

func (f findingsError) Error() string { return fmt.Sprintf("%d problem(s) found", f.n) }

// usageError is a command used wrongly: bad flags, arguments or input.
// Cobra's own checks (flag parsing, Args validators, unknown commands)
// come wrapped in it by the hooks usageHooks installs.
type usageError struct{ error }

func (u usageError) Unwrap() error { return u.error }

// usageHooks makes every check cobra does on a command line end in a
// usageError, through cobra's hooks rather than its messages: flag errors
// through SetFlagErrorFunc, positional arguments through each command's
// Args validator, and an unknown subcommand through an Args validator on
// every command that only groups others (cobra's own check is a plain
// error, and only the root has it). It also ends every command's help
// with the exit codes.
func usageHooks(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.HasSubCommands() && !c.Runnable() {
			c.Args = unknownSubcommand
			c.RunE = func(cmd *cobra.Command, args []string) error { return cmd.Help() }
		} else if args := c.Args; args != nil {
			c.Args = func(cmd *cobra.Command, a []string) error {
				if err := args(cmd, a); err != nil {
					return usageError{err}
				}
				return nil
			}
		}
		if !strings.Contains(c.Long, "Exit codes:") {
			c.Long = strings.TrimSpace(cmp.Or(c.Long, c.Short)+"\n\n") + "\n\n" + exitCodesHelp
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// unknownSubcommand is the Args validator of a command that only groups
// others: any argument is a subcommand that does not exist.
func unknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
	}
	return usageError{errors.New(msg)}
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
			if exitCode(err) == exitUsage && cmd != nil {
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
	for _, c := range commands(e) {
		root.AddCommand(c)
	}
	usageHooks(root)
	return root
}
