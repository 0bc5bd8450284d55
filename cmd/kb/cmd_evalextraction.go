package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/kbmem/kb/eval"
	"github.com/kbmem/kb/kb"
)

// newEvalExtractionCmd is `kb eval extraction`.
func newEvalExtractionCmd(e *env) *cobra.Command {
	var (
		keys        []string
		transcripts string
		keep        string
		explain     bool
	)
	c := &cobra.Command{
		Use:   "extraction [--key FILE]... [--transcripts DIR]",
		Short: "Score extraction per observation type against hand-labelled real sessions",
		Long: `Scores kb's extraction against answer keys: person messages of real agent
transcripts, each labelled by hand (correction, rule, preference, decision or
none; "unsure" where the annotator was not sure). Keys over the same
transcripts share one fresh temporary KB: the files the keys name are
imported (a file a key covers only in part, per its line_limits, is cut to
those lines in a copy), extracted as 'kb extract --all' does, offline, and
every observation is mapped through its sources to the transcript lines of
the person messages it was taken from.

Per scored type: recall = positive messages found inside an observation of
that type (a rule inside a correction); precision = observations of that type
taken from a positive message, over those with a source in the key's files
(one taken from no keyed message counts against it). "sure" leaves unsure
items out; "all" counts them with their label. For correction keys, the sure
"none" prose messages found inside a correction are counted as well.
Breakdowns per half (a key in <owner>__<repo> directories splits into DEV and
CHECK by owner), per agent, per language and per file (--json).

Without --key, the keys of the kb repository are scored, from its root:
` + "  " + strings.Join(eval.DefaultExtractionKeys, "\n  ") + `
each skipped with a message when it or its transcripts are absent (the first
lives in the project workspace beside the repository). --transcripts sets the
transcript directory of every key (default: the key's base_dir, relative to
the key file, or the key file's directory).

--explain lists every miss, false positive and none message inside a
correction (file:line, the first 80 characters, the observation). The CHECK
half is scored but never listed, so nobody tunes on it.

--json prints the report (schema 1): {schema, keys: [{key, name, transcripts,
types, files, missing_files, line_limits, items, unscored_items, observations
{type: n}, sets: [SET], by_source: [SET], by_language: [SET], by_file: [SET],
misses: [ITEM], false_positives: [{id, type, author, summary, reason,
anchors: [{file, line, keyed, label, unsure}]}], none_in_correction: [ITEM],
withheld: {misses, false_positives, none_in_correction}}], skipped: [{key,
reason}], runs: [{transcripts, keys, files, line_limits, sessions, records,
observations {type: n}, problems}], seconds}; SET is {name, items, types:
[{type, recall: {positives, found, recall, positives_sure, found_sure,
recall_sure}, precision: {observations, correct, precision, judged_sure,
correct_sure, precision_sure}}], observations {type: n}, none_in_correction:
{sure, sure_of, lenient, lenient_of, harness}}; ITEM is {type, file, line,
label, also, unsure, kind, language, half, text, observations, types}. A
ratio is absent when its denominator is 0; rule has no precision.

` + exitCodesHelp,
		Example: `  kb eval extraction
  kb eval extraction --key ../shared/eval/real-corrections-key.json --explain
  kb eval extraction --key /path/to/external-key.json --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var refs []eval.ExtractionKeyRef
			for _, k := range keys {
				refs = append(refs, eval.ExtractionKeyRef{Path: k})
			}
			if len(refs) == 0 {
				for _, k := range eval.DefaultExtractionKeys {
					refs = append(refs, eval.ExtractionKeyRef{Path: k, Optional: true})
				}
			}
			rep, err := eval.Extraction(cmd.Context(), eval.ExtractionOptions{Keys: refs, Transcripts: transcripts,
				KBDir: keep, Progress: e.progress("sessions")})
			if err != nil {
				return err
			}
			if len(rep.Keys) == 0 {
				for _, s := range rep.Skipped {
					e.warnf("skipped %s: %s", s.Key, s.Reason)
				}
				return fmt.Errorf("eval extraction: %w: no answer key could be scored (run from the kb repository, or give --key)", kb.ErrNotFound)
			}
			if e.json {
				return e.emit(rep)
			}
			printExtraction(e, rep, explain)
			return nil
		},
	}
	f := c.Flags()
	f.StringArrayVar(&keys, "key", nil, "answer key to score (repeatable; default: the repository's keys)")
	f.StringVar(&transcripts, "transcripts", "", "transcript directory of every key (default: each key's base_dir)")
	f.StringVar(&keep, "keep", "", "build the evaluation KBs in this new directory and keep them")
	f.BoolVar(&explain, "explain", false, "list each miss, false positive and none message inside a correction")
	return c
}

// ratioCell prints "0.52 14/27", or "-" and the counts without a
// denominator.
func ratioCell(r *float64, a, b int) string {
	if r == nil {
		return fmt.Sprintf("-  %d/%d", a, b)
	}
	return fmt.Sprintf("%.2f  %d/%d", *r, a, b)
}

func typeCounts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var types []string
	for t := range m {
		types = append(types, t)
	}
	sort.Strings(types)
	var parts []string
	total := 0
	for _, t := range types {
		parts = append(parts, fmt.Sprintf("%s %d", t, m[t]))
		total += m[t]
	}
	return fmt.Sprintf("%d (%s)", total, strings.Join(parts, ", "))
}

func printExtraction(e *env, rep *eval.ExtractionReport, explain bool) {
	for _, s := range rep.Skipped {
		e.warnf("skipped %s: %s", s.Key, s.Reason)
	}
	for i, ks := range rep.Keys {
		if i > 0 {
			e.printf("\n")
		}
		scope := ""
		if len(ks.LineLimits) > 0 {
			var parts []string
			for f, n := range ks.LineLimits {
				parts = append(parts, fmt.Sprintf("%s: first %d lines", f, n))
			}
			sort.Strings(parts)
			scope = "; " + strings.Join(parts, ", ")
		}
		e.printf("%s: %d items in %d files under %s%s\n", e.paint("bold", ks.Key), ks.Items, ks.Files, ks.Transcripts, scope)
		if len(ks.MissingFiles) > 0 {
			e.warnf("%s: %d transcript files missing, %d items not scored: %s", ks.Key, len(ks.MissingFiles), ks.Unscored, strings.Join(ks.MissingFiles, ", "))
		}
		e.printf("observations with a source in these files: %s\n\n", typeCounts(ks.Observations))
		tw := tabwriter.NewWriter(e.out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  set\ttype\trecall sure\trecall all\tprecision sure\tprecision all\t")
		for _, ss := range ks.Sets {
			for _, ts := range ss.Types {
				r := ts.Recall
				cells := []string{"  " + ss.Name, ts.Type, ratioCell(r.RecallSure, r.FoundSure, r.PositivesSure), ratioCell(r.Recall, r.Found, r.Positives)}
				if p := ts.Precision; p != nil {
					cells = append(cells, ratioCell(p.PrecisionSure, p.CorrectSure, p.JudgedSure), ratioCell(p.Precision, p.Correct, p.Observations))
				} else {
					cells = append(cells, "", "")
				}
				fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
			}
		}
		tw.Flush()
		for _, ss := range ks.Sets {
			if n := ss.NoneInCorrection; n != nil {
				e.printf("  %s: none messages inside a correction: %d of %d sure, %d of %d with unsure; harness/slash/template items inside one: %d\n",
					ss.Name, n.Sure, n.SureOf, n.Lenient, n.LenientOf, n.Harness)
			}
		}
		printBreakdown(e, "by agent", ks.BySource)
		printBreakdown(e, "by language", ks.ByLanguage)
		if explain {
			printExplain(e, ks)
		}
	}
	e.printf("\n")
	for _, r := range rep.Runs {
		e.printf("KB over %s: %d files, %d sessions, %d records; observations %s\n", r.Transcripts, r.Files, r.Sessions, r.Records, typeCounts(r.Observations))
		if len(r.Problems) > 0 {
			e.warnf("%d problem(s) while importing and extracting, first: %s", len(r.Problems), r.Problems[0])
		}
	}
	e.printf("wall time %.1fs\n", rep.Seconds)
}

// printBreakdown prints sure recall and precision of each scored type per
// group, one row a group.
func printBreakdown(e *env, title string, sets []eval.SetScore) {
	if len(sets) < 2 {
		return
	}
	e.printf("\n")
	tw := tabwriter.NewWriter(e.out, 0, 0, 2, ' ', 0)
	hdr := []string{"  " + title + " (sure)", "items"}
	for _, ts := range sets[0].Types {
		if ts.Type == "rule" {
			continue
		}
		hdr = append(hdr, ts.Type+" recall", "precision")
	}
	fmt.Fprintln(tw, strings.Join(hdr, "\t")+"\t")
	for _, ss := range sets {
		cells := []string{"  " + ss.Name, fmt.Sprint(ss.Items)}
		for _, ts := range ss.Types {
			if ts.Precision == nil {
				continue
			}
			r, p := ts.Recall, ts.Precision
			cells = append(cells, ratioCell(r.RecallSure, r.FoundSure, r.PositivesSure), ratioCell(p.PrecisionSure, p.CorrectSure, p.JudgedSure))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	tw.Flush()
}

func itemLine(it eval.ItemRef) string {
	var tags []string
	if it.Label != "" {
		tags = append(tags, it.Label)
	}
	if it.Also != "" {
		tags = append(tags, "also "+it.Also)
	}
	if it.Unsure {
		tags = append(tags, "unsure")
	}
	if it.Kind != "" && it.Kind != "typed" {
		tags = append(tags, it.Kind)
	}
	return fmt.Sprintf("%s:%d [%s] \"%s\"", it.File, it.Line, strings.Join(tags, ", "), it.Text)
}

func printExplain(e *env, ks *eval.KeyScore) {
	e.printf("\n  misses (%d):\n", len(ks.Misses))
	for _, m := range ks.Misses {
		in := ""
		if len(m.Types) > 0 {
			in = " (inside: " + strings.Join(m.Types, ", ") + ")"
		}
		e.printf("    %-10s %s%s\n", m.Type, itemLine(m), in)
	}
	e.printf("\n  false positives (%d):\n", len(ks.FalsePositives))
	for _, fp := range ks.FalsePositives {
		who := ""
		if fp.Author != "" {
			who = " [" + fp.Author + "]"
		}
		e.printf("    %s%s \"%s\"\n      %s", fp.ID, who, fp.Summary, fp.Reason)
		var as []string
		for _, a := range fp.Anchors {
			s := fmt.Sprintf("%s:%d", a.File, a.Line)
			if a.Keyed {
				s += " (" + a.Label
				if a.Unsure {
					s += ", unsure"
				}
				s += ")"
			}
			as = append(as, s)
		}
		if len(as) > 0 {
			e.printf("; anchors: %s", strings.Join(as, ", "))
		}
		e.printf("\n")
	}
	if slices.Contains(ks.Types, "correction") {
		e.printf("\n  none messages inside a correction (%d):\n", len(ks.NoneInCorrection))
		for _, it := range ks.NoneInCorrection {
			e.printf("    %s in %s\n", itemLine(it), strings.Join(it.Observations, ", "))
		}
	}
	if w := ks.Withheld; w != nil {
		e.printf("\n  CHECK half, scored but not listed: %d misses, %d false positives, %d none messages inside a correction\n",
			w.Misses, w.FalsePositives, w.NoneInCorrection)
	}
}
