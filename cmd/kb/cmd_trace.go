package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/kbmem/kb/kb"
)

func init() { register(newImportCmd, newSessionsCmd, newTraceCmd) }

func newImportCmd(e *env) *cobra.Command {
	var o kb.ImportOptions
	var claude, codex, verbose bool
	c := &cobra.Command{
		Use:   "import [PATH...]",
		Short: "Import agent transcripts into traces/ (redacted, idempotent)",
		Long: `Import transcripts of Claude Code, Codex, Aider, Gemini CLI or generic JSONL
into the trace layer. A PATH is a file, or a directory walked for *.jsonl,
*.json and aider chat histories. --claude-code and --codex import this
project's transcripts from the directories kb.yaml names (traces.claude_code,
traces.codex; "auto" = ~/.claude/projects/<project> and ~/.codex/sessions,
the project's git worktrees included).

Secrets are replaced by [REDACTED:<rule>] before anything is written, unless
--no-redact. Importing again appends only what is new. Every file is
attempted; files that are not transcripts, and malformed lines (reported as
file:line: reason), make the command exit 1 after everything else is
imported. Files found in a directory that are not transcripts are listed as
skipped and do not fail the import, except in an agent's own directory
(~/.claude/projects, the Codex sessions directory, traces.claude_code and
traces.codex): there a file kb cannot read fails the import, by name.`,
		Example: "  kb import --claude-code --codex\n  kb import ~/.claude/projects/-home-me-app/5f0c2a9e.jsonl\n  kb import ./exports --format generic --agent my-agent --json",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && !claude && !codex {
				return usageError{errors.New("give transcript paths, --claude-code or --codex")}
			}
			k, err := e.open()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			// Ctrl-C stops between files: what was imported is kept, and
			// the same command resumes (imports are idempotent).
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
			defer stop()
			o.OnFile = e.importProgress()
			rep := &kb.ImportReport{Files: []kb.ImportFile{}}
			if len(args) > 0 {
				r, err := k.Import(ctx, args, o)
				if err != nil && !trIsPartial(err) && ctx.Err() == nil {
					return err
				}
				rep = r
			}
			if claude || codex {
				r, err := k.ImportSources(ctx, k.TraceSources(claude, codex, false), o)
				if err != nil && !trIsPartial(err) && ctx.Err() == nil {
					return err
				}
				rep = trMergeReports(rep, r)
			}
			if e.json {
				if err := e.emit(rep); err != nil {
					return err
				}
			} else {
				e.printImport(rep, verbose)
			}
			if ctx.Err() != nil {
				e.warnf("interrupted: %d file(s) imported, %d records appended, all kept; run the same command again to import the rest", rep.Totals.Files, rep.Totals.Appended)
				return ctx.Err()
			}
			if rep.Totals.Problems > 0 || rep.Totals.Errors > 0 {
				e.warnf("import incomplete: %d file(s) failed, %d problem(s) in imported files", rep.Totals.Errors, rep.Totals.Problems)
				return findingsError{rep.Totals.Problems + rep.Totals.Errors}
			}
			return nil
		},
	}
	f := c.Flags()
	f.BoolVar(&claude, "claude-code", false, "import this project's Claude Code sessions (traces.claude_code)")
	f.BoolVar(&codex, "codex", false, "import this project's Codex sessions (traces.codex)")
	f.StringVar(&o.Format, "format", "", "force the format: claude-code, codex, aider, gemini-cli, generic (default: detect)")
	f.StringVar(&o.Agent, "agent", "", "record this agent name instead of the format's")
	f.BoolVar(&o.NoRedact, "no-redact", false, "store secrets as they are (redaction is on by default)")
	f.BoolVarP(&verbose, "verbose", "v", false, "a line per file (default: a line per agent)")
	c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"claude-code", "codex", "aider", "gemini-cli", "generic"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

func trIsPartial(err error) bool {
	var pe *kb.PartialImportError
	return errors.As(err, &pe)
}

func trMergeReports(a, b *kb.ImportReport) *kb.ImportReport {
	if a == nil {
		return b
	}
	a.Files = append(a.Files, b.Files...)
	a.Skipped = append(a.Skipped, b.Skipped...)
	t, u := &a.Totals, b.Totals
	t.Files += u.Files
	t.Sessions += u.Sessions
	t.Appended += u.Appended
	t.Unchanged += u.Unchanged
	t.Problems += u.Problems
	t.Errors += u.Errors
	t.Skipped += u.Skipped
	t.Redacted += u.Redacted
	a.Redacted = a.Redacted || b.Redacted
	return a
}

// printImport prints an import for people: problems and errors by file,
// then one line per agent (format) and a total; --verbose adds a line per
// file.
func (e *env) printImport(rep *kb.ImportReport, verbose bool) {
	type agentSum struct{ files, sessions, appended, unchanged, empty int }
	var order []string
	sums := map[string]*agentSum{}
	for _, f := range rep.Files {
		switch {
		case f.Error != "":
			fmt.Fprintf(e.err, "%s\n", e.paint("red", "error: "+f.File+": "+f.Error))
		case verbose && f.Empty:
			e.printf("%s %s\n", e.paint("dim", "empty"), f.File)
		case verbose && f.Unchanged:
			e.printf("%s %s\n", e.paint("dim", "unchanged"), f.File)
		case verbose:
			e.printf("%s %s: %d records, %d session(s) [%s]\n", e.paint("green", "imported"), f.File, f.Appended, len(f.Sessions), f.Format)
		}
		for _, p := range f.Problems {
			fmt.Fprintf(e.err, "%s\n", e.paint("yellow", p))
		}
		if f.Error != "" {
			continue
		}
		name := f.Format
		if name == "" {
			name = "other"
		}
		a := sums[name]
		if a == nil {
			a = &agentSum{}
			sums[name] = a
			order = append(order, name)
		}
		a.files++
		a.sessions += len(f.Sessions)
		a.appended += f.Appended
		if f.Unchanged {
			a.unchanged++
		}
		if f.Empty {
			a.empty++
		}
	}
	for _, s := range rep.Skipped {
		if !e.quiet {
			fmt.Fprintf(e.err, "skipped %s: %s\n", s.File, s.Reason)
		}
	}
	if e.quiet {
		return
	}
	sort.Strings(order)
	for _, name := range order {
		a := sums[name]
		extra := ""
		if a.unchanged > 0 {
			extra += fmt.Sprintf(", %d unchanged", a.unchanged)
		}
		if a.empty > 0 {
			extra += fmt.Sprintf(", %d empty", a.empty)
		}
		e.printf("%s: %d file(s), %d session(s), %d records appended%s\n", e.paint("bold", name), a.files, a.sessions, a.appended, extra)
	}
	t := rep.Totals
	red := "redaction off"
	if rep.Redacted {
		red = fmt.Sprintf("%d secret(s) redacted", t.Redacted)
	}
	e.printf("%d file(s): %d records appended, %d unchanged, %d empty, %d skipped, %d problem(s), %d error(s); %s\n",
		t.Files, t.Appended, t.Unchanged, t.Empty, t.Skipped, t.Problems, t.Errors, red)
}

// importProgress reports a long import as it goes: on a terminal a line
// rewritten in place, on a pipe a line every 5 s (none for imports that
// end sooner); nothing with --json or --quiet.
func (e *env) importProgress() func(kb.ImportFile) {
	if e.json || e.quiet {
		return nil
	}
	f, _ := e.err.(*os.File)
	tty := f != nil && isatty.IsTerminal(f.Fd())
	start, last := time.Now(), time.Now()
	files, records := 0, 0
	return func(fi kb.ImportFile) {
		files++
		records += fi.Appended
		now := time.Now()
		switch {
		case tty && now.Sub(last) >= 100*time.Millisecond:
			fmt.Fprintf(e.err, "\rimporting: %d file(s), %d records...", files, records)
			last = now
		case !tty && now.Sub(last) >= 5*time.Second:
			fmt.Fprintf(e.err, "kb: importing: %d file(s), %d records so far (%s)\n", files, records, now.Sub(start).Round(time.Second))
			last = now
		}
	}
}

func newSessionsCmd(e *env) *cobra.Command {
	var since, agent string
	c := &cobra.Command{
		Use:   "sessions",
		Short: "List imported sessions",
		Long: `List the sessions of the trace layer, oldest first: id, agent, start,
duration, messages, tool calls, branch and the first prompt typed.`,
		Example: "  kb sessions\n  kb sessions --since 2025-11-01 --agent codex --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var o kb.SessionsOptions
			if since != "" {
				t, err := trSince(since)
				if err != nil {
					return usageError{err}
				}
				o.Since = t
			}
			o.Agent = agent
			k, err := e.open()
			if err != nil {
				return err
			}
			list, err := k.Sessions(o)
			if err != nil {
				return err
			}
			if e.json {
				return e.emit(list)
			}
			if len(list) == 0 {
				e.printf("no sessions (import some with 'kb import --claude-code')\n")
				return nil
			}
			for _, s := range list {
				start := "-"
				if !s.Start.IsZero() {
					start = s.Start.Local().Format("2006-01-02 15:04")
				}
				branch := ""
				if s.Branch != "" {
					branch = " " + e.paint("magenta", s.Branch)
				}
				e.printf("%s %s %s %6s %4d msgs %4d tools%s  %s\n", e.paint("bold", trShortID(s.ID)), e.paint("cyan", fmt.Sprintf("%-11s", s.Agent)),
					start, trDuration(s.DurationS), s.Messages, s.ToolCalls, branch, trOneLine(s.FirstPrompt, 60))
			}
			return nil
		},
	}
	c.Flags().StringVar(&since, "since", "", "only sessions active at or after DATE (2025-11-01, RFC 3339, or a duration like 72h)")
	c.Flags().StringVar(&agent, "agent", "", "only this agent (claude-code, codex, aider, gemini-cli, generic)")
	return c
}

// trSince reads a date, an RFC 3339 time, or a duration back from now.
func trSince(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return time.Now().Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("--since %q: want a date (2025-11-01), an RFC 3339 time or a duration (72h)", s)
}

func trShortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return fmt.Sprintf("%-12s", id)
}

func trDuration(sec float64) string {
	d := time.Duration(sec * float64(time.Second))
	switch {
	case d <= 0:
		return "-"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// trOneLine collapses whitespace and cuts s to n runes with an ellipsis.
func trOneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func newTraceCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "trace",
		Short: "Read, append to, or redact trace sessions",
		Long: `Work with the sessions of the trace layer. Sessions are named by id or by a
unique prefix of it (or of <agent>-<id>).`,
	}
	c.AddCommand(newTraceShowCmd(e), newTraceAppendCmd(e), newTraceRedactCmd(e))
	return c
}

func newTraceShowCmd(e *env) *cobra.Command {
	var o kb.TraceOptions
	var grep string
	c := &cobra.Command{
		Use:   "show SESSION",
		Short: "Show a session: messages, tool calls and results",
		Long: `Render a session readably: one block per record, labelled with its seq,
role and kind; tool calls as "→ Tool: input", results indented (truncated
unless --json, which prints the records in full).`,
		Example: "  kb trace show 5f0c2a9e\n  kb trace show 5f0c --from 10 --to 40\n  kb trace show 5f0c --grep 'pnpm|yarn' --json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if grep != "" {
				re, err := regexp.Compile(grep)
				if err != nil {
					return usageError{fmt.Errorf("--grep: %v", err)}
				}
				o.Grep = re
			}
			k, err := e.open()
			if err != nil {
				return err
			}
			tr, err := k.TraceShow(args[0], o)
			if err != nil {
				return err
			}
			if e.json {
				return e.emit(tr)
			}
			e.renderTrace(tr)
			return nil
		},
	}
	f := c.Flags()
	f.IntVar(&o.From, "from", 0, "first seq to show")
	f.IntVar(&o.To, "to", 0, "last seq to show")
	f.StringVar(&grep, "grep", "", "only records whose text, tool, input or output match this regular expression")
	return c
}

func (e *env) renderTrace(tr *kb.Trace) {
	s := tr.Session
	head := fmt.Sprintf("session %s (%s)", s.ID, s.Agent)
	if !s.Start.IsZero() {
		head += " " + s.Start.Local().Format("2006-01-02 15:04")
	}
	if s.Branch != "" {
		head += " on " + s.Branch
	}
	e.printf("%s\n", e.paint("bold", head))
	if s.Cwd != "" {
		e.printf("%s\n", e.paint("dim", s.Cwd))
	}
	for _, r := range tr.Records {
		if r.Kind == kb.KindMeta {
			continue
		}
		label := fmt.Sprintf("#%d %s", r.Seq, r.Role)
		if r.Kind != kb.KindMessage {
			label += "/" + r.Kind
		}
		if len(r.Marks) > 0 {
			label += " [" + strings.Join(r.Marks, ",") + "]"
		}
		style := map[string]string{kb.RoleUser: "green", kb.RoleAssistant: "blue", kb.RoleTool: "yellow"}[r.Role]
		if style == "" {
			style = "dim"
		}
		switch r.Kind {
		case kb.KindToolCall:
			e.printf("%s → %s: %s\n", e.paint(style, label), r.Tool, trOneLine(trToolSummary(r.Input), 200))
		case kb.KindToolResult:
			status := ""
			if r.IsError {
				status = " " + e.paint("red", "error")
			}
			e.printf("%s%s\n", e.paint(style, label), status)
			e.printf("%s", trIndent(trTruncLines(r.Output, 12, 240), "    "))
		default:
			e.printf("%s\n", e.paint(style, label))
			text := r.Text
			if r.Has(kb.MarkInjected) || r.Has(kb.MarkThinking) {
				text = trTruncLines(text, 3, 240)
			} else {
				text = trTruncLines(text, 40, 2000)
			}
			e.printf("%s", trIndent(text, "  "))
		}
	}
	for _, p := range tr.Problems {
		fmt.Fprintln(e.err, e.paint("yellow", p.Error()))
	}
}

// trToolSummary shows a tool input by its most telling field (command,
// file_path, pattern...), else as compact JSON.
func trToolSummary(in json.RawMessage) string {
	if len(in) == 0 {
		return ""
	}
	var m map[string]any
	if json.Unmarshal(in, &m) == nil {
		for _, k := range []string{"command", "cmd", "file_path", "path", "pattern", "url", "query", "description"} {
			switch v := m[k].(type) {
			case string:
				return v
			case []any:
				var parts []string
				for _, x := range v {
					parts = append(parts, fmt.Sprint(x))
				}
				return strings.Join(parts, " ")
			}
		}
	}
	var b bytes.Buffer
	if json.Compact(&b, in) == nil {
		return b.String()
	}
	return string(in)
}

// trTruncLines keeps at most n lines of at most w runes each.
func trTruncLines(s string, n, w int) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	more := 0
	if len(lines) > n {
		more = len(lines) - n
		lines = lines[:n]
	}
	for i, l := range lines {
		if utf8.RuneCountInString(l) > w {
			lines[i] = string([]rune(l)[:w]) + "…"
		}
	}
	out := strings.Join(lines, "\n") + "\n"
	if more > 0 {
		out += fmt.Sprintf("… (%d more lines)\n", more)
	}
	return out
}

func trIndent(s, pre string) string {
	if s == "" {
		return ""
	}
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString(pre + l)
		}
	}
	return b.String()
}

func newTraceAppendCmd(e *env) *cobra.Command {
	var noRedact bool
	c := &cobra.Command{
		Use:   "append",
		Short: "Append records (JSON or JSON lines on stdin) to their sessions",
		Long: `Read one JSON record, or JSON lines of records, on stdin and append them to
their sessions, redacted like imports. Each record needs "session"; "agent"
defaults to generic, "kind" to message, "role" to system, "ts" to now; "seq"
is assigned. Prints the session and seq of each record written.

Record fields: session, agent, role (user|assistant|tool|system), kind
(message|tool_call|tool_result|summary), text, tool, input (JSON), output,
is_error, call_id, cwd, branch, model, marks, extra.`,
		Example: `  echo '{"session":"s1","role":"user","text":"use pnpm"}' | kb trace append`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			recs, err := trReadRecords(e.in)
			if err != nil {
				return err
			}
			k, err := e.open()
			if err != nil {
				return err
			}
			out, err := k.AppendTraces(context.Background(), recs, noRedact)
			if err != nil {
				return err
			}
			type written struct {
				Session string `json:"session"`
				Agent   string `json:"agent"`
				Seq     int    `json:"seq"`
			}
			res := make([]written, 0, len(out))
			for _, r := range out {
				res = append(res, written{Session: r.Session, Agent: r.Agent, Seq: r.Seq})
			}
			if e.json {
				return e.emit(res)
			}
			for _, w := range res {
				e.printf("%s %d\n", w.Session, w.Seq)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&noRedact, "no-redact", false, "store secrets as they are")
	return c
}

// trReadRecords reads one JSON record or JSON lines of records; errors name
// the line.
func trReadRecords(r io.Reader) ([]kb.TraceRecord, error) {
	data, err := io.ReadAll(io.LimitReader(r, 256<<20))
	if err != nil {
		return nil, fmt.Errorf("read stdin: %w", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, usageError{errors.New("no record on stdin")}
	}
	var recs []kb.TraceRecord
	var one kb.TraceRecord
	if err := json.Unmarshal(data, &one); err == nil {
		recs = append(recs, one)
	} else {
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 64<<10), 256<<20)
		line := 0
		for sc.Scan() {
			line++
			b := bytes.TrimSpace(sc.Bytes())
			if len(b) == 0 {
				continue
			}
			var rec kb.TraceRecord
			if err := json.Unmarshal(b, &rec); err != nil {
				return nil, fmt.Errorf("%w: stdin:%d: %v", kb.ErrInvalidInput, line, err)
			}
			recs = append(recs, rec)
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("read stdin: %w", err)
		}
	}
	for i, rec := range recs {
		if rec.Session == "" {
			return nil, fmt.Errorf("%w: record %d: no \"session\"", kb.ErrInvalidInput, i+1)
		}
	}
	return recs, nil
}

func newTraceRedactCmd(e *env) *cobra.Command {
	var o kb.RedactOptions
	var pattern string
	c := &cobra.Command{
		Use:   "redact (--pattern RE | --value STR)",
		Short: "Remove a leaked value from traces, the index and the notes quoting it",
		Long: `The one exception to append-only traces: rewrite, atomically and under the
KB lock, every session file holding the value (or a match of the pattern)
with it replaced by [REDACTED:manual]; do the same in the markdown files of
observations/, episodes/ and library/; rebuild the search index so no search
finds it. The pattern is remembered in .state/ (local, never committed) so
that importing the same transcripts again redacts it too. --dry-run reports
what would change. Remember to rewrite git history if the value was
committed.`,
		Example: "  kb trace redact --value 'hunter2' --dry-run\n  kb trace redact --pattern 'corp-[0-9]{6}' --session 5f0c2a9e",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if (pattern == "") == (o.Value == "") {
				return usageError{errors.New("give exactly one of --pattern and --value")}
			}
			if pattern != "" {
				re, err := regexp.Compile(pattern)
				if err != nil {
					return usageError{fmt.Errorf("--pattern: %v", err)}
				}
				o.Pattern = re
			}
			k, err := e.open()
			if err != nil {
				return err
			}
			rep, err := k.RedactTraces(context.Background(), o)
			if err != nil {
				return err
			}
			if e.json {
				return e.emit(rep)
			}
			verb := "redacted"
			if rep.DryRun {
				verb = "would redact"
			}
			for _, f := range rep.Files {
				if f.Records > 0 {
					e.printf("%s %d occurrence(s) in %d record(s) of %s\n", verb, f.Occurrences, f.Records, f.Path)
				} else {
					e.printf("%s %d occurrence(s) in %s\n", verb, f.Occurrences, f.Path)
				}
			}
			e.printf("%d file(s), %d record(s), %d occurrence(s)", len(rep.Files), rep.Records, rep.Occurrences)
			if rep.Reindexed {
				e.printf("; index rebuilt")
			}
			e.printf("\n")
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&pattern, "pattern", "", "regular expression (RE2) to redact")
	f.StringVar(&o.Value, "value", "", "literal value to redact")
	f.StringVar(&o.Session, "session", "", "only this session's file (notes are still cleaned)")
	f.BoolVar(&o.DryRun, "dry-run", false, "report what would change, change nothing")
	return c
}
