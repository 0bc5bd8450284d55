package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/kbmem/kb/kb"
)

func init() { register(newLearnCmd) }

func newLearnCmd(e *env) *cobra.Command {
	var o kb.LearnOptions
	c := &cobra.Command{
		Use:   "learn",
		Short: "Mine past sessions into AGENTS.md and .continual-learning/index.json",
		Long: `One continual-learning tick. kb learn imports the transcripts of the configured
agent directories (and --source paths), extracts observations from new
sessions, and turns them into facts: decisions, conventions, constraints,
resolved problems and project knowledge. Each candidate is deduplicated
against .continual-learning/index.json and the bullets of AGENTS.md, checked
for contradictions with recorded facts (reported, never overwritten), and
passed through a high-signal gate (recurring, explicit "always/never/we use"
wording, or high importance; one-off, obvious and derivable facts are
dropped). Survivors are appended to the index and to kb's section of
AGENTS.md, between <!-- kb:begin learned --> and <!-- kb:end learned -->;
every other byte of the file is left alone. Both files are written together
or not at all, after their prior state is captured under .state/learn/.

The result is "updated", "no-update" with the reason, or "blocked" naming the
input that could not be read (a corrupt index, for example: nothing is
written then). kb learn only writes these two files and its snapshots: no
commits, no pushes, no network.

--rollback restores both files from the latest captured state (removing a
file that did not exist) and drops that snapshot.

Exit codes: 0 updated, no-update or rolled back; 1 blocked or failed;
2 usage error; 3 no KB found; 4 KB locked by another process.`,
		Example: "  kb learn\n  kb learn --dry-run\n  kb learn --target CLAUDE.md --json\n  kb learn --rollback",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := e.open()
			if err != nil {
				return err
			}
			res, err := k.Learn(context.Background(), o)
			if err != nil {
				return err
			}
			if e.json {
				if err := e.emit(res); err != nil {
					return err
				}
			} else {
				e.printLearn(res)
			}
			if res.Result == kb.LearnBlocked {
				return findingsError{1}
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&o.Target, "target", "", "file to maintain, relative to the project root (default: learn.target of kb.yaml, AGENTS.md)")
	f.BoolVar(&o.DryRun, "dry-run", false, "show the diff of both files and write nothing")
	f.BoolVar(&o.Rollback, "rollback", false, "restore both files from the latest captured prior state")
	f.StringArrayVar(&o.Sources, "source", nil, "also import this transcript file or directory (repeatable)")
	return c
}

func (e *env) printLearn(r *kb.LearnResult) {
	files := r.Target + " and " + r.Index
	switch r.Result {
	case kb.LearnUpdated:
		verb := "updated"
		if r.DryRun {
			verb = "would update"
		}
		e.printf("%s %s: %d new entr%s\n", e.paint("green", verb), files, len(r.Applied), learnPlural(len(r.Applied), "y", "ies"))
	case kb.LearnRolledBack:
		verb := "rolled back"
		if r.DryRun {
			verb = "would roll back"
		}
		e.printf("%s %s to %s\n", e.paint("green", verb), files, r.Snapshot)
	case kb.LearnBlocked:
		e.printf("%s: %s\n", e.paint("red", "blocked"), r.Reason)
	default:
		e.printf("no update: %s\n", r.Reason)
	}
	for _, a := range r.Applied {
		e.printf("  + [%s] %s\n      from %s (%d session%s), %s\n", a.Category, a.Fact, a.SourceSession,
			len(a.Sessions), learnPlural(len(a.Sessions), "", "s"), a.Date)
	}
	for _, c := range r.Conflicts {
		e.printf("  %s %s\n      conflicts with %s: %q (%s); left unchanged\n", e.paint("yellow", "!"), c.Fact, c.Where, c.Existing, c.Why)
	}
	if len(r.Dropped) > 0 && !e.quiet {
		e.printf("dropped %d candidate%s:\n", len(r.Dropped), learnPlural(len(r.Dropped), "", "s"))
		for _, d := range r.Dropped {
			e.printf("  - %s: %s\n", d.Reason, d.Fact)
		}
	}
	for _, s := range r.Skipped {
		e.printf("%s %s: %s\n", e.paint("yellow", "skipped"), s.Source, s.Reason)
	}
	if r.DryRun && r.Diff != "" {
		e.printf("\n%s", r.Diff)
	}
}

func learnPlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
