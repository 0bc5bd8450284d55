package traces

import (
	"encoding/json"
	"time"
)

// Agents whose transcripts kb imports.
const (
	AgentClaudeCode = "claude-code"
	AgentCodex      = "codex"
	AgentAider      = "aider"
	AgentGemini     = "gemini-cli"
	AgentGeneric    = "generic"
)

// Roles of a record.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
	RoleSystem    = "system"
)

// Kinds of a record.
const (
	KindMessage    = "message"
	KindToolCall   = "tool_call"
	KindToolResult = "tool_result"
	KindSummary    = "summary"
	KindMeta       = "meta"
)

// Marks qualify a record. Extractors rely on them to tell what the person
// typed from what the harness injected, and to find correction signals.
const (
	MarkInjected   = "injected"      // harness text in a user-role record: system reminders, expanded slash commands, AGENTS.md, environment context
	MarkInterrupt  = "interrupt"     // the user interrupted the agent ("[Request interrupted by user...]", Codex turn_aborted)
	MarkRejected   = "rejected"      // the user refused a tool call ("The user doesn't want to proceed with this tool use...")
	MarkSidechain  = "sidechain"     // sub-agent record
	MarkSlash      = "slash-command" // a slash command the user typed
	MarkThinking   = "thinking"      // assistant reasoning, not shown to the user
	MarkCompaction = "compaction"    // context compaction record
)

// Source points at the place in the original transcript a record came from.
type Source struct {
	File string `json:"file"`
	Line int    `json:"line"` // 1-based; 0 when the format has no lines (whole-file JSON)
}

// Record is one normalized event of an agent session, one JSONL line in a
// session file under traces/. Nothing the agent logged is dropped: fields
// without a slot of their own stay in Extra.
type Record struct {
	Session string                     `json:"session"`
	Seq     int                        `json:"seq"`
	Time    time.Time                  `json:"ts,omitzero"`
	Agent   string                     `json:"agent"`
	Role    string                     `json:"role"`
	Kind    string                     `json:"kind"`
	Text    string                     `json:"text,omitempty"`
	Tool    string                     `json:"tool,omitempty"`
	Input   json.RawMessage            `json:"input,omitempty"`
	Output  string                     `json:"output,omitempty"`
	IsError bool                       `json:"is_error,omitempty"`
	CallID  string                     `json:"call_id,omitempty"`
	Cwd     string                     `json:"cwd,omitempty"`
	Branch  string                     `json:"branch,omitempty"`
	Model   string                     `json:"model,omitempty"`
	Marks   []string                   `json:"marks,omitempty"`
	Source  Source                     `json:"source"`
	Extra   map[string]json.RawMessage `json:"extra,omitempty"`
}

// Has reports whether the record carries mark m.
func (r *Record) Has(m string) bool {
	for _, x := range r.Marks {
		if x == m {
			return true
		}
	}
	return false
}

// Human reports whether the record is text the person typed: a user message
// that the harness did not inject.
func (r *Record) Human() bool {
	return r.Role == RoleUser && r.Kind == KindMessage && !r.Has(MarkInjected) && !r.Has(MarkSidechain)
}
