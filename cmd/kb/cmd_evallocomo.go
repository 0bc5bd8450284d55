package main

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/kbmem/kb/eval"
)

// newEvalLocomoCmd is `kb eval locomo FILE`; the lead registers it under
// the `kb eval` parent.
func newEvalLocomoCmd(e *env) *cobra.Command {
	var (
		ksFlag     string
		convs      []string
		noRecall   bool
		noSpeaker  bool
		dateInText bool
		details    bool
		budget     int
	)
	c := &cobra.Command{
		Use:   "locomo FILE",
		Short: "Score long-memory retrieval on the LoCoMo benchmark (locomo10.json)",
		Long: `FILE is locomo10.json from snap-research/LoCoMo (CC BY-NC 4.0; kb does not
ship it). Each conversation is loaded into a fresh temporary KB, one trace
session per LoCoMo session and one record per turn ("speaker: text", photo
captions appended), indexed, and extracted with the offline heuristics. Each
question is asked of kb search (traces layer) and of kb recall; a result maps
back to the dialogue turn ids (D<session>:<turn>) the benchmark gives as
evidence.

Reported per question category and overall: recall@k, the share of a
question's evidence turns found in the top k, and nDCG@k with binary
relevance. Questions without valid evidence are skipped and counted.
--json prints the whole report (--details: every question's retrieved ids).`,
		Example: `  kb eval locomo ../shared/data/locomo/locomo10.json
  kb eval locomo locomo10.json --conversation conv-26 --k 1,5,10 --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var ks []int
			for _, s := range strings.Split(ksFlag, ",") {
				s = strings.TrimSpace(s)
				if s == "" {
					continue
				}
				k, err := strconv.Atoi(s)
				if err != nil || k <= 0 || k > 1000 {
					return usageError{fmt.Errorf("invalid argument %q for --k: want positive integers up to 1000, comma-separated", s)}
				}
				ks = append(ks, k)
			}
			rep, err := eval.Locomo(cmd.Context(), args[0], eval.LocomoOptions{
				Ks: ks, Conversations: convs, NoRecall: noRecall, NoSpeaker: noSpeaker, DateInText: dateInText,
				RecallBudget: budget, Details: details, Progress: e.progress("questions"),
			})
			if err != nil {
				return err
			}
			if e.json {
				return e.emit(rep)
			}
			printLocomo(e, rep)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&ksFlag, "k", "5,10", "cut-offs of recall@k and nDCG@k, comma-separated")
	f.StringSliceVar(&convs, "conversation", nil, "evaluate only this conversation (sample_id, e.g. conv-26); repeatable")
	f.BoolVar(&noRecall, "no-recall", false, "skip extraction and kb recall; score search only")
	f.BoolVar(&noSpeaker, "no-speaker", false, "index turns without the speaker's name")
	f.BoolVar(&dateInText, "date-in-text", false, "add the session date to each turn's indexed text")
	f.BoolVar(&details, "details", false, "with --json: include every question's retrieved turn ids")
	f.IntVar(&budget, "budget", 0, "token budget of each recall (default 2000)")
	return c
}

func printLocomo(e *env, rep *eval.LocomoReport) {
	e.printf("LoCoMo: %d conversation(s), %d sessions, %d turns, %d questions scored (%d without evidence skipped, %d evidence ids dropped)\n",
		len(rep.Conversations), rep.Sessions, rep.Turns, rep.Questions, rep.SkippedNoEvidence, rep.DroppedEvidence)
	e.printf("turn text: %s; observations extracted: %d\n\n", rep.TextStyle, rep.Observations)
	tw := tabwriter.NewWriter(e.out, 0, 0, 2, ' ', tabwriter.AlignRight)
	hdr := []string{"system", "category", "questions"}
	for _, a := range rep.Systems[0].Overall.At {
		hdr = append(hdr, fmt.Sprintf("recall@%d", a.K))
	}
	for _, a := range rep.Systems[0].Overall.At {
		hdr = append(hdr, fmt.Sprintf("nDCG@%d", a.K))
	}
	fmt.Fprintln(tw, strings.Join(hdr, "\t")+"\t")
	for _, s := range rep.Systems {
		rows := append(append([]eval.LocomoScore{}, s.Categories...), s.Overall)
		for _, sc := range rows {
			cells := []string{s.Name, sc.Name, strconv.Itoa(sc.Questions)}
			for _, a := range sc.At {
				cells = append(cells, fmt.Sprintf("%.3f", a.Recall))
			}
			for _, a := range sc.At {
				cells = append(cells, fmt.Sprintf("%.3f", a.NDCG))
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
		}
	}
	tw.Flush()
	for _, s := range rep.Systems {
		if s.Empty > 0 {
			e.printf("%s returned nothing for %d of %d questions\n", s.Name, s.Empty, rep.Questions)
		}
	}
	for _, p := range rep.Problems {
		e.warnf("%s", p)
	}
	e.printf("wall time %.1fs\n", rep.Seconds)
}
