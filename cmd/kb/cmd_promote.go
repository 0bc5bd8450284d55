package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kbmem/kb/kb"
)

func init() {
	register(newPromoteCmd, newEpisodesCmd, newWhyCmd, newADRCmd, newStatusCmd)
}

func newPromoteCmd(e *env) *cobra.Command {
	var dryRun, apply bool
	var explain string
	c := &cobra.Command{
		Use:   "promote",
		Short: "Propose the observations that earned graduation as a reviewable git branch",
		Long: `Find the candidate observations that meet the graduation rules of kb.yaml
(promote: section) and turn them into library notes: corrections seen in 2+
sessions become conventions, consistent preferences become preference notes,
procedures seen in 3+ sessions become procedure notes (and a Claude Code skill
when their steps are plain commands), important decisions become ADR drafts,
discoveries referenced later become notes, and clusters of one-off problems
sharing an action type or failure class become candidate pattern notes. Every
note links back to its observations (derived_from) and sessions (sources),
lists its triggers and says why it graduated. AGENTS.md (and CLAUDE.md when
present) get the routing lines in a kb-managed block.

By default the result is one commit on a new branch kb/promote-<date>-<n>,
built from HEAD without touching the work tree, the index or uncommitted
changes; review and merge it like any PR. --apply writes into the work tree
instead; --dry-run only prints what would graduate and the diff.`,
		Example: `  kb promote --dry-run
  kb promote
  kb promote --apply
  kb promote --explain pref-4bccaf6160
  kb promote reject cor-a8ce344c00 --why "only applied to the old build"
  kb promote sync`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if dryRun && apply {
				return usageError{fmt.Errorf("--dry-run and --apply exclude each other")}
			}
			k, err := e.open()
			if err != nil {
				return err
			}
			ctx := context.Background()
			if explain != "" {
				ex, err := k.PromoteExplain(ctx, explain)
				if err != nil {
					return err
				}
				if e.json {
					return e.emit(ex)
				}
				e.printf("%s (%s, %s)\n", ex.ID, ex.Type, ex.Status)
				for _, c := range ex.Checks {
					mark := e.paint("red", "no ")
					if c.Met {
						mark = e.paint("green", "yes")
					}
					e.printf("  %s %-28s have %-6g need %g\n", mark, c.Metric, c.Have, c.Need)
				}
				if ex.Note != "" {
					e.printf("  %s\n", ex.Note)
				}
				if ex.Eligible {
					e.printf("  graduates on the next 'kb promote'\n")
				}
				return nil
			}
			res, err := k.Promote(ctx, kb.PromoteOptions{DryRun: dryRun, Apply: apply})
			if err != nil {
				return err
			}
			if e.json {
				return e.emit(res)
			}
			covered := func() {
				if len(res.Covered) == 0 {
					return
				}
				e.printf("%s (not proposed as new notes):\n", e.paint("bold", "Already in the library"))
				for _, c := range res.Covered {
					e.printf("  %s -> %s\n             %s\n", c.Observation, c.Path, e.paint("dim", c.Text))
				}
			}
			if len(res.Graduations) == 0 {
				e.printf("Nothing to promote.")
				if len(res.Pending) > 0 {
					e.printf(" %d candidate(s) wait for review on an open promotion branch.", len(res.Pending))
				}
				e.printf("\n")
				covered()
				return nil
			}
			switch {
			case res.DryRun:
				e.printf("%s %d graduation(s) (dry run, nothing written):\n", e.paint("bold", "Would promote"), len(res.Graduations))
			case res.Applied:
				e.printf("%s %d graduation(s) into the work tree:\n", e.paint("green", "Promoted"), len(res.Graduations))
			default:
				e.printf("%s %d graduation(s) on branch %s (commit %s):\n", e.paint("green", "Proposed"), len(res.Graduations),
					e.paint("bold", res.Branch), shortHash(res.Commit))
			}
			for _, g := range res.Graduations {
				e.printf("  %-10s %s\n             %s\n", g.Kind, g.Path, e.paint("dim", g.Why))
				if len(g.From) > 0 {
					e.printf("             from %s\n", strings.Join(g.From, ", "))
				}
				if g.Skill != nil {
					e.printf("  %-10s %s\n", "skill", g.Skill.Path)
				}
			}
			covered()
			if !e.quiet && res.Diff != "" {
				e.printf("\n%s", res.Diff)
			}
			if res.Branch != "" {
				e.printf("\nReview with: git diff HEAD..%s   Merge it to accept; delete notes to reject them, then run 'kb promote sync'.\n", res.Branch)
			}
			return nil
		},
	}
	c.Flags().BoolVarP(&dryRun, "dry-run", "n", false, "show what would graduate and the diff; write nothing")
	c.Flags().BoolVar(&apply, "apply", false, "write into the work tree instead of committing to a branch")
	c.Flags().StringVar(&explain, "explain", "", "show how close observation `ID` is to each rule")
	c.AddCommand(newPromoteRejectCmd(e), newPromoteSyncCmd(e))
	return c
}

func shortHash(h string) string {
	if len(h) > 10 {
		return h[:10]
	}
	return h
}

func newPromoteRejectCmd(e *env) *cobra.Command {
	var why string
	c := &cobra.Command{
		Use:     "reject ID",
		Short:   "Mark a candidate rejected so it is never proposed again",
		Example: `  kb promote reject pref-4bccaf6160 --why "a one-time request"`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := e.open()
			if err != nil {
				return err
			}
			r, err := k.PromoteReject(context.Background(), args[0], why)
			if err != nil {
				return err
			}
			if e.json {
				return e.emit(r)
			}
			if r.Changed {
				e.printf("%s %s (%s)\n", e.paint("yellow", "Rejected"), r.ID, r.Path)
			} else {
				e.printf("%s was already rejected\n", r.ID)
			}
			return nil
		},
	}
	c.Flags().StringVar(&why, "why", "", "the reason, kept in the observation (rejected_why)")
	return c
}

func newPromoteSyncCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "sync",
		Short: "Record the outcome of merged promotion reviews in the observations",
		Long: `Look at the kb/promote-* branches that were merged (or squash-merged) into
HEAD. A note such a branch proposed that HEAD holds marks the observations it
came from promoted (needed when their files were not tracked, so the commit
could not carry their status); a note HEAD lacks was deleted in review, so its
observations are marked rejected and never proposed again.`,
		Example: "  kb promote sync",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := e.open()
			if err != nil {
				return err
			}
			res, err := k.PromoteSync(context.Background())
			if err != nil {
				return err
			}
			if e.json {
				return e.emit(res)
			}
			if len(res.Promoted)+len(res.Rejected) == 0 {
				e.printf("Nothing to sync.\n")
			}
			for _, r := range res.Promoted {
				e.printf("%s %s: %s landed from %s\n", e.paint("green", "Promoted"), r.ID, r.Note, r.Branch)
			}
			for _, r := range res.Rejected {
				e.printf("%s %s: %s was deleted in review of %s\n", e.paint("yellow", "Rejected"), r.ID, r.Note, r.Branch)
			}
			return nil
		},
	}
}

func newEpisodesCmd(e *env) *cobra.Command {
	list := func(cmd *cobra.Command, args []string) error {
		k, err := e.open()
		if err != nil {
			return err
		}
		all, probs, err := k.LoadEpisodes(context.Background())
		if err != nil {
			return err
		}
		for _, p := range probs {
			e.warnf("%s", p.String())
		}
		if e.json {
			out := make([]any, 0, len(all))
			for _, f := range all {
				out = append(out, f)
			}
			return e.emit(out)
		}
		if len(all) == 0 {
			e.printf("No episodes. Run 'kb episodes build'.\n")
		}
		for _, f := range all {
			ep := f.Episode
			edited := ""
			if f.Edited {
				edited = " (edited)"
			}
			e.printf("%s  %s  %-12s %2d session(s)  %s%s\n", ep.ID, ep.Scope.From.Format("2006-01-02"), ep.Outcome,
				len(ep.Scope.Sessions), ep.Title, edited)
		}
		return nil
	}
	c := &cobra.Command{
		Use:   "episodes",
		Short: "List, build and show episodes: work units spanning sessions",
		Long: `Episodes compress the sessions of one piece of work into a goal, scope,
outcome, key decisions and corrections, lessons, open threads and artifacts.
'kb episodes build' groups sessions by shared files, task references (#123,
ABC-123), branch, time (< 48h apart), topic, and "starting work on X" /
"done with X" markers. Building is idempotent and never overwrites an
episode a person edited.`,
		Example: "  kb episodes build\n  kb episodes\n  kb episodes show ep-3f2a",
		Args:    cobra.NoArgs,
		RunE:    list,
	}
	c.AddCommand(&cobra.Command{Use: "list", Short: "List episodes, newest first", Args: cobra.NoArgs, RunE: list},
		&cobra.Command{
			Use:   "build",
			Short: "Group every session into episodes and write them",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				k, err := e.open()
				if err != nil {
					return err
				}
				rep, err := k.BuildEpisodes(context.Background())
				if err != nil {
					return err
				}
				if e.json {
					return e.emit(rep)
				}
				for _, p := range rep.Problems {
					e.warnf("%s", p.String())
				}
				e.printf("%d session(s) in %d episode(s): %d written, %d unchanged, %d kept (edited), %d removed\n",
					rep.Sessions, rep.Episodes, len(rep.Written), rep.Unchanged, len(rep.Kept), len(rep.Removed))
				return nil
			},
		},
		&cobra.Command{
			Use:   "show ID",
			Short: "Show one episode (id or unique prefix)",
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				k, err := e.open()
				if err != nil {
					return err
				}
				f, err := k.ShowEpisode(context.Background(), args[0])
				if err != nil {
					return err
				}
				if e.json {
					return e.emit(f)
				}
				e.printf("%s  %s\n\n%s", e.paint("bold", f.Episode.ID), f.Path, f.Body)
				return nil
			},
		})
	return c
}

func newWhyCmd(e *env) *cobra.Command {
	var limit int
	c := &cobra.Command{
		Use:   "why QUERY...",
		Short: "Answer \"why did we do X\" and \"why didn't we do Y\" from decisions, ADRs, failures and corrections",
		Long: `Search decisions, ADRs, negative results (indexed by the approach tried) and
corrections about a topic, newest first, each with its alternatives or failure
reason and the sessions it came from.`,
		Example: "  kb why did we choose vite\n  kb why \"didn't we use a circuit breaker\" --json",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := e.open()
			if err != nil {
				return err
			}
			ans, err := k.Why(context.Background(), strings.Join(args, " "), limit)
			if err != nil {
				return err
			}
			if e.json {
				return e.emit(ans)
			}
			if len(ans.Items) == 0 {
				e.printf("Nothing recorded about %q.\n", ans.Terms)
				return nil
			}
			for _, it := range ans.Items {
				when := ""
				if !it.When.IsZero() {
					when = it.When.Format("2006-01-02") + "  "
				}
				e.printf("%s%s %s  %s\n", when, e.paint("bold", it.Type), it.ID, it.Title)
				if it.AuthorLabel != "" {
					e.printf("  author:   %s\n", it.AuthorLabel)
				}
				if it.Question != "" {
					e.printf("  question: %s\n", it.Question)
				}
				if it.Chosen != "" {
					e.printf("  chosen:   %s%s\n", it.Chosen, because(it.Reasons))
				}
				for _, a := range it.Alternatives {
					if strings.EqualFold(a.Name, it.Chosen) {
						continue
					}
					r := ""
					if a.Reasoning != "" {
						r = ": " + a.Reasoning
					}
					e.printf("  rejected: %s%s\n", a.Name, r)
				}
				if it.Approach != "" {
					e.printf("  tried:    %s\n  failed:   %s\n", it.Approach, it.Failure)
				}
				if it.FollowedBy != "" {
					e.printf("  then:     %s\n", it.FollowedBy)
				}
				if it.Lesson != "" {
					e.printf("  rule:     %s\n", it.Lesson)
				}
				if it.Consequence != "" {
					e.printf("  because:  %s\n", it.Consequence)
				}
				if it.Summary != "" {
					e.printf("  decision: %s\n", strings.ReplaceAll(it.Summary, "\n", "\n            "))
				}
				if len(it.Sources) > 0 {
					e.printf("  sources:  %s\n", strings.Join(it.Sources, ", "))
				}
				e.printf("  %s\n\n", e.paint("dim", it.Path))
			}
			return nil
		},
	}
	c.Flags().IntVarP(&limit, "limit", "n", 10, "at most this many answers")
	return c
}

func because(rs []string) string {
	if len(rs) == 0 {
		return ""
	}
	return " because " + strings.Join(rs, "; ")
}

func newADRCmd(e *env) *cobra.Command {
	var from, session string
	var write bool
	c := &cobra.Command{Use: "adr", Short: "Architecture decision records", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() }}
	draft := &cobra.Command{
		Use:   "draft (--from OBS-ID | --session ID)",
		Short: "Pre-assemble an ADR from a decision or a session's deliberation",
		Long: `Assemble an ADR draft: context, the alternatives with their reasoning
(including approaches tried and abandoned), the decision, consequences and
sources, from a decision observation (plus the negative results of its
sessions) or from every decision and negative result of a session. Printed,
or written to library/adrs/ with --write.`,
		Example: "  kb adr draft --from dec-5b8d29026d\n  kb adr draft --session 3f2a --write",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if (from == "") == (session == "") {
				return usageError{fmt.Errorf("give exactly one of --from and --session")}
			}
			k, err := e.open()
			if err != nil {
				return err
			}
			d, err := k.DraftADR(context.Background(), kb.ADRDraftOptions{FromObs: from, Session: session, Write: write})
			if err != nil {
				return err
			}
			if e.json {
				return e.emit(d)
			}
			if d.Written {
				e.printf("%s %s\n", e.paint("green", "Wrote"), d.Path)
				return nil
			}
			e.printf("%s", d.Content)
			return nil
		},
	}
	draft.Flags().StringVar(&from, "from", "", "a decision or negative-result observation `ID`")
	draft.Flags().StringVar(&session, "session", "", "a session `ID` or prefix")
	draft.Flags().BoolVar(&write, "write", false, "write the draft to library/adrs/")
	c.AddCommand(draft)
	return c
}

func newStatusCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Show the review queue and the size of each layer",
		Long: `Show how many candidate observations wait, how old the oldest is, how many
would graduate on 'kb promote' now, the promotion branches waiting for review,
and the file count of each layer. A queue that only grows means nothing is
being reviewed: the pipeline is theater until someone runs 'kb promote'.
After a pull (HEAD moved since the last 'kb status') it says what arrived:
new and changed lessons by type, library notes, episodes; and, pull or not,
the files holding kb_conflicts (fields the merge driver left to resolve).
Commitment: for the lessons hooks showed to agents, how often the agent
then followed the lesson or did what it prohibits anyway (judged when the
session's trace is extracted); a lesson ignored in two sessions or more,
more often than followed, is flagged for rewording.`,
		Example: "  kb status\n  kb status --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := e.open()
			if err != nil {
				return err
			}
			st, err := k.Status(context.Background())
			if err != nil {
				return err
			}
			if e.json {
				return e.emit(st)
			}
			e.printf("Layers: %d trace session(s), %d observation(s), %d episode(s), %d library note(s)\n",
				st.Layers[kb.LayerTraces], st.Layers[kb.LayerObservations], st.Layers[kb.LayerEpisodes], st.Layers[kb.LayerLibrary])
			e.printf("Review queue: %d candidate(s)", st.Candidates)
			if !st.OldestCandidate.IsZero() {
				e.printf(", oldest from %s (%s ago)", st.OldestCandidate.Format("2006-01-02"), ageString(st.OldestAgeDays))
			}
			e.printf("; %d promoted, %d rejected, %d superseded\n", st.Promoted, st.Rejected, st.Superseded)
			if st.Promotable > 0 {
				e.printf("%s %d graduation(s) ready: run 'kb promote --dry-run' to see them\n", e.paint("yellow", "Promotable:"), st.Promotable)
			} else {
				e.printf("Promotable: none\n")
			}
			for _, b := range st.PendingBranches {
				e.printf("Waiting for review: %s\n", b)
			}
			if len(st.NeedsReview) > 0 {
				e.printf("%s %d observation(s) the agent wrote; none counts until you run 'kb review ID' (or 'kb forget ID'):\n",
					e.paint("yellow", "Agent-written, needs review:"), len(st.NeedsReview))
				for _, n := range st.NeedsReview {
					e.printf("  %s  %-15s %s\n", n.ID, n.Type, n.Text)
				}
			}
			printCommitment(e, st.Commitment)
			if st.Stale {
				e.printf("%s candidates have waited %s with graduations ready and no review open: learning stays theater until someone runs 'kb promote' and reviews the branch.\n",
					e.paint("yellow", "Warning:"), ageString(st.OldestAgeDays))
			}
			if line := st.Arrived.Summary(); line != "" {
				e.printf("%s\n", line)
			}
			if st.ObservationErrors > 0 {
				e.warnf("%d observation file(s) do not parse; run 'kb lint'", st.ObservationErrors)
			}
			return nil
		},
	}
}

// printCommitment shows how agents acted on the lessons they were shown:
// the totals, then each lesson ignored at least once, those to reword
// first (the tally's order).
func printCommitment(e *env, lcs []kb.LessonCommitment) {
	if len(lcs) == 0 {
		return
	}
	var f, ig, un int
	for _, lc := range lcs {
		f, ig, un = f+lc.Followed, ig+lc.Ignored, un+lc.Untested
	}
	e.printf("Commitment: %d lesson(s) shown; followed %d, ignored %d, untested %d (per session)\n", len(lcs), f, ig, un)
	for _, lc := range lcs {
		if lc.Ignored == 0 {
			break
		}
		mark := ""
		if lc.Reword {
			mark = e.paint("yellow", " reword:")
		}
		title := lc.Title
		if title == "" {
			title = lc.ID
		}
		e.printf(" %s %s  followed %d, ignored %d  %s\n", mark, lc.ID, lc.Followed, lc.Ignored, title)
	}
}

func ageString(days float64) string {
	d := time.Duration(days * 24 * float64(time.Hour))
	switch {
	case days >= 2:
		return fmt.Sprintf("%.0f days", days)
	case d >= time.Hour:
		return fmt.Sprintf("%.0f hours", d.Hours())
	}
	return "under an hour"
}
