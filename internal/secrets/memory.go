package secrets

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"net/url"
	"slices"
	"strings"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
)

// Session memory. A secret detected once in a session comes back without
// the context that gave it away: the password assigned in a command is
// repeated in the assistant's prose, hashed by sha256sum, base64-encoded
// for a Kubernetes secret, printed wrapped at 64 columns. A Memory learns
// the values the rules found (Learn) and removes every later occurrence of
// them and of their derived forms (String, JSON):
//
//   - the value, in any ASCII case;
//   - its base64, standard and URL alphabets, at the three alignments it
//     can have inside a longer encoded text (the characters that depend
//     only on the value), the whole base64 run being removed;
//   - the hex MD5, SHA-1, SHA-256 and SHA-512 of the value, and of the
//     value with a final newline (echo without -n);
//   - its URL (query and path) escapes;
//   - the value wrapped at 64 and 76 columns (openssl, PEM, base64).
//
// So that a session imported again later (its transcript grew) is
// redacted the same way, a Memory is persisted as Saved entries: per form,
// its length, a 32-bit rolling fingerprint of its first headLen bytes and
// a 128-bit keyed hash (HMAC-SHA-256 with a key of the KB) of the whole
// form, never the value. A Memory built from Saved entries rolls the
// fingerprint over the text (one pass whatever the number of entries) and
// confirms each candidate with the keyed hash; a form found that way is
// known again, and from then on matched as the learned ones are.
//
// Values shorter than minRemember, or short and of one character class,
// are not remembered: "password" or "12345678" must not be removed from
// every later message.

// Saved is what a Memory persists of one form of a secret.
type Saved struct {
	N      int    `json:"n"`                // length in bytes
	FP     uint32 `json:"fp"`               // rolling fingerprint of the first headLen bytes of the ASCII-lowercased form
	H      string `json:"h"`                // hex HMAC-SHA-256 of the lowercased form, first 16 bytes
	Rule   string `json:"rule"`             // rule that found the secret, for the marker
	Base64 bool   `json:"base64,omitempty"` // a base64 form: its whole run is removed
}

const (
	headLen      = 8    // bytes a fingerprint covers; no form is shorter
	minDistinct  = 5    // a value has at least this many distinct bytes ("aaaaaaaaaaaa" is none)
	minRemember  = 8    // shortest value remembered
	plainLength  = 12   // from this length a value of one character class is remembered too
	maxDerive    = 4096 // longer values (key blocks) are remembered as such and per line, without derived forms
	minLineLearn = 20   // shortest line of a multi-line secret remembered on its own
	minBase64Run = 10   // shortest base64 form remembered
)

// wrapWidths are the columns encoders wrap at: PEM and openssl (64),
// base64 and MIME (76).
var wrapWidths = []int{64, 76}

// NewKey returns a random key for Memory hashes.
func NewKey() []byte {
	k := make([]byte, 32)
	rand.Read(k)
	return k
}

// form is a remembered form of a secret.
type form struct {
	Rule   string
	base64 bool
}

// Memory remembers the secrets of one session. It is not safe for
// concurrent use.
type Memory struct {
	key    []byte
	mult   uint32
	forms  map[string]form // ASCII-lowercased form -> how to remove it
	trie   *ahocorasick.Trie
	pats   []string // trie pattern index -> form
	maxPat int      // the longest form's length
	dirty  bool
	// Saved entries not matched yet, by fingerprint, and a filter on the
	// low bits of their fingerprints.
	pending map[uint32][]Saved
	filter  []uint64
	pow     uint32 // mult^(headLen-1)
	saved   []Saved
	hashes  map[string]bool // H of saved
}

// NewMemory returns a Memory keyed by key (NewKey) holding saved, the
// entries persisted from an earlier Memory of the session.
func NewMemory(key []byte, saved []Saved) *Memory {
	m := &Memory{key: key, forms: map[string]form{}, pending: map[uint32][]Saved{}, hashes: map[string]bool{}}
	sum := m.mac([]byte("kb rolling fingerprint"))
	m.mult = binary.LittleEndian.Uint32(sum) | 1
	m.pow = 1
	for range headLen - 1 {
		m.pow *= m.mult
	}
	for _, e := range saved {
		if e.N < headLen || m.hashes[e.H] {
			continue
		}
		m.hashes[e.H] = true
		m.saved = append(m.saved, e)
		if m.filter == nil {
			m.filter = make([]uint64, filterBits/64)
		}
		m.pending[e.FP] = append(m.pending[e.FP], e)
		m.filter[e.FP%filterBits/64] |= 1 << (e.FP % 64)
	}
	return m
}

// filterBits is the size of the fingerprint filter.
const filterBits = 1 << 16

func (m *Memory) mac(b []byte) []byte {
	h := hmac.New(sha256.New, m.key)
	h.Write(b)
	return h.Sum(nil)
}

func (m *Memory) keyedHash(lower []byte) string { return hex.EncodeToString(m.mac(lower)[:16]) }

// fingerprint is the rolling hash of the first headLen bytes of b: the sum
// of b[i]*mult^(headLen-1-i).
func (m *Memory) fingerprint(b []byte) uint32 {
	var h uint32
	for _, c := range b[:headLen] {
		h = h*m.mult + uint32(c)
	}
	return h
}

// Empty reports whether m remembers nothing.
func (m *Memory) Empty() bool { return len(m.forms) == 0 && len(m.pending) == 0 }

// Saved returns the entries to persist: those m was built with and those
// of every value learned since.
func (m *Memory) Saved() []Saved { return slices.Clone(m.saved) }

// Learn remembers secrets and their derived forms. It reports whether
// anything new was learned.
func (m *Memory) Learn(secrets []Secret) bool {
	added := false
	for _, sec := range secrets {
		added = m.learn(sec.Value, sec.Rule) || added
	}
	return added
}

func (m *Memory) learn(v, rule string) bool {
	if strings.ContainsAny(v, "\r\n") {
		added := false
		if len(v) <= maxDerive && rememberable(v) {
			added = m.add(v, rule, false)
		}
		for _, l := range strings.Split(v, "\n") {
			l = strings.TrimSpace(l)
			l = strings.TrimSpace(l[NumberPrefix(l):])
			if len(l) >= minLineLearn && !strings.HasPrefix(l, "-----") {
				added = m.add(l, rule, false) || added
			}
		}
		return added
	}
	if !rememberable(v) {
		return false
	}
	added := m.add(v, rule, false)
	if len(v) > maxDerive {
		return added
	}
	for _, w := range wrapWidths {
		if len(v) > w {
			added = m.add(WrapAt(v, w), rule, false) || added
		}
	}
	for _, a := range []int{0, 1, 2} {
		core := base64Core(v, a)
		if len(core) >= minBase64Run {
			added = m.add(core, rule, true) || added
			if u := strings.NewReplacer("+", "-", "/", "_").Replace(core); u != core {
				added = m.add(u, rule, true) || added
			}
		}
	}
	for _, h := range []func() hash.Hash{md5.New, sha1.New, sha256.New, sha512.New} {
		for _, suffix := range []string{"", "\n"} {
			d := h()
			d.Write([]byte(v + suffix))
			added = m.add(hex.EncodeToString(d.Sum(nil)), rule, false) || added
		}
	}
	for _, e := range []string{url.QueryEscape(v), url.PathEscape(v)} {
		if e != v {
			added = m.add(e, rule, false) || added
		}
	}
	return added
}

// rememberable reports whether a value is specific enough to be removed
// wherever it occurs in a session.
func rememberable(v string) bool {
	if len(v) < minRemember || placeholderValue.MatchString(v) {
		return false
	}
	var seen [256]bool
	distinct := 0
	for i := 0; i < len(v); i++ {
		if !seen[v[i]] {
			seen[v[i]] = true
			distinct++
		}
	}
	if distinct < minDistinct {
		return false
	}
	if len(v) >= plainLength {
		return true
	}
	var classes [4]bool
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case 'a' <= c && c <= 'z':
			classes[0] = true
		case 'A' <= c && c <= 'Z':
			classes[1] = true
		case '0' <= c && c <= '9':
			classes[2] = true
		default:
			classes[3] = true
		}
	}
	n := 0
	for _, c := range classes {
		if c {
			n++
		}
	}
	return n >= 2
}

// WrapAt inserts a newline every w bytes of v.
func WrapAt(v string, w int) string {
	var b strings.Builder
	for len(v) > w {
		b.WriteString(v[:w])
		b.WriteByte('\n')
		v = v[w:]
	}
	b.WriteString(v)
	return b.String()
}

// base64Core returns the characters of the standard base64 of a text
// holding v at a byte offset ≡ a (mod 3) that depend on v alone.
func base64Core(v string, a int) string {
	enc := base64.RawStdEncoding.EncodeToString(append(make([]byte, a), v...))
	from := (8*a + 5) / 6
	to := (8*a + 8*len(v)) / 6
	if to <= from {
		return ""
	}
	return enc[from:to]
}

// add remembers one form; false if it was known.
func (m *Memory) add(f, rule string, b64 bool) bool {
	if len(f) < headLen {
		return false // cannot happen: every form is longer (see rememberable)
	}
	lower := string(ASCIILower(f))
	if _, ok := m.forms[lower]; ok {
		return false
	}
	m.forms[lower] = form{Rule: rule, base64: b64}
	m.dirty = true
	h := m.keyedHash([]byte(lower))
	if !m.hashes[h] {
		m.hashes[h] = true
		m.saved = append(m.saved, Saved{N: len(lower), FP: m.fingerprint([]byte(lower)), H: h, Rule: rule, Base64: b64})
	}
	return true
}

func (m *Memory) build() {
	if !m.dirty {
		return
	}
	m.pats = m.pats[:0]
	for f := range m.forms {
		m.pats = append(m.pats, f)
	}
	slices.Sort(m.pats)
	m.maxPat = 0
	for _, p := range m.pats {
		m.maxPat = max(m.maxPat, len(p))
	}
	m.trie = ahocorasick.NewTrieBuilder().AddStrings(m.pats).Build()
	m.dirty = false
}

// String returns s with every remembered form replaced by the marker of
// the rule that found its secret, and the number of places replaced.
func (m *Memory) String(s string) (string, int) {
	if m == nil || s == "" || m.Empty() {
		return s, 0
	}
	var raw, b64 []Span
	if len(m.pending) > 0 {
		raw, b64 = m.matchSaved(s)
	}
	if len(m.forms) > 0 {
		m.build()
		WalkLower(m.trie, s, m.maxPat, func(end, n, pattern int64) bool {
			f := m.forms[m.pats[pattern]]
			sp := Span{int(end - n + 1), int(end + 1), f.Rule}
			if f.base64 {
				b64 = append(b64, sp)
			} else {
				raw = append(raw, sp)
			}
			return true
		})
	}
	raw = append(raw, base64Runs(s, b64)...)
	if len(raw) == 0 {
		return s, 0
	}
	spans := Merge(raw)
	return Apply(s, spans), len(spans)
}

// base64Runs widens each span to the run of base64 characters around it
// (with its padding): the characters at its ends also encode part of the
// secret. Spans inside a run already widened are dropped, so that many
// matches in one long run cost one scan of it.
func base64Runs(s string, spans []Span) []Span {
	if len(spans) == 0 {
		return nil
	}
	slices.SortFunc(spans, func(a, b Span) int { return a.Start - b.Start })
	out := spans[:0]
	covered := -1
	for _, sp := range spans {
		if sp.End <= covered {
			continue
		}
		for sp.Start > 0 && IsBase64Byte(s[sp.Start-1]) {
			sp.Start--
		}
		for sp.End < len(s) && IsBase64Byte(s[sp.End]) {
			sp.End++
		}
		for n := 0; sp.End < len(s) && n < 2 && s[sp.End] == '='; n++ {
			sp.End++
		}
		covered = sp.End
		out = append(out, sp)
	}
	return out
}

// matchSaved finds the forms of the saved entries not matched yet: the
// fingerprint of every headLen bytes of the text, filtered, looked up,
// and confirmed by the keyed hash. A confirmed form is learned, so that
// from then on the trie finds it.
// The text is lowercased a byte at a time, not copied whole.
func (m *Memory) matchSaved(s string) (plain, b64 []Span) {
	if len(s) < headLen {
		return nil, nil
	}
	h := m.fingerprint(ASCIILower(s[:headLen]))
	for i := 0; ; i++ {
		if m.filter[h%filterBits/64]&(1<<(h%64)) != 0 {
			for _, e := range m.pending[h] {
				if i+e.N > len(s) {
					continue
				}
				cand := ASCIILower(s[i : i+e.N])
				if m.keyedHash(cand) != e.H {
					continue
				}
				sp := Span{i, i + e.N, e.Rule}
				if e.Base64 {
					b64 = append(b64, sp)
				} else {
					plain = append(plain, sp)
				}
				m.forms[string(cand)] = form{Rule: e.Rule, base64: e.Base64}
				m.dirty = true
				m.dropPending(e)
				break
			}
		}
		if i+headLen >= len(s) {
			break
		}
		h = (h-uint32(lowerByte(s[i]))*m.pow)*m.mult + uint32(lowerByte(s[i+headLen]))
	}
	return plain, b64
}

func lowerByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func (m *Memory) dropPending(e Saved) {
	es := slices.DeleteFunc(m.pending[e.FP], func(x Saved) bool { return x.H == e.H })
	if len(es) == 0 {
		delete(m.pending, e.FP) // its filter bit stays: a lookup more, no miss
	} else {
		m.pending[e.FP] = es
	}
}

// JSON applies String to the string literals (keys included) of a JSON
// document, keeping it valid; other bytes are kept. Invalid JSON is
// treated as text.
func (m *Memory) JSON(raw []byte) ([]byte, int) {
	if m == nil || len(raw) == 0 || m.Empty() {
		return raw, 0
	}
	return MapStrings(raw, m.String)
}
