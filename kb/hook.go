package kb

import (
	"context"
	"fmt"
	"io"

	"github.com/kbmem/kb/agents"
	"github.com/kbmem/kb/recall"
)

// The agents' side of a hook, as cmd/kb and the tests know it (package
// agents owns it).

// Hook dialects.
const (
	AgentClaudeCode = agents.ClaudeCode
	AgentCodex      = agents.Codex
)

// Hook events kb answers.
const (
	EventSessionStart     = agents.EventSessionStart
	EventUserPromptSubmit = agents.EventUserPromptSubmit
	EventPreToolUse       = agents.EventPreToolUse
	EventSessionEnd       = agents.EventSessionEnd
)

// MaxHookContext caps the additionalContext of a hook answer, in
// characters, whatever the budget says.
const MaxHookContext = agents.MaxHookContext

type (
	HookInput          = agents.HookInput
	HookOutput         = agents.HookOutput
	HookSpecificOutput = agents.HookSpecificOutput
	HookInstall        = agents.Installation
	HookInstallResult  = agents.InstallResult
)

// ParseHookInput decodes a hook event. Unknown keys are ignored.
func ParseHookInput(b []byte) (*HookInput, error) { return agents.ParseHookInput(b) }

// HookSettingsPath is the settings file of agent for a project root
// (user=false) or for the user's home directory (user=true).
func HookSettingsPath(agent, projectRoot string, user bool) (string, error) {
	return agents.SettingsPath(agent, projectRoot, user)
}

// InstallHooks merges kb's hooks into the agent's settings file (see
// agents.Install).
func InstallHooks(o HookInstall) (*HookInstallResult, error) { return agents.Install(o) }

// UninstallHooks removes kb's hook entries, and only those, from the
// agent's settings file.
func UninstallHooks(o HookInstall) (*HookInstallResult, error) { return agents.Uninstall(o) }

// Hook answers one hook event. A nil output means "say nothing".
//
//   - SessionStart: standing context (conventions, preferences, active corrections).
//   - UserPromptSubmit: recall for the prompt.
//   - PreToolUse: recall for the tool call; when a correction matches a
//     high-consequence action type (recall.high_consequence), the decision
//     recall.pretooluse (ask or deny) with the lesson as its reason.
//   - SessionEnd (Claude Code), Stop and SessionEnd (Codex): the transcript
//     is queued for import and extraction (agents.Dialect.EndEvents).
//
// A hook never builds or syncs the index (see openHookIndex): it answers
// from the index as it is, and says nothing when there is none.
func (k *KB) Hook(ctx context.Context, agent string, in *HookInput) (*HookOutput, error) {
	out, _, err := k.hook(ctx, agent, in)
	return out, err
}

// hookState is what a hook found out about the index.
type hookState struct {
	// stale says why the index needs a rebuild or a sync, which the hook
	// leaves to a background indexer; "" when it is up to date.
	stale string
}

func (k *KB) hook(ctx context.Context, agent string, in *HookInput) (*HookOutput, hookState, error) {
	out, stale, err := k.hookKB().Answer(ctx, agent, in)
	return out, hookState{stale: stale}, err
}

// hookKB is the KB as a hook answers from it (agents.HookKB), with the
// embeddings layer and the judge, which the hook entry point does not
// link, when kb.yaml turns them on.
func (k *KB) hookKB() *agents.HookKB {
	return &agents.HookKB{Root: k.Root, ProjectRoot: k.ProjectRoot, Config: k.Config,
		Extend: func(e *recall.Engine, q recall.Query) { k.extendEngine(e, q.Standing) }}
}

// HandleHook answers a raw hook event: the JSON to print, or nil for no
// output.
func (k *KB) HandleHook(ctx context.Context, agent string, raw []byte) ([]byte, error) {
	in, err := ParseHookInput(raw)
	if err != nil {
		return nil, err
	}
	out, err := k.Hook(ctx, agent, in)
	if err != nil || out == nil {
		return nil, err
	}
	return out.JSON()
}

// HookRunOptions configure RunHook.
type HookRunOptions struct {
	Find FindOptions // where the KB is; the event's cwd when empty
	// DrainExe, if set, is the kb executable started, detached and not
	// waited for, after a SessionEnd queued a transcript:
	// DrainExe --kb ROOT --quiet extract --queue.
	DrainExe string
	// IndexExe, if set, is the kb executable started, detached, when the
	// index is missing or stale: IndexExe --kb ROOT --quiet index
	// --background (one at a time; see agents.StartIndexer).
	IndexExe string
}

// Bounds of one hook. kb installs its hooks with a timeout of 5 seconds
// (agents.Install), after which the agent kills them; together these stay
// well under it. (Variables only so that tests can shorten them.)
var (
	maxHookInput    = agents.MaxHookInput
	hookReadTimeout = agents.HookReadTimeout
	hookBudget      = agents.HookBudget
)

// RunHook is the fail-open hook entry point (agents.RunHook): it reads one
// event from r, finds the KB (fo, else from the event's cwd), and writes
// the answer to w. Any problem (no KB, bad input, a busy index, an internal
// error, the budget spent) is logged as one line to <kb>/.state/hook.log
// when a KB exists, and nothing is written: a hook must never block the
// agent. The returned error is for callers that want it; the process
// should exit 0 regardless.
func RunHook(ctx context.Context, agent string, r io.Reader, w io.Writer, o HookRunOptions) error {
	var k *KB
	run := agents.NewHookRun(agent, agents.Exe(o.IndexExe), agents.Exe(o.DrainExe))
	run.MaxInput, run.ReadTimeout, run.Budget = maxHookInput, hookReadTimeout, hookBudget
	run.Open = func(cwd string) (string, error) {
		dir := o.Find.Dir
		if dir == "" {
			dir = o.Find.Env
		}
		if o.Find.Cwd != "" {
			cwd = o.Find.Cwd
		}
		root, err := agents.FindHookRoot(dir, cwd)
		if root == "" {
			if err == nil {
				err = fmt.Errorf("%w for the hook (cwd %q)", ErrNoKB, cwd)
			}
			return "", err
		}
		if k, err = OpenRoot(root); err != nil {
			return root, err
		}
		k.Logf = func(string, ...any) {}
		return root, nil
	}
	run.Answer = func(ctx context.Context, in *HookInput) (*HookOutput, string, error) {
		out, hs, err := k.hook(ctx, agent, in)
		return out, hs.stale, err
	}
	return agents.RunHook(ctx, r, w, run)
}

// hookLog appends one line about a failed hook to .state/hook.log.
func hookLog(root string, in *HookInput, err error) {
	if root != "" && err != nil {
		agents.LogHook(root, agents.HookLogPath(root), in, hookKind(err), err.Error())
	}
}

// hookKind is an error's kind in the hook log.
func hookKind(err error) string { return agents.ErrorKind(err) }

// HookMain is the hook entry point cmd/kb-hook (agents.HookMain): its
// arguments, streams and environment in, its exit code out.
func HookMain(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	return agents.HookMain(args, stdin, stdout, stderr, getenv)
}

// HookEntryPoint is the hook entry point (cmd/kb-hook) installed beside the
// kb binary exe, or "" when there is none.
func HookEntryPoint(exe string) string { return agents.Beside(exe, "kb-hook") }
