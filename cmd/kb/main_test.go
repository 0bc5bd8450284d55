package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscript run this binary as "kb" inside scripts.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"kb": func() { os.Exit(run(os.Args[1:], newEnv())) },
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
		RequireExplicitExec: false,
	})
}
