package traces

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// prepLine trims whitespace, drops a UTF-8 BOM and replaces invalid UTF-8 so
// that downstream decoding and re-encoding is safe.
func prepLine(b []byte) []byte {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	b = bytes.TrimSpace(b)
	if !utf8.Valid(b) {
		b = bytes.ToValidUTF8(b, []byte("\uFFFD"))
	}
	return b
}

// lineProblem describes why a line is not a JSON object.
func lineProblem(b []byte) string {
	var v any
	err := json.Unmarshal(b, &v)
	if err == nil {
		return fmt.Sprintf("not a JSON object (%s)", jsonKind(b))
	}
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "json: ")
	return "invalid JSON: " + msg
}

func jsonKind(b []byte) string {
	if len(b) == 0 {
		return "empty"
	}
	switch b[0] {
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	default:
		return "number"
	}
}

// field is one member of a JSON object: the key (decoded) and raw value.
type field struct {
	key string
	val json.RawMessage
}

// object is the ordered members of one JSON object.
type object []field

func (o object) get(key string) json.RawMessage {
	for i := range o {
		if o[i].key == key {
			return o[i].val
		}
	}
	return nil
}

func (o object) str(key string) string { return rawString(o.get(key)) }

func (o object) boolean(key string) bool {
	v := o.get(key)
	return len(v) == 4 && string(v) == "true"
}

// without returns the members of o except the named keys, encoded as a
// JSON object, or nil when nothing is left.
func (o object) without(skip ...string) json.RawMessage {
	var out []byte
	n := 0
outer:
	for _, f := range o {
		for _, s := range skip {
			if f.key == s {
				continue outer
			}
		}
		if n == 0 {
			out = append(out, '{')
		} else {
			out = append(out, ',')
		}
		n++
		kb, _ := json.Marshal(f.key)
		out = append(out, kb...)
		out = append(out, ':')
		out = append(out, f.val...)
	}
	if n == 0 {
		return nil
	}
	return append(out, '}')
}

// splitObject splits a JSON object into its members without decoding the
// values. It validates b fully; a non-object or malformed input is an error.
func splitObject(b []byte) (object, error) {
	if !json.Valid(b) {
		return nil, errors.New("invalid JSON")
	}
	return splitValid(b)
}

// splitValid splits an object that json.Valid accepted. It never panics,
// whatever the input.
func splitValid(b []byte) (object, error) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, errors.New("not a JSON object")
	}
	i++
	var o object
	for {
		i = skipWS(b, i)
		if i >= len(b) {
			return nil, errors.New("unexpected end of object")
		}
		if b[i] == '}' {
			return o, nil
		}
		if b[i] == ',' {
			i++
			continue
		}
		if b[i] != '"' {
			return nil, errors.New("expected object key")
		}
		ke := skipString(b, i)
		if ke < 0 {
			return nil, errors.New("unterminated key")
		}
		key := rawString(b[i:ke])
		i = skipWS(b, ke)
		if i >= len(b) || b[i] != ':' {
			return nil, errors.New("expected colon")
		}
		i = skipWS(b, i+1)
		ve := skipValue(b, i)
		if ve < 0 {
			return nil, errors.New("malformed value")
		}
		o = append(o, field{key: key, val: json.RawMessage(b[i:ve])})
		i = ve
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i] == '"',
// or -1.
func skipString(b []byte, i int) int {
	i++
	for i < len(b) {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return -1
		}
		i += j
		// The quote is escaped when an odd number of backslashes precede it.
		n := 0
		for k := i - 1; k >= 0 && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return i + 1
		}
		i++
	}
	return -1
}

// skipValue returns the index just past the value starting at b[i], or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				if i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	default:
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i
			}
			i++
		}
		return i
	}
}

// rawString decodes a raw JSON string value; anything else yields "".
func rawString(v json.RawMessage) string {
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner)
	}
	if s, ok := unquote(inner); ok {
		return s
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// unquote decodes the escapes of a JSON string body. It reports false on
// anything unusual (the caller then falls back to encoding/json).
func unquote(b []byte) (string, bool) {
	// A Builder: its String is the bytes written, not a second copy.
	var out strings.Builder
	out.Grow(len(b))
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\\')
		if i < 0 {
			out.Write(b)
			break
		}
		out.Write(b[:i])
		if i+1 >= len(b) {
			return "", false
		}
		switch c := b[i+1]; c {
		case '"', '\\', '/':
			out.WriteByte(c)
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		case 'n':
			out.WriteByte('\n')
		case 'r':
			out.WriteByte('\r')
		case 't':
			out.WriteByte('\t')
		case 'u':
			r, ok := hex4(b[i+2:])
			if !ok {
				return "", false
			}
			n := 6
			if utf16.IsSurrogate(r) {
				r2, ok := rune(0), false
				if len(b) >= i+12 && b[i+6] == '\\' && b[i+7] == 'u' {
					r2, ok = hex4(b[i+8:])
				}
				if ok {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r, n = d, 12
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			out.WriteRune(r)
			b = b[i+n:]
			continue
		default:
			return "", false
		}
		b = b[i+2:]
	}
	return out.String(), true
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// rawArray splits a raw JSON array into its elements; non-arrays yield nil.
func rawArray(v json.RawMessage) []json.RawMessage {
	i := skipWS(v, 0)
	if i >= len(v) || v[i] != '[' {
		return nil
	}
	i++
	var out []json.RawMessage
	for {
		i = skipWS(v, i)
		if i >= len(v) || v[i] == ']' {
			return out
		}
		if v[i] == ',' {
			i++
			continue
		}
		e := skipValue(v, i)
		if e < 0 {
			return out
		}
		out = append(out, v[i:e])
		i = e
	}
}

func isNull(v json.RawMessage) bool { return len(v) == 0 || string(v) == "null" }

// addExtra sets m[k] = v, allocating m, unless v is empty.
func addExtra(m map[string]json.RawMessage, k string, v json.RawMessage) map[string]json.RawMessage {
	if len(v) == 0 {
		return m
	}
	if m == nil {
		m = make(map[string]json.RawMessage)
	}
	m[k] = v
	return m
}

// appendJSONString appends s as a JSON string, escaped exactly as
// json.Marshal escapes it (HTML characters, U+2028 and U+2029 included;
// invalid UTF-8 as U+FFFD).
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '\\', '"':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

func copyExtra(m map[string]json.RawMessage) map[string]json.RawMessage {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]json.RawMessage, len(m)+2)
	for k, v := range m {
		out[k] = v
	}
	return out
}
