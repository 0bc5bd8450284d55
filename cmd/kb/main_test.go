package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kbmem/kb/kb"
)

// TestMain lets testscript run this binary as "kb" and as the hook entry
// point "kb-hook" (cmd/kb-hook, which is kb.HookMain) inside scripts.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"kb":      func() { os.Exit(run(os.Args[1:], newEnv())) },
		"kb-hook": func() { os.Exit(kb.HookMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)) },
	})
}

// TestScripts runs the CLI transcripts in testdata/script: every command,
// against real files in temp dirs.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("KB_DIR", "")
			env.Setenv("NO_COLOR", "1")
			env.Setenv("HOME", env.WorkDir+"/home")
			return nil
		},
		Cmds:                scriptCmds(),
		RequireExplicitExec: false,
	})
}

// scriptCmds are the script commands beyond testscript's own:
//
//	exits CODE PROG [ARGS...]  runs PROG and fails unless it exits CODE
//	holdlock DIR               takes the write lock of the KB at DIR, as
//	                           another process would hold it
//	releaselock                gives it back
func scriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	var mu sync.Mutex
	held := map[*testscript.TestScript]interface{ Release() error }{}
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"exits": func(ts *testscript.TestScript, neg bool, args []string) {
			if neg || len(args) < 2 {
				ts.Fatalf("usage: exits CODE PROG [ARGS...]")
			}
			want, err := strconv.Atoi(args[0])
			if err != nil {
				ts.Fatalf("exits: %v", err)
			}
			got := 0
			if err := ts.Exec(args[1], args[2:]...); err != nil {
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					ts.Fatalf("exits: %v", err)
				}
				got = ee.ExitCode()
			}
			if got != want {
				ts.Fatalf("%s exited %d, want %d", strings.Join(args[1:], " "), got, want)
			}
		},
		"holdlock": func(ts *testscript.TestScript, neg bool, args []string) {
			if neg || len(args) != 1 {
				ts.Fatalf("usage: holdlock DIR")
			}
			k, err := kb.OpenRoot(ts.MkAbs(args[0]))
			ts.Check(err)
			l, err := k.Lock(context.Background())
			ts.Check(err)
			mu.Lock()
			held[ts] = l
			mu.Unlock()
			ts.Defer(func() { l.Release() })
		},
		"releaselock": func(ts *testscript.TestScript, neg bool, args []string) {
			mu.Lock()
			defer mu.Unlock()
			if l := held[ts]; l != nil {
				ts.Check(l.Release())
				delete(held, ts)
			}
		},
	}
}
