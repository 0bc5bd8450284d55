package traces

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Generic parses JSONL transcripts written by any tool, one object per line
// in either of two shapes:
//
//   - an OpenAI-style chat message: {"role": "user|assistant|system|tool",
//     "content": string | [parts], "tool_calls": [...], "tool_call_id": ...}
//     with optional "session", "timestamp" or "ts" (RFC 3339 or Unix seconds
//     or milliseconds), "agent", "name", "model", "cwd", "branch". An assistant
//     message yields a message record for its text and one tool_call record per
//     entry of tool_calls; role tool yields a tool_result record;
//   - a Record-shaped object (the fields of Record, as `kb trace append`
//     takes them), recognised by having no "content", "tool_calls" or
//     "tool_call_id" but at least one of "kind", "text", "output" or "tool".
//
// A line without a session (or agent) continues the session (agent) of the
// line before; before any, the session is the file name without its
// extension and the agent is "generic". Fields without a
// slot go to Extra. The format is line-oriented and resumable.
type Generic struct{}

// NewGeneric returns the parser for the generic JSONL format.
func NewGeneric() *Generic { return &Generic{} }

// Format returns AgentGeneric.
func (*Generic) Format() string { return AgentGeneric }

// Resumable reports true: the format is one object per line.
func (*Generic) Resumable() bool { return true }

// genChatSlotted are the chat-message fields that have a slot in Record.
var genChatSlotted = map[string]bool{
	"role": true, "content": true, "tool_calls": true, "tool_call_id": true,
	"session": true, "timestamp": true, "ts": true, "agent": true, "name": true,
	"model": true, "cwd": true, "branch": true,
}

// Parse implements Parser.
func (g *Generic) Parse(r io.Reader, file string, start Pos, emit func(Record) error) (Pos, []Problem, error) {
	emit = authored(emit)
	ls := newLineScan(r, start)
	cur := genCur{session: start.State["session"], agent: start.State["agent"]}
	if cur.session == "" {
		cur.session = fileStem(file)
	}
	if cur.agent == "" {
		cur.agent = AgentGeneric
	}
	var problems []Problem
	for {
		line, num, ok, err := ls.next()
		if err != nil {
			return ls.pos(cur.state(file)), problems, fmt.Errorf("%s: %w", file, err)
		}
		if !ok {
			break
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(line, &obj); err != nil || obj == nil {
			problems = append(problems, Problem{Path: file, Line: num, Msg: "not a JSON object: " + shortErr(err)})
			continue
		}
		recs, perr := genConvert(obj, line, file, num, &cur)
		if perr != "" {
			problems = append(problems, Problem{Path: file, Line: num, Msg: perr})
			if len(recs) == 0 {
				continue
			}
		}
		for _, rec := range recs {
			if err := emit(rec); err != nil {
				return ls.posBefore(cur.state(file)), problems, err
			}
		}
	}
	return ls.pos(cur.state(file)), problems, nil
}

// genCur is the session and agent a line without its own continues.
type genCur struct{ session, agent string }

func (c *genCur) state(file string) map[string]string {
	m := map[string]string{}
	if c.session != fileStem(file) {
		m["session"] = c.session
	}
	if c.agent != AgentGeneric {
		m["agent"] = c.agent
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// genConvert turns one line into records. It returns a problem message for
// lines it cannot use (and for usable lines with a bad field).
func genConvert(obj map[string]json.RawMessage, line []byte, file string, num int, cur *genCur) ([]Record, string) {
	hasContent := obj["content"] != nil && !isJSONNull(obj["content"])
	_, hasCalls := obj["tool_calls"]
	_, hasCallID := obj["tool_call_id"]
	if !hasContent && !hasCalls && !hasCallID {
		_, k := obj["kind"]
		_, t := obj["text"]
		_, o := obj["output"]
		_, tl := obj["tool"]
		if k || t || o || tl {
			return genRecordShaped(obj, line, file, num, cur)
		}
		if _, ok := obj["role"]; !ok {
			return nil, "neither a chat message (role, content) nor a record (kind, text)"
		}
	}
	role := strOf(obj["role"])
	if s := strOf(obj["session"]); s != "" {
		cur.session = s
	}
	if a := strOf(obj["agent"]); a != "" {
		cur.agent = a
	}
	base := Record{
		Session: cur.session,
		Agent:   cur.agent,
		Model:   strOf(obj["model"]),
		Cwd:     strOf(obj["cwd"]),
		Branch:  strOf(obj["branch"]),
		Source:  Source{File: file, Line: num},
	}
	var problem string
	ts := obj["timestamp"]
	if ts == nil {
		ts = obj["ts"]
	}
	extra := map[string]json.RawMessage{}
	if ts != nil && !isJSONNull(ts) {
		t, err := parseTimeValue(ts)
		if err != nil {
			problem = "bad timestamp: " + err.Error()
			extra["timestamp"] = ts
		}
		base.Time = t
	}
	for k, v := range obj {
		if !genChatSlotted[k] {
			extra[k] = v
		}
	}
	if n := strOf(obj["name"]); n != "" && role != RoleTool {
		extra["name"] = obj["name"]
	}
	text, simple := partsText(obj["content"])
	if !simple {
		extra["content"] = obj["content"]
	}
	var recs []Record
	switch role {
	case RoleUser, RoleAssistant, RoleSystem, "developer":
		rec := base
		rec.Role, rec.Kind, rec.Text = role, KindMessage, text
		if role == "developer" {
			rec.Role = RoleSystem
			extra["role"] = obj["role"]
		}
		if role == RoleUser && strings.HasPrefix(text, "/") {
			rec.Marks = []string{MarkSlash}
		}
		calls, perr := genToolCalls(obj["tool_calls"], base)
		if perr != "" {
			// Keep the unusable calls on the message so nothing is lost.
			problem = perr
			extra["tool_calls"] = obj["tool_calls"]
		}
		rec.Extra = nonEmpty(extra)
		if hasContent || len(calls) == 0 {
			recs = append(recs, rec)
		} else if len(extra) > 0 {
			calls[0].Extra = mergeExtra(calls[0].Extra, extra)
		}
		recs = append(recs, calls...)
	case RoleTool, "function":
		rec := base
		rec.Role, rec.Kind, rec.Output = RoleTool, KindToolResult, text
		rec.CallID = strOf(obj["tool_call_id"])
		rec.Tool = strOf(obj["name"])
		rec.Extra = nonEmpty(extra)
		recs = append(recs, rec)
	default:
		return nil, fmt.Sprintf("unknown role %q", role)
	}
	return recs, problem
}

// genToolCalls converts OpenAI tool_calls entries to tool_call records.
func genToolCalls(raw json.RawMessage, base Record) ([]Record, string) {
	if raw == nil || isJSONNull(raw) {
		return nil, ""
	}
	var calls []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &calls); err != nil {
		return nil, "tool_calls is not an array of objects"
	}
	var recs []Record
	for _, c := range calls {
		rec := base
		rec.Role, rec.Kind = RoleAssistant, KindToolCall
		rec.CallID = strOf(c["id"])
		extra := map[string]json.RawMessage{}
		for k, v := range c {
			if k != "id" && k != "function" && !(k == "type" && strOf(v) == "function") {
				extra[k] = v
			}
		}
		var fn map[string]json.RawMessage
		if f := c["function"]; f != nil && json.Unmarshal(f, &fn) == nil && fn != nil {
			rec.Tool = strOf(fn["name"])
			if args, ok := fn["arguments"]; ok {
				if s, isStr := decodeStr(args); isStr {
					if json.Valid([]byte(s)) && strings.TrimSpace(s) != "" {
						rec.Input = json.RawMessage(s)
					} else {
						rec.Input = args // keep the string as a JSON string
					}
				} else {
					rec.Input = args
				}
			}
			for k, v := range fn {
				if k != "name" && k != "arguments" {
					extra["function."+k] = v
				}
			}
		} else if f := c["function"]; f != nil {
			extra["function"] = f
		}
		rec.Extra = nonEmpty(extra)
		recs = append(recs, rec)
	}
	return recs, ""
}

// genRecordShaped reads a line holding a Record. Its source becomes this
// line; a different source or seq it carried is kept in Extra.
func genRecordShaped(obj map[string]json.RawMessage, line []byte, file string, num int, cur *genCur) ([]Record, string) {
	var rec Record
	if err := json.Unmarshal(line, &rec); err != nil {
		return nil, "record-shaped line with a bad field: " + shortErr(err)
	}
	known := map[string]bool{"session": true, "seq": true, "ts": true, "agent": true, "role": true, "kind": true,
		"text": true, "tool": true, "input": true, "output": true, "is_error": true, "call_id": true, "cwd": true,
		"branch": true, "model": true, "marks": true, "source": true, "extra": true}
	for k, v := range obj {
		if !known[k] {
			rec.Extra = addRaw(rec.Extra, k, v)
		}
	}
	if rec.Source != (Source{}) && rec.Source != (Source{File: file, Line: num}) {
		rec.Extra = addRaw(rec.Extra, "orig_source", obj["source"])
	}
	if rec.Seq != 0 {
		rec.Extra = addRaw(rec.Extra, "orig_seq", obj["seq"])
	}
	rec.Seq = 0
	rec.Source = Source{File: file, Line: num}
	if rec.Session != "" {
		cur.session = rec.Session
	} else {
		rec.Session = cur.session
	}
	if rec.Agent != "" {
		cur.agent = rec.Agent
	} else {
		rec.Agent = cur.agent
	}
	if rec.Kind == "" {
		rec.Kind = KindMessage
	}
	if rec.Role == "" {
		switch rec.Kind {
		case KindToolCall:
			rec.Role = RoleAssistant
		case KindToolResult:
			rec.Role = RoleTool
		default:
			rec.Role = RoleSystem
		}
	}
	if len(rec.Input) > 0 && !json.Valid(rec.Input) {
		rec.Input = nil
	}
	return []Record{rec}, ""
}

// partsText returns the text of an OpenAI/Gemini content value: a string,
// an array of parts, or a single part. simple reports that the text is all
// the value holds (a string, or parts that are only text).
func partsText(raw json.RawMessage) (text string, simple bool) {
	if raw == nil || isJSONNull(raw) {
		return "", true
	}
	if s, ok := decodeStr(raw); ok {
		return s, true
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		parts = []json.RawMessage{raw}
	}
	simple = true
	var b strings.Builder
	for _, p := range parts {
		if s, ok := decodeStr(p); ok {
			b.WriteString(s)
			continue
		}
		var part map[string]json.RawMessage
		if json.Unmarshal(p, &part) != nil {
			simple = false
			continue
		}
		t, ok := decodeStr(part["text"])
		if !ok {
			simple = false
			continue
		}
		for k, v := range part {
			if k != "text" && !(k == "type" && strOf(v) == "text") {
				simple = false
			}
		}
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteString("\n")
		}
		b.WriteString(t)
	}
	return b.String(), simple
}

// parseTimeValue reads an RFC 3339 string or a Unix time in seconds (or
// milliseconds, when larger than 1e12).
func parseTimeValue(raw json.RawMessage) (time.Time, error) {
	if s, ok := decodeStr(raw); ok {
		if s == "" {
			return time.Time{}, nil
		}
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05"} {
			if t, err := time.Parse(layout, s); err == nil {
				return checkYear(t)
			}
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return unixTime(f)
		}
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 time", s)
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		return time.Time{}, errors.New("neither a string nor a number")
	}
	return unixTime(f)
}

func unixTime(f float64) (time.Time, error) {
	if f != f || f < 0 || f > 1e17 {
		return time.Time{}, fmt.Errorf("%v is out of range", f)
	}
	if f > 1e12 {
		ms := int64(f)
		return checkYear(time.UnixMilli(ms).UTC())
	}
	sec := int64(f)
	return checkYear(time.Unix(sec, int64((f-float64(sec))*1e9)).UTC())
}

// checkYear rejects times JSON cannot encode (years outside 0-9999).
func checkYear(t time.Time) (time.Time, error) {
	if y := t.Year(); y < 0 || y > 9999 {
		return time.Time{}, fmt.Errorf("year %d is out of range", y)
	}
	return t, nil
}

// decodeStr decodes a JSON string value.
func decodeStr(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// strOf is decodeStr without the flag: "" for anything but a string.
func strOf(raw json.RawMessage) string {
	s, _ := decodeStr(raw)
	return s
}

func isJSONNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

func nonEmpty(m map[string]json.RawMessage) map[string]json.RawMessage {
	if len(m) == 0 {
		return nil
	}
	return m
}

func addRaw(m map[string]json.RawMessage, k string, v json.RawMessage) map[string]json.RawMessage {
	if v == nil {
		return m
	}
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	m[k] = v
	return m
}

func mergeExtra(dst, src map[string]json.RawMessage) map[string]json.RawMessage {
	for k, v := range src {
		if _, ok := dst[k]; !ok {
			dst = addRaw(dst, k, v)
		}
	}
	return dst
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`null`)
	}
	return b
}

func shortErr(err error) string {
	if err == nil {
		return "not an object"
	}
	s := err.Error()
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// fileStem is the base name of file without its extension.
func fileStem(file string) string {
	b := filepath.Base(file)
	if i := strings.IndexByte(b, '.'); i > 0 {
		b = b[:i]
	}
	return b
}

// lineScan reads complete lines and tracks the position after each. A final
// line without a newline is never returned: the writer may still be at it.
type lineScan struct {
	br      *bufio.Reader
	off     int64 // offset after the last returned line
	line    int   // number of the last returned line
	prevOff int64 // offset before the last returned line
	prevLn  int
	buf     []byte
}

func newLineScan(r io.Reader, start Pos) *lineScan {
	return &lineScan{br: bufio.NewReaderSize(r, 64<<10), off: start.Offset, line: start.Line, prevOff: start.Offset, prevLn: start.Line}
}

// next returns the next complete line without its line ending, and its
// 1-based number. ok is false at the end of the complete lines.
func (s *lineScan) next() (line []byte, num int, ok bool, err error) {
	line, num, ok, _, err = s.nextLine(false)
	return line, num, ok, err
}

// nextLine is next, or with stream nextWork (work.go): a line longer than
// WorkMax is streamed through the work rewriter instead of held, and comes
// in its work form; bad says why a long line is not valid JSON.
func (s *lineScan) nextLine(stream bool) (line []byte, num int, ok bool, bad error, err error) {
	s.buf = s.buf[:0]
	var w *work
	n := 0
	for {
		chunk, err := s.br.ReadSlice('\n')
		n += len(chunk)
		if stream && w == nil && len(s.buf)+len(chunk) > WorkMax+2 { // +2: the line ending
			w = newWork(workLimits)
			w.feed(s.buf)
			s.buf = s.buf[:0]
		}
		switch {
		case w != nil:
			w.feed(chunk)
		case len(s.buf)+len(chunk) > cap(s.buf):
			// Double: append grows a large slice by a quarter, which
			// copies a line of 50 MB some twenty times over.
			s.buf = slices.Grow(s.buf, max(len(chunk), len(s.buf)))
			fallthrough
		default:
			s.buf = append(s.buf, chunk...)
		}
		if err == nil {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			return nil, 0, false, nil, nil
		}
		return nil, 0, false, nil, err
	}
	s.prevOff, s.prevLn = s.off, s.line
	s.off += int64(n)
	s.line++
	if w != nil {
		out, bad := w.finish()
		if bad != nil {
			return nil, s.line, true, fmt.Errorf("invalid JSON in a line of %d bytes: %w", n, bad), nil
		}
		return out, s.line, true, nil, nil
	}
	line = s.buf[:len(s.buf)-1]
	if k := len(line); k > 0 && line[k-1] == '\r' {
		line = line[:k-1]
	}
	return line, s.line, true, nil, nil
}

// hugeLine is the length from which a parser takes a line from its
// scanner (take) rather than copying it, and detaches its records from it.
const hugeLine = 1 << 20

// own returns raw, the line next returned, as a line the caller may keep
// slices of (prepLine'd): a copy, or for a huge line (more than hugeLine
// bytes, reported) the scanner's own buffer, which it then lets go of (the
// next line gets a new one) rather than copy the line once more.
func (s *lineScan) own(raw []byte) (line []byte, huge bool) {
	if len(raw) > hugeLine {
		s.buf = nil
		return prepLine(raw), true
	}
	return prepLine(bytes.Clone(raw)), false
}

// detach gives the raw JSON values of recs (Input, Extra) their own
// memory, so that the line they were sliced from can be freed.
func detach(recs []Record) {
	for i := range recs {
		r := &recs[i]
		if r.Input != nil {
			r.Input = bytes.Clone(r.Input)
		}
		if len(r.Extra) > 0 {
			extra := make(map[string]json.RawMessage, len(r.Extra))
			for k, v := range r.Extra {
				extra[k] = bytes.Clone(v)
			}
			r.Extra = extra
		}
	}
}

func (s *lineScan) pos(state map[string]string) Pos {
	return Pos{Offset: s.off, Line: s.line, State: state}
}

// posBefore is the position before the last returned line, for stopping
// when emit failed on it.
func (s *lineScan) posBefore(state map[string]string) Pos {
	return Pos{Offset: s.prevOff, Line: s.prevLn, State: state}
}
