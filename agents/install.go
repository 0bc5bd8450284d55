package agents

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/jsonx"
)

// Installing kb's hooks into an agent's settings.

// Installation says where kb's hooks are (un)installed and what runs.
type Installation struct {
	Agent string // ClaudeCode or Codex
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

// InstallResult reports what Install or Uninstall did.
type InstallResult struct {
	Path    string          `json:"path"`
	Changed bool            `json:"changed"`
	Added   []string        `json:"added,omitempty"`   // events that got kb's hook
	Removed []string        `json:"removed,omitempty"` // events kb's hook was removed from
	Snippet json.RawMessage `json:"snippet"`           // the hooks kb installs
}

// hookTimeout is the timeout, in seconds, written for kb's hook commands.
const hookTimeout = 5

// SettingsPath is the settings file of agent for a project root
// (user=false) or for the user's home directory (user=true).
func SettingsPath(agent, projectRoot string, user bool) (string, error) {
	base := projectRoot
	if user {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("hook install: %w", err)
		}
		base = h
	}
	d, ok := Lookup(agent)
	if !ok {
		return "", unknownAgent(agent)
	}
	return filepath.Join(base, d.Settings), nil
}

func unknownAgent(agent string) error {
	return fmt.Errorf("%w: unknown agent %q (claude-code or codex)", ErrInvalidInput, agent)
}

// hookGroups are kb's hook groups per event, in install order.
func hookGroups(d *Dialect, command string) []struct {
	event string
	group map[string]any
} {
	entry := func() []any {
		return []any{map[string]any{"type": "command", "command": command, "timeout": hookTimeout}}
	}
	pre := map[string]any{"matcher": d.PreToolMatcher, "hooks": entry()}
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

func hookCommand(o Installation) string {
	if o.Command != "" {
		return o.Command
	}
	return "kb hook " + o.Agent
}

// Snippet is the hooks object kb installs, as JSON (Claude Code's for an
// agent kb does not know).
func Snippet(o Installation) json.RawMessage {
	d, ok := Lookup(o.Agent)
	if !ok {
		d, _ = Lookup(ClaudeCode)
	}
	m := map[string]any{}
	for _, g := range hookGroups(d, hookCommand(o)) {
		m[g.event] = []any{g.group}
	}
	b, _ := json.MarshalIndent(map[string]any{"hooks": m}, "", "  ")
	return b
}

// Install merges kb's hooks into the settings file, keeping every
// other key and hook as it is, and adding nothing that is already there:
// running it twice changes nothing. The file is written atomically.
func Install(o Installation) (*InstallResult, error) {
	return editHooks(o, true)
}

// Uninstall removes kb's hook entries (and only those) from the
// settings file.
func Uninstall(o Installation) (*InstallResult, error) {
	return editHooks(o, false)
}

func editHooks(o Installation, install bool) (*InstallResult, error) {
	d, ok := Lookup(o.Agent)
	if !ok {
		return nil, unknownAgent(o.Agent)
	}
	command := hookCommand(o)
	res := &InstallResult{Path: o.Path, Snippet: Snippet(o)}
	abs, err := filepath.Abs(o.Path)
	if err != nil {
		return nil, fmt.Errorf("hook install: %w", err)
	}
	tree := fsx.Tree{Root: o.Root} // see Installation.Root
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
	for _, g := range hookGroups(d, command) {
		var groups []any
		raw, had := hooks.get(g.event)
		if had {
			if err := json.Unmarshal(raw, &groups); err != nil {
				return nil, fmt.Errorf("%s: hooks.%s: %w: not a list: %v", o.Path, g.event, ErrInvalidInput, err)
			}
		}
		kept, present := withoutCommand(groups, command, install)
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
		b, err := jsonx.Marshal(groups)
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

// withoutCommand returns an event's hook groups without the hooks that
// run command, and whether there were any. A group left empty is dropped.
// With keepAll (installing), every group is kept as it is: only whether
// kb's hook is present counts.
func withoutCommand(groups []any, command string, keepAll bool) (kept []any, present bool) {
	isOurs := func(h any) bool {
		m, ok := h.(map[string]any)
		if !ok {
			return false
		}
		c, _ := m["command"].(string)
		return strings.TrimSpace(c) == command
	}
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
		if keepAll || len(rest) == len(list) {
			kept = append(kept, grp)
			continue
		}
		if len(rest) > 0 {
			gm["hooks"] = rest
			kept = append(kept, gm)
		}
	}
	return kept, present
}
