package main

import "github.com/spf13/cobra"

// constructors holds one constructor per subcommand. Each cmd_*.go file
// registers its commands in an init func, so adding a command touches only
// its own file.
var constructors []func(*env) *cobra.Command

func register(fns ...func(*env) *cobra.Command) { constructors = append(constructors, fns...) }

func commands(e *env) []*cobra.Command {
	out := make([]*cobra.Command, 0, len(constructors))
	for _, fn := range constructors {
		out = append(out, fn(e))
	}
	return out
}

func init() {
	register(newInitCmd, newNewCmd, newIndexCmd, newSearchCmd, newShowCmd,
		func(e *env) *cobra.Command { return newLinksCmd(e, false) },
		func(e *env) *cobra.Command { return newLinksCmd(e, true) },
		newGraphCmd, newLintCmd, newVersionCmd, newDemoCmd)
}
