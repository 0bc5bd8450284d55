package traces

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// ErrUnknownFormat is returned (wrapped in a *FormatError) when a file is
// not a transcript in any supported format.
var ErrUnknownFormat = errors.New("unknown transcript format")

// FormatError names the file whose format could not be recognised and why.
type FormatError struct {
	File   string
	Reason string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("%s: %v: %s", e.File, ErrUnknownFormat, e.Reason)
}

// Unwrap lets errors.Is(err, ErrUnknownFormat) match.
func (e *FormatError) Unwrap() error { return ErrUnknownFormat }

// DetectHeadSize is how many leading bytes of a file Detect needs to see,
// unless the first line is longer (see DetectReader).
const DetectHeadSize = 64 << 10

// MaxDetectLine bounds how far DetectReader reads a first line that does
// not end within DetectHeadSize bytes.
const MaxDetectLine = 64 << 20

// DetectReader reads the head of a transcript from r, positioned at its
// start, and picks its parser. When the head does not decide and its first
// line goes on past DetectHeadSize bytes (a first record over 64 KB, with
// the keys that tell its format after the long value), it reads on to the
// end of that line, at most MaxDetectLine bytes, and DetectHeadSize bytes
// beyond, and judges again. It returns what it read.
func DetectReader(file string, r io.Reader) (Parser, []byte, error) {
	head, err := readFull(r, DetectHeadSize)
	if err != nil {
		return nil, head, err
	}
	p, derr := Detect(file, head)
	if derr == nil || len(head) < DetectHeadSize || !firstLineOpen(head) {
		return p, head, derr
	}
	br := bufio.NewReaderSize(r, 64<<10)
	for len(head) < MaxDetectLine {
		chunk, err := br.ReadSlice('\n')
		head = append(head, chunk...)
		if err == nil {
			more, err := readFull(br, DetectHeadSize)
			head = append(head, more...)
			if err != nil {
				return nil, head, err
			}
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			break
		}
		return nil, head, err
	}
	p, derr = Detect(file, head)
	if derr != nil && firstLineOpen(head) && len(head) >= MaxDetectLine {
		derr = &FormatError{File: file, Reason: fmt.Sprintf("the first line is over %d MB and does not say what it is", MaxDetectLine>>20)}
	}
	return p, head, derr
}

// readFull reads up to n bytes; a shorter file is not an error.
func readFull(r io.Reader, n int) ([]byte, error) {
	b := make([]byte, n)
	m, err := io.ReadFull(r, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return b[:m], err
	}
	return b[:m], nil
}

// firstLineOpen reports whether the first non-blank line of head is a JSON
// object that has no end in head (only then can more of it change the
// verdict).
func firstLineOpen(head []byte) bool {
	t := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	return len(t) > 0 && t[0] == '{' && bytes.IndexByte(t, '\n') < 0
}

// Detect picks the parser for a transcript from its content: head is the
// start of the file (DetectHeadSize bytes, or the whole file if shorter).
// The first complete non-empty lines decide; a first line longer than head
// is judged from its leading keys. Anything unrecognised yields a
// *FormatError wrapping ErrUnknownFormat.
func Detect(file string, head []byte) (Parser, error) {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimSpace(head)
	if len(trimmed) == 0 {
		return nil, &FormatError{File: file, Reason: "empty file"}
	}
	if trimmed[0] != '{' {
		if isAider(head) {
			return NewAider(), nil
		}
		if bytes.IndexByte(head[:min(len(head), 512)], 0) >= 0 {
			return nil, &FormatError{File: file, Reason: "binary content"}
		}
		return nil, &FormatError{File: file, Reason: "not JSON lines, JSON or an aider chat history"}
	}
	// Whole-document Gemini chat: a pretty-printed or single-line object
	// with sessionId and messages at the top level.
	if first, _, _ := bytes.Cut(trimmed, []byte("\n")); !jsonComplete(first) || bytes.Count(trimmed, []byte("\n")) == 0 {
		keys := topKeys(trimmed)
		if keys.has("messages") && (keys.has("sessionId") || keys.has("projectHash")) {
			return NewGemini(), nil
		}
	}
	lines := 0
	for _, ln := range bytes.Split(trimmed, []byte("\n")) {
		ln = bytes.TrimSpace(ln)
		if len(ln) == 0 {
			continue
		}
		if lines++; lines > 5 {
			break
		}
		if p := detectLine(topKeys(ln)); p != nil {
			return p, nil
		}
	}
	return nil, &FormatError{File: file, Reason: "JSON content matches no known transcript format"}
}

// detectLine classifies one JSONL line from its top-level keys, or returns
// nil when the line does not decide.
func detectLine(k keySet) Parser {
	typ := k.vals["type"]
	switch {
	case k.has("payload") && cxLineTypes[typ]:
		return NewCodex()
	case k.has("record_type"):
		return NewCodex()
	case k.has("projectHash") || k.has("$set") || k.has("$rewindTo"):
		return NewGemini()
	case typ != "" && ccLineTypes[typ] && (k.has("uuid") || k.has("sessionId") || k.has("leafUuid") || k.has("messageId") || k.has("parentUuid")):
		return NewClaudeCode()
	case typ == "" && k.has("id") && k.has("timestamp") && !k.has("role") && (k.has("instructions") || k.has("git") || len(k.vals) <= 4):
		return NewCodex() // legacy session header
	case geminiTypes[typ] && k.has("id") && k.has("content") && k.has("timestamp") && !k.has("message"):
		return NewGemini()
	case k.has("role") && (k.has("content") || k.has("tool_calls")) && (typ == "" || typ == "message"):
		return NewGeneric()
	}
	return nil
}

var cxLineTypes = map[string]bool{"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true, "compacted": true}

var ccLineTypes = map[string]bool{
	"user": true, "assistant": true, "system": true, "summary": true, "queue-operation": true,
	"file-history-snapshot": true, "progress": true, "attachment": true, "permission-mode": true,
	"last-prompt": true, "ai-title": true, "custom-title": true, "tag": true, "agent-name": true,
}

var geminiTypes = map[string]bool{"user": true, "gemini": true, "info": true, "error": true, "warning": true}

func isAider(head []byte) bool {
	if bytes.Contains(head, []byte("# aider chat started at")) {
		return true
	}
	// A history truncated at the front: user lines "#### " and tool
	// output "> " lines, nothing else markdown-specific is reliable.
	return bytes.HasPrefix(head, []byte("#### ")) || bytes.Contains(head, []byte("\n#### ")) && bytes.Contains(head, []byte("\n> "))
}

// jsonComplete reports whether b is one complete JSON value.
func jsonComplete(b []byte) bool { return json.Valid(bytes.TrimSpace(b)) }

type keySet struct {
	vals map[string]string // top-level key -> string value ("" for non-strings)
}

func (k keySet) has(key string) bool { _, ok := k.vals[key]; return ok }

// topKeys reads the top-level keys of a JSON object, tolerating a value
// cut off by the end of b.
func topKeys(b []byte) keySet {
	k := keySet{vals: map[string]string{}}
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return k
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return k
		}
		key, ok := tok.(string)
		if !ok {
			return k
		}
		k.vals[key] = ""
		v, err := dec.Token()
		if err != nil {
			return k
		}
		switch v := v.(type) {
		case string:
			k.vals[key] = v
		case json.Delim:
			if err := skipNested(dec); err != nil {
				return k
			}
		}
	}
	return k
}

func skipNested(dec *json.Decoder) error {
	depth := 1
	for depth > 0 {
		tok, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return io.ErrUnexpectedEOF
			}
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
			default:
				depth--
			}
		}
	}
	return nil
}

// ParserFor returns the parser for a format name as given to --format:
// claude-code, codex, aider, gemini-cli (or gemini), generic.
func ParserFor(format string) (Parser, error) {
	switch strings.ToLower(strings.TrimSpace(format)) {
	case AgentClaudeCode, "claude", "claudecode":
		return NewClaudeCode(), nil
	case AgentCodex:
		return NewCodex(), nil
	case AgentAider:
		return NewAider(), nil
	case AgentGemini, "gemini":
		return NewGemini(), nil
	case AgentGeneric:
		return NewGeneric(), nil
	}
	names := []string{AgentClaudeCode, AgentCodex, AgentAider, AgentGemini, AgentGeneric}
	sort.Strings(names)
	return nil, fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(names, ", "))
}
