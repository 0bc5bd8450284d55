package traces

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/kbmem/kb/internal/textutil"
)

// How a Claude Code refusal is told from a tool's output.
//
// Claude Code writes a refused call and a call whose tool threw an error in
// one shape: a tool_result with is_error true and content C, and the line's
// toolUseResult "Error: " + C. In cli.js 1.0.51 and 2.0.42 the permission
// path and the catch path both yield {content: X, is_error: true} with
// toolUseResult `Error: ${X}`. What C holds for a failed tool is the tool's
// text: a failing Bash before 2.0.37 is stderr + stdout verbatim (cli.js
// 2.0.0 and 2.0.28 return [interrupted, stderr, stdout]; real:
// 37f83ec9-f2ea-42a9-925e-0d5c105cb6e8.jsonl:46, a pytest run whose
// toolUseResult is "Error: ===... test session starts"), and an MCP or web
// tool's error carries the server's message. A command or a server can
// therefore print a refusal word for word, reason included. Two things the
// tool cannot write, and the rule built on them:
//
//  1. The tool name, written by Claude Code in the tool_use block before
//     the result. Some tools' errors are Claude Code's own text: the edit
//     tools, Write, ExitPlanMode, Read... (their errors are fixed sentences
//     or <tool_use_error> wrappers: 9e953218-585f-4692-89df-9e0747a31c68.jsonl:55),
//     and Bash from 2.0.37 on, whose failure always starts "Exit code N"
//     (cli.js 2.0.42 returns [`Exit code ${code}`, interrupted, stderr,
//     stdout]; real: cb2e607c-c758-415a-8b45-c49e4631906a.jsonl:46, 2.0.37).
//     A result of such a tool that is exactly a refusal is one.
//  2. What Claude Code writes after the result. A refusal without a reason
//     aborts the turn: Claude Code writes "[Request interrupted by user for
//     tool use]" as the next user text, after the other results of the
//     same turn, and the agent does not answer. All 12 such refusals in the
//     shared transcripts have it (37f83ec9-f2ea-42a9-925e-0d5c105cb6e8.jsonl:72-73,
//     1.0.51; 7acd37a8-2745-4b58-a8a9-46164b22ad9e.jsonl:53-56, 2.0.42).
//     Any other result goes back to the model, whose answer is the next
//     record: in the shared transcripts all 729 other results (main
//     sessions, skipping system records and other results of the turn)
//     are followed by an assistant record, none by the person's text. So
//     the next record being that interrupt, or text the person typed (the
//     turn ended there), confirms the refusal; an assistant record means
//     the agent carried on after a failed tool.
//
// So a result is the person's refusal when it is an error, its content is a
// JSON string that is exactly a refusal text (a reason only after one of
// the reason openings), its toolUseResult is absent or that same string
// (with or without "Error: "), and either (1) holds or the refusal has no
// reason and (2) confirms it. A refusal with a reason of a tool whose errors
// carry outside text (Bash before 2.0.37, MCP, WebFetch, Task...) cannot be
// told from that tool's output: it stays a failed tool result, and its text
// never becomes the person's. The shared transcripts hold 14 refusals (12
// without a reason, 2 with): all 14 are recognised by this rule.

// Refusal forms.
const (
	ccNoRefusal = iota
	ccStopRefusal
	ccReasonRefusal
)

// ccUserRejected is the toolUseResult Claude Code 2.1 writes for a refused
// call (its createUserRejectedToolResult; real: Claude Code 2.1.56, a
// refused Write), where earlier versions repeated the content: a failed
// tool's toolUseResult is "Error: " + its content, so a tool cannot write
// this one.
const ccUserRejected = "User rejected tool use"

// ccAwaitMark marks a possible refusal while Parse waits for the record
// that decides it. It never leaves the parser (ccResolveAwait).
const ccAwaitMark = "kb:await-interrupt"

// ccOwnErrorTools are the built-in tools whose error results are Claude
// Code's own text, never a command's output or a server's message.
var ccOwnErrorTools = map[string]bool{
	"Edit": true, "MultiEdit": true, "Write": true, "NotebookEdit": true, "NotebookRead": true,
	"Read": true, "LS": true, "Glob": true, "TodoWrite": true, "ExitPlanMode": true, "EnterPlanMode": true,
	"KillShell": true, "KillBash": true, "AskUserQuestion": true, "SlashCommand": true, "Skill": true,
}

// ccOwnErrors reports whether an error result of tool, in a line written by
// Claude Code version, can hold only Claude Code's own text at its start.
func ccOwnErrors(tool, version string) bool {
	if ccOwnErrorTools[tool] {
		return true
	}
	return tool == "Bash" && versionAtLeast(version, 2, 0, 37)
}

// versionAtLeast reports whether a dotted version ("2.0.42") is at least
// major.minor.patch. An unreadable version is not.
func versionAtLeast(v string, want ...int) bool {
	parts := strings.Split(strings.TrimSpace(v), ".")
	if len(parts) < len(want) {
		return false
	}
	for i, w := range want {
		n, err := strconv.Atoi(parts[i])
		if err != nil {
			return false
		}
		if n != w {
			return n > w
		}
	}
	return true
}

// ccRefusalOf reads a tool_result as a refusal: its form, and the reason
// the person typed for a reason refusal (empty when they typed none).
//
// own says the tool's errors are Claude Code's own text (ccOwnErrors):
// then a result that is none of Claude Code's error sentences and reads as
// typed by a person is the reason itself, as versions around 2.0.2 wrote
// it without an opening ("I don't need or want changes to the ViewModel
// files. Let's revert...": ccBareReason).
func ccRefusalOf(isErr bool, content json.RawMessage, text string, toolUseResult json.RawMessage, own bool) (reason string, form int) {
	if !isErr || !isJSONString(content) {
		return "", ccNoRefusal
	}
	c := text // content decoded (ccText of a string is the string)
	if len(toolUseResult) > 0 && !isNull(toolUseResult) {
		s, ok := asString(toolUseResult)
		if !ok || (s != c && s != "Error: "+c && s != ccUserRejected) {
			return "", ccNoRefusal // a structured result: the tool ran
		}
	}
	t := strings.TrimSpace(c)
	if t == ccRejectStop || t == ccRejectLater {
		return "", ccStopRefusal
	}
	for _, h := range ccReasonHeads {
		if rest, found := strings.CutPrefix(t, h); found {
			// The person's reason is one paragraph; anything after a blank
			// line is not theirs.
			r := strings.TrimSpace(rest)
			if j := strings.Index(r, "\n\n"); j >= 0 {
				r = strings.TrimSpace(r[:j])
			}
			if strings.HasPrefix(r, ccClarifyHead) {
				// The question dialog's "clarify" choice: Claude Code's
				// own words, no refusal of anything and nothing typed.
				return "", ccNoRefusal
			}
			return r, ccReasonRefusal
		}
	}
	if own && ccBareReason(t) {
		return t, ccReasonRefusal
	}
	return "", ccNoRefusal
}

// ccOwnErrorHeads open the error sentences Claude Code writes for its own
// tools (seen in transcripts of 1.0.29 to 2.1.97), besides the
// <tool_use_error> wrapper and the refusal texts.
var ccOwnErrorHeads = []string{"<", "File has not been read", "File has been modified", "File has been unexpectedly modified",
	"File does not exist", "File content", "File is too large", "Found ", "No changes to make", "String to replace not found",
	"EISDIR", "ENOENT", "EACCES", "EPERM", "Claude requested permission", "Directory does not exist", "InputValidationError",
	"Error", "Cannot ", "Path ", "Sibling tool call", "This tool", "Notebook", "Invalid ", "Failed ", "Unable ", "Permission ",
	"The user ", "Tool ", "Todo", "Unknown ", "Missing ", "old_string", "new_string", "[Request interrupted", "Exit code",
	"Command ", "Shell ", "Timeout", "Killed", "Interrupted", "This Bash command", "This command", "The following", "Permission to",
	"Hook ", "PreToolUse", "PostToolUse", "Blocked", "Operation "}

// ccPersonRE is a mark of text a person typed to the agent: a first or
// second person word, a question, "please", "let's", a contraction of a
// negation, or a letter of a script other than Latin.
var ccPersonRE = textutil.Lazy(`(?i)\b(?:i|i'm|i'd|i've|we|we're|let's|lets|you|your|please|don't|dont|doesn't|why|should|shouldn't|no need)\b|\?|[^\x00-\x{24F}\x{2000}-\x{206F}]`)

// ccBareReason reports whether t, an error result of a tool whose errors
// are Claude Code's own text, is instead the reason the person typed: no
// sentence of Claude Code's opens it and it reads as a person's.
func ccBareReason(t string) bool {
	if t == "" || len(t) > 4000 {
		return false
	}
	for _, h := range ccOwnErrorHeads {
		if strings.HasPrefix(t, h) {
			return false
		}
	}
	return ccPersonRE.MatchString(t)
}

// ccAwaiting reports whether recs hold a refusal waiting for its decision.
func ccAwaiting(recs []Record) bool {
	for i := range recs {
		if recs[i].Has(ccAwaitMark) {
			return true
		}
	}
	return false
}

// ccConfirmsRefusal reports whether a line's records show the turn ended at
// a refusal: Claude Code's interrupt record for it, or text the person
// typed before the agent answered.
func ccConfirmsRefusal(recs []Record) bool {
	for i := range recs {
		r := &recs[i]
		if r.Role == RoleUser && r.Kind == KindMessage && r.Has(MarkInterrupt) && strings.TrimSpace(r.Text) == ccInterruptUse {
			return true
		}
		if r.Human() {
			return true
		}
	}
	return false
}

// ccNeutral reports whether a line's records may stand between a refusal
// and its interrupt record: results of the same turn's other calls, and
// system records (queue operations, snapshots, progress).
func ccNeutral(recs []Record) bool {
	for i := range recs {
		if r := &recs[i]; r.Kind != KindToolResult && r.Role != RoleSystem {
			return false
		}
	}
	return true
}

// ccResolveAwait turns the waiting mark into MarkRejected when confirmed,
// and drops it otherwise.
func ccResolveAwait(marks []string, confirmed bool) []string {
	out := marks[:0:0]
	for _, m := range marks {
		if m != ccAwaitMark {
			out = append(out, m)
		} else if confirmed {
			out = append(out, MarkRejected)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// ccCalls remembers the tool names of the latest tool calls of a file, so a
// result can be judged by the tool that produced it, across resumed parses.
type ccCalls struct {
	ids, names []string
}

const ccCallsKept = 64

func (c *ccCalls) add(id, name string) {
	if id == "" {
		return
	}
	c.ids, c.names = append(c.ids, id), append(c.names, name)
	if n := len(c.ids) - ccCallsKept; n > 0 {
		c.ids, c.names = c.ids[n:], c.names[n:]
	}
}

func (c *ccCalls) name(id string) string {
	for i := len(c.ids) - 1; i >= 0; i-- {
		if c.ids[i] == id {
			return c.names[i]
		}
	}
	return ""
}

// encode writes the calls as "id=name" pairs separated by newlines (tool
// ids and names hold neither "=" nor a newline; pairs that would are not
// kept).
func (c *ccCalls) encode() string {
	var b strings.Builder
	for i, id := range c.ids {
		if strings.ContainsAny(id, "=\n") || strings.Contains(c.names[i], "\n") {
			continue
		}
		b.WriteString(id + "=" + c.names[i] + "\n")
	}
	return b.String()
}

func (c *ccCalls) decode(s string) {
	for _, l := range strings.Split(s, "\n") {
		if id, name, ok := strings.Cut(l, "="); ok {
			c.add(id, name)
		}
	}
}
