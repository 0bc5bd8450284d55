package secrets

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strings"

	ahocorasick "github.com/BobuSumisu/aho-corasick"

	"github.com/kbmem/kb/internal/jsonx"
	"github.com/kbmem/kb/internal/textutil"
)

// ProjectPrefix starts the id of every rule kb adds to a detector's set.
const ProjectPrefix = "kb-"

// PlaceholderPattern matches values that only stand in for a secret:
// references to a variable, template holes, masks and the usual dummies.
// (internal/redact compiles it in its detector's regexp flavour too.)
const PlaceholderPattern = `(?i)^(?:\$.*|<[^>]*>|\{\{.*\}\}|%[a-z_]+%|\*+|x{3,}|\.{3,}|changeme|change_me|example|placeholder|redacted|none|null|nil|true|false|undefined|your[_-].*|string|str|bytes|secret|password|token|\d{1,6})$`

var placeholderValue = textutil.Lazy(PlaceholderPattern)

// Secret is a secret value the rules found, and the rule that found it.
// Session memory (Memory) learns them; never log or store one.
type Secret struct {
	Value string
	Rule  string
}

// Finding reports one secret that was redacted. It never carries the secret.
type Finding struct {
	Rule string // rule id, as in the [REDACTED:<rule-id>] marker
	Line int    // 1-based line of the first redacted occurrence
}

// Marker returns the text that replaces a secret found by rule.
func Marker(rule string) string { return "[REDACTED:" + rule + "]" }

// span is a byte range of the text to replace by the marker of rule.
type Span struct {
	Start, End int
	Rule       string
}

func Merge(raw []Span) []Span {
	if len(raw) == 0 {
		return nil
	}
	slices.SortFunc(raw, func(a, b Span) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(b.End, a.End), strings.Compare(a.Rule, b.Rule))
	})
	out := raw[:0:0]
	cur, best := raw[0], raw[0].End-raw[0].Start
	for _, sp := range raw[1:] {
		if sp.Start < cur.End {
			if l := sp.End - sp.Start; l > best || (l == best && Better(sp.Rule, cur.Rule)) {
				cur.Rule, best = sp.Rule, l
			}
			cur.End = max(cur.End, sp.End)
			continue
		}
		out = append(out, cur)
		cur, best = sp, sp.End-sp.Start
	}
	return append(out, cur)
}

// apply replaces the spans of s by their markers.
func Apply(s string, spans []Span) string {
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp.Start])
		b.WriteString(Marker(sp.Rule))
		last = sp.End
	}
	b.WriteString(s[last:])
	return b.String()
}

// better reports whether rule a names a secret better than rule b: specific
// gitleaks and user rules first, then kb's project rules, then gitleaks'
// generic rule; ties go to the smaller id.
func Better(a, b string) bool {
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra < rb
	}
	return a < b
}

func rank(id string) int {
	switch {
	case strings.Contains(id, "generic"):
		return 2
	case strings.HasPrefix(id, ProjectPrefix):
		return 1
	}
	return 0
}

// walkChunk is the size of the pieces walkLower lowercases at a time.
const walkChunk = 64 << 10

// walkLower runs t over s with its ASCII letters lowercased, as
// t.Walk(ASCIILower(s), fn) does (the same matches, in the same order,
// at offsets in s), but a chunk at a time: a huge text is not copied.
// maxLen is the length of t's longest pattern: chunks overlap by
// maxLen-1 bytes, and a match ending in the overlap was reported with
// the chunk before.
func WalkLower(t *ahocorasick.Trie, s string, maxLen int, fn func(end, n, pattern int64) bool) {
	if len(s) <= walkChunk || maxLen < 1 {
		t.Walk(ASCIILower(s), fn)
		return
	}
	buf := make([]byte, 0, walkChunk+maxLen)
	stop := false
	for start := 0; start < len(s) && !stop; start += walkChunk {
		from := max(0, start-(maxLen-1))
		buf = appendLower(buf[:0], s[from:min(len(s), start+walkChunk)])
		t.Walk(buf, func(end, n, pattern int64) bool {
			end += int64(from)
			if end < int64(start) {
				return true
			}
			stop = !fn(end, n, pattern)
			return !stop
		})
	}
}

func appendLower(dst []byte, s string) []byte {
	n := len(dst)
	dst = append(dst, s...)
	for i := n; i < len(dst); i++ {
		if c := dst[i]; 'A' <= c && c <= 'Z' {
			dst[i] = c + 'a' - 'A'
		}
	}
	return dst
}

// ASCIILower is textutil.ASCIILower as bytes: offsets in it are offsets
// in s. Keywords are matched against it.
func ASCIILower(s string) []byte { return []byte(textutil.ASCIILower(s)) }

// numberPrefix returns the length of a line-number prefix of a file read
// by an agent ("   12→", "12\t"), or 0.
func NumberPrefix(l string) int {
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	d := i
	for i < len(l) && '0' <= l[i] && l[i] <= '9' {
		i++
	}
	if i == d || i >= len(l) {
		return 0
	}
	if l[i] == '\t' {
		return i + 1
	}
	if strings.HasPrefix(l[i:], "→") {
		return i + len("→")
	}
	return 0
}

// base64Byte tells the characters of both base64 alphabets (padding
// apart).
var base64Byte = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_'
	}
	return t
}()

func IsBase64Byte(c byte) bool { return base64Byte[c] }

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
	for _, l := range ScanStrings(raw) {
		r, n := f(DecodeLit(raw[l.Start:l.End]))
		if n == 0 {
			continue
		}
		total += n
		out = append(out, raw[last:l.Start]...)
		out = append(out, EncodeString(r)...)
		last = l.End
	}
	if total == 0 {
		return raw, 0
	}
	return append(out, raw[last:]...), total
}

// lit is one string literal of a JSON document.
type Lit struct {
	Start, End int    // raw[start:end] is the literal, quotes included
	Key        bool   // an object member name
	Value      string // decoded
	At         int    // offset of value in the detector's text
}

// scanStrings returns the string literals of a valid JSON document.
func ScanStrings(raw []byte) []Lit {
	var out []Lit
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
		l := Lit{Start: i, End: j + 1}
		k := j + 1
		for k < len(raw) && (raw[k] == ' ' || raw[k] == '\t' || raw[k] == '\n' || raw[k] == '\r') {
			k++
		}
		l.Key = k < len(raw) && raw[k] == ':'
		out = append(out, l)
		i = j
	}
	return out
}

// decodeLit decodes one JSON string literal, quotes included.
func DecodeLit(q []byte) string {
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
func EncodeString(s string) []byte {
	b, err := jsonx.Marshal(s)
	if err != nil {
		return []byte(`""`) // a string always encodes
	}
	return b
}
