package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/kbmem/kb/kb"
)

func init() {
	register(newExtractCmd, newObservationsCmd, newForgetCmd, newProvenanceCmd, newReviewCmd)
}

// parseSince reads a date (2026-01-31), an RFC 3339 time, or an age such as
// 36h or 7d, counted back from now.
func parseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{"2006-01-02", time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		if days, err := strconv.Atoi(n); err == nil && days >= 0 {
			return now.AddDate(0, 0, -days), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("--since %q: want a date (2026-01-31), a time (RFC 3339) or an age (36h, 7d)", s)
}

func newExtractCmd(e *env) *cobra.Command {
	var o kb.ExtractOptions
	var since string
	var queue bool
	c := &cobra.Command{
		Use:   "extract [--session ID | --since DATE | --all | --queue]",
		Short: "Extract observations (corrections, preferences, procedures...) from the traces",
		Long: `Runs the narrow extractors over imported sessions and merges what they find
into observations/<type>/<id>.md: a correction seen again in another session
updates the existing observation (sources, sessions, last_seen) instead of
making a new file. By default only sessions not extracted yet (or grown since)
are read; --rerun reads them again, --all reads every session. Re-running
changes no file. Forgotten observations (kb forget) never come back, and an
observation a person edited keeps its text.

Procedures are mined across the sessions in scope when there are several.
With --llm (or extract.llm in kb.yaml) the LLM of the llm section also reads
each session's human messages and rejections, one narrow request per type;
a failed request leaves the heuristic result in place. --queue imports and
extracts the transcripts the SessionEnd hook queued (.state/queue.jsonl).`,
		Example: "  kb extract\n  kb extract --session 5f0c2a9e\n  kb extract --since 7d --types correction,preference\n  kb extract --all --rerun --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			n := 0
			for _, set := range []bool{o.Session != "", since != "", o.All, queue} {
				if set {
					n++
				}
			}
			if n > 1 {
				return usageError{errors.New("use one of --session, --since, --all and --queue")}
			}
			if since != "" {
				t, err := parseSince(since, time.Now())
				if err != nil {
					return usageError{err}
				}
				o.Since = t
			}
			k, err := e.open()
			if err != nil {
				return err
			}
			o.Progress = e.progress("extracting")
			var rep *kb.ExtractReport
			if queue {
				rep, err = k.DrainQueue(context.Background())
			} else {
				rep, err = k.Extract(context.Background(), o)
			}
			if err != nil {
				return err
			}
			if e.json {
				return e.emit(rep)
			}
			e.printExtract(rep)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&o.Session, "session", "", "extract this session (id or unique prefix), extracted before or not")
	f.StringVar(&since, "since", "", "only sessions active since DATE (2026-01-31, RFC 3339, or an age like 7d)")
	f.BoolVar(&o.All, "all", false, "extract every session, extracted before or not")
	f.BoolVar(&o.Rerun, "rerun", false, "extract sessions again even if extracted before")
	f.StringSliceVar(&o.Types, "types", nil, "observation types to extract (default: extract.types of kb.yaml)")
	f.BoolVar(&queue, "queue", false, "import and extract the transcripts queued by the SessionEnd hook")
	f.BoolVar(&o.LLM, "llm", false, "also run the LLM extractors (needs the llm section of kb.yaml)")
	c.RegisterFlagCompletionFunc("types", cobra.FixedCompletions(kb.ObservationTypes(), cobra.ShellCompDirectiveNoFileComp))
	return c
}

func (e *env) printExtract(rep *kb.ExtractReport) {
	for _, p := range rep.Problems {
		fmt.Fprintln(e.err, e.paint("yellow", p.String()))
	}
	for _, le := range rep.LLMErrors {
		e.warnf("llm: %s (heuristic results kept)", le)
	}
	if e.quiet {
		return
	}
	if len(rep.Sessions) == 0 {
		e.printf("nothing to extract: %d session(s) already extracted (--rerun to extract them again)\n", rep.Skipped)
		return
	}
	tw := tabwriter.NewWriter(e.out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "type\tnew\tmerged\tunchanged\t\n")
	for _, typ := range kb.ObservationTypes() {
		c := rep.Types[typ]
		if c == nil {
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t\n", typ, c.New, c.Merged, c.Unchanged)
	}
	fmt.Fprintf(tw, "total\t%d\t%d\t%d\t\n", rep.New, rep.Merged, rep.Unchanged)
	tw.Flush()
	e.printf("%d session(s) extracted (%d records)", len(rep.Sessions), rep.Records)
	if rep.Skipped > 0 {
		e.printf(", %d already extracted", rep.Skipped)
	}
	if rep.Forgotten > 0 {
		e.printf(", %d forgotten observation(s) skipped", rep.Forgotten)
	}
	if rep.Edited > 0 {
		e.printf(", %d edited file(s) updated in their bookkeeping only", rep.Edited)
	}
	e.printf("\n")
}

// obsLine is one observation as `kb observations --json` lists it.
type obsLine struct {
	ID          string   `json:"id"`
	Type        string   `json:"type"`
	Status      string   `json:"status,omitempty"`
	Sessions    int      `json:"sessions"`
	Importance  float64  `json:"importance"`
	Confidence  float64  `json:"confidence"`
	Text        string   `json:"text"`
	ActionTypes []string `json:"action_types,omitempty"`
	Path        string   `json:"path"`
	Edited      bool     `json:"edited,omitempty"`
	Author      string   `json:"author,omitempty"` // "agent": the agent's words
	Unreviewed  bool     `json:"unreviewed,omitempty"`
}

func newObservationsCmd(e *env) *cobra.Command {
	var typ, status string
	var minSessions int
	c := &cobra.Command{
		Use:     "observations",
		Aliases: []string{"obs"},
		Short:   "List extracted observations",
		Long: `Lists the observations under observations/, one a line: id, type, sessions,
importance, and the lesson, statement or title. Most important first within
each type; an observation a person edited is marked "edited", one the agent
wrote (assistant text, MCP remember) "agent-written".`,
		Example: "  kb observations\n  kb observations --type correction --min-sessions 2\n  kb observations --status candidate --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if typ != "" && !slices.Contains(kb.ObservationTypes(), typ) {
				return usageError{fmt.Errorf("--type %q: want one of %s", typ, strings.Join(kb.ObservationTypes(), ", "))}
			}
			k, err := e.open()
			if err != nil {
				return err
			}
			files, probs, err := k.LoadObservations(context.Background())
			if err != nil {
				return err
			}
			for _, p := range probs {
				fmt.Fprintln(e.err, e.paint("yellow", p.String()))
			}
			out := []obsLine{}
			for _, f := range files {
				o := f.Obs
				if (typ != "" && o.Type != typ) || (status != "" && o.Status != status) || o.Sessions < minSessions {
					continue
				}
				out = append(out, obsLine{ID: o.ID, Type: o.Type, Status: o.Status, Sessions: o.Sessions, Importance: o.Importance,
					Confidence: o.Confidence, Text: o.Summary(), ActionTypes: o.ActionTypes, Path: f.Path, Edited: f.Edited,
					Author: o.Author, Unreviewed: o.NeedsReview()})
			}
			order := func(t string) int {
				if i := slices.Index(kb.ObservationTypes(), t); i >= 0 {
					return i
				}
				return len(kb.ObservationTypes())
			}
			sort.SliceStable(out, func(i, j int) bool {
				a, b := out[i], out[j]
				if order(a.Type) != order(b.Type) {
					return order(a.Type) < order(b.Type)
				}
				if a.Importance != b.Importance {
					return a.Importance > b.Importance
				}
				return a.ID < b.ID
			})
			if e.json {
				return e.emit(out)
			}
			if len(out) == 0 {
				e.printf("no observations (run 'kb extract' after 'kb import')\n")
				return nil
			}
			for _, l := range out {
				text := l.Text
				if r := []rune(text); len(r) > 120 {
					text = string(r[:119]) + "…"
				}
				e.printf("%s  %-15s %2d× %.2f  %s", e.paint("bold", l.ID), l.Type, l.Sessions, l.Importance, text)
				if l.Edited {
					e.printf(" %s", e.paint("dim", "(edited)"))
				}
				switch {
				case l.Unreviewed:
					e.printf(" %s", e.paint("yellow", "(agent-written, needs review)"))
				case l.Author != "":
					e.printf(" %s", e.paint("dim", "(agent-written, reviewed)"))
				}
				e.printf("\n")
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&typ, "type", "", "only this type ("+strings.Join(kb.ObservationTypes(), ", ")+")")
	f.StringVar(&status, "status", "", "only this status (candidate, promoted, superseded, rejected)")
	f.IntVar(&minSessions, "min-sessions", 0, "only observations seen in at least N sessions")
	c.RegisterFlagCompletionFunc("type", cobra.FixedCompletions(kb.ObservationTypes(), cobra.ShellCompDirectiveNoFileComp))
	return c
}

func newForgetCmd(e *env) *cobra.Command {
	var why string
	c := &cobra.Command{
		Use:   "forget ID|PREFIX",
		Short: "Delete an observation and keep it from coming back",
		Long: `Deletes the observation file and appends a tombstone to
observations/tombstones.jsonl (kept in git), so that re-extraction never
brings the observation, or a near-duplicate of it, back.`,
		Example: "  kb forget cor-1a2b3c4d5e --why 'one-off, not a rule'",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := e.open()
			if err != nil {
				return err
			}
			ctx := context.Background()
			l, err := k.LockObservations(ctx)
			if err != nil {
				return err
			}
			defer l.Release()
			id, err := k.ResolveObservation(ctx, args[0])
			if err != nil {
				return err
			}
			t, err := k.Forget(ctx, id, why)
			if err != nil {
				return err
			}
			if e.json {
				return e.emit(t)
			}
			e.printf("forgot %s (%s); tombstone in %s\n", t.ID, t.Type, kb.TombstoneFile)
			return nil
		},
	}
	c.Flags().StringVar(&why, "why", "", "reason, recorded in the tombstone")
	return c
}

func newProvenanceCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "provenance ID|PREFIX",
		Short: "Show the trace records an observation was extracted from",
		Long: `Prints, for each source of the observation (session#from-to), the trace
records in that range: who said or did what, in the session's own words.`,
		Example: "  kb provenance cor-1a2b3c4d5e\n  kb provenance cor-1a2b3c4d5e --json",
		Args:    cobra.ExactArgs(1),
		RunE:    func(cmd *cobra.Command, args []string) error { return e.runProvenance(args[0]) },
	}
	return c
}

// runProvenance prints the trace records behind an observation (id or
// unique prefix): kb provenance ID and kb show ID --provenance.
func (e *env) runProvenance(arg string) error {
	k, err := e.open()
	if err != nil {
		return err
	}
	id, err := k.ResolveObservation(context.Background(), arg)
	if err != nil {
		return err
	}
	p, err := k.Provenance(context.Background(), id)
	if err != nil {
		return err
	}
	if e.json {
		return e.emit(p)
	}
	e.printProvenance(p)
	return nil
}

// printProvenance renders an observation's source records.
func (e *env) printProvenance(p *kb.Provenance) {
	e.printf("%s %s %s\n", e.paint("bold", p.ID), e.paint("dim", "["+p.Type+"]"), p.Path)
	for _, s := range p.Sources {
		e.printf("\n%s %s\n", e.paint("cyan", s.Ref), e.paint("dim", s.Path))
		if s.Error != "" {
			e.printf("  %s\n", e.paint("yellow", s.Error))
			continue
		}
		for _, r := range s.Records {
			who := r.Role + " " + r.Kind
			if r.Tool != "" {
				who += " " + r.Tool
			}
			text := strings.Join(strings.Fields(r.Text), " ")
			if rs := []rune(text); len(rs) > 300 {
				text = string(rs[:299]) + "…"
			}
			e.printf("  #%d %s: %s\n", r.Seq, e.paint("dim", who), text)
		}
	}
}

func newReviewCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "review [ID|PREFIX]",
		Short: "List the observations the agent wrote, or accept one after reading it",
		Long: `Observations the agent wrote (a sentence of its own reply, a call of the MCP
remember tool) are kept with that provenance (author: agent) and recalled only
as "The agent noted (unreviewed): ...": they never reach a new session's
standing context, never decide a PreToolUse call, and are never promoted by
'kb promote' nor written to AGENTS.md by 'kb learn'.

Without an argument, lists those waiting for review. With an ID, records that
you read it and let it count like your own (reviewed: <time> in its file); it
stays labelled as the agent's words. To refuse one instead, use
'kb forget ID' (or 'kb promote reject ID').`,
		Example: "  kb review\n  kb review cor-1a2b3c4d5e",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := e.open()
			if err != nil {
				return err
			}
			ctx := context.Background()
			if len(args) == 0 {
				notes, err := k.AgentNotes(ctx)
				if err != nil {
					return err
				}
				if e.json {
					return e.emit(notes)
				}
				if len(notes) == 0 {
					e.printf("nothing the agent wrote waits for review\n")
					return nil
				}
				for _, n := range notes {
					e.printf("%s  %-15s %-15s %s\n", e.paint("bold", n.ID), n.Type, n.Origin, n.Text)
				}
				e.printf("%d agent-written observation(s); 'kb show ID' to read one, 'kb review ID' to accept it, 'kb forget ID' to drop it\n", len(notes))
				return nil
			}
			res, err := k.Review(ctx, args[0], time.Now())
			if err != nil {
				return err
			}
			if e.json {
				return e.emit(res)
			}
			if res.Changed {
				e.printf("reviewed %s (%s): it now counts like your own, still labelled as the agent's words\n", res.ID, res.Path)
			} else {
				e.printf("%s was already reviewed on %s\n", res.ID, res.Reviewed.Format("2006-01-02"))
			}
			return nil
		},
	}
}
