package redact

import (
	"cmp"
	"errors"
	"fmt"
	sx "github.com/kbmem/kb/internal/secrets"
	"slices"
	"strings"
	"sync"

	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/regexp"
	"github.com/zricethezav/gitleaks/v8/report"
)

// Rule is a project rule from kb.yaml. Regex uses Go (RE2) syntax. When
// SecretGroup is 0 and the regex has groups, the first non-empty group is
// the secret; without groups the whole match is.
type Rule struct {
	ID          string
	Regex       string
	Keywords    []string // the rule runs only on text holding one of them (case-insensitive); none: always
	SecretGroup int
}

// Options configure a Redactor.
type Options struct {
	Extra    []Rule // user rules, added to gitleaks' defaults and kb's project rules
	Disabled bool   // pass everything through untouched
}

// ErrRule is wrapped by the error New returns for a bad user rule.
var ErrRule = errors.New("bad redaction rule")

// Redactor replaces secrets in text. It is safe for concurrent use.
type Redactor struct {
	eng      *engine // nil when disabled
	disabled bool
}

// defaultConfig parses gitleaks' embedded default configuration once.
// detect.NewDetectorDefaultConfig goes through viper's global instance, so
// it must not run concurrently with itself.
var defaultConfig = sync.OnceValues(func() (config.Config, error) {
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		return config.Config{}, fmt.Errorf("redact: load gitleaks default rules: %w", err)
	}
	return d.Config, nil
})

// New builds a Redactor from gitleaks' default rules, kb's project rules and
// opts.Extra. A user rule that does not compile is an error naming it.
func New(opts Options) (*Redactor, error) {
	if opts.Disabled {
		return &Redactor{disabled: true}, nil
	}
	base, err := defaultConfig()
	if err != nil {
		return nil, err
	}
	// Copy the maps: the parsed default config is shared between Redactors.
	cfg := base
	cfg.Rules = make(map[string]config.Rule, len(base.Rules)+len(opts.Extra)+8)
	for id, r := range base.Rules {
		cfg.Rules[id] = r
	}
	cfg.Keywords = make(map[string]struct{}, len(base.Keywords)+16)
	for k := range base.Keywords {
		cfg.Keywords[k] = struct{}{}
	}
	cfg.OrderedRules = slices.Clone(base.OrderedRules)

	user := map[string]bool{}
	add := func(r config.Rule) {
		cfg.Rules[r.RuleID] = r
		cfg.OrderedRules = append(cfg.OrderedRules, r.RuleID)
		for _, k := range r.Keywords {
			cfg.Keywords[k] = struct{}{}
		}
	}
	project, err := projectRules()
	if err != nil {
		return nil, err
	}
	for _, r := range project {
		add(r)
	}
	for i, u := range opts.Extra {
		r, err := userRule(u)
		if err != nil {
			return nil, fmt.Errorf("redact: extra rule %d (%q): %w", i+1, u.ID, err)
		}
		if _, dup := cfg.Rules[r.RuleID]; dup {
			return nil, fmt.Errorf("redact: extra rule %d (%q): %w: id already used by a built-in rule", i+1, u.ID, ErrRule)
		}
		add(r)
		user[r.RuleID] = true
	}
	slices.Sort(cfg.OrderedRules)
	return &Redactor{eng: buildEngine(cfg, user)}, nil
}

func userRule(u Rule) (config.Rule, error) {
	id := strings.TrimSpace(u.ID)
	if id == "" {
		return config.Rule{}, fmt.Errorf("%w: empty id", ErrRule)
	}
	if strings.ContainsAny(id, "[]\n\r") {
		return config.Rule{}, fmt.Errorf("%w: id must not contain brackets or newlines", ErrRule)
	}
	if u.Regex == "" {
		return config.Rule{}, fmt.Errorf("%w: empty regex", ErrRule)
	}
	re, err := compile(u.Regex)
	if err != nil {
		return config.Rule{}, fmt.Errorf("%w: regex: %v", ErrRule, err)
	}
	if u.SecretGroup < 0 || u.SecretGroup > re.NumSubexp() {
		return config.Rule{}, fmt.Errorf("%w: secret group %d, regex has %d groups", ErrRule, u.SecretGroup, re.NumSubexp())
	}
	if re.MatchString("") {
		return config.Rule{}, fmt.Errorf("%w: regex matches the empty string", ErrRule)
	}
	r := config.Rule{
		RuleID:      id,
		Description: "kb.yaml rule " + id,
		Regex:       re,
		SecretGroup: u.SecretGroup,
		Tags:        []string{},
		Keywords:    []string{},
	}
	for _, k := range u.Keywords {
		if k = strings.ToLower(strings.TrimSpace(k)); k != "" {
			r.Keywords = append(r.Keywords, k)
		}
	}
	if err := r.Validate(); err != nil {
		return config.Rule{}, fmt.Errorf("%w: %v", ErrRule, err)
	}
	return r, nil
}

// compile compiles a pattern with gitleaks' regexp flavour, turning the
// panic of MustCompile into an error.
func compile(pattern string) (re *regexp.Regexp, err error) {
	defer func() {
		if p := recover(); p != nil {
			re, err = nil, fmt.Errorf("%v", p)
		}
	}()
	return regexp.MustCompile(pattern), nil
}

// String returns s with every secret replaced by [REDACTED:<rule-id>]
// wherever it occurs, and one Finding per rule and line redacted, ordered by
// line then rule.
func (r *Redactor) String(s string) (string, []Finding) {
	out, fs, _ := r.Redact(s)
	return out, fs
}

// Redact is String that also returns the secret values it found (those
// inside base64 text and keys cut by line breaks included, whole), for a
// Memory to learn.
func (r *Redactor) Redact(s string) (string, []Finding, []Secret) {
	if r == nil || r.disabled || s == "" {
		return s, nil, nil
	}
	secrets := r.detect(s)
	if len(secrets) == 0 {
		return s, nil, nil
	}
	found := exported(secrets)
	spans := locate(s, secrets)
	if len(spans) == 0 {
		return s, nil, found
	}
	return sx.Apply(s, spans), findings(spans, newLiner(s).line), found
}

// exported lists the values of secrets for a Memory.
func exported(secrets []secret) []Secret {
	out := make([]Secret, 0, len(secrets))
	for _, sec := range secrets {
		out = append(out, Secret{Value: sec.value, Rule: sec.Rule})
	}
	return out
}

// secret is one distinct secret the detector reported.
type secret struct {
	value   string   // the text to remove
	Rule    string   // rule that names it in the marker
	matches []string // the rule's full matches, the context a short secret is removed in
	at      []span   // places to remove that do not hold value as such (a key cut by a line break)
	learn   bool     // only for a Memory: value does not occur in the text (it was base64-encoded there)
}

// minGlobal is the length from which a secret is removed wherever it occurs.
// Shorter ones (a four-letter password in a URL) are removed only inside
// the text their rule matched, so that "pass" does not eat "password".
const minGlobal = 8

// detect runs gitleaks on s, on the keys cut by line breaks in s (see
// wrapped) and on the text encoded in base64 runs of s (see decoded), and
// folds the findings into distinct secrets, in a deterministic order.
// breaks, sorted, are the offsets of line breaks that separate values
// (JSON members), not lines of one text: no key is cut there.
func (r *Redactor) detect(s string, breaks ...int) []secret {
	byValue := r.eng.fold(r.eng.find(s), nil)
	byValue = r.eng.wrapped(s, byValue, breaks)
	byValue = r.eng.decoded(s, byValue)
	if len(byValue) == 0 {
		return nil
	}
	out := make([]secret, 0, len(byValue))
	for _, sec := range byValue {
		slices.Sort(sec.matches)
		out = append(out, *sec)
	}
	slices.SortFunc(out, func(a, b secret) int { return strings.Compare(a.value, b.value) })
	return out
}

// fold adds gitleaks findings to byValue (created if nil and needed), one
// secret per distinct value, named by the best rule that found it.
func (e *engine) fold(fs []report.Finding, byValue map[string]*secret) map[string]*secret {
	if byValue == nil && len(fs) > 0 {
		byValue = make(map[string]*secret, len(fs))
	}
	for _, f := range fs {
		v := f.Secret
		if v == "" {
			v = f.Match
		}
		v = strings.Trim(v, "\r\n")
		if strings.HasPrefix(f.RuleID, cliPasswordPrefix) {
			f.RuleID = cliPasswordRule
		}
		for _, v := range splitSecret(f.RuleID, v) {
			if strings.TrimSpace(v) == "" {
				continue
			}
			sec, ok := byValue[v]
			if !ok {
				sec = &secret{value: v, Rule: f.RuleID}
				byValue[v] = sec
			} else if sx.Better(f.RuleID, sec.Rule) {
				sec.Rule = f.RuleID
			}
			if m := strings.Trim(f.Match, "\r\n"); m != "" && !slices.Contains(sec.matches, m) {
				sec.matches = append(sec.matches, m)
			}
		}
	}
	return byValue
}

// splitSecret turns what a rule captured into the secrets to remove: the
// values of a cookie list, a prose password without the sentence's final
// punctuation. Other rules' captures are one secret.
func splitSecret(rule, v string) []string {
	switch rule {
	case "kb-cookie":
		var out []string
		for _, pair := range strings.Split(v, ";") {
			name, val, ok := strings.Cut(strings.TrimSpace(pair), "=")
			if !ok || len(val) < minCookie || cookieAttr[strings.ToLower(name)] || placeholderValue().MatchString(val) {
				continue
			}
			out = append(out, val)
		}
		return out
	case "kb-prose-password":
		return []string{strings.TrimRight(v, ".!?:)")}
	}
	return []string{v}
}

// minCookie is the length from which a cookie value is taken for a
// secret: session ids and tokens are long, preferences ("lang=en") short.
const minCookie = 8

// cookieAttr are the attributes of Set-Cookie, which are not cookies.
var cookieAttr = map[string]bool{"path": true, "domain": true, "expires": true, "max-age": true, "samesite": true,
	"secure": true, "httponly": true, "priority": true, "partitioned": true, "version": true, "comment": true}

// locate finds every occurrence of the secrets in s and merges overlapping
// ones. A merged span is named after its longest part.
func locate(s string, secrets []secret) []span {
	var raw []span
	for _, sec := range secrets {
		raw = append(raw, sec.at...)
		if sec.learn {
			continue
		}
		if len(sec.value) >= minGlobal {
			raw = appendAll(raw, s, sec.value, 0, sec.Rule)
			continue
		}
		for _, m := range sec.matches {
			i := strings.LastIndex(m, sec.value)
			if i < 0 {
				continue
			}
			for off := 0; ; {
				j := strings.Index(s[off:], m)
				if j < 0 {
					break
				}
				at := off + j + i
				raw = append(raw, span{Start: at, End: at + len(sec.value), Rule: sec.Rule})
				off += j + len(m)
			}
		}
		if s == sec.value && len(raw) == 0 {
			raw = append(raw, span{Start: 0, End: len(s), Rule: sec.Rule})
		}
	}
	return sx.Merge(raw)
}

// appendAll appends a span for each occurrence of v in s.
func appendAll(dst []span, s, v string, base int, rule string) []span {
	for off := 0; ; {
		j := strings.Index(s[off:], v)
		if j < 0 {
			return dst
		}
		dst = append(dst, span{Start: base + off + j, End: base + off + j + len(v), Rule: rule})
		off += j + len(v)
	}
}

// findings reports one Finding per rule and first line, from merged spans.
func findings(spans []span, line func(off int) int) []Finding {
	type key struct {
		Rule string
		line int
	}
	seen := make(map[key]bool, len(spans))
	var out []Finding
	for _, sp := range spans {
		k := key{sp.Rule, line(sp.Start)}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, Finding{Rule: k.Rule, Line: k.line})
	}
	slices.SortFunc(out, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), strings.Compare(a.Rule, b.Rule))
	})
	return out
}

// liner turns byte offsets of s into 1-based line numbers. Offsets must be
// asked in increasing order.
type liner struct {
	s        string
	off, num int
}

func newLiner(s string) *liner { return &liner{s: s, num: 1} }

func (l *liner) line(off int) int {
	if off > l.off {
		l.num += strings.Count(l.s[l.off:off], "\n")
		l.off = off
	}
	return l.num
}
