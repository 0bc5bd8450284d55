package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
)

func init() { register(newDoctorCmd) }

func newDoctorCmd(e *env) *cobra.Command {
	var fix bool
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Check the whole KB and repair what is safe to repair",
		Long: `Check every file of the KB: documents parse and link correctly, trace files
are whole records with increasing sequence numbers, observation sources point at
sessions that exist, the index agrees with the files, the lock is sane, no
temporary file was left behind by a crash (in the KB, or where kb writes in the
project), and no symlink leads out of the KB or the project. --fix removes orphan
temp files, removes escaping links in kb's derived data (.state/, .index; the
links, never their targets) and brings a stale or corrupt index up to date;
everything else is reported.
Exits 1 when an error remains.`,
		Example: "  kb doctor\n  kb doctor --fix --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := e.open()
			if err != nil {
				return err
			}
			rep, err := k.Doctor(context.Background(), fix)
			if err != nil {
				return err
			}
			if e.json {
				if err := e.emit(rep); err != nil {
					return err
				}
			} else {
				for _, c := range rep.Checks {
					tag := e.paint("red", "error")
					if c.Severity == "warning" {
						tag = e.paint("yellow", "warning")
					}
					if c.Fixed {
						tag = e.paint("green", "fixed")
					}
					e.printf("%s %s\n", tag, c.Problem.String())
				}
				e.printf("%d files, %d sessions; index %s; lock %s\n", rep.Files, rep.Sessions, rep.Index, rep.Lock)
			}
			if n := rep.Errors(); n > 0 {
				if !e.json {
					fmt.Fprintf(e.err, "%d error(s)\n", n)
				}
				return findingsError{n}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&fix, "fix", false, "repair what is safe to repair")
	return c
}
