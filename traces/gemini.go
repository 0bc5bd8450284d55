package traces

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Gemini parses Gemini CLI chat recordings, both forms:
//
//   - the older whole-document JSON (session-*.json): {sessionId,
//     projectHash, startTime, lastUpdated, summary?, messages: [...]},
//     rewritten in place by the CLI. It is not resumable: Parse returns an
//     end position at offset 0, so the store re-parses it and skips what it
//     holds. lastUpdated is left out (it changes on every save and is the
//     time of the last message);
//   - the newer JSONL (session-*.jsonl): a metadata line {sessionId,
//     projectHash, startTime, ...}, one message per line, {"$set": {...}}
//     metadata updates and {"$rewindTo": id} markers. The CLI re-appends the
//     last message whenever it changes (tokens, tool calls, results); the
//     parser remembers what it emitted for the last message id (in
//     Pos.State) and emits only what is new. A $set of lastUpdated alone is
//     skipped; a $set of summary becomes a summary record, other $set keys a
//     meta record; $rewindTo becomes a meta record with Extra "rewindTo".
//
// Messages map to records: user -> user message; gemini -> one thinking
// record per thought, an assistant message for the text (with model and
// tokens), and per tool call a tool_call record (args as Input) and, once
// the call has finished or has a result, a tool_result record (status
// "error" sets IsError, "cancelled" — the user declined — marks rejected);
// info, warning and error -> system messages (Extra "type"). The message id
// and every field without a slot go to Extra.
type Gemini struct{}

// NewGemini returns the parser for Gemini CLI chat recordings.
func NewGemini() *Gemini { return &Gemini{} }

// Format returns AgentGemini.
func (*Gemini) Format() string { return AgentGemini }

// Resumable reports true: the JSONL form resumes at a line; for the
// whole-document form Parse returns offset 0, which makes the store re-parse.
func (*Gemini) Resumable() bool { return true }

// gemLast tracks what was emitted for the last message of a JSONL file,
// which the CLI may append again with more content.
type gemLast struct {
	id       string
	text     bool
	tokens   bool
	thoughts int
	calls    map[string]bool
	results  map[string]bool
}

type gemParser struct {
	file    string
	session string
	jsonl   bool
	last    gemLast
}

// Parse implements Parser.
func (g *Gemini) Parse(r io.Reader, file string, start Pos, emit func(Record) error) (Pos, []Problem, error) {
	emit = authored(emit)
	p := &gemParser{file: file, session: start.State["session"]}
	if start.Offset > 0 {
		p.jsonl = true
		p.loadLast(start.State)
		return p.parseLines(r, start, emit)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return start, nil, fmt.Errorf("%s: %w", file, err)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return start, nil, nil
	}
	// JSONL when the first line is a whole object by itself, unless it is
	// the only line and holds the messages (a compact whole document).
	first, rest, _ := bytes.Cut(trimmed, []byte("\n"))
	var head map[string]json.RawMessage
	hasMsgs := false
	if json.Unmarshal(first, &head) == nil && head != nil {
		_, hasMsgs = head["messages"]
	}
	if head != nil && (len(bytes.TrimSpace(rest)) > 0 || !hasMsgs) {
		p.jsonl = true
		return p.parseLines(bytes.NewReader(data), start, emit)
	}
	return p.parseDoc(data, emit)
}

// parseDoc handles the whole-document form.
func (p *gemParser) parseDoc(data []byte, emit func(Record) error) (Pos, []Problem, error) {
	end := Pos{State: map[string]string{"form": "json"}}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil || doc == nil {
		line := 1
		if se, ok := err.(*json.SyntaxError); ok && se.Offset <= int64(len(data)) {
			line += bytes.Count(data[:se.Offset], []byte("\n"))
		}
		// An incomplete document is most likely being rewritten: report
		// it and import nothing; the next import sees the new size.
		return end, []Problem{{Path: p.file, Line: line, Msg: "not a complete JSON document: " + shortErr(err)}}, nil
	}
	_, hasMsgs := doc["messages"]
	_, hasID := doc["sessionId"]
	if !hasMsgs && !hasID {
		return end, nil, fmt.Errorf("%s: not a Gemini CLI chat: no sessionId or messages", p.file)
	}
	if p.session = strOf(doc["sessionId"]); p.session == "" {
		p.session = fileStem(p.file)
	}
	meta := map[string]json.RawMessage{}
	for k, v := range doc {
		if k != "messages" && k != "lastUpdated" && k != "summary" {
			meta[k] = v
		}
	}
	var problems []Problem
	var recs []Record
	recs = append(recs, p.metaRecord(meta, 0))
	if s := strOf(doc["summary"]); s != "" {
		recs = append(recs, p.base(0, time.Time{}, RoleSystem, KindSummary, s))
	}
	var msgs []json.RawMessage
	if m := doc["messages"]; m != nil && !isJSONNull(m) {
		if err := json.Unmarshal(m, &msgs); err != nil {
			problems = append(problems, Problem{Path: p.file, Line: 0, Msg: "messages is not an array"})
			recs[0].Extra = addRaw(recs[0].Extra, "messages", m)
		}
	}
	for i, raw := range msgs {
		var msg map[string]json.RawMessage
		if err := json.Unmarshal(raw, &msg); err != nil || msg == nil {
			problems = append(problems, Problem{Path: p.file, Line: 0, Msg: fmt.Sprintf("message %d is not an object", i)})
			continue
		}
		recs = append(recs, p.message(msg, 0, nil)...)
	}
	for _, rec := range recs {
		if err := emit(rec); err != nil {
			return Pos{}, problems, err
		}
	}
	return end, problems, nil
}

// parseLines handles the JSONL form.
func (p *gemParser) parseLines(r io.Reader, start Pos, emit func(Record) error) (Pos, []Problem, error) {
	ls := newLineScan(r, start)
	if p.session == "" {
		p.session = fileStem(p.file)
	}
	var problems []Problem
	for {
		b, num, ok, err := ls.next()
		if err != nil {
			return ls.pos(p.state()), problems, fmt.Errorf("%s: %w", p.file, err)
		}
		if !ok {
			break
		}
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
			problems = append(problems, Problem{Path: p.file, Line: num, Msg: "not a JSON object: " + shortErr(err)})
			continue
		}
		var recs []Record
		switch {
		case obj["$rewindTo"] != nil:
			id := strOf(obj["$rewindTo"])
			rec := p.base(num, time.Time{}, RoleSystem, KindMeta, "rewind to message "+id)
			rec.Extra = map[string]json.RawMessage{}
			for k, v := range obj {
				rec.Extra[strings.TrimPrefix(k, "$")] = v
			}
			recs = append(recs, rec)
			if id == p.last.id {
				p.last = gemLast{}
			}
		case obj["$set"] != nil:
			var set map[string]json.RawMessage
			if json.Unmarshal(obj["$set"], &set) != nil || set == nil {
				problems = append(problems, Problem{Path: p.file, Line: num, Msg: "$set is not an object"})
				continue
			}
			if s, ok := set["sessionId"]; ok && strOf(s) != "" {
				p.session = strOf(s)
			}
			if s := strOf(set["summary"]); s != "" {
				recs = append(recs, p.base(num, time.Time{}, RoleSystem, KindSummary, s))
			}
			rest := map[string]json.RawMessage{}
			for k, v := range set {
				if k != "lastUpdated" && k != "summary" {
					rest[k] = v
				}
			}
			if len(rest) > 0 {
				recs = append(recs, p.metaRecord(rest, num))
			}
		case strOf(obj["id"]) != "" && obj["sessionId"] == nil:
			recs = p.message(obj, num, &p.last)
		case strOf(obj["sessionId"]) != "":
			p.session = strOf(obj["sessionId"])
			meta := map[string]json.RawMessage{}
			for k, v := range obj {
				if k != "sessionId" {
					meta[k] = v
				}
			}
			recs = append(recs, p.metaRecord(meta, num))
		default:
			problems = append(problems, Problem{Path: p.file, Line: num, Msg: "unknown Gemini CLI record: no id, sessionId, $set or $rewindTo"})
			continue
		}
		for _, rec := range recs {
			if err := emit(rec); err != nil {
				return start, problems, err
			}
		}
	}
	return ls.pos(p.state()), problems, nil
}

func (p *gemParser) state() map[string]string {
	m := map[string]string{"form": "jsonl", "session": p.session}
	if p.last.id != "" {
		m["last_id"] = p.last.id
		if p.last.text {
			m["last_text"] = "1"
		}
		if p.last.tokens {
			m["last_tokens"] = "1"
		}
		if p.last.thoughts > 0 {
			m["last_thoughts"] = strconv.Itoa(p.last.thoughts)
		}
		m["last_calls"] = joinSet(p.last.calls)
		m["last_results"] = joinSet(p.last.results)
	}
	return m
}

func (p *gemParser) loadLast(s map[string]string) {
	p.last = gemLast{id: s["last_id"], text: s["last_text"] == "1", tokens: s["last_tokens"] == "1"}
	p.last.thoughts, _ = strconv.Atoi(s["last_thoughts"])
	p.last.calls = splitSet(s["last_calls"])
	p.last.results = splitSet(s["last_results"])
}

func joinSet(m map[string]bool) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, "\n")
}

func splitSet(s string) map[string]bool {
	m := map[string]bool{}
	if s == "" {
		return m
	}
	for _, k := range strings.Split(s, "\n") {
		m[k] = true
	}
	return m
}

func (p *gemParser) base(line int, t time.Time, role, kind, text string) Record {
	return Record{
		Session: p.session,
		Time:    t,
		Agent:   AgentGemini,
		Role:    role,
		Kind:    kind,
		Text:    text,
		Source:  Source{File: p.file, Line: line},
	}
}

func (p *gemParser) metaRecord(fields map[string]json.RawMessage, line int) Record {
	t, _ := parseTimeValue(fields["startTime"])
	rec := p.base(line, t, RoleSystem, KindMeta, "")
	rec.Extra = nonEmpty(fields)
	return rec
}

// message converts one MessageRecord. With last set (JSONL), a repeated
// message id yields only what was not emitted before.
func (p *gemParser) message(msg map[string]json.RawMessage, line int, last *gemLast) []Record {
	id := strOf(msg["id"])
	if last != nil && last.id != id {
		*last = gemLast{id: id, calls: map[string]bool{}, results: map[string]bool{}}
	}
	if last == nil {
		last = &gemLast{id: id, calls: map[string]bool{}, results: map[string]bool{}}
	}
	typ := strOf(msg["type"])
	ts, _ := parseTimeValue(msg["timestamp"])
	extra := map[string]json.RawMessage{}
	for k, v := range msg {
		switch k {
		case "timestamp", "type", "content", "thoughts", "tokens", "model", "toolCalls":
		default:
			extra[k] = v
		}
	}
	if _, err := parseTimeValue(msg["timestamp"]); err != nil {
		extra["timestamp"] = msg["timestamp"]
	}
	text, simple := partsText(msg["content"])
	if !simple {
		extra["content"] = msg["content"]
	}
	model := strOf(msg["model"])
	var recs []Record
	switch typ {
	case "user":
		if last.text {
			return nil
		}
		rec := p.base(line, ts, RoleUser, KindMessage, text)
		if strings.HasPrefix(strings.TrimSpace(text), "/") {
			rec.Marks = []string{MarkSlash}
		}
		rec.Extra = nonEmpty(extra)
		last.text = true
		return []Record{rec}
	case "gemini":
		var thoughts []map[string]json.RawMessage
		if th := msg["thoughts"]; th != nil && !isJSONNull(th) {
			if json.Unmarshal(th, &thoughts) != nil {
				extra["thoughts"] = th
			}
		}
		for i := last.thoughts; i < len(thoughts); i++ {
			th := thoughts[i]
			subj, desc := strOf(th["subject"]), strOf(th["description"])
			t := subj
			if desc != "" {
				if t != "" {
					t += "\n\n"
				}
				t += desc
			}
			tt, _ := parseTimeValue(th["timestamp"])
			rec := p.base(line, tt, RoleAssistant, KindMessage, t)
			rec.Model = model
			rec.Marks = []string{MarkThinking}
			rec.Extra = map[string]json.RawMessage{"message_id": msg["id"]}
			for k, v := range th {
				if k != "description" && k != "timestamp" {
					rec.Extra[k] = v
				}
			}
			recs = append(recs, rec)
		}
		if len(thoughts) > last.thoughts {
			last.thoughts = len(thoughts)
		}
		tokens := msg["tokens"]
		hasTokens := tokens != nil && !isJSONNull(tokens)
		if !last.text && (text != "" || !simple) {
			rec := p.base(line, ts, RoleAssistant, KindMessage, text)
			rec.Model = model
			if hasTokens {
				extra["tokens"] = tokens
				last.tokens = true
			}
			rec.Extra = nonEmpty(extra)
			recs = append(recs, rec)
			last.text = true
		}
		var calls []map[string]json.RawMessage
		if tc := msg["toolCalls"]; tc != nil && !isJSONNull(tc) {
			if json.Unmarshal(tc, &calls) != nil {
				if len(recs) > 0 {
					recs[len(recs)-1].Extra = addRaw(recs[len(recs)-1].Extra, "toolCalls", tc)
				}
			}
		}
		for _, c := range calls {
			recs = append(recs, p.toolCall(c, msg["id"], line, model, last)...)
		}
		if hasTokens && !last.tokens {
			// Tokens that came after the text, or a message without
			// text: keep them on the first new record, or a meta record.
			if len(recs) > 0 {
				recs[0].Extra = addRaw(recs[0].Extra, "tokens", tokens)
			} else {
				rec := p.base(line, ts, RoleAssistant, KindMeta, "")
				rec.Model = model
				rec.Extra = map[string]json.RawMessage{"id": msg["id"], "tokens": tokens}
				recs = append(recs, rec)
			}
			last.tokens = true
		}
		if len(recs) == 0 && !last.text {
			// An empty gemini message: keep its fields.
			rec := p.base(line, ts, RoleAssistant, KindMessage, "")
			rec.Model = model
			rec.Extra = nonEmpty(extra)
			recs = append(recs, rec)
			last.text = true
		}
		return recs
	default:
		if last.text {
			return nil
		}
		rec := p.base(line, ts, RoleSystem, KindMessage, text)
		if typ != "" {
			extra["type"] = msg["type"]
		}
		rec.IsError = typ == "error"
		rec.Extra = nonEmpty(extra)
		last.text = true
		return []Record{rec}
	}
}

// gemTerminal are tool-call statuses after which the result is final.
var gemTerminal = map[string]bool{"success": true, "error": true, "cancelled": true}

func (p *gemParser) toolCall(c map[string]json.RawMessage, msgID json.RawMessage, line int, model string, last *gemLast) []Record {
	id := strOf(c["id"])
	name := strOf(c["name"])
	status := strOf(c["status"])
	ts, _ := parseTimeValue(c["timestamp"])
	var recs []Record
	if !last.calls[id] {
		rec := p.base(line, ts, RoleAssistant, KindToolCall, "")
		rec.Tool, rec.CallID, rec.Model = name, id, model
		if a := c["args"]; a != nil && !isJSONNull(a) {
			rec.Input = a
		}
		rec.Extra = map[string]json.RawMessage{"message_id": msgID}
		for k, v := range c {
			switch k {
			case "id", "name", "args", "result", "status", "timestamp", "resultDisplay":
			default:
				rec.Extra[k] = v
			}
		}
		recs = append(recs, rec)
		last.calls[id] = true
	}
	result := c["result"]
	hasResult := result != nil && !isJSONNull(result)
	if !last.results[id] && (gemTerminal[status] || hasResult) {
		out, simple := gemResultText(result)
		rec := p.base(line, ts, RoleTool, KindToolResult, "")
		rec.Tool, rec.CallID, rec.Output = name, id, out
		rec.IsError = status == "error"
		if status == "cancelled" {
			rec.Marks = []string{MarkRejected}
		}
		rec.Extra = map[string]json.RawMessage{}
		if s, ok := c["status"]; ok {
			rec.Extra["status"] = s
		}
		if rd, ok := c["resultDisplay"]; ok && !isJSONNull(rd) && strOf(rd) != out {
			rec.Extra["resultDisplay"] = rd
		}
		if !simple {
			rec.Extra["result"] = result
		}
		rec.Extra = nonEmpty(rec.Extra)
		recs = append(recs, rec)
		last.results[id] = true
	}
	return recs
}

// gemResultText extracts the text of a tool result (a list of parts holding
// functionResponse.response.output or .error, or text). simple reports that
// the text is everything the result holds.
func gemResultText(raw json.RawMessage) (string, bool) {
	if raw == nil || isJSONNull(raw) {
		return "", true
	}
	if s, ok := decodeStr(raw); ok {
		return s, true
	}
	var parts []json.RawMessage
	if json.Unmarshal(raw, &parts) != nil {
		parts = []json.RawMessage{raw}
	}
	simple := true
	var out []string
	for _, pr := range parts {
		var part map[string]json.RawMessage
		if json.Unmarshal(pr, &part) != nil || part == nil {
			simple = false
			continue
		}
		if t, ok := decodeStr(part["text"]); ok {
			out = append(out, t)
			if len(part) > 1 {
				simple = false
			}
			continue
		}
		var fr map[string]json.RawMessage
		if json.Unmarshal(part["functionResponse"], &fr) != nil || fr == nil {
			simple = false
			continue
		}
		for k := range fr {
			if k != "id" && k != "name" && k != "response" {
				simple = false
			}
		}
		var resp map[string]json.RawMessage
		if json.Unmarshal(fr["response"], &resp) != nil || resp == nil {
			simple = false
			continue
		}
		if s, ok := decodeStr(resp["output"]); ok {
			out = append(out, s)
		} else if s, ok := decodeStr(resp["error"]); ok {
			out = append(out, s)
		} else {
			out = append(out, string(fr["response"]))
		}
		if len(resp) != 1 || len(part) != 1 {
			simple = false
		}
	}
	return strings.Join(out, "\n"), simple
}
