package redact

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/kbmem/kb/internal/jsonx"
)

// JSON redacts secrets inside the string values (and keys) of a JSON
// document, such as a tool call's input, and keeps it valid: a string that
// changes is re-encoded, every other byte is kept as it was. Detection sees
// the decoded strings, one member per line as "key: value", so a multi-line
// file body or an .env-style key/value pair is recognised as it would be in
// plain text. Input that is not valid JSON is redacted as plain text by
// String. Finding lines are lines of raw.
func (r *Redactor) JSON(raw []byte) ([]byte, []Finding) {
	out, fs, _ := r.RedactJSON(raw)
	return out, fs
}

// RedactJSON is JSON that also returns the secret values it found, for a
// Memory to learn.
func (r *Redactor) RedactJSON(raw []byte) ([]byte, []Finding, []Secret) {
	if r == nil || r.disabled || len(raw) == 0 {
		return raw, nil, nil
	}
	if !json.Valid(raw) {
		out, fs, found := r.Redact(string(raw))
		return []byte(out), fs, found
	}
	lits := scanStrings(raw)
	if len(lits) == 0 {
		return raw, nil, nil
	}
	// Build the text the detector sees, remembering where each literal's
	// decoded value sits in it.
	var flat strings.Builder
	var breaks []int // the line breaks between members
	for i := range lits {
		l := &lits[i]
		l.value = decodeLit(raw[l.start:l.end])
		if l.key && flat.Len() > 0 && !strings.HasSuffix(flat.String(), "\n") {
			breaks = append(breaks, flat.Len())
			flat.WriteByte('\n') // a member starts its own line, even inside a parent's
		}
		l.at = flat.Len()
		flat.WriteString(l.value)
		if l.key {
			flat.WriteString(": ")
		} else {
			breaks = append(breaks, flat.Len())
			flat.WriteByte('\n')
		}
	}
	text := flat.String()
	secrets := r.detect(text, breaks...)
	if len(secrets) == 0 {
		return raw, nil, nil
	}
	found := exported(secrets)
	spans := locate(text, secrets)
	if len(spans) == 0 {
		return raw, nil, found
	}

	// Hand each span to the literals it overlaps, clipped to their values.
	local := make(map[int][]span)
	var flatSpans []span // spans kept, in raw coordinates of their literal, for findings
	li := 0
	for _, sp := range spans {
		for li < len(lits) && lits[li].at+len(lits[li].value) <= sp.start {
			li++
		}
		for k := li; k < len(lits) && lits[k].at < sp.end; k++ {
			l := lits[k]
			s, e := max(sp.start, l.at)-l.at, min(sp.end, l.at+len(l.value))-l.at
			if s >= e {
				continue
			}
			local[k] = append(local[k], span{s, e, sp.rule})
			flatSpans = append(flatSpans, span{start: l.start, rule: sp.rule})
		}
	}
	if len(local) == 0 {
		return raw, nil, found
	}
	var out bytes.Buffer
	out.Grow(len(raw))
	last := 0
	for k, l := range lits {
		sps, ok := local[k]
		if !ok {
			continue
		}
		out.Write(raw[last:l.start])
		out.Write(encodeString(apply(l.value, sps)))
		last = l.end
	}
	out.Write(raw[last:])
	return out.Bytes(), findings(flatSpans, newLiner(string(raw)).line), found
}

// MapStrings applies f to every string of a JSON document, member names
// included, and keeps it valid: a string f changes is re-encoded, every
// other byte stays as it was. f returns the new string and how many
// places it replaced; MapStrings returns their sum. Input that is not
// valid JSON is handed to f whole, as text. A session's remembered
// secrets (Memory.JSON) and kb trace redact's patterns replace through it;
// RedactJSON, whose rules look across members, shares its scanner.
func MapStrings(raw []byte, f func(string) (string, int)) ([]byte, int) {
	if !json.Valid(raw) {
		out, n := f(string(raw))
		return []byte(out), n
	}
	var out []byte
	last, total := 0, 0
	for _, l := range scanStrings(raw) {
		r, n := f(decodeLit(raw[l.start:l.end]))
		if n == 0 {
			continue
		}
		total += n
		out = append(out, raw[last:l.start]...)
		out = append(out, encodeString(r)...)
		last = l.end
	}
	if total == 0 {
		return raw, 0
	}
	return append(out, raw[last:]...), total
}

// lit is one string literal of a JSON document.
type lit struct {
	start, end int    // raw[start:end] is the literal, quotes included
	key        bool   // an object member name
	value      string // decoded
	at         int    // offset of value in the detector's text
}

// scanStrings returns the string literals of a valid JSON document.
func scanStrings(raw []byte) []lit {
	var out []lit
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(raw) && raw[j] != '"' {
			if raw[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(raw) {
			return out // unterminated: cannot happen in valid JSON
		}
		l := lit{start: i, end: j + 1}
		k := j + 1
		for k < len(raw) && (raw[k] == ' ' || raw[k] == '\t' || raw[k] == '\n' || raw[k] == '\r') {
			k++
		}
		l.key = k < len(raw) && raw[k] == ':'
		out = append(out, l)
		i = j
	}
	return out
}

// decodeLit decodes one JSON string literal, quotes included.
func decodeLit(q []byte) string {
	body := q[1 : len(q)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body)
	}
	var s string
	if err := json.Unmarshal(q, &s); err != nil {
		return string(body) // cannot happen for a literal of a valid document
	}
	return s
}

// encodeString encodes s as a JSON string literal without HTML escaping.
func encodeString(s string) []byte {
	b, err := jsonx.Marshal(s)
	if err != nil {
		return []byte(`""`) // a string always encodes
	}
	return b
}
