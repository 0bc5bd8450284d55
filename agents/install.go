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
	// Command overrides the hook command ("<Exe> hook <agent>").
	Command string
	// Exe is the kb binary the hook command runs, an absolute path, so
	// that the hook does not depend on the agent's PATH; empty writes a
	// bare "kb".
	Exe string
	// HookExe, when set, is the hook entry point (cmd/kb-hook) the command
	// runs instead, "<HookExe> <agent>": it starts like an empty program
	// (ADR 0008).
	HookExe string
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

// hookTimeout is the timeout, in seconds, written for kb's hook commands:
// within Codex's 3 s cap on its end-of-session events and far above what
// kb takes (it answers within its own 2.5 s budget, a few ms normally).
const hookTimeout = 3

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

// hookGroup is one matcher group of a hook settings file, in the order
// the agents' docs write its keys.
type hookGroup struct {
	Matcher string      `json:"matcher,omitempty"`
	Hooks   []hookEntry `json:"hooks"`
}

type hookEntry struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// hookGroups are kb's hook groups per event, in install order: the
// dialect's events (Dialect.Events), PreToolUse with its matcher.
func hookGroups(d *Dialect, command string) []struct {
	event string
	group hookGroup
} {
	var out []struct {
		event string
		group hookGroup
	}
	for _, ev := range d.Events {
		g := hookGroup{Hooks: []hookEntry{{Type: "command", Command: command, Timeout: hookTimeout}}}
		if ev == EventPreToolUse {
			g.Matcher = d.PreToolMatcher
		}
		out = append(out, struct {
			event string
			group hookGroup
		}{ev, g})
	}
	return out
}

func hookCommand(o Installation) string {
	if o.Command != "" {
		return o.Command
	}
	if o.HookExe != "" {
		return ShellQuote(o.HookExe, "kb-hook") + " " + o.Agent
	}
	return ShellQuote(o.Exe, "kb") + " hook " + o.Agent
}

// ShellQuote is path as one word of a command line that the agents run
// through a shell, or fallback when path is empty: a path of safe
// characters as it is, anything else in single quotes.
func ShellQuote(path, fallback string) string {
	if path == "" {
		return fallback
	}
	if strings.Trim(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@%") == "" {
		return path
	}
	return "'" + strings.ReplaceAll(path, "'", `'\''`) + "'"
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
		var groups []json.RawMessage
		raw, had := hooks.get(g.event)
		if had && string(bytes.TrimSpace(raw)) != "null" {
			if err := json.Unmarshal(raw, &groups); err != nil {
				return nil, fmt.Errorf("%s: hooks.%s: %w: not a list: %v", o.Path, g.event, ErrInvalidInput, err)
			}
		}
		kept, found, err := editGroups(groups, o.Agent, command, install)
		if err != nil {
			return nil, fmt.Errorf("%s: hooks.%s: %w: %v", o.Path, g.event, ErrInvalidInput, err)
		}
		switch {
		case install && found == foundSame:
			continue
		case install && found == foundNone:
			b, err := jsonx.Marshal(g.group)
			if err != nil {
				return nil, fmt.Errorf("hook install: %w", err)
			}
			kept = append(kept, b)
			res.Added = append(res.Added, g.event)
		case install: // an older kb command, now this one
			res.Added = append(res.Added, g.event)
		case found == foundNone:
			continue
		default:
			res.Removed = append(res.Removed, g.event)
		}
		if len(kept) == 0 {
			hooks.del(g.event)
			continue
		}
		b, err := jsonx.Marshal(kept)
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
// What editGroups found of kb's hook in an event's groups.
const (
	foundNone  = iota // no kb hook
	foundSame         // kb's hook with this command
	foundOther        // kb's hook with another command (bare "kb", an older path)
)

// editGroups installs or removes kb's hook entry in an event's matcher
// groups. Groups and entries it does not change keep their bytes, key
// order included; an entry is kb's when its command is command or another
// kb's "hook <agent>" command (isKBHook), which install points at command.
func editGroups(groups []json.RawMessage, agent, command string, install bool) (kept []json.RawMessage, found int, err error) {
	for _, raw := range groups {
		grp, err := parseObject(raw)
		if err != nil {
			kept = append(kept, raw) // not an object: not ours to judge
			continue
		}
		list, ok := grp.get("hooks")
		var entries []json.RawMessage
		if !ok || json.Unmarshal(list, &entries) != nil {
			kept = append(kept, raw)
			continue
		}
		var rest []json.RawMessage
		changed := false
		for _, e := range entries {
			var h struct {
				Command string `json:"command"`
			}
			if json.Unmarshal(e, &h) != nil || !isKBHook(h.Command, agent, command) {
				rest = append(rest, e)
				continue
			}
			same := strings.TrimSpace(h.Command) == command
			switch {
			case same && found != foundOther:
				found = foundSame
			default:
				found = foundOther
			}
			if !install {
				changed = true
				continue
			}
			if !same {
				obj, err := parseObject(e)
				if err != nil {
					return nil, 0, err
				}
				c, _ := jsonx.Marshal(command)
				obj.set("command", c)
				e, changed = obj.bytes(), true
			}
			rest = append(rest, e)
		}
		switch {
		case !changed:
			kept = append(kept, raw)
		case len(rest) > 0:
			b, err := jsonx.Marshal(rest)
			if err != nil {
				return nil, 0, err
			}
			grp.set("hooks", b)
			kept = append(kept, grp.bytes())
		}
	}
	return kept, found, nil
}

// isKBHook reports whether a hook command is kb's for agent: command
// itself, a program named kb (or the plugin's kb-run) given "hook
// <agent>", or the entry point kb-hook given "<agent>", however it was
// spelled when installed (bare, an absolute or an older path, quoted).
func isKBHook(c, agent, command string) bool {
	c = strings.TrimSpace(c)
	if c == command {
		return true
	}
	f := strings.Fields(c)
	if len(f) >= 2 && f[len(f)-1] == agent {
		base := filepath.Base(strings.Trim(strings.Join(f[:len(f)-1], " "), `"'`))
		if base == "kb-hook" || base == "kb-hook.exe" {
			return true
		}
	}
	if len(f) < 3 || f[len(f)-2] != "hook" || f[len(f)-1] != agent {
		return false
	}
	prog := strings.Trim(strings.Join(f[:len(f)-2], " "), `"'`)
	base := filepath.Base(prog)
	return base == "kb" || base == "kb.exe" || base == "kb-run"
}
