package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kbmem/kb/eval"
	"github.com/kbmem/kb/kb"
	"github.com/kbmem/kb/mcpserver"
)

func init() { register(newRecallCmd, newHookCmd, newMCPCmd, newEvalCmd) }

func newRecallCmd(e *env) *cobra.Command {
	var (
		q     kb.RecallQuery
		input string
		task  string
		why   bool
	)
	c := &cobra.Command{
		Use:   "recall [TASK...]",
		Short: "Recall the lessons that apply to a task or a proposed action",
		Long: `Prints what kb knows that applies right now, as an imperative markdown block
for an agent's context: corrections whose action type matches the proposed
action ("You are about to ... In session S this was corrected: ..."),
corrections, preferences, procedures, precedents and library notes whose
triggers match the task's words. Weak word overlap alone recalls nothing.

Items are ranked by relevance x recency x consequence x frequency and packed
into the budget (recall.budget tokens, about 4 characters each), with a share
reserved for each kind (recall.budgets). Each item ends with its id: 'kb show
ID' gives the full note. TASK is free text; --action is a shell command the
agent is about to run; --tool/--input a tool call as agents send it.`,
		Example: `  kb recall "drop the legacy_flag column from users"
  kb recall --task "drop the legacy column"
  kb recall --action "git push --force origin main"
  kb recall --tool Edit --input '{"file_path":"api/gen/a.pb.go","new_string":"x"}' --json
  kb recall --standing --budget 600`,
		RunE: func(cmd *cobra.Command, args []string) error {
			q.Task = strings.TrimSpace(strings.Join(append([]string{task}, args...), " "))
			if input != "" {
				if !json.Valid([]byte(input)) {
					return usageError{errors.New("--input must be JSON (the tool's input object)")}
				}
				q.Input = json.RawMessage(input)
			}
			if q.Budget < 0 {
				return usageError{errors.New("--budget must not be negative")}
			}
			if q.Task == "" && q.Action == "" && q.Tool == "" && len(q.Files) == 0 && !q.Standing {
				return usageError{errors.New("give a TASK, --action, --tool, --file or --standing")}
			}
			if q.Cwd == "" {
				q.Cwd, _ = os.Getwd()
			}
			k, err := e.open()
			if err != nil {
				return err
			}
			res, err := k.Recall(context.Background(), q)
			if err != nil {
				return err
			}
			if e.json {
				return e.emit(res)
			}
			if len(res.Items) == 0 {
				if !e.quiet {
					fmt.Fprintln(e.err, "kb: nothing to recall")
				}
				return nil
			}
			if !why {
				e.printf("%s", res.Markdown())
				return nil
			}
			for _, it := range res.Items {
				e.printf("- %s\n  %s\n", it.Text, e.paint("dim", fmt.Sprintf("score %.3f: %s", it.Score, strings.Join(it.Reasons, "; "))))
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&task, "task", "", "the task, as the words TASK (both may be given)")
	f.StringVar(&q.Action, "action", "", "shell command the agent is about to run")
	f.StringVar(&q.Tool, "tool", "", "tool the agent is about to call (Bash, Edit, Write, ...)")
	f.StringVar(&input, "input", "", "the tool call's input, as JSON")
	f.StringSliceVar(&q.Files, "file", nil, "file the action touches (repeatable)")
	f.IntVar(&q.Budget, "budget", 0, "context budget in tokens (default: recall.budget of kb.yaml)")
	f.BoolVar(&q.Standing, "standing", false, "the standing context of a new session: conventions, preferences, active corrections")
	f.BoolVar(&why, "why", false, "show each item's score and the reasons it was recalled")
	f.StringVar(&q.Project, "project", "", "in a standalone KB, the project `DIR` the agent works in: one-off lessons of other projects are left out (hooks pass the event's cwd)")
	_ = c.MarkFlagDirname("project")
	return c
}

func newHookCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "hook claude-code|codex|install|uninstall",
		Short: "Agent hooks: answer hook events, install or remove kb's hooks",
		Long: `'kb hook claude-code' (or 'kb hook codex') reads one hook event as JSON on
stdin and answers on stdout in the agent's hook format:

  SessionStart      standing context (conventions, preferences, corrections)
  UserPromptSubmit  the lessons that apply to the prompt
  PreToolUse        the lessons that apply to the tool call; for a correction
                    of a high-consequence action type (recall.high_consequence)
                    also a permission decision (recall.pretooluse: ask or deny)
  SessionEnd        queues the transcript and starts 'kb extract --queue'
                    in the background (not with KB_HOOK_NO_DRAIN=1)

Nothing is printed when nothing applies. Hooks fail open: any problem (no KB,
bad input, a busy index) is logged to .state/hook.log and the hook exits 0
without output, so the agent is never blocked by kb. A hook never builds or
syncs the index: it answers from the index as it is (nothing when there is
none) and starts 'kb index --background' to bring it up to date (not with
KB_HOOK_NO_INDEX=1). It reads the event as soon as it is complete, without
waiting for the end of stdin, at most 8 MiB and for at most 1 s, and gives
up answering after 2.5 s.

'kb hook install claude-code' merges kb's hooks into .claude/settings.json of
the project (--user: ~/.claude/settings.json); 'kb hook install codex' writes
.codex/hooks.json. Existing settings and hooks are kept; installing twice
changes nothing. 'kb hook uninstall' removes only kb's entries.`,
		Example: "  kb hook install claude-code\n  kb hook install codex --user\n  echo '{\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"commit\"}' | kb hook claude-code",
	}
	for _, agent := range []string{kb.AgentClaudeCode, kb.AgentCodex} {
		c.AddCommand(&cobra.Command{
			Use:   agent,
			Short: "Answer one " + agent + " hook event read on stdin (always exits 0)",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				o := kb.HookRunOptions{Find: kb.FindOptions{Dir: e.kbDir, Env: e.getenv("KB_DIR")}, DrainExe: drainExe(e), IndexExe: indexExe(e)}
				// A hook answers from what exists and never indexes: its
				// memory is small, and the soft limit keeps it so.
				debug.SetMemoryLimit(hookMemoryLimit)
				_ = kb.RunHook(context.Background(), agent, e.in, e.out, o)
				return nil
			},
		})
	}
	c.AddCommand(newHookInstallCmd(e, true), newHookInstallCmd(e, false))
	return c
}

// hookMemoryLimit is the soft memory limit of a hook process.
const hookMemoryLimit = 256 << 20

// indexExe is the kb binary a hook starts to rebuild or sync a missing or
// stale index, or "" (a test binary, or KB_HOOK_NO_INDEX set).
func indexExe(e *env) string {
	if e.getenv("KB_HOOK_NO_INDEX") != "" {
		return ""
	}
	return kbExe()
}

// drainExe is the kb binary SessionEnd starts to import and extract the
// queued transcript, or "" (a test binary, or KB_HOOK_NO_DRAIN set).
func drainExe(e *env) string {
	if e.getenv("KB_HOOK_NO_DRAIN") != "" {
		return ""
	}
	return kbExe()
}

// kbExe is this kb binary, or "" when it is a test binary.
func kbExe() string {
	exe, err := os.Executable()
	if err != nil || strings.HasSuffix(exe, ".test") || !strings.HasPrefix(filepath.Base(exe), "kb") {
		return ""
	}
	return exe
}

func newHookInstallCmd(e *env, install bool) *cobra.Command {
	var user, project bool
	var command string
	name, verb := "install", "Merge kb's hooks into"
	if !install {
		name, verb = "uninstall", "Remove kb's hooks from"
	}
	c := &cobra.Command{
		Use:       name + " claude-code|codex [--project | --user]",
		Short:     verb + " the agent's hook settings",
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{kb.AgentClaudeCode, kb.AgentCodex},
		RunE: func(cmd *cobra.Command, args []string) error {
			agent := args[0]
			if agent != kb.AgentClaudeCode && agent != kb.AgentCodex {
				return usageError{fmt.Errorf("unknown agent %q (claude-code or codex)", agent)}
			}
			if user && project {
				return usageError{errors.New("use one of --project and --user")}
			}
			root := ""
			if !user {
				k, err := e.open()
				if err != nil {
					return err
				}
				root = k.ProjectRoot
			}
			p, err := kb.HookSettingsPath(agent, root, user)
			if err != nil {
				return err
			}
			exe := hookExe()
			o := kb.HookInstall{Agent: agent, Path: p, Command: command, Root: root, Exe: exe, HookExe: kb.HookEntryPoint(exe)}
			var res *kb.HookInstallResult
			if install {
				res, err = kb.InstallHooks(o)
			} else {
				res, err = kb.UninstallHooks(o)
			}
			if err != nil {
				return err
			}
			if e.json {
				return e.emit(res)
			}
			if e.quiet {
				return nil
			}
			if install && command == "" && o.HookExe == "" {
				e.warnf("kb-hook is not installed beside %s: the hooks run kb itself, which starts about 10x slower (go install github.com/kbmem/kb/cmd/kb-hook@latest, then install again)", cmp.Or(exe, "kb"))
			}
			switch {
			case install && res.Changed:
				e.printf("Installed kb's hooks (%s) in %s:\n%s\n", strings.Join(res.Added, ", "), p, res.Snippet)
			case install:
				e.printf("kb's hooks are already installed in %s:\n%s\n", p, res.Snippet)
			case res.Changed:
				e.printf("Removed kb's hooks (%s) from %s\n", strings.Join(res.Removed, ", "), p)
			default:
				e.printf("No kb hooks in %s\n", p)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&project, "project", false, "the project's settings (default)")
	c.Flags().BoolVar(&user, "user", false, "the user's settings under the home directory")
	c.Flags().StringVar(&command, "command", "", "hook command to install (default: this kb binary's absolute path, hook <agent>)")
	return c
}

func newMCPCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve the KB to agents over MCP (stdio)",
		Long: `Runs a Model Context Protocol server on stdin/stdout with the tools search,
recall, show, links, why (decisions and negative results about a topic) and
remember (record an explicit observation). Register it with an agent, e.g.
'claude mcp add kb -- kb mcp'.`,
		Example: "  claude mcp add kb -- kb mcp\n  kb --kb ~/memory mcp",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := e.open()
			if err != nil {
				return err
			}
			k.Logf = func(format string, args ...any) { fmt.Fprintf(e.err, "kb: "+format+"\n", args...) }
			return mcpserver.Serve(cmd.Context(), k, version(), nil)
		},
	}
}

func newEvalCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "eval",
		Short: "Evaluate kb: activation on scenario data, long-memory retrieval on LoCoMo, extraction against answer keys",
	}
	var keep string
	act := &cobra.Command{
		Use:   "activation DIR",
		Short: "Score recall and false fires of the hook on rendered scenarios",
		Long: `DIR is the output of make_sessions.py: DIR/transcripts/*.jsonl and
DIR/probes.jsonl. The transcripts are imported into a fresh KB and extracted;
each probe (less its _id/_expect keys) is fed to the Claude Code hook handler.
A probe passes when one of its expected phrases appears in the answer; a
probe expecting nothing passes when no phrase of any probe appears.
Reports recall over the probes that expect a lesson, the false-fire rate
over those that expect nothing, and how many of those got any answer at
all (--json: per-probe detail).`,
		Example: "  python3 make_sessions.py activation-dev.json /tmp/act && kb eval activation /tmp/act",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := eval.Activation(context.Background(), args[0], eval.ActivationOptions{KBDir: keep})
			if err != nil {
				return err
			}
			if e.json {
				return e.emit(rep)
			}
			for _, p := range rep.Probes {
				mark := e.paint("green", "pass")
				if !p.Pass {
					mark = e.paint("red", "FAIL")
				}
				detail := ""
				switch {
				case p.Expect == nil && !p.Pass:
					detail = "fired: " + p.Matched
				case p.Expect != nil && !p.Pass:
					detail = "wanted one of: " + strings.Join(p.Expect, " | ")
				}
				e.printf("%s  %-10s %-16s %s\n", mark, p.ID, p.Event, detail)
			}
			e.printf("recall %.2f (%d/%d)  false-fire rate %.2f (%d/%d)  distractors with any output %d/%d  [%d sessions, %d observations]\n",
				rep.Recall, rep.Recalled, rep.Positive, rep.FalseFireRate, rep.FalseFires, rep.Negative, rep.WithOutput, rep.Negative, rep.Sessions, rep.Observations)
			return nil
		},
	}
	act.Flags().StringVar(&keep, "keep", "", "build the evaluation KB in this new directory and keep it")
	var replayKeep string
	replay := &cobra.Command{
		Use:   "replay PATH...",
		Short: "Replay real sessions through the hooks and count what they inject",
		Long: `The transcripts at PATH (files or directories, as kb import takes them) are
imported into a fresh KB and extracted; then each session is replayed in
transcript order through its agent's hook handler (Claude Code, Codex): a
SessionStart, then every shell command and edit as a PreToolUse event with
the session's real id and working directory, the session memory on.
Reports the calls replayed, the share that received context, the items
injected, the decisions (ask/deny) and the SessionStart items per project;
each injected call is listed with its items (--json: the full context, to
judge by hand). The lessons come from the same sessions: the figure counts
noise, not recall.`,
		Example: "  kb eval replay ../shared/data/transcripts/claude-code\n  kb eval replay --json ~/.claude/projects/-home-me-app > replay.json",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := eval.Replay(context.Background(), args, eval.ReplayOptions{KBDir: replayKeep})
			if err != nil {
				return err
			}
			if e.json {
				return e.emit(rep)
			}
			for _, c := range rep.Injected {
				e.printf("%s  %-6s %s\n    %s\n", trShortID(c.Session), c.Tool, c.Action, strings.Join(c.IDs, ", "))
			}
			starts := 0
			for _, n := range rep.StartItems {
				starts += n
			}
			e.printf("%d session(s), %d call(s): %d received context (%.1f%%), %d item(s), %d decision(s); SessionStart: %d item(s) over %d project(s)\n",
				rep.Sessions, rep.Calls, rep.WithContext, 100*rep.Rate, rep.Items, rep.Decisions, starts, len(rep.StartItems))
			return nil
		},
	}
	replay.Flags().StringVar(&replayKeep, "keep", "", "build the evaluation KB in this new directory and keep it")
	c.AddCommand(act, replay, newEvalLocomoCmd(e), newEvalExtractionCmd(e))
	return c
}

// hookExe is the kb binary installed hooks run, by absolute path so that
// they do not depend on the agent's PATH: this binary, or, when this is a
// throwaway build (go run, go test), the kb on PATH; "" (a bare "kb")
// when there is neither.
func hookExe() string {
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err == nil && !strings.Contains(exe, string(filepath.Separator)+"go-build") && !strings.HasSuffix(exe, ".test") {
		return exe
	}
	if p, err := exec.LookPath("kb"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	return ""
}
