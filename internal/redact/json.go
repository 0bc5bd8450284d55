package redact

import (
	"bytes"
	"encoding/json"
	sx "github.com/kbmem/kb/internal/secrets"
	"strings"
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
	lits := sx.ScanStrings(raw)
	if len(lits) == 0 {
		return raw, nil, nil
	}
	// Build the text the detector sees, remembering where each literal's
	// decoded value sits in it.
	var flat strings.Builder
	var breaks []int // the line breaks between members
	for i := range lits {
		l := &lits[i]
		l.Value = sx.DecodeLit(raw[l.Start:l.End])
		if l.Key && flat.Len() > 0 && !strings.HasSuffix(flat.String(), "\n") {
			breaks = append(breaks, flat.Len())
			flat.WriteByte('\n') // a member starts its own line, even inside a parent's
		}
		l.At = flat.Len()
		flat.WriteString(l.Value)
		if l.Key {
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
		for li < len(lits) && lits[li].At+len(lits[li].Value) <= sp.Start {
			li++
		}
		for k := li; k < len(lits) && lits[k].At < sp.End; k++ {
			l := lits[k]
			s, e := max(sp.Start, l.At)-l.At, min(sp.End, l.At+len(l.Value))-l.At
			if s >= e {
				continue
			}
			local[k] = append(local[k], span{Start: s, End: e, Rule: sp.Rule})
			flatSpans = append(flatSpans, span{Start: l.Start, Rule: sp.Rule})
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
		out.Write(raw[last:l.Start])
		out.Write(sx.EncodeString(sx.Apply(l.Value, sps)))
		last = l.End
	}
	out.Write(raw[last:])
	return out.Bytes(), findings(flatSpans, newLiner(string(raw)).line), found
}
