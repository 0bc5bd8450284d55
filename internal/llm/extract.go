package llm

import (
	"bytes"
	"encoding/json"
)

const (
	maxExtractInput = 1 << 20 // bytes of text searched for an object
	maxCandidates   = 64      // '{' positions tried before giving up
)

// ExtractJSON returns a copy of the first complete, valid JSON object in
// text, tolerating prose and markdown fences around it ("Here you go:
// ```json {...} ```"). It looks at the first MiB of text and tries at most
// 64 opening braces, so its cost stays linear in practice. When no object is
// found the error wraps ErrMalformed and quotes the start of text. The
// bytes scanned over all candidates are capped at four times the input, so
// adversarial text (deep unclosed nesting) costs linear time.
func ExtractJSON(text []byte) ([]byte, error) {
	if len(text) > maxExtractInput {
		text = text[:maxExtractInput]
	}
	budget := 4*len(text) + 4096
	start := 0
	for range maxCandidates {
		i := bytes.IndexByte(text[start:], '{')
		if i < 0 || budget <= 0 {
			break
		}
		i += start
		end, scanned, ok := balancedEnd(text, i, budget)
		budget -= scanned
		if ok && json.Valid(text[i:end]) {
			return bytes.Clone(text[i:end]), nil
		}
		start = i + 1
	}
	return nil, malformed("no JSON object found", text)
}

// balancedEnd finds the end (exclusive) of the bracketed value opening at
// text[open], skipping brackets inside JSON strings. It scans at most limit
// bytes and reports how many it scanned.
func balancedEnd(text []byte, open, limit int) (end, scanned int, ok bool) {
	depth := 0
	inString := false
	stop := min(len(text), open+limit)
	for i := open; i < stop; i++ {
		c := text[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, i + 1 - open, true
			}
		}
	}
	return 0, stop - open, false
}
