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
	// Decisions are the PreToolUse permissionDecision values the agent
	// accepts from a hook. A decision kb would make that the agent does
	// not accept is left out, and the answer only informs: an agent that
	// rejects a value drops the whole answer, context included.
	Decisions []string
	// Events are the hook events kb installs for the agent, in order.
	Events []string
	// EndEvents are those on which the session's transcript is queued for
	// import (and nothing is answered).
	EndEvents []string
}

// Ends reports whether event queues the session's transcript.
func (d *Dialect) Ends(event string) bool {
	for _, e := range d.EndEvents {
		if e == event {
			return true
		}
	}
	return false
}

// decides reports whether the agent accepts PreToolUse decision v.
func (d *Dialect) decides(v string) bool {
	for _, x := range d.Decisions {
		if x == v {
			return true
		}
	}
	return false
}

var dialects = []*Dialect{
	// Claude Code's hooks reference (code.claude.com/docs/en/hooks,
	// "PreToolUse decision control"): allow, deny, ask and defer.
	{Name: ClaudeCode, Settings: filepath.Join(".claude", "settings.json"), PreToolMatcher: "Bash|Edit|Write|MultiEdit|NotebookEdit",
		Decisions: []string{"ask", "deny"},
		Events:    []string{EventSessionStart, EventUserPromptSubmit, EventPreToolUse, EventSessionEnd},
		EndEvents: []string{EventSessionEnd}},
	// Codex (codex-rs/hooks/src/events/pre_tool_use.rs, the output
	// check unsupported_pre_tool_use_permission_decision and its test
	// unsupported_permission_decision_fails_open; docs/hooks.md): only
	// "deny" with a non-empty reason, and "allow" with updatedInput. "ask"
	// marks the hook run Failed and drops its additionalContext; making
	// it work is openai/codex#28437, open. See docs/agents.md.
	{Name: Codex, Settings: filepath.Join(".codex", "hooks.json"), PreToolMatcher: "shell|exec_command|apply_patch|Bash|Edit|Write",
		Decisions: []string{"deny"},
		// Codex's events (codex-rs hooks HookEventsToml): SessionEnd
		// exists only since 0.145 and an older Codex may refuse a file
		// naming it, so the transcript is queued on Stop (end of every
		// turn; the queue and the import are idempotent), which every
		// Codex with hooks has. kb watch remains the fallback.
		Events:    []string{EventSessionStart, EventUserPromptSubmit, EventPreToolUse, EventStop},
		EndEvents: []string{EventStop, EventSessionEnd}},
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
