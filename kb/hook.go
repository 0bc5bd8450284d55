package kb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/index"
	"github.com/kbmem/kb/internal/jsonx"
)

// Hook dialects.
const (
	AgentClaudeCode = "claude-code"
	AgentCodex      = "codex"
)

// Hook events kb answers.
const (
	EventSessionStart     = "SessionStart"
	EventUserPromptSubmit = "UserPromptSubmit"
	EventPreToolUse       = "PreToolUse"
	EventSessionEnd       = "SessionEnd"
)

// MaxHookContext caps the additionalContext of a hook answer, in
// characters, whatever the budget says.
const MaxHookContext = 9500

// HookInput is one hook event as Claude Code (and Codex) send it on stdin.
type HookInput struct {
	HookEventName  string          `json:"hook_event_name"`
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	Prompt         string          `json:"prompt,omitempty"`
	ToolName       string          `json:"tool_name,omitempty"`
	ToolInput      json.RawMessage `json:"tool_input,omitempty"`
	Source         string          `json:"source,omitempty"`
}

// HookOutput is the JSON a hook answers on stdout.
type HookOutput struct {
	HookSpecificOutput *HookSpecificOutput `json:"hookSpecificOutput,omitempty"`
}

// HookSpecificOutput is Claude Code's per-event answer.
type HookSpecificOutput struct {
	HookEventName            string `json:"hookEventName"`
	AdditionalContext        string `json:"additionalContext,omitempty"`
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
}

// ParseHookInput decodes a hook event. Unknown keys are ignored.
func ParseHookInput(b []byte) (*HookInput, error) {
	var in HookInput
	if err := json.Unmarshal(bytes.TrimSpace(b), &in); err != nil {
		return nil, fmt.Errorf("%w: hook input is not a JSON object: %v", ErrInvalidInput, err)
	}
	if in.HookEventName == "" {
		return nil, fmt.Errorf("%w: hook input has no hook_event_name", ErrInvalidInput)
	}
	return &in, nil
}

// Hook answers one hook event. A nil output means "say nothing".
//
//   - SessionStart: standing context (conventions, preferences, active corrections).
//   - UserPromptSubmit: recall for the prompt.
//   - PreToolUse: recall for the tool call; when a correction matches a
//     high-consequence action type (recall.high_consequence), the decision
//     recall.pretooluse (ask or deny) with the lesson as its reason.
//   - SessionEnd: the transcript is queued for import and extraction.
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
	if agent != AgentClaudeCode && agent != AgentCodex {
		return nil, hs, fmt.Errorf("%w: unknown hook dialect %q (claude-code or codex)", ErrInvalidInput, agent)
	}
	var q RecallQuery
	switch in.HookEventName {
	case EventSessionStart:
		q = RecallQuery{Standing: true, Cwd: in.Cwd, Project: in.Cwd}
	case EventUserPromptSubmit:
		if strings.TrimSpace(in.Prompt) == "" {
			return nil, hs, nil
		}
		q = RecallQuery{Task: in.Prompt, Cwd: in.Cwd, Project: in.Cwd}
	case EventPreToolUse:
		if in.ToolName == "" {
			return nil, hs, nil
		}
		q = RecallQuery{Tool: in.ToolName, Input: in.ToolInput, Cwd: in.Cwd, Project: in.Cwd}
	case EventSessionEnd, "Stop":
		if in.HookEventName == EventSessionEnd && in.TranscriptPath != "" {
			if err := k.EnqueueSession(in.TranscriptPath); err != nil {
				return nil, hs, err
			}
		}
		return nil, hs, nil
	default:
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
	if len(res.Items) == 0 {
		return nil, hs, nil
	}
	text := res.Markdown()
	if len(text) > MaxHookContext {
		text = truncate(text, MaxHookContext)
	}
	out := &HookSpecificOutput{HookEventName: in.HookEventName, AdditionalContext: text}
	if in.HookEventName == EventPreToolUse {
		mode := k.Config.Recall.PreToolUse
		if mode == "ask" || mode == "deny" {
			for _, it := range res.Items {
				if it.HighConsequence && it.Kind == KindCorrections && !it.Unreviewed {
					out.PermissionDecision = mode
					reason := it.Lesson
					if reason == "" {
						reason = it.Text
					}
					out.PermissionDecisionReason = truncate("kb: "+reason+" ["+it.ID+"]", 1000)
					break
				}
			}
		}
	}
	return &HookOutput{HookSpecificOutput: out}, hs, nil
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
func (k *KB) openHookIndex() (*Index, string, error) {
	ro, err := index.OpenReadOnlyWait(filepath.Join(k.Root, IndexDir), hookBusyWait)
	var se *index.StaleError
	switch {
	case errors.As(err, &se):
		return nil, se.Reason, nil
	case err != nil:
		return nil, "", fmt.Errorf("recall: %w", err)
	}
	x := &Index{ix: ro, k: k}
	// No directory recall reads changed since the last sync: a few stats
	// instead of one per file. Else compare the stamps of those layers.
	if k.dirsUnchanged() {
		return x, "", nil
	}
	files, err := k.scan()
	if err != nil {
		return x, "", nil
	}
	stamps := ro.Stamps()
	maps.DeleteFunc(stamps, func(p string, _ index.Stamp) bool { return strings.HasPrefix(p, LayerTraces+"/") })
	files = slices.DeleteFunc(files, func(f fileInfo) bool { return f.layer == LayerTraces })
	if !indexUpToDate(files, stamps) {
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
	b, err := hookJSON(out)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// hookJSON is v as one line of JSON (jsonx: no HTML escaping).
func hookJSON(v any) ([]byte, error) {
	b, err := jsonx.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
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

// Bounds of one hook. kb installs its hooks with a timeout of hookTimeout
// (5) seconds, after which the agent kills them; together these stay well
// under it. (Variables only so that tests can shorten them.)
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

// RunHook is the fail-open hook entry point: it reads one event from r,
// finds the KB (fo, else from the event's cwd), and writes the answer to w.
// Any problem (no KB, bad input, a busy index, an internal error, the
// budget spent) is logged as one line to <kb>/.state/hook.log when a KB
// exists, and nothing is written: a hook must never block the agent. The
// returned error is for callers that want it; the process should exit 0
// regardless.
func RunHook(ctx context.Context, agent string, r io.Reader, w io.Writer, o HookRunOptions) error {
	fo := o.Find
	raw, err := readHookEvent(ctx, r)
	ctx, cancel := context.WithTimeout(ctx, hookBudget)
	defer cancel()
	var in *HookInput
	if err == nil {
		in, err = ParseHookInput(raw)
	}
	if in != nil && fo.Cwd == "" {
		fo.Cwd = in.Cwd
	}
	if fo.Cwd != "" {
		if st, serr := os.Stat(fo.Cwd); serr != nil || !st.IsDir() {
			fo.Cwd = ""
		}
	}
	var k *KB
	if root, ferr := Find(fo); ferr == nil {
		k, ferr = OpenRoot(root)
		if ferr != nil {
			hookLog(root, in, ferr)
			return ferr
		}
		k.Logf = func(string, ...any) {}
	} else {
		if err == nil {
			err = ferr
		}
		return err // no KB: nowhere to log
	}
	if err != nil {
		hookLog(k.Root, in, err)
		return err
	}
	type answer struct {
		out *HookOutput
		hs  hookState
		err error
	}
	done := make(chan answer, 1)
	go func() {
		var a answer
		defer func() {
			if p := recover(); p != nil {
				a.err = fmt.Errorf("internal error: %v", p)
			}
			done <- a
		}()
		a.out, a.hs, a.err = k.hook(ctx, agent, in)
	}()
	var a answer
	select {
	case a = <-done:
	case <-ctx.Done():
		// The work goes on in its goroutine until the process exits; what
		// it would answer is too late for the agent.
		a.err = fmt.Errorf("over budget: no answer within %s", hookBudget)
	}
	if a.hs.stale != "" && o.IndexExe != "" {
		started, err := startIndexer(o.IndexExe, k.Root)
		switch {
		case err != nil:
			hookLog(k.Root, in, fmt.Errorf("index %s; start %s index --background: %w", a.hs.stale, o.IndexExe, err))
		case started:
			hookLine(k.Root, in, "index", "index "+a.hs.stale+": started kb index --background")
		}
	}
	if a.err != nil {
		hookLog(k.Root, in, a.err)
		return a.err
	}
	if in.HookEventName == EventSessionEnd && in.TranscriptPath != "" && o.DrainExe != "" {
		if err := startDrain(o.DrainExe, k.Root); err != nil {
			hookLog(k.Root, in, fmt.Errorf("start %s extract --queue: %w", o.DrainExe, err))
		}
	}
	if a.out == nil {
		return nil
	}
	b, err := hookJSON(a.out)
	if err == nil {
		_, err = w.Write(b)
	}
	if err != nil {
		hookLog(k.Root, in, err)
	}
	return err
}

// readHookEvent reads one JSON value from r: as soon as it is complete,
// without waiting for the end of r; at most maxHookInput bytes; and within
// hookReadTimeout (or ctx). On a timeout the read goes on in its goroutine,
// which the process's exit ends.
func readHookEvent(ctx context.Context, r io.Reader) (json.RawMessage, error) {
	type result struct {
		raw json.RawMessage
		err error
	}
	ch := make(chan result, 1)
	go func() {
		limit := maxHookInput
		cr := &countingReader{r: io.LimitReader(r, limit+1)}
		var raw json.RawMessage
		err := json.NewDecoder(cr).Decode(&raw)
		switch {
		case cr.n > limit:
			err = fmt.Errorf("%w: hook event over %d bytes", ErrInvalidInput, limit)
		case errors.Is(err, io.EOF):
			err = fmt.Errorf("%w: no hook event on stdin", ErrInvalidInput)
		case err != nil:
			err = fmt.Errorf("%w: hook input is not JSON: %v", ErrInvalidInput, err)
		}
		ch <- result{raw, err}
	}()
	t := time.NewTimer(hookReadTimeout)
	defer t.Stop()
	select {
	case res := <-ch:
		return res.raw, res.err
	case <-t.C:
		return nil, fmt.Errorf("%w: no complete hook event on stdin within %s", ErrInvalidInput, hookReadTimeout)
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: no complete hook event on stdin: %v", ErrInvalidInput, ctx.Err())
	}
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// startDrain starts `kb extract --queue` in its own session, with no
// terminal, and does not wait for it.
func startDrain(exe, root string) error {
	cmd := exec.Command(exe, "--kb", root, "--quiet", "extract", "--queue")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "KB_DIR=")
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}

// hookLog appends one line about a failed hook to .state/hook.log.
func hookLog(root string, in *HookInput, err error) {
	if root == "" || err == nil {
		return
	}
	kind := "error"
	switch {
	case errors.Is(err, ErrLocked):
		kind = "locked"
	case errors.Is(err, ErrInvalidInput):
		kind = "bad-input"
	}
	hookLine(root, in, kind, err.Error())
}

// hookLine appends one line to .state/hook.log.
func hookLine(root string, in *HookInput, kind, msg string) {
	ev := "?"
	if in != nil {
		ev = in.HookEventName
		if in.ToolName != "" {
			ev += "/" + in.ToolName
		}
	}
	// One line, no control characters: the event name and the message may
	// carry text from the hook input or from kb.yaml.
	line := fmt.Sprintf("%s %s %s: %s\n", time.Now().UTC().Format(time.RFC3339), stripControl(rcOneLine(ev)), kind, stripControl(rcOneLine(msg)))
	// Through the KB's tree: a hook.log (or .state) a cloned repository
	// committed as a symlink out of the KB is refused, not appended to.
	tree := fsx.Tree{Root: root}
	if tree.MkdirAll(filepath.Join(root, StateDir)) == nil {
		_ = tree.Append(filepath.Join(root, StateDir, "hook.log"), []byte(line))
	}
}

// ---------------------------------------------------------------------------
// Installing the hooks into an agent's settings.

// HookInstall says where hooks are (un)installed and what runs.
type HookInstall struct {
	Agent string // AgentClaudeCode or AgentCodex
	// Path is the settings file: .claude/settings.json or
	// .codex/hooks.json of a project, or the same under the home directory.
	Path string
	// Command overrides the hook command ("kb hook <agent>").
	Command string
	// Root, when set, is the directory the settings file must stay inside,
	// symlinks resolved: the project root for project settings, so that a
	// cloned project's .claude/settings.json linked to the user's own
	// settings is refused rather than read and copied into a file git
	// commits. Empty (the user's settings) follows links wherever they go,
	// and writes through them.
	Root string
}

// HookInstallResult reports what InstallHooks or UninstallHooks did.
type HookInstallResult struct {
	Path    string          `json:"path"`
	Changed bool            `json:"changed"`
	Added   []string        `json:"added,omitempty"`   // events that got kb's hook
	Removed []string        `json:"removed,omitempty"` // events kb's hook was removed from
	Snippet json.RawMessage `json:"snippet"`           // the hooks kb installs
}

// hookTimeout is the timeout, in seconds, written for kb's hook commands.
const hookTimeout = 5

// HookSettingsPath is the settings file of agent for a project root
// (user=false) or for the user's home directory (user=true).
func HookSettingsPath(agent, projectRoot string, user bool) (string, error) {
	base := projectRoot
	if user {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("hook install: %w", err)
		}
		base = h
	}
	switch agent {
	case AgentClaudeCode:
		return filepath.Join(base, ".claude", "settings.json"), nil
	case AgentCodex:
		return filepath.Join(base, ".codex", "hooks.json"), nil
	}
	return "", fmt.Errorf("%w: unknown agent %q (claude-code or codex)", ErrInvalidInput, agent)
}

// hookGroups are kb's hook groups per event, in install order.
func hookGroups(agent, command string) []struct {
	event string
	group map[string]any
} {
	entry := func() []any {
		return []any{map[string]any{"type": "command", "command": command, "timeout": hookTimeout}}
	}
	pre := map[string]any{"matcher": "Bash|Edit|Write|MultiEdit|NotebookEdit", "hooks": entry()}
	if agent == AgentCodex {
		pre = map[string]any{"matcher": "shell|exec_command|apply_patch|Bash|Edit|Write", "hooks": entry()}
	}
	return []struct {
		event string
		group map[string]any
	}{
		{EventSessionStart, map[string]any{"hooks": entry()}},
		{EventUserPromptSubmit, map[string]any{"hooks": entry()}},
		{EventPreToolUse, pre},
		{EventSessionEnd, map[string]any{"hooks": entry()}},
	}
}

func hookCommand(o HookInstall) string {
	if o.Command != "" {
		return o.Command
	}
	return "kb hook " + o.Agent
}

// HookSnippet is the hooks object kb installs, as JSON.
func HookSnippet(o HookInstall) json.RawMessage {
	m := map[string]any{}
	for _, g := range hookGroups(o.Agent, hookCommand(o)) {
		m[g.event] = []any{g.group}
	}
	b, _ := json.MarshalIndent(map[string]any{"hooks": m}, "", "  ")
	return b
}

// InstallHooks merges kb's hooks into the settings file, keeping every
// other key and hook as it is, and adding nothing that is already there:
// running it twice changes nothing. The file is written atomically.
func InstallHooks(o HookInstall) (*HookInstallResult, error) {
	return editHooks(o, true)
}

// UninstallHooks removes kb's hook entries (and only those) from the
// settings file.
func UninstallHooks(o HookInstall) (*HookInstallResult, error) {
	return editHooks(o, false)
}

func editHooks(o HookInstall, install bool) (*HookInstallResult, error) {
	if o.Agent != AgentClaudeCode && o.Agent != AgentCodex {
		return nil, fmt.Errorf("%w: unknown agent %q (claude-code or codex)", ErrInvalidInput, o.Agent)
	}
	command := hookCommand(o)
	res := &HookInstallResult{Path: o.Path, Snippet: HookSnippet(o)}
	abs, err := filepath.Abs(o.Path)
	if err != nil {
		return nil, fmt.Errorf("hook install: %w", err)
	}
	tree := fsx.Tree{Root: o.Root} // see HookInstall.Root
	if o.Root == "" {
		tree.Root = filepath.VolumeName(abs) + string(filepath.Separator)
	}
	src, err := tree.ReadFile(abs)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("hook install: %w", err)
	}
	if len(bytes.TrimSpace(src)) == 0 {
		if !install {
			return res, nil
		}
		src = []byte("{}")
	}
	top, err := parseObject(src)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", o.Path, ErrInvalidInput, err)
	}
	var hooks orderedObject
	if raw, ok := top.get("hooks"); ok && string(bytes.TrimSpace(raw)) != "null" {
		if hooks, err = parseObject(raw); err != nil {
			return nil, fmt.Errorf("%s: \"hooks\": %w: %v", o.Path, ErrInvalidInput, err)
		}
	}
	isOurs := func(h any) bool {
		m, ok := h.(map[string]any)
		if !ok {
			return false
		}
		c, _ := m["command"].(string)
		return strings.TrimSpace(c) == command
	}
	for _, g := range hookGroups(o.Agent, command) {
		var groups []any
		raw, had := hooks.get(g.event)
		if had {
			if err := json.Unmarshal(raw, &groups); err != nil {
				return nil, fmt.Errorf("%s: hooks.%s: %w: not a list: %v", o.Path, g.event, ErrInvalidInput, err)
			}
		}
		present := false
		var kept []any
		for _, grp := range groups {
			gm, ok := grp.(map[string]any)
			if !ok {
				kept = append(kept, grp)
				continue
			}
			list, _ := gm["hooks"].([]any)
			var rest []any
			for _, h := range list {
				if isOurs(h) {
					present = true
					continue
				}
				rest = append(rest, h)
			}
			if install || len(rest) == len(list) {
				kept = append(kept, grp)
				continue
			}
			if len(rest) > 0 {
				gm["hooks"] = rest
				kept = append(kept, gm)
			}
		}
		switch {
		case install && !present:
			groups = append(groups, g.group)
			res.Added = append(res.Added, g.event)
		case !install && present:
			groups = kept
			res.Removed = append(res.Removed, g.event)
		default:
			continue
		}
		if len(groups) == 0 {
			hooks.del(g.event)
			continue
		}
		b, err := hookJSON(groups)
		if err != nil {
			return nil, fmt.Errorf("hook install: %w", err)
		}
		hooks.set(g.event, b)
	}
	if len(res.Added) == 0 && len(res.Removed) == 0 {
		return res, nil
	}
	if len(hooks) == 0 {
		top.del("hooks")
	} else {
		top.set("hooks", hooks.bytes())
	}
	var out bytes.Buffer
	if err := json.Indent(&out, top.bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("hook install: %w", err)
	}
	out.WriteByte('\n')
	if err := tree.WriteFile(abs, out.Bytes(), 0o644); err != nil {
		return nil, fmt.Errorf("hook install: %w", err)
	}
	res.Changed = true
	return res, nil
}

// orderedObject is a JSON object whose key order and values are kept
// byte for byte.
type orderedObject []struct {
	key string
	val json.RawMessage
}

func parseObject(b []byte) (orderedObject, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var o orderedObject
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := kt.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.set(key, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("text after the JSON object")
	}
	return o, nil
}

func (o orderedObject) get(key string) (json.RawMessage, bool) {
	for _, kv := range o {
		if kv.key == key {
			return kv.val, true
		}
	}
	return nil, false
}

func (o *orderedObject) set(key string, v json.RawMessage) {
	for i := range *o {
		if (*o)[i].key == key {
			(*o)[i].val = v
			return
		}
	}
	*o = append(*o, struct {
		key string
		val json.RawMessage
	}{key, v})
}

func (o *orderedObject) del(key string) {
	for i := range *o {
		if (*o)[i].key == key {
			*o = append((*o)[:i], (*o)[i+1:]...)
			return
		}
	}
}

func (o orderedObject) bytes() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(kv.val)
	}
	b.WriteByte('}')
	return b.Bytes()
}
