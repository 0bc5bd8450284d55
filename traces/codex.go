package traces

import (
	"encoding/json"
	"fmt"
	"github.com/kbmem/kb/internal/textutil"
	"hash/fnv"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Codex parses OpenAI Codex CLI rollout files
// ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl), both the current
// {timestamp,type,payload} lines and the legacy mid-2025 form (a bare
// session header followed by bare response items).
//
// Codex logs what the human typed twice: as a response_item user message
// and, on the next line, as an event_msg user_message. The parser keeps the
// event_msg record and lists the dropped line in Extra["merged_lines"].
// Assistant text and reasoning are echoed as event_msg agent_message and
// agent_reasoning: those echoes become meta records (payload in Extra, no
// Text) so the text is carried once, by the response_item record.
type Codex struct{}

// NewCodex returns the Codex rollout parser.
func NewCodex() *Codex { return &Codex{} }

// Format implements Parser.
func (*Codex) Format() string { return AgentCodex }

// Resumable implements Parser.
func (*Codex) Resumable() bool { return true }

// Harness context Codex sends as user-role messages.
var cxInjectedPrefixes = []string{
	"<environment_context>", "<user_instructions>", "# AGENTS.md instructions for",
	"<user_shell_command>", "<turn_aborted>", "<INSTRUCTIONS>", "<permissions instructions>",
	"<skill>", "<subagent_notification>",
}

var cxExitCode = textutil.Lazy(`^Exit code: (-?\d+)`)

type cxState struct {
	file     string
	session  string
	cwd      string
	branch   string
	model    string
	lastUser string // hash of the last user text emitted from a response_item
	// asks are the call ids of the request_user_input calls whose output
	// has not been read yet (space-separated, the last few): that output
	// is the person's pick in Codex's choice prompt.
	asks string
}

func (s *cxState) load(m map[string]string) {
	s.session, s.cwd, s.branch, s.model, s.lastUser, s.asks = m["session"], m["cwd"], m["branch"], m["model"], m["last_user"], m["asks"]
}

func (s *cxState) stateMap() map[string]string {
	m := map[string]string{}
	for k, v := range map[string]string{"session": s.session, "cwd": s.cwd, "branch": s.branch, "model": s.model, "last_user": s.lastUser, "asks": s.asks} {
		if v != "" {
			m[k] = v
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// cxChoiceTools are Codex's tools whose output is the person's pick among
// options: request_user_input (plan mode's questions; codex-rs
// protocol/src/request_user_input.rs).
var cxChoiceTools = map[string]bool{"request_user_input": true}

// cxPending is a response_item user message waiting for its event_msg twin.
type cxPending struct {
	rec   Record
	text  string
	start Pos // position before the pending line
}

// Parse implements Parser.
func (p *Codex) Parse(r io.Reader, file string, start Pos, emit func(Record) error) (Pos, []Problem, error) {
	emit = authored(emit)
	st := &cxState{file: file}
	st.load(start.State)
	lr := newLineScan(r, start)
	var problems []Problem
	var pending *cxPending
	endPos := func() Pos {
		if pending != nil {
			return pending.start
		}
		return lr.pos(st.stateMap())
	}
	flush := func() error {
		if pending == nil {
			return nil
		}
		pr := pending
		pending = nil
		st.lastUser = textHash(pr.text)
		return emit(pr.rec)
	}
	for {
		before := lr.pos(nil)
		raw, num, ok, err := lr.next()
		if err != nil {
			return endPos(), problems, fmt.Errorf("read %s: %w", file, err)
		}
		if !ok {
			break
		}
		// A copy: the records keep slices of the line (splitObject), and
		// the scanner reuses its buffer; a huge line is taken from the
		// scanner and its record detached from it (claudecode.go).
		line, huge := lr.own(raw)
		if len(line) == 0 {
			continue
		}
		obj, perr := splitObject(line)
		if perr != nil {
			if err := flush(); err != nil {
				return endPos(), problems, err
			}
			problems = append(problems, Problem{Path: file, Line: num, Msg: lineProblem(line)})
			continue
		}
		c := st.convert(obj, num)
		if huge {
			one := []Record{c.rec}
			detach(one)
			c.rec, obj, line = one[0], nil, nil
		}
		if pending != nil {
			if c.userEvent && normText(c.rec.Text) == normText(pending.text) {
				c.rec.Extra = addExtra(c.rec.Extra, "merged_lines", json.RawMessage("["+strconv.Itoa(pending.rec.Source.Line)+"]"))
				pending = nil
				st.lastUser = ""
				if err := emit(c.rec); err != nil {
					return endPos(), problems, err
				}
				continue
			}
			if err := flush(); err != nil {
				return endPos(), problems, err
			}
		}
		if c.userItem {
			before.State = st.stateMap()
			pending = &cxPending{rec: c.rec, text: c.rec.Text, start: before}
			continue
		}
		if c.userEvent {
			if st.lastUser != "" && st.lastUser == textHash(c.rec.Text) {
				// Twin of a user message already emitted from its
				// response_item: keep the event as meta only.
				c.rec.Kind = KindMeta
				c.rec.Extra = addExtra(c.rec.Extra, "message", jsonString(c.rec.Text))
				c.rec.Text = ""
			}
			st.lastUser = ""
		}
		if err := emit(c.rec); err != nil {
			return endPos(), problems, err
		}
	}
	// A pending user text at the end stays unconsumed: its twin may not be
	// written yet.
	return endPos(), problems, nil
}

type cxConverted struct {
	rec       Record
	userItem  bool // response_item user message typed by the human
	userEvent bool // event_msg user_message
}

func (s *cxState) convert(obj object, num int) cxConverted {
	typ := obj.str("type")
	payload := obj.get("payload")
	wrapped := typ != "" && payload != nil
	base := Record{Agent: AgentCodex, Source: Source{File: s.file, Line: num}}
	if ts := obj.str("timestamp"); ts != "" {
		if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
			base.Time = t
		}
	}
	var c cxConverted
	if !wrapped {
		c = s.legacy(obj, base)
	} else {
		pl, err := splitValid(payload)
		if err != nil {
			pl = nil
		}
		switch typ {
		case "session_meta":
			s.sessionMeta(pl)
			c.rec = s.meta(base, RoleSystem)
		case "turn_context":
			if m := pl.str("model"); m != "" {
				s.model = m
			}
			if cwd := pl.str("cwd"); cwd != "" {
				s.cwd = cwd
			}
			c.rec = s.meta(base, RoleSystem)
		case "response_item":
			c = s.responseItem(pl, base, true)
		case "event_msg":
			c = s.event(pl, base)
		case "compacted":
			c.rec = s.meta(base, RoleSystem)
			c.rec.Kind = KindSummary
			c.rec.Text = pl.str("message")
			c.rec.Marks = append(c.rec.Marks, MarkCompaction)
			c.rec.Extra = addExtra(nil, "payload", pl.without("message"))
		default:
			c.rec = s.meta(base, RoleSystem)
		}
		c.rec.Extra = addExtra(c.rec.Extra, "type", obj.get("type"))
		if _, set := c.rec.Extra["payload"]; !set && c.rec.Kind == KindMeta {
			c.rec.Extra = addExtra(c.rec.Extra, "payload", payload)
		}
		for _, f := range obj {
			if f.key != "type" && f.key != "payload" && f.key != "timestamp" {
				c.rec.Extra = addExtra(c.rec.Extra, f.key, f.val)
			}
		}
	}
	if base.Time.IsZero() {
		if ts := obj.get("timestamp"); ts != nil {
			c.rec.Extra = addExtra(c.rec.Extra, "timestamp", ts)
		}
	}
	c.rec.Session, c.rec.Cwd, c.rec.Branch, c.rec.Model = s.sessionID(), s.cwd, s.branch, s.model
	return c
}

func (s *cxState) sessionID() string {
	if s.session != "" {
		return s.session
	}
	base := strings.TrimSuffix(filepath.Base(s.file), ".jsonl")
	if len(base) >= 36 && strings.HasPrefix(base, "rollout-") {
		return base[len(base)-36:]
	}
	return base
}

func (s *cxState) sessionMeta(pl object) {
	if id := pl.str("id"); id != "" {
		s.session = id
	} else if id := pl.str("session_id"); id != "" {
		s.session = id
	}
	if cwd := pl.str("cwd"); cwd != "" {
		s.cwd = cwd
	}
	if g, err := splitValid(pl.get("git")); err == nil {
		if b := g.str("branch"); b != "" {
			s.branch = b
		}
	}
}

func (s *cxState) meta(base Record, role string) Record {
	base.Role, base.Kind = role, KindMeta
	return base
}

// legacy handles a line of the mid-2025 format: a bare session header, a
// {"record_type":"state"} line or a bare response item.
func (s *cxState) legacy(obj object, base Record) cxConverted {
	var c cxConverted
	switch {
	case obj.get("record_type") != nil:
		c.rec = s.meta(base, RoleSystem)
		c.rec.Extra = extraExcept(obj, nil, "timestamp")
	case obj.get("type") == nil && obj.get("id") != nil:
		s.sessionMeta(obj)
		c.rec = s.meta(base, RoleSystem)
		c.rec.Extra = extraExcept(obj, nil, "timestamp")
		c.rec.Extra = addExtra(c.rec.Extra, "type", jsonString("session_meta"))
	case obj.get("type") != nil:
		c = s.responseItem(obj, base, false)
		c.rec.Extra = addExtra(c.rec.Extra, "type", jsonString("response_item"))
	default:
		c.rec = s.meta(base, RoleSystem)
		c.rec.Extra = extraExcept(obj, nil, "timestamp")
	}
	return c
}

// responseItem converts a model-visible history item. pairable says
// whether an event_msg twin of a user message is expected (current format).
func (s *cxState) responseItem(pl object, base Record, pairable bool) cxConverted {
	var c cxConverted
	rec := base
	var extra json.RawMessage
	switch pl.str("type") {
	case "message":
		role := pl.str("role")
		content := pl.get("content")
		rec.Kind = KindMessage
		rec.Text = cxContentText(content)
		skip := []string{"type", "role"}
		if cxAllText(content) {
			skip = append(skip, "content")
		}
		extra = pl.without(skip...)
		switch role {
		case "user":
			rec.Role = RoleUser
			rec.Text, rec.Extra = cxRequest(rec.Text, rec.Extra)
			if cxInjected(rec.Text) {
				rec.Marks = append(rec.Marks, MarkInjected)
			} else if pairable {
				c.userItem = true
			}
		case "assistant":
			rec.Role = RoleAssistant
		default: // developer, system
			rec.Role = RoleSystem
			rec.Marks = append(rec.Marks, MarkInjected)
			extra = pl.without("type")
		}
	case "reasoning":
		rec.Role, rec.Kind = RoleAssistant, KindMessage
		rec.Marks = append(rec.Marks, MarkThinking)
		rec.Text = cxContentText(pl.get("summary"))
		if rec.Text == "" {
			rec.Text = cxContentText(pl.get("content"))
		}
		extra = pl.without("type", "summary")
	case "function_call":
		rec.Role, rec.Kind = RoleAssistant, KindToolCall
		rec.Tool, rec.CallID = pl.str("name"), pl.str("call_id")
		args := pl.get("arguments")
		if s, ok := asString(args); ok {
			if json.Valid([]byte(s)) {
				rec.Input = json.RawMessage(s)
			} else {
				rec.Input = args
			}
		} else {
			rec.Input = args
		}
		extra = pl.without("type", "name", "call_id", "arguments")
		if cxChoiceTools[rec.Tool] && rec.CallID != "" {
			f := append(strings.Fields(s.asks), rec.CallID)
			s.asks = strings.Join(f[max(0, len(f)-8):], " ")
		}
	case "custom_tool_call":
		rec.Role, rec.Kind = RoleAssistant, KindToolCall
		rec.Tool, rec.CallID = pl.str("name"), pl.str("call_id")
		rec.Input = pl.get("input")
		extra = pl.without("type", "name", "call_id", "input")
	case "local_shell_call":
		rec.Role, rec.Kind = RoleAssistant, KindToolCall
		rec.Tool = "local_shell"
		rec.CallID = pl.str("call_id")
		if rec.CallID == "" {
			rec.CallID = pl.str("id")
		}
		rec.Input = pl.get("action")
		extra = pl.without("type", "call_id", "action")
	case "web_search_call":
		rec.Role, rec.Kind = RoleAssistant, KindToolCall
		rec.Tool = "web_search"
		rec.CallID = pl.str("id")
		rec.Input = pl.get("action")
		extra = pl.without("type", "id", "action")
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		rec.Role, rec.Kind = RoleTool, KindToolResult
		rec.CallID = pl.str("call_id")
		var meta json.RawMessage
		rec.Output, rec.IsError, meta = cxOutput(pl.get("output"))
		if v := pl.get("success"); string(v) == "false" {
			rec.IsError = true
		}
		if cxRefused(pl.get("output")) {
			rec.IsError = true
			rec.Marks = append(rec.Marks, MarkRejected)
		}
		extra = pl.without("type", "call_id", "output")
		rec.Extra = addExtra(rec.Extra, "output_meta", meta)
		if f := strings.Fields(s.asks); rec.CallID != "" && slices.Contains(f, rec.CallID) {
			s.asks = strings.Join(slices.DeleteFunc(f, func(id string) bool { return id == rec.CallID }), " ")
			if !rec.IsError {
				rec.Author = AuthorPersonChoice
			}
		}
	default:
		rec.Role, rec.Kind = RoleSystem, KindMeta
		extra = pl.without()
	}
	rec.Extra = addExtra(rec.Extra, "payload", extra)
	c.rec = rec
	return c
}

func (s *cxState) event(pl object, base Record) cxConverted {
	var c cxConverted
	rec := base
	switch pl.str("type") {
	case "user_message":
		rec.Role, rec.Kind = RoleUser, KindMessage
		rec.Text, rec.Extra = cxRequest(pl.str("message"), nil)
		if cxInjected(rec.Text) {
			rec.Marks = append(rec.Marks, MarkInjected)
		} else {
			c.userEvent = true
		}
		rec.Extra = addExtra(rec.Extra, "payload", pl.without("message"))
	case "agent_message", "agent_reasoning", "agent_reasoning_raw_content":
		// UI echo of a response_item: kept as meta, text stays in Extra.
		rec.Role, rec.Kind = RoleAssistant, KindMeta
	case "turn_aborted":
		rec.Role, rec.Kind = RoleUser, KindMessage
		reason := pl.str("reason")
		rec.Text = "[turn aborted"
		if reason != "" {
			rec.Text += ": " + reason
		}
		rec.Text += "]"
		rec.Marks = append(rec.Marks, MarkInterrupt, MarkInjected)
		rec.Extra = addExtra(nil, "payload", pl.without())
	default:
		rec.Role, rec.Kind = RoleSystem, KindMeta
	}
	c.rec = rec
	return c
}

// cxOutput unwraps a tool output: a plain string, a {"output","metadata"}
// JSON string, or an array of content items. isErr comes from a non-zero
// exit code when one is recorded. meta holds what the wrapper carried
// besides the output text (the metadata object), or the tool result
// envelope of newer versions.
// cxRefusals are the outputs Codex gives the model when the person
// declines an approval prompt: codex-rs normalizes every human denial to
// exactly these ("exec command rejected by user" for a command, "patch
// rejected by user" for apply_patch; ReviewDecision::Denied and Abort).
var cxRefusals = map[string]bool{"exec command rejected by user": true, "patch rejected by user": true}

// cxRefused reports whether a call's output is Codex's refusal text, bare:
// a command's own output comes wrapped with its exit code and timing
// ({"output": ..., "metadata": ...} or "Exit code: N ... Output:"), so a
// bare string that is exactly the refusal is Codex's, not the command's.
func cxRefused(v json.RawMessage) bool {
	s, ok := asString(v)
	if !ok {
		if o, err := splitValid(v); err == nil && o.get("content") != nil {
			s, ok = asString(o.get("content"))
		}
	}
	return ok && cxRefusals[strings.TrimSpace(s)]
}

func cxOutput(v json.RawMessage) (out string, isErr bool, meta json.RawMessage) {
	// Errors from strconv etc. are ignored on purpose: an unreadable exit
	// code just leaves IsError false.
	s, ok := asString(v)
	if !ok {
		if arr := rawArray(v); arr != nil {
			return cxContentText(v), false, nil
		}
		if o, err := splitValid(v); err == nil {
			if inner := o.get("content"); inner != nil {
				out, isErr, _ = cxOutput(inner)
				if o.get("success") != nil && string(o.get("success")) == "false" {
					isErr = true
				}
				return out, isErr, o.without("content")
			}
		}
		return string(v), false, nil
	}
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
		if o, err := splitValid([]byte(t)); err == nil && o.get("output") != nil {
			inner, isStr := asString(o.get("output"))
			if isStr {
				if m, err := splitValid(o.get("metadata")); err == nil {
					if code, err := strconv.Atoi(string(m.get("exit_code"))); err == nil && code != 0 {
						isErr = true
					}
				}
				return inner, isErr, o.without("output")
			}
		}
	}
	if m := cxExitCode.FindStringSubmatch(t); m != nil && m[1] != "0" {
		isErr = true
	}
	return s, isErr, nil
}

// cxContentText joins the text of content items (input_text, output_text,
// summary_text, reasoning_text, text) with blank lines.
func cxContentText(v json.RawMessage) string {
	if s, ok := asString(v); ok {
		return s
	}
	var parts []string
	for _, e := range rawArray(v) {
		o, err := splitValid(e)
		if err != nil {
			continue
		}
		if t := o.get("text"); t != nil {
			parts = append(parts, rawString(t))
		}
	}
	return strings.Join(parts, "\n\n")
}

func cxAllText(v json.RawMessage) bool {
	for _, e := range rawArray(v) {
		o, err := splitValid(e)
		if err != nil {
			return false
		}
		switch o.str("type") {
		case "input_text", "output_text", "text":
		default:
			return false
		}
		if len(o) != 2 {
			return false
		}
	}
	return true
}

// cxRequestMark is the line above the person's words in a message Codex's
// IDE extension and desktop app compose: the active file, the open tabs
// and the files the person attached come first ("# Context from my IDE
// setup:", "# Files mentioned by the user:"), as markdown headings.
const cxRequestMark = "## My request for Codex:"

// cxRequest splits a composed user message into the person's words (the
// record's text) and the context the client put above them, kept whole
// in extra as "client_context": only the words are the person's.
func cxRequest(text string, extra map[string]json.RawMessage) (string, map[string]json.RawMessage) {
	at := strings.Index(text, cxRequestMark)
	if at < 0 || at > 0 && text[at-1] != '\n' {
		return text, extra
	}
	head := text[:at]
	if t := strings.TrimSpace(head); t != "" && !strings.HasPrefix(t, "#") {
		return text, extra // the mark quoted inside the person's own text
	}
	b, _ := json.Marshal(head + cxRequestMark)
	return strings.TrimSpace(text[at+len(cxRequestMark):]), addExtra(extra, "client_context", b)
}

func cxInjected(text string) bool {
	t := strings.TrimSpace(text)
	for _, p := range cxInjectedPrefixes {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

func normText(s string) string { return strings.TrimSpace(s) }

func textHash(s string) string {
	h := fnv.New64a()
	h.Write([]byte(normText(s)))
	return strconv.FormatUint(h.Sum64(), 16)
}
