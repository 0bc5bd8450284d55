package kb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/kbmem/kb/agents"
	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/index"
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
	var hs hookState
	d, ok := agents.Lookup(agent)
	if !ok {
		return nil, hs, fmt.Errorf("%w: unknown hook dialect %q (claude-code or codex)", ErrInvalidInput, agent)
	}
	if d.Ends(in.HookEventName) && in.TranscriptPath != "" {
		return nil, hs, k.EnqueueSession(in.TranscriptPath)
	}
	q, ok := d.Query(in)
	if !ok {
		return nil, hs, nil
	}
	x, stale, err := k.openHookIndex()
	hs.stale = stale
	if err != nil || x == nil {
		return nil, hs, err
	}
	defer x.Close()
	res, err := x.Recall(ctx, q)
	if err != nil {
		return nil, hs, err
	}
	// What this session was shown already is not repeated (recall/memory.go).
	mem := agents.SessionMemory{Tree: fsx.Tree{Root: k.Root}, Dir: filepath.Join(k.Root, StateDir, "sessions"), Session: in.SessionID}
	var merr error
	if in.HookEventName == EventSessionStart {
		// A start, a resume, a /clear or a compaction: the context holds
		// only what this answer gives, so everything is given and the
		// memory starts over from it.
		merr = mem.Reset(res.IDs())
	} else {
		res.Unseen(mem.Seen())
		merr = mem.Shown(res.IDs())
	}
	if err := merr; err != nil {
		hookLog(k.Root, in, fmt.Errorf("session memory: %w", err))
	}
	return d.Answer(in, res, k.Config.Recall.PreToolUse), hs, nil
}

// hookBusyWait is how long a hook waits for a process that holds the index
// for writing before answering with nothing.
const hookBusyWait = 100 * time.Millisecond

// openHookIndex opens the index for a hook: read-only, and never built or
// synced, whatever its state. It returns a nil Index (answer nothing) when
// there is no usable index, and in stale why it needs a rebuild or a sync
// (the caller starts a background indexer); a stale but readable index is
// returned, to answer from what it holds. A busy index is an error: a
// writer is already at work.
func (k *KB) openHookIndex() (*Searcher, string, error) {
	ro, err := index.OpenReadOnlyWait(filepath.Join(k.Root, IndexDir), hookBusyWait)
	var se *index.StaleError
	switch {
	case errors.As(err, &se):
		return nil, se.Reason, nil
	case err != nil:
		return nil, "", fmt.Errorf("recall: %w", err)
	}
	x := &Searcher{ix: ro, k: k}
	// No directory recall reads changed since the last sync: a few stats
	// instead of one per file. Else compare the stamps of those layers.
	if k.dirsUnchanged() {
		return x, "", nil
	}
	files, err := k.scan()
	if err != nil {
		return x, "", nil
	}
	if !index.UpToDate(files, ro.Stamps(), LayerTraces+"/") {
		return x, "files changed since the last sync", nil
	}
	return x, "", nil
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
	// --background (one at a time; see startIndexer).
	IndexExe string
}

// Bounds of one hook. kb installs its hooks with a timeout of 5 seconds
// (agents.Install), after which the agent kills them; together these stay
// well under it. (Variables only so that tests can shorten them.)
var (
	// maxHookInput bounds the event a hook reads from stdin; a larger one
	// is answered with nothing and logged.
	maxHookInput int64 = 8 << 20
	// hookReadTimeout bounds the wait for a complete event on stdin. The
	// event is read as soon as one whole JSON value has arrived, without
	// waiting for the end of stdin, which an agent may leave open.
	hookReadTimeout = 1 * time.Second
	// hookBudget bounds the time from the event to the answer: a hook
	// still working then answers with nothing and logs "over budget".
	hookBudget = 2500 * time.Millisecond
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
	run := agents.HookRun{Agent: agent, MaxInput: maxHookInput, ReadTimeout: hookReadTimeout, Budget: hookBudget,
		IndexExe: o.IndexExe, DrainExe: o.DrainExe, LogPath: hookLogPath, Kind: hookKind,
		Open: func(cwd string) (string, error) {
			fo := o.Find
			if fo.Cwd == "" {
				fo.Cwd = cwd
			}
			if fo.Cwd != "" {
				if st, serr := os.Stat(fo.Cwd); serr != nil || !st.IsDir() {
					fo.Cwd = ""
				}
			}
			root, err := Find(fo)
			if err != nil {
				return "", err
			}
			if k, err = OpenRoot(root); err != nil {
				return root, err
			}
			k.Logf = func(string, ...any) {}
			return root, nil
		},
		Answer: func(ctx context.Context, in *HookInput) (*HookOutput, string, error) {
			out, hs, err := k.hook(ctx, agent, in)
			return out, hs.stale, err
		},
	}
	if o.IndexExe != "" {
		run.Reindex = func(root string) (bool, error) { return startIndexer(o.IndexExe, root) }
	}
	return agents.RunHook(ctx, r, w, run)
}

// hookLog appends one line about a failed hook to .state/hook.log.
func hookLog(root string, in *HookInput, err error) {
	if root != "" && err != nil {
		agents.LogHook(root, hookLogPath(root), in, hookKind(err), err.Error())
	}
}

func hookLogPath(root string) string { return filepath.Join(root, StateDir, "hook.log") }

// hookKind is an error's kind in the hook log.
func hookKind(err error) string {
	switch {
	case errors.Is(err, ErrLocked):
		return "locked"
	case errors.Is(err, ErrInvalidInput):
		return "bad-input"
	}
	return "error"
}
