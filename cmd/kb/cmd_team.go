package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/kbmem/kb/kb"
)

func init() { register(newMergeDriverCmd) }

func newMergeDriverCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "merge-driver BASE OURS THEIRS PATH",
		Short: "Git merge driver for kb's memory files (git calls it: %O %A %B %P)",
		Long: `Merge two clones' versions of an observation, an episode or the
continual-learning index against their base, by the rules in docs/format.md:
sources and sessions unioned, counts recomputed, a person's edit kept over
kb's text. The merged file is written to OURS. Exit 0: merged. Exit 1: a
field both people edited by hand differently (ours kept, both values under
kb_conflicts in the file), or a side kb cannot read (merged with git's
conflict markers). 'kb init' and 'kb doctor --fix' register it; by hand:

  git config merge.kb.name "kb memory files"
  git config merge.kb.driver "kb merge-driver %O %A %B %P"
  echo 'observations/**/*.md merge=kb' >> .kb/.gitattributes   # and episodes/**/*.md`,
		Example: "  git config merge.kb.driver 'kb merge-driver %O %A %B %P'",
		Args:    cobra.ExactArgs(4),
		RunE: func(cmd *cobra.Command, args []string) error {
			read := func(p string) ([]byte, error) {
				b, err := os.ReadFile(p)
				if err != nil {
					return nil, err
				}
				return b, nil
			}
			base, err := read(args[0])
			if err != nil {
				return err
			}
			ours, err := read(args[1])
			if err != nil {
				return err
			}
			theirs, err := read(args[2])
			if err != nil {
				return err
			}
			out, res := kb.MergeFile(args[3], base, ours, theirs)
			if err := kb.WriteMerged(args[1], out); err != nil {
				return err
			}
			for _, c := range res.Conflicts {
				fmt.Fprintf(e.err, "kb merge-driver: %s: %s edited on both sides (ours %q, theirs %q): kept ours, both under kb_conflicts\n", args[3], c.Field, c.Ours, c.Theirs)
			}
			for _, n := range res.Notes {
				fmt.Fprintf(e.err, "kb merge-driver: %s: %s\n", args[3], n)
			}
			if res.Fallback != "" {
				fmt.Fprintf(e.err, "kb merge-driver: %s: cannot merge as a kb file (%s): left git's conflict markers\n", args[3], res.Fallback)
			}
			if e.json {
				if err := e.emit(res); err != nil {
					return err
				}
			}
			if !res.Clean() {
				return findingsError{max(1, len(res.Conflicts))}
			}
			return nil
		},
	}
}
