package redact

import (
	sx "github.com/kbmem/kb/internal/secrets"
	"github.com/kbmem/kb/internal/textutil"
	"slices"
	"strings"
	"unicode/utf8"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/report"
)

// Speed. gitleaks prefilters rules by keyword but then runs a rule's regex
// over the whole text as soon as its keyword occurs anywhere in it. With
// Go's regexp the ~200 rules shaped like `[\w.-]{0,50}?keyword ... = value`
// run at well under 1 MB/s, and keywords such as "key", "token" or "ey"
// occur everywhere in transcripts. So the Redactor drives gitleaks rule by
// rule: one aho-corasick pass finds every keyword occurrence, each
// occurrence opens a small window of text around it (sized by the shape of
// the rule), and gitleaks runs the rule (regex, secret group, entropy,
// allowlists: all its own logic) on the merged windows only. Assignment
// shaped rules also need an assignment operator right after the keyword
// before their window is opened; a keyword in prose or in a call does not
// cost a regex run. Rules without keywords, and user rules, run on the
// whole text as gitleaks would.

// windowKind says how much text around a keyword occurrence a rule needs.
type windowKind int

const (
	winToken   windowKind = iota // a token on one line: the keyword's line, capped around it
	winAssign                    // name = value: needs an operator after the keyword, one line
	winFlag                      // --name-with-keyword value: the keyword must sit in a flag, one line
	winMember                    // "name-with-keyword": "value": a quoted name and an operator must follow the keyword
	winProse                     // "password is ...": the keyword starts a password word, the match follows it
	winCommand                   // a command or flag starts at most commandBefore bytes before the keyword
	winLong                      // may span lines (key blocks, curl commands): 32 KiB onward
	winWhole                     // the whole text (user rules)
)

// Window sizes, in bytes around the keyword occurrence.
const (
	tokenBefore   = 512
	tokenAfter    = 4096
	assignBefore  = 256
	assignAfter   = 4096
	tightBefore   = 64 // gitleaks' generic shape allows 50 name bytes before the keyword
	tightAfter    = 512
	longBefore    = 1024
	longAfter     = 32 << 10
	operatorScan  = 80   // how far after a keyword an assignment operator may be
	commandBefore = 32   // how far before its keyword a command-line rule's match may start
	commandAfter  = 1024 // the rest of the command line
	proseAfter    = 400  // "password for the staging db is <128 bytes>"
	memberBefore  = 48   // "\"db_password": a quote and a name part before the keyword
	memberAfter   = 320  // the rest of the name, the operator and a value of up to 256 bytes
	proseVerbScan = 140  // "password" + "s" + " for " + three words of 40 + " is "
	shortKeyword  = 3    // a token rule's keyword this short ("ey", "sk") must sit in a long token
	minTokenRun   = 16
)

// genericShape is the part of gitleaks' generated assignment-style rules
// that follows the keyword: an optional name tail, quotes, an operator.
const genericShape = `(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)`

// runner is one rule with a gitleaks detector that holds only that rule.
type runner struct {
	id      string
	det     *detect.Detector
	kind    windowKind
	word    bool // the regex starts with \b or with its keyword: a short keyword must start a word
	tight   bool // gitleaks' generic assignment shape: the match lies within a few hundred bytes of the keyword
	project bool // one of kb's own rules
}

// engine finds secrets with a set of rules. It is read-only after build.
type engine struct {
	runners    []runner
	trie       *ahocorasick.Trie
	keywords   []string // by trie pattern index
	maxKeyword int      // the longest keyword's length
	byKeyword  [][]int  // trie pattern index -> runner indexes
	always     []int    // runners without keywords
}

func buildEngine(cfg config.Config, user map[string]bool) *engine {
	e := &engine{}
	kwIndex := map[string]int{}
	for _, id := range cfg.OrderedRules {
		r, ok := cfg.Rules[id]
		if !ok || r.Regex == nil || r.Path != nil {
			continue // rules tied to a file path never fire on transcript text
		}
		one := cfg
		one.Rules = map[string]config.Rule{id: r}
		one.OrderedRules = []string{id}
		one.Keywords = map[string]struct{}{}
		for _, k := range r.Keywords {
			one.Keywords[k] = struct{}{}
		}
		det := detect.NewDetector(one)
		det.IgnoreGitleaksAllow = true // a transcript must not opt out of redaction
		det.MaxDecodeDepth = 0
		ru := runner{id: id, det: det, kind: kindOf(r, user[id]), word: startsWord(r), tight: strings.Contains(r.Regex.String(), genericShape), project: strings.HasPrefix(id, projectPrefix)}
		idx := len(e.runners)
		e.runners = append(e.runners, ru)
		if len(r.Keywords) == 0 {
			e.always = append(e.always, idx)
			continue
		}
		for _, k := range r.Keywords {
			k = strings.ToLower(k)
			if k == "" {
				continue
			}
			p, ok := kwIndex[k]
			if !ok {
				p = len(e.keywords)
				kwIndex[k] = p
				e.keywords = append(e.keywords, k)
				e.byKeyword = append(e.byKeyword, nil)
			}
			if !slices.Contains(e.byKeyword[p], idx) {
				e.byKeyword[p] = append(e.byKeyword[p], idx)
			}
		}
	}
	e.trie = ahocorasick.NewTrieBuilder().AddStrings(e.keywords).Build()
	for _, k := range e.keywords {
		e.maxKeyword = max(e.maxKeyword, len(k))
	}
	return e
}

// kindOf sizes the window a rule needs from the shape of its regex.
func kindOf(r config.Rule, user bool) windowKind {
	src := r.Regex.String()
	if k, ok := projectKinds[r.RuleID]; ok {
		return k
	}
	if strings.HasPrefix(r.RuleID, cliPasswordPrefix) {
		return winCommand
	}
	switch {
	case user:
		return winWhole
	case strings.Contains(src, genericShape):
		return winAssign
	case strings.Contains(src, `[\s\S`) || strings.Contains(src, `(?s`) || strings.Contains(src, `\n`) || strings.Contains(src, `\r`):
		return winLong
	}
	return winToken
}

// projectKinds sizes the windows of kb's own rules, whose regexes say
// little about it (a class such as [^\r\n] does not make a rule span lines).
var projectKinds = map[string]windowKind{
	"kb-env-secret":     winAssign,
	"kb-config-secret":  winAssign,
	"kb-json-secret":    winMember,
	"kb-flag-secret":    winFlag,
	"kb-cookie":         winToken,
	"kb-prose-password": winProse,
	"kb-pgpass":         winLong, // a heredoc names ~/.pgpass lines before them
}

// tokenKeyword reports whether kw is made of token characters, as the
// short keywords of gitleaks' token rules are ("ey", "sk", "s.").
func (ru runner) tokenKeyword(kw string) bool {
	for i := 0; i < len(kw); i++ {
		if !isTokenByte(kw[i]) {
			return false
		}
	}
	return true
}

// startsWord reports whether every match of r starts a word: its regex
// starts with \b, or with one of its keywords (twilio's "SK...").
func startsWord(r config.Rule) bool {
	src := r.Regex.String()
	if strings.HasPrefix(src, `\b`) {
		return true
	}
	for _, k := range r.Keywords {
		if k != "" && strings.HasPrefix(strings.ToLower(src), k) && textutil.WordByte(k[0]) {
			return true
		}
	}
	return false
}

// window is a byte range of the text a runner must see.
type window struct{ Start, End int }

// find returns gitleaks' findings for s.
func (e *engine) find(s string) []report.Finding {
	wins := make(map[int][]window)
	for _, idx := range e.always {
		wins[idx] = []window{{0, len(s)}}
	}
	sx.WalkLower(e.trie, s, e.maxKeyword, func(end, n, pattern int64) bool {
		p, q := int(end-n+1), int(end+1) // keyword at s[p:q]
		for _, idx := range e.byKeyword[pattern] {
			w, ok := e.runners[idx].window(s, p, q)
			if !ok {
				continue
			}
			ws := wins[idx]
			if l := len(ws); l > 0 && w.Start <= ws[l-1].End {
				ws[l-1].End = max(ws[l-1].End, w.End)
				ws[l-1].Start = min(ws[l-1].Start, w.Start)
				continue
			}
			wins[idx] = append(ws, w)
		}
		return true
	})
	var out []report.Finding
	for idx, ws := range wins {
		ru := e.runners[idx]
		for _, w := range mergeWindows(ws) {
			text := s[w.Start:w.End]
			if ru.kind == winToken && !ru.project {
				text = looseEnds(s, w)
			}
			out = append(out, ru.det.DetectString(text)...)
		}
	}
	return out
}

// window returns the text runner ru must see for the keyword at s[p:q],
// or false when the occurrence cannot be part of a match.
func (ru runner) window(s string, p, q int) (window, bool) {
	switch ru.kind {
	case winWhole:
		return window{0, len(s)}, true
	case winAssign:
		op := operatorAfter(s, q)
		if op < 0 {
			return window{}, false
		}
		if ru.tight {
			if !valueAfter(s, op) {
				return window{}, false
			}
			return window{lineStart(s, p, tightBefore), lineEnd(s, q, tightAfter)}, true
		}
		return window{lineStart(s, p, assignBefore), lineEnd(s, q, assignAfter)}, true
	case winLong:
		return window{lineStart(s, p, longBefore), runeEnd(s, q+longAfter)}, true
	case winFlag:
		if !inFlag(s, p) {
			return window{}, false
		}
		return window{lineStart(s, p, tokenBefore), lineEnd(s, q, tokenAfter)}, true
	case winMember:
		if !quotedName(s, q) {
			return window{}, false
		}
		return window{lineStart(s, p, memberBefore), lineEnd(s, q, memberAfter)}, true
	case winProse:
		if p > 0 && textutil.WordByte(s[p-1]) || !passwordWord(s[p:]) || !proseVerb(s, q) {
			return window{}, false
		}
		return window{runeStart(s, max(0, p-1)), lineEnd(s, q, proseAfter)}, true
	case winCommand:
		return window{lineStart(s, p, commandBefore), lineEnd(s, q, commandAfter)}, true
	}
	if q-p <= shortKeyword && ru.tokenKeyword(s[p:q]) {
		if ru.word && p > 0 && textutil.WordByte(s[p-1]) || tokenRun(s, p, q) < minTokenRun {
			return window{}, false
		}
	}
	return window{lineStart(s, p, tokenBefore), lineEnd(s, q, tokenAfter)}, true
}

// tokenRun returns the length of the run of token characters around
// s[p:q], counting at most minTokenRun on each side. Every gitleaks rule keyed by a short keyword ("ey" for JWTs,
// "sk" for Twilio, "s." for Vault...) matches a long token that holds the
// keyword, so a short keyword inside an ordinary word ("they", "ask") does
// not open a window. When the rule's regex starts with \b, the keyword
// must also start a word, which keeps "ey" inside base64 blobs out.
func tokenRun(s string, p, q int) int {
	i, j := p, q
	for i > 0 && i > p-minTokenRun && isTokenByte(s[i-1]) {
		i--
	}
	for j < len(s) && j < q+minTokenRun && isTokenByte(s[j]) {
		j++
	}
	return j - i
}

func isTokenByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '_' || c == '-' || c == '+' || c == '/' || c == '=' || c == '.' || c == '~'
}

// quotedName reports whether the name characters after s[:q] end in a
// quote (escaped or not) followed by ':' or "=>" and a quoted value: a
// string member of inline JSON, a Python dict or a Ruby hash.
func quotedName(s string, q int) bool {
	i := q
	for i < len(s) && i < q+operatorScan && (textutil.WordByte(s[i]) || s[i] == '.' || s[i] == '-') {
		i++
	}
	if i < len(s) && s[i] == '\\' {
		i++
	}
	if i >= len(s) || s[i] != '"' && s[i] != '\'' {
		return false
	}
	for i++; i < len(s) && (s[i] == ' ' || s[i] == '\t'); i++ {
	}
	switch {
	case i < len(s) && s[i] == ':':
		i++
	case i+1 < len(s) && s[i] == '=' && s[i+1] == '>':
		i += 2
	default:
		return false
	}
	// The value is a string: "input_tokens": 12 is not a secret.
	for ; i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\\'); i++ {
	}
	return i < len(s) && (s[i] == '"' || s[i] == '\'')
}

// passwordWord reports whether s starts with a word naming a password
// (password, passwd, passphrase, passcode, pwd), in any case.
func passwordWord(s string) bool {
	for _, w := range []string{"password", "passwd", "passphrase", "passcode", "pwd"} {
		if len(s) >= len(w) && strings.EqualFold(s[:len(w)], w) {
			return true
		}
	}
	return false
}

// proseVerb reports whether the line after s[:q] says what the password
// is within proseVerbScan bytes: ':', '=', or one of the verbs of
// kb-prose-password.
func proseVerb(s string, q int) bool {
	end := min(len(s), q+proseVerbScan)
	if i := strings.IndexByte(s[q:end], '\n'); i >= 0 {
		end = q + i
	}
	t := s[q:end]
	if strings.ContainsAny(t, ":=") {
		return true
	}
	for _, v := range []string{" is ", " was ", " be ", " remains ", " IS ", " Is ", " WAS ", " Was "} {
		if strings.Contains(t, v) {
			return true
		}
	}
	return false
}

// inFlag reports whether the keyword at s[p] is part of a flag name: the
// name characters before it start with '-' or "--" after a space, a quote,
// '=', '(' or the start of the text.
func inFlag(s string, p int) bool {
	i := p
	for i > 0 && p-i < 64 && (textutil.WordByte(s[i-1]) || s[i-1] == '-') {
		i--
	}
	if i == p || s[i] != '-' {
		return false
	}
	return i == 0 || strings.IndexByte(" \t'\"=(\n", s[i-1]) >= 0
}

// operatorAfter returns the offset of the assignment operator that follows
// s[q:] after at most operatorScan bytes of name characters, spaces and
// quotes, or -1: the necessary condition of every assignment-shaped rule.
func operatorAfter(s string, q int) int {
	for i := q; i < len(s) && i < q+operatorScan; i++ {
		switch c := s[i]; {
		case c == '=' || c == ':' || c == '>' || c == '|' || c == ',' || c == '?':
			return i
		case c == '_' || c == '.' || c == '-' || c == ' ' || c == '\t' || c == '\'' || c == '"' || c == '\r' || c == '\n' || c == '\\' ||
			'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9':
		default:
			return -1
		}
	}
	return -1
}

// minValue is the shortest value of gitleaks' generic-shape rules (the
// shortest is 8 characters, before any separator such as ':').
const minValue = 8

// valueAfter reports whether a value of at least minValue characters
// follows the operator at s[op]: after the rest of the operator (":=",
// "=>", "||"...) and up to five quotes, spaces or '=', as gitleaks' generic
// shape allows.
func valueAfter(s string, op int) bool {
	i := op + 1
	for n := 0; i < len(s) && n < 3 && strings.IndexByte(":=>|", s[i]) >= 0; n++ {
		i++
	}
	for n := 0; i < len(s) && n < 5 && strings.IndexByte("`'\" \t\r\n=", s[i]) >= 0; n++ {
		i++
	}
	n := 0
	for ; i < len(s) && n < minValue; i++ {
		c := s[i]
		if !textutil.WordByte(c) && strings.IndexByte(".=+/%:~-", c) < 0 {
			break
		}
		n++
	}
	return n >= minValue
}

// lineStart returns the start of the line holding s[p], or p-limit when
// the line starts further back (moved onto a rune boundary).
func lineStart(s string, p, limit int) int {
	lo := max(0, p-limit)
	if i := strings.LastIndexByte(s[lo:p], '\n'); i >= 0 {
		return lo + i + 1
	}
	return runeStart(s, lo)
}

// lineEnd returns the end of the line holding s[q-1] (before its newline),
// or q+limit when the line ends further on.
func lineEnd(s string, q, limit int) int {
	hi := min(len(s), q+limit)
	if q >= hi {
		return hi
	}
	if i := strings.IndexByte(s[q:hi], '\n'); i >= 0 {
		return q + i
	}
	return runeEnd(s, hi)
}

func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

func runeEnd(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}

func mergeWindows(ws []window) []window {
	slices.SortFunc(ws, func(a, b window) int { return a.Start - b.Start })
	out := ws[:0]
	for _, w := range ws {
		if l := len(out); l > 0 && w.Start <= out[l-1].End {
			out[l-1].End = max(out[l-1].End, w.End)
			continue
		}
		out = append(out, w)
	}
	return out
}

// looseEnds returns the text of window w of s with sentence punctuation
// that ends a token (a ',' '.' ':' ')' ... followed by a space or the end)
// turned into a space. gitleaks' token rules end with a terminator class
// of quotes, spaces and ';' only, so "my key is AIza...xyz, can you" or
// "(sk-ant-...AA)." would otherwise not match. The text keeps its length;
// the secrets found in it are looked up by value in the original.
func looseEnds(s string, w window) string {
	var b []byte
	for i := w.Start; i < w.End; i++ {
		if strings.IndexByte(",.:)]}>!?", s[i]) < 0 || i == w.Start || !textutil.WordByte(s[i-1]) {
			continue
		}
		if i+1 < len(s) && !isSpaceByte(s[i+1]) && strings.IndexByte(",.:)]}>!?\"'`", s[i+1]) < 0 {
			continue
		}
		if b == nil {
			b = []byte(s[w.Start:w.End])
		}
		b[i-w.Start] = ' '
	}
	if b == nil {
		return s[w.Start:w.End]
	}
	return string(b)
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
