package recall

import "encoding/json"

// Query describes the moment kb recalls for: what the agent is asked to do
// (Task), what it is about to do (Action, or a tool call Tool+Input), and
// the files involved. Every part is optional; an empty query recalls
// nothing unless Standing is set.
type Query struct {
	Task   string          `json:"task,omitempty"`
	Action string          `json:"action,omitempty"` // a shell command or a description of the action
	Tool   string          `json:"tool,omitempty"`
	Input  json.RawMessage `json:"input,omitempty"`
	Files  []string        `json:"files,omitempty"`
	Budget int             `json:"budget,omitempty"` // tokens (about 4 characters each); 0 = Config.Budget
	// Cwd is the agent's working directory; paths under it are shown and
	// matched relative to it.
	Cwd string `json:"cwd,omitempty"`
	// Project is the directory of the project the agent works in (hooks
	// set it from the event's cwd). In a standalone KB, which holds the
	// sessions of many projects, a one-off lesson of another project is
	// left out; a KB inside a project is that project's memory.
	Project string `json:"project,omitempty"`
	// Standing asks for the standing context of a new session: the top
	// conventions, preferences and active corrections, whatever the cue.
	Standing bool `json:"standing,omitempty"`
}

// Budget classes: each kind of item has its own reserved share of the budget.
const (
	KindCorrections = "corrections"
	KindPreferences = "preferences"
	KindProcedures  = "procedures"
	KindPrecedents  = "precedents"
	KindLibrary     = "library"
)

// kinds are the budget classes, in the order budgets are reserved.
var kinds = []string{KindCorrections, KindPreferences, KindProcedures, KindPrecedents, KindLibrary}

// Item is one recalled piece of knowledge.
type Item struct {
	ID      string   `json:"id"`
	Type    string   `json:"type"`
	Kind    string   `json:"kind"`
	Score   float64  `json:"score"`
	Reasons []string `json:"reasons"`
	Text    string   `json:"text"`
	Path    string   `json:"path"`
	// Lesson is the bare instruction (for a PreToolUse decision reason).
	Lesson string `json:"lesson,omitempty"`
	// ActionType is the action type of the proposed action that matched.
	ActionType string `json:"action_type,omitempty"`
	// HighConsequence is set when ActionType is listed in Config.HighConsequence.
	HighConsequence bool `json:"high_consequence,omitempty"`
	// Author is "agent" for an observation the agent wrote (assistant text,
	// MCP remember); Unreviewed is set while no person has reviewed it. Its
	// Text says so, and it never decides a PreToolUse call.
	Author     string `json:"author,omitempty"`
	Unreviewed bool   `json:"unreviewed,omitempty"`
	// Established is set for a lesson with evidence beyond one moment: a
	// person reviewed or promoted it, or it recurred in two sessions or
	// more (a library note is curated). Only an established correction
	// decides a PreToolUse call.
	Established bool `json:"established,omitempty"`
	// Specific is set when what the proposal runs or writes holds a
	// signature the lesson prohibits: each such call repeats the mistake,
	// so the item is shown again in a session that has seen it (Unseen).
	Specific bool `json:"specific,omitempty"`
}

// Result is what Recall surfaces, best first, within the budget.
type Result struct {
	ActionTypes []string `json:"action_types"` // classification of the proposed action
	Items       []Item   `json:"items"`
	Tokens      int      `json:"tokens"` // estimated tokens of Markdown()
	Budget      int      `json:"budget"`
	Dropped     int      `json:"dropped"` // relevant items left out for lack of budget
	Standing    bool     `json:"standing,omitempty"`
}

// Tokens estimates the tokens of s: about four characters a token.
func Tokens(s string) int { return (len(s) + 3) / 4 }
