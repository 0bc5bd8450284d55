package agents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kbmem/kb/internal/jsonx"
	"github.com/kbmem/kb/internal/textutil"
	"github.com/kbmem/kb/recall"
)

// Hook events kb answers.
const (
	EventSessionStart     = "SessionStart"
	EventUserPromptSubmit = "UserPromptSubmit"
	EventPreToolUse       = "PreToolUse"
	EventSessionEnd       = "SessionEnd"
	EventStop             = "Stop"
)

// MaxHookContext caps the additionalContext of a hook answer, in
// characters, whatever the budget says.
const MaxHookContext = 9500

// maxDecisionReason caps the reason given with a permission decision.
const maxDecisionReason = 1000

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

// Query is the recall an event asks for, or false when it asks for none:
//
//   - SessionStart: the standing context (conventions, preferences, active
//     corrections);
//   - UserPromptSubmit: what applies to the prompt;
//   - PreToolUse: what applies to the tool call;
//   - SessionEnd, Stop, an empty prompt or tool, any other event: nothing.
//
// The event's cwd is the project the agent works in.
func (d *Dialect) Query(in *HookInput) (recall.Query, bool) {
	switch in.HookEventName {
	case EventSessionStart:
		return recall.Query{Standing: true, Cwd: in.Cwd, Project: in.Cwd}, true
	case EventUserPromptSubmit:
		if strings.TrimSpace(in.Prompt) == "" {
			return recall.Query{}, false
		}
		return recall.Query{Task: in.Prompt, Cwd: in.Cwd, Project: in.Cwd}, true
	case EventPreToolUse:
		if in.ToolName == "" {
			return recall.Query{}, false
		}
		return recall.Query{Tool: in.ToolName, Input: in.ToolInput, Cwd: in.Cwd, Project: in.Cwd}, true
	}
	return recall.Query{}, false
}

// Answer is the answer to the event from what recall found, or nil to say
// nothing. The items go to additionalContext. On PreToolUse, with
// decision "ask" or "deny" (recall.pretooluse), an established correction
// (reviewed, promoted or recurring: recall.Item.Established) of a
// high-consequence action also decides the call; a lesson seen once only
// informs, with its lesson as the
// reason, where the agent accepts that decision (Dialect.Decisions: Codex
// takes no "ask", so there the lesson only informs); "context" (or
// anything else) only informs.
func (d *Dialect) Answer(in *HookInput, res *recall.Result, decision string) *HookOutput {
	if res == nil || len(res.Items) == 0 {
		return nil
	}
	text := res.Markdown()
	if len(text) > MaxHookContext {
		text = textutil.Truncate(text, MaxHookContext)
	}
	out := &HookSpecificOutput{HookEventName: in.HookEventName, AdditionalContext: text}
	if in.HookEventName == EventPreToolUse && (decision == "ask" || decision == "deny") && d.decides(decision) {
		for _, it := range res.Items {
			if it.HighConsequence && it.Kind == recall.KindCorrections && !it.Unreviewed && it.Established {
				out.PermissionDecision = decision
				reason := it.Lesson
				if reason == "" {
					reason = it.Text
				}
				out.PermissionDecisionReason = textutil.Truncate("kb: "+reason+" ["+it.ID+"]", maxDecisionReason)
				break
			}
		}
	}
	return &HookOutput{HookSpecificOutput: out}
}

// JSON is the answer as the agent reads it: one line of JSON, with <, >
// and & as they are (a lesson quoting a shell command keeps its "&&").
func (o *HookOutput) JSON() ([]byte, error) {
	b, err := jsonx.Marshal(o)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
