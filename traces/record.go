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

// Authors of a record: who produced its text. Every parser sets Author;
// records written before the field existed get it from Who, derived from
// role, kind and marks (DeriveAuthor).
const (
	AuthorPerson       = "person"        // typed by the person: a prompt, a refusal's reason, a slash command line
	AuthorPersonChoice = "person-choice" // the person's answer through a UI choice: AskUserQuestion, Codex's request_user_input, a permission prompt, a confirm prompt
	AuthorHarness      = "harness"       // injected by the agent harness: system reminders, notifications, environment context, AGENTS.md, hook output, compaction summaries, caveats, interrupt markers
	AuthorTemplate     = "template"      // an expanded prompt template: slash command or prompt file body, a turn shaped or recurring like one
	AuthorModel        = "model"         // a model: the agent's replies and reasoning, its tool calls, a sub-agent's prompt, a second model's hand-off (aider architect -> editor)
	AuthorTool         = "tool"          // tool output
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
	Author  string                     `json:"author,omitempty"`
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

// Human reports whether the record is text the person typed: a message
// whose author is the person (Who). A slash command line is the person's
// too; callers that want prose leave MarkSlash out.
func (r *Record) Human() bool {
	return r.Kind == KindMessage && r.Who() == AuthorPerson
}

// Who returns the record's author: Author when set, else DeriveAuthor.
func (r *Record) Who() string {
	if r.Author != "" {
		return r.Author
	}
	return DeriveAuthor(r)
}

// DeriveAuthor is the author a record's role, kind and marks imply, the
// one rule for records stored before Author existed (and the default every
// parser starts from): a user message is the person's unless injected or
// from a sub-agent (the parent model's prompt); a refused tool call's
// result is the person's choice; other tool results are the tool's;
// assistant records are the model's; system records and summaries are the
// harness's.
func DeriveAuthor(r *Record) string {
	switch {
	case r.Kind == KindToolResult && r.Has(MarkRejected):
		return AuthorPersonChoice
	case r.Kind == KindSummary || r.Has(MarkCompaction):
		return AuthorHarness
	case r.Role == RoleUser:
		switch {
		case r.Has(MarkSidechain):
			return AuthorModel
		case r.Has(MarkInjected):
			return AuthorHarness
		}
		return AuthorPerson
	case r.Role == RoleAssistant:
		return AuthorModel
	case r.Role == RoleTool || r.Kind == KindToolResult:
		return AuthorTool
	}
	return AuthorHarness
}

// Authors lists the valid Author values.
var Authors = []string{AuthorPerson, AuthorPersonChoice, AuthorHarness, AuthorTemplate, AuthorModel, AuthorTool}
