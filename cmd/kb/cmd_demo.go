package main

import (
	"context"
	"os"

	"github.com/spf13/cobra"

	"github.com/kbmem/kb/examples"
)

func newDemoCmd(e *env) *cobra.Command {
	var exdir, dir string
	var keep bool
	c := &cobra.Command{
		Use:   "demo",
		Short: "Run kb's main job on the bundled example data and print what it did",
		Long: `Build a KB in a temporary directory from the bundled examples (testdata/examples),
then index, search, navigate and lint it, printing each step and its command.
Uses only embedded defaults: no server, no API key.`,
		Example: "  go run ./cmd/kb demo\n  kb demo --dir /tmp/kb-demo --keep",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if exdir == "" {
				p, err := examples.FindExamples(".")
				if err != nil {
					return err
				}
				exdir = p
			}
			if dir == "" {
				d, err := os.MkdirTemp("", "kb-demo-")
				if err != nil {
					return err
				}
				dir = d
				if !keep {
					defer os.RemoveAll(d)
				}
			}
			rep, err := examples.Demo(context.Background(), exdir, dir)
			if err != nil {
				return err
			}
			if e.json {
				return e.emit(rep)
			}
			for i, s := range rep.Steps {
				e.printf("%s %s\n", e.paint("bold", "=="), e.paint("bold", s.Title))
				e.printf("%s\n", e.paint("cyan", "$ "+s.Command))
				for _, l := range s.Output {
					e.printf("  %s\n", l)
				}
				if i < len(rep.Steps)-1 {
					e.printf("\n")
				}
			}
			if keep {
				e.printf("\nThe demo KB is kept at %s (try: kb --kb %s search migration)\n", rep.Root, rep.Root)
			}
			return nil
		},
	}
	c.Flags().StringVar(&exdir, "examples", "", "example data directory (default: testdata/examples of the kb repository)")
	c.Flags().StringVar(&dir, "dir", "", "build the demo KB here instead of a temporary directory")
	c.Flags().BoolVar(&keep, "keep", false, "keep the demo KB afterwards")
	return c
}
