package agents

import "path/filepath"

// The agents kb answers hooks for.
const (
	ClaudeCode = "claude-code"
	Codex      = "codex"
)

// Dialect is how one agent speaks hooks. Claude Code and Codex send the
// same events with the same fields and read the same answer; they differ
// in where their hook settings live and in the names of their tools.
type Dialect struct {
	Name string
	// Settings is the hook settings file, relative to a project root or
	// to the home directory.
	Settings string
	// PreToolMatcher selects the tool calls kb's PreToolUse hook is given:
	// those that change something (shell commands, edits).
	PreToolMatcher string
}

var dialects = []*Dialect{
	{Name: ClaudeCode, Settings: filepath.Join(".claude", "settings.json"), PreToolMatcher: "Bash|Edit|Write|MultiEdit|NotebookEdit"},
	{Name: Codex, Settings: filepath.Join(".codex", "hooks.json"), PreToolMatcher: "shell|exec_command|apply_patch|Bash|Edit|Write"},
}

// Lookup returns the dialect of agent, or false for an agent kb does not
// know.
func Lookup(agent string) (*Dialect, bool) {
	for _, d := range dialects {
		if d.Name == agent {
			return d, true
		}
	}
	return nil, false
}
