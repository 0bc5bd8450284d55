package main

import (
	"context"
	"encoding/json"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/kbmem/kb/kb"
)

func init() { register(newWatchCmd) }

func newWatchCmd(e *env) *cobra.Command {
	var once, noRedact, keeper bool
	var learnEvery, idle time.Duration
	c := &cobra.Command{
		Use:   "watch",
		Short: "Import transcripts as agents write them; keep the index current",
		Long: `Watch this project's transcript directories (kb.yaml traces.claude_code,
traces.codex, traces.sources; directories agents have not created yet are
picked up when they appear) and the KB layers. Growing transcripts are
imported as they grow (redacted; checkpoints make this cheap and safe across
restarts); edited notes are re-indexed; a session without new records for
watch.quiet_after (default 10m) is handed to the pipeline: extraction of
new observations, and transcripts queued by the SessionEnd hook. With
--learn-every (or watch.learn_every) the 'kb learn' tick also runs on that
schedule and after each pipeline run. One log line per
action on stderr, or JSON lines on stdout with --json. Stops on Ctrl-C or
SIGTERM.

--once imports what is new, re-indexes, runs the pipeline on sessions that
are already quiet, and exits: suitable for cron or a git hook.

--keeper runs only the freshness keeper (which kb watch runs too): it
watches the layers with inotify and tells each search what changed, so
that a search does not stat every file; with --idle it exits after that
long without a search. A search that stat'ed watch.keeper_files files
(default 5000) starts one in the background this way.`,
		Example: "  kb watch\n  kb watch --learn-every 1h\n  kb watch --once --json\n  kb watch --keeper --idle 30m",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := e.open()
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if keeper {
				return k.KeepFresh(ctx, idle)
			}
			enc := json.NewEncoder(e.out)
			enc.SetEscapeHTML(false)
			o := kb.WatchOptions{Once: once, NoRedact: noRedact, OnQuiet: kb.ExtractPipeline, LearnEvery: learnEvery,
				OnAction: func(a kb.WatchAction) {
					if e.json {
						enc.Encode(a)
						return
					}
					if a.Action == "error" {
						e.warnf("%s %s", a.Time.Local().Format("15:04:05"), e.paint("yellow", a.Message))
						return
					}
					if !e.quiet {
						e.warnf("%s %s", a.Time.Local().Format("15:04:05"), a.Message)
					}
				}}
			return k.Watch(ctx, o)
		},
	}
	c.Flags().BoolVar(&once, "once", false, "import and re-index once, then exit")
	c.Flags().BoolVar(&noRedact, "no-redact", false, "store secrets as they are")
	c.Flags().BoolVar(&keeper, "keeper", false, "run only the freshness keeper the searches ask what changed")
	c.Flags().DurationVar(&idle, "idle", 0, "with --keeper: exit after this long without a search (0: run until stopped)")
	c.Flags().DurationVar(&learnEvery, "learn-every", 0, "run the 'kb learn' tick this often and after sessions end (default watch.learn_every)")
	return c
}
