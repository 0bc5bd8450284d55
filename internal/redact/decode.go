package redact

import (
	"cmp"
	"encoding/base64"
	sx "github.com/kbmem/kb/internal/secrets"
	"slices"
	"strings"
	"unicode/utf8"
)

// Secrets in base64. A key printed through base64 (kubectl's secret data,
// `base64 <<< $TOKEN`, a Basic credential, an encoded .env) holds no
// keyword and no shape any rule knows. So every long run of base64
// characters whose head decodes to text is decoded and the rules run on
// the text; when they find a secret, the whole run is removed, named after
// the rule, and the decoded secret is handed to the Memory too. One level
// only: base64 inside decoded base64 is not decoded again.

const (
	minBase64    = 24        // shortest run decoded: 18 bytes, the shortest token worth it
	probeBase64  = 32        // head decoded first to tell text from binary
	maxBase64    = 48 << 10  // longest run decoded (longer ones are images and archives)
	maxDecodeAll = 256 << 10 // bytes of decoded text searched per text, in total
)

// decoded adds to byValue (created if nil and needed) the base64 runs of
// s that encode a secret. The decoded texts are searched together, in one
// pass of the rules.
func (e *engine) decoded(s string, byValue map[string]*secret) map[string]*secret {
	type run struct {
		Start, End int // s[start:end] is the run, padding included
		at         int // offset of its text in the joined texts
	}
	var runs []run
	var joined strings.Builder
	// A run of minBase64 or more holds s[k] for k = i+minBase64-1: when
	// that byte is not base64, no run starts in s[i:k+1], and the scan
	// jumps past it. Prose is skipped minBase64 bytes at a time.
	for i := 0; i+minBase64 <= len(s) && joined.Len() < maxDecodeAll; {
		k := i + minBase64 - 1
		if !sx.IsBase64Byte(s[k]) {
			i = k + 1
			continue
		}
		start := k
		for start > i && sx.IsBase64Byte(s[start-1]) {
			start--
		}
		j := k + 1
		for j < len(s) && sx.IsBase64Byte(s[j]) {
			j++
		}
		body := s[start:j]
		end := j
		for end < len(s) && end < j+2 && s[end] == '=' {
			end++
		}
		i = end
		if len(body) < minBase64 || len(body) > maxBase64 {
			continue
		}
		text, ok := decodeText(body)
		if !ok {
			continue
		}
		if joined.Len() > 0 {
			joined.WriteString(textSeparator)
		}
		runs = append(runs, run{start, end, joined.Len()})
		joined.WriteString(text)
	}
	if len(runs) == 0 {
		return byValue
	}
	text := joined.String()
	found := e.fold(e.find(text), nil)
	best := make([]string, len(runs)) // rule naming each run that holds a secret
	for v, sec := range found {
		if placeholderValue().MatchString(v) {
			continue
		}
		hit := false
		for off := 0; ; {
			k := strings.Index(text[off:], v)
			if k < 0 {
				break
			}
			at := off + k
			off = at + len(v)
			// The run whose text holds this occurrence.
			ri, _ := slices.BinarySearchFunc(runs, at, func(r run, at int) int { return cmp.Compare(r.at, at) })
			if ri == len(runs) || runs[ri].at > at {
				ri--
			}
			if ri >= 0 && (best[ri] == "" || sx.Better(sec.Rule, best[ri])) {
				best[ri], hit = sec.Rule, true
			}
		}
		if hit && byValue == nil {
			byValue = map[string]*secret{}
		}
		if _, ok := byValue[v]; !ok && hit {
			byValue[v] = &secret{value: v, Rule: sec.Rule, learn: true}
		}
	}
	for i, rule := range best {
		if rule == "" {
			continue
		}
		v := s[runs[i].Start:runs[i].End]
		if have, ok := byValue[v]; ok {
			have.learn = false
		} else {
			byValue[v] = &secret{value: v, Rule: rule, matches: []string{v}}
		}
	}
	return byValue
}

// textSeparator separates the texts the rules see in one pass: no rule
// matches across a blank line holding a NUL.
const textSeparator = "\n\n\x00\n\n"

// decodeText decodes a run of base64 (standard or URL alphabet, without
// its padding) and returns the text it encodes, or false when it is not
// text: binary data, or not base64 at all.
func decodeText(body string) (string, bool) {
	enc := base64.RawStdEncoding
	if strings.ContainsAny(body, "-_") {
		if strings.ContainsAny(body, "+/") {
			return "", false // both alphabets: a path or an identifier
		}
		enc = base64.RawURLEncoding
	}
	if len(body)%4 == 1 {
		body = body[:len(body)-1]
	}
	n := min(len(body), probeBase64)
	probe := body[:n-n%4]
	head, err := enc.DecodeString(probe)
	if err != nil || !isText(head, true) {
		return "", false
	}
	b, err := enc.DecodeString(body)
	if err != nil || !isText(b, false) {
		return "", false
	}
	return string(b), true
}

// isText reports whether b is UTF-8 text without control characters other
// than tabs and line breaks. cut says b may end inside a rune.
func isText(b []byte, cut bool) bool {
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
			return false
		}
	}
	if utf8.Valid(b) {
		return true
	}
	for k := 1; cut && k <= 3 && k < len(b); k++ {
		if utf8.Valid(b[:len(b)-k]) {
			return true
		}
	}
	return false
}
