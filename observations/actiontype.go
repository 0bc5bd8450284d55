package observations

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/bmatcuk/doublestar/v4"
	"github.com/kbmem/kb/internal/textutil"
	"hash/fnv"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/kbmem/kb/internal/config"
)

// Action is something an agent did or is about to do, in any subset of its
// forms: a tool call (Tool+Input), a shell command, the paths it writes, the
// content it writes, or a free-text description.
type Action struct {
	Tool    string
	Input   json.RawMessage
	Command string
	Paths   []string
	Content string
	Text    string
}

// Rule adds matchers for one action type. Every matcher is an alternative:
// an action has the type when any of them matches.
//
// Commands are argv patterns: space-separated tokens, alternatives within a
// token separated by "|". The first token matches the command name (base name
// of argv[0] after wrappers such as sudo, env and time are stripped). Plain
// word tokens must appear, in order, among the positional arguments. Tokens
// with a flag alternative ("-f|--force") or a glob ("*prod*") match any
// argument: a single-letter flag also matches inside combined short flags
// ("-f" matches "-rf"), a long flag also matches "--flag=value". A token "$"
// requires that no positional argument follows the matched words. A token
// "!" and alternatives ("!-S|--staged", "!plan|show") requires that no
// argument matches them: `git restore !-S|--staged` is a restore of the
// working tree, not an unstaging, and `helm !template|lint *prod*` a change
// of production, not a look at it.
//
// Paths are globs over written paths ("*.pb.go", "**/gen/**", ".env.*"); a
// glob without "/" matches the base name. Content items are regular
// expressions over written content (Go RE2 syntax). Words are free-text cues:
// space-separated stems, each token with "|" alternatives, matched within a
// small window in any order after light stemming ("drop|remove column"
// matches "removes a column" and "column removal").
type Rule struct {
	Type     string   `json:"type" yaml:"type"`
	Desc     string   `json:"desc,omitempty" yaml:"desc,omitempty"`
	Commands []string `json:"commands,omitempty" yaml:"commands,omitempty"`
	Paths    []string `json:"paths,omitempty" yaml:"paths,omitempty"`
	Content  []string `json:"content,omitempty" yaml:"content,omitempty"`
	Words    []string `json:"words,omitempty" yaml:"words,omitempty"`

	// code matches written content in Go, for a built-in type whose
	// expression would cost a hook too much (floatMoney); codeName names
	// it, and its revision, in Key.
	code     func(string) bool
	codeName string
}

// ErrBadRule reports a taxonomy rule that does not compile.
var ErrBadRule = errors.New("bad action-type rule")

// Taxonomy classifies actions into action types ("domain:verb[:object]"):
// the built-in rules plus user extensions.
type Taxonomy struct {
	rules   []Rule // the extra rules, for Key
	keyOnce sync.Once
	key     string
	order   map[string]int
	desc    map[string]string
	ops     map[string]bool // types with a command or path matcher
	paths   []pathPattern
	content []contentPattern
	// The command patterns, each with the names it starts with, compiled
	// for a name on its first use (commandsOf): a hook classifies one
	// command, and finds its few dozen patterns by a scan, not through a
	// map of every name built first.
	cmdSrc    []cmdSource
	cmdMu     sync.Mutex
	cmdsFor   map[string][]cmdPattern
	knownOnce sync.Once
	known     map[string]bool // command names some pattern starts with (knownNames)
	// The word cues are stemmed on first use (wordPatterns): stemming
	// them is most of building a taxonomy, and a hook that classifies a
	// tool call and no text never needs them.
	wordCues  []wordCue
	wordsOnce sync.Once
	words     []wordPattern
	// fewWords' cache: word rules tokenized one by one.
	fewMu   sync.Mutex
	fewToks [][][]string
	fewDone []bool
}

type wordCue struct{ typ, cue string }

// cmdSource is a command pattern as written, with its first field: the
// names it starts with, "|" between alternatives.
type cmdSource struct{ typ, pat, names string }

type token struct {
	alts     []string
	anywhere bool // matches any argument (flags, globs)
	end      bool // "$"
	not      bool // "!...": no argument may match
}

type cmdPattern struct {
	typ    string
	name   []string
	tokens []token
	score  int
}

// Path and content patterns are compiled on first use: a hook classifies
// one action, and most actions have no path or no content to match.
type pathPattern struct {
	typ  string
	glob string // lower case, without a leading "/" (globMatch)
}

// requiredEntry is a built-in content pattern and its required literals
// (required_builtin.go).
type requiredEntry struct {
	src  string
	reqs [][]string
	// prefixes and lead are the pattern's anchors (anchorsOf), nil
	// prefixes for none.
	prefixes []string
	lead     int
}

type contentPattern struct {
	typ string
	re  *textutil.LazyRE
	// reqs are sets of literals every match holds one of each of
	// (textutil.RequiredLiterals;
	// of the built-in patterns, builtinRequired): content without them
	// is not matched, and the pattern not compiled.
	reqs [][]string
	fn   func(string) bool // a built-in rule's code, instead of re
	anch *anchors          // where a match may start (matchAround); nil with fn
}

type wordPattern struct {
	typ    string
	tokens [][]string // stems, alternatives
}

var typeRE = textutil.Lazy(`^[a-z0-9][a-z0-9-]*:[a-z0-9][a-z0-9-]*(:[a-z0-9][a-z0-9.-]*)?$`)

// IsActionType reports whether s is written as an action type:
// domain:verb or domain:verb:detail, lower case ("git:push-force").
func IsActionType(s string) bool { return typeRE.MatchString(s) }

// NewTaxonomy compiles the built-in rules plus extra (for example from
// kb.yaml). An extra rule with the type of a built-in one adds matchers to
// it. A rule that does not compile is an ErrBadRule naming the rule.
func NewTaxonomy(extra []Rule) (*Taxonomy, error) {
	// Sized once: the built-in table is a few hundred rules, and a hook
	// builds it on every call.
	n, cmds, paths, content, words := len(builtinRules)+len(extra), 0, 0, 0, 0
	for _, rules := range [][]Rule{builtinRules, extra} {
		for _, r := range rules {
			cmds, paths, content, words = cmds+len(r.Commands), paths+len(r.Paths), content+len(r.Content), words+len(r.Words)
		}
	}
	t := &Taxonomy{order: make(map[string]int, n), desc: make(map[string]string, n), ops: make(map[string]bool, n),
		cmdSrc: make([]cmdSource, 0, cmds), paths: make([]pathPattern, 0, paths),
		content: make([]contentPattern, 0, content), wordCues: make([]wordCue, 0, words)}
	k := 0
	for i, r := range builtinRules {
		var lits []requiredEntry
		if k+len(r.Content) <= len(builtinRequired) {
			lits = builtinRequired[k : k+len(r.Content)]
		}
		k += len(r.Content)
		if err := t.add(r, false, lits); err != nil {
			return nil, fmt.Errorf("built-in rule %d: %w", i, err)
		}
	}
	t.rules = extra
	for i, r := range extra {
		if err := t.add(r, true, nil); err != nil {
			return nil, fmt.Errorf("taxonomy rule %d (%q): %w", i+1, r.Type, err)
		}
	}
	return t, nil
}

// Key identifies what the taxonomy classifies by: a hash of its rules,
// built-in and extra. Two taxonomies with the same key classify alike, so
// what one classified (the activation index's trigger types) holds for
// the other.
// classifierRevision names the code that applies the rules: what is
// compiled with a taxonomy (the activation index's trigger types) is
// stale when it changes, as when a rule does.
const classifierRevision = "tool-stems-2"

func (t *Taxonomy) Key() string {
	t.keyOnce.Do(func() {
		h := fnv.New64a()
		// Every string of every rule, each with its length: what %v of
		// the rules told apart, without fmt's reflection (a hook asks for
		// the key once).
		put := func(f ...string) {
			var n [binary.MaxVarintLen64]byte
			for _, s := range f {
				h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
				h.Write([]byte(s))
			}
		}
		put(classifierRevision)
		for i, rules := range [][]Rule{builtinRules, t.rules} {
			put(strconv.Itoa(i), strconv.Itoa(len(rules)))
			for _, r := range rules {
				put(r.Type, r.Desc, r.codeName)
				for _, l := range [][]string{r.Commands, r.Paths, r.Content, r.Words} {
					put(strconv.Itoa(len(l)))
					put(l...)
				}
			}
		}
		t.key = strconv.FormatUint(h.Sum64(), 36)
	})
	return t.key
}

// defaultTaxonomy compiles the built-in rules on first use, not at program
// start: every kb process pays package initialization, and most (search,
// show, version) never classify anything.
var defaultTaxonomy = sync.OnceValue(func() *Taxonomy {
	t, err := NewTaxonomy(nil)
	if err != nil {
		panic(err) // the built-in table is a compile-time constant; tests cover it
	}
	return t
})

// Default returns the taxonomy of built-in rules.
func Default() *Taxonomy { return defaultTaxonomy() }

// add adds the matchers of r; check checks its type and compiles its
// patterns now, to report a bad one (the built-in ones are checked by the
// tests). builtin are the required literals of a built-in rule's content
// patterns, from required_builtin.go; nil: computed here.
func (t *Taxonomy) add(r Rule, check bool, builtin []requiredEntry) error {
	if check && !typeRE.MatchString(r.Type) {
		return fmt.Errorf("%w: type %q is not domain:verb[:object] in lower case", ErrBadRule, r.Type)
	}
	if _, ok := t.order[r.Type]; !ok {
		t.order[r.Type] = len(t.order)
	}
	if r.Desc != "" {
		t.desc[r.Type] = r.Desc
	}
	if len(r.Commands) > 0 || len(r.Paths) > 0 {
		t.ops[r.Type] = true
	}
	for _, c := range r.Commands {
		if check {
			if _, err := compileCommand(r.Type, c); err != nil {
				return err
			}
		}
		first := strings.TrimSpace(c) // the name, as compileCommand's first field
		if i := strings.IndexFunc(first, unicode.IsSpace); i >= 0 {
			first = first[:i]
		}
		t.cmdSrc = append(t.cmdSrc, cmdSource{r.Type, c, first})
	}
	for _, g := range r.Paths {
		glob := strings.ToLower(strings.TrimPrefix(g, "/"))
		if g == "" || !doublestar.ValidatePattern(glob) {
			return fmt.Errorf("%w: path glob %q is not a glob", ErrBadRule, g)
		}
		t.paths = append(t.paths, pathPattern{r.Type, glob})
	}
	if r.code != nil {
		t.content = append(t.content, contentPattern{typ: r.Type, fn: r.code})
	}
	for i, c := range r.Content {
		if check {
			if _, err := regexp.Compile(c); err != nil {
				return fmt.Errorf("%w: content regexp %q: %v", ErrBadRule, c, err)
			}
		}
		var reqs [][]string
		anch := &anchors{src: c}
		if builtin != nil && builtin[i].src == c {
			reqs = builtin[i].reqs
			anch.prefixes, anch.lead, anch.known = builtin[i].prefixes, builtin[i].lead, true
		} else {
			reqs = textutil.RequiredLiterals(c) // a rule of kb.yaml, or a stale required_builtin.go
		}
		t.content = append(t.content, contentPattern{typ: r.Type, re: textutil.Lazy(c), reqs: reqs, anch: anch})
	}
	for _, w := range r.Words {
		if check {
			if _, err := wordTokens(w); err != nil {
				return err
			}
		}
		t.wordCues = append(t.wordCues, wordCue{r.Type, w})
	}
	return nil
}

// wordTokens is a word cue's tokens: for each, the stems of its
// alternatives.
func wordTokens(w string) ([][]string, error) { return (*Taxonomy)(nil).wordTokens(w) }

// wordTokens is the package's wordTokens with the stems marked as t's
// text is (Taxonomy.stems).
func (t *Taxonomy) wordTokens(w string) ([][]string, error) {
	var toks [][]string
	for _, f := range strings.Fields(w) {
		var alts []string
		for _, a := range strings.Split(f, "|") {
			st := t.stems(a)
			if len(st) > 1 {
				return nil, fmt.Errorf("%w: word cue %q: alternative %q is more than one word (use spaces between tokens)", ErrBadRule, w, a)
			}
			alts = append(alts, st...)
		}
		if len(alts) > 0 {
			toks = append(toks, alts)
		}
	}
	if len(toks) == 0 {
		return nil, fmt.Errorf("%w: empty word cue %q", ErrBadRule, w)
	}
	return toks, nil
}

// wordPatterns are the word cues' patterns, in the order of the rules.
// The given rules' cues were checked by NewTaxonomy and the built-in
// ones are by the tests (TestBuiltinPatternsCompile); one that does not
// compile matches nothing.
func (t *Taxonomy) wordPatterns() []wordPattern {
	t.wordsOnce.Do(func() {
		for _, c := range t.wordCues {
			if toks, err := t.wordTokens(c.cue); err == nil {
				t.words = append(t.words, wordPattern{c.typ, toks})
			}
		}
	})
	return t.words
}

func compileCommand(typ, pat string) (cmdPattern, error) {
	f := strings.Fields(pat)
	if len(f) == 0 {
		return cmdPattern{}, fmt.Errorf("%w: empty command pattern", ErrBadRule)
	}
	p := cmdPattern{typ: typ, name: strings.Split(f[0], "|"), score: len(f), tokens: make([]token, 0, len(f)-1)}
	for _, tk := range f[1:] {
		if tk == "$" {
			p.tokens = append(p.tokens, token{end: true})
			continue
		}
		not := false
		if rest, ok := strings.CutPrefix(tk, "!"); ok {
			if rest == "" || strings.ContainsAny(rest, "*?[") {
				return cmdPattern{}, fmt.Errorf("%w: %q: only flags and words can be ruled out with !", ErrBadRule, pat)
			}
			tk, not = rest, true
		}
		alts := strings.Split(tk, "|")
		any := false
		for _, a := range alts {
			if a == "" {
				return cmdPattern{}, fmt.Errorf("%w: empty alternative in %q", ErrBadRule, pat)
			}
			if strings.HasPrefix(a, "-") || strings.ContainsAny(a, "*?[") {
				any = true
			}
			if strings.ContainsAny(a, "[") {
				if _, err := path.Match(a, ""); err != nil {
					return cmdPattern{}, fmt.Errorf("%w: glob %q: %v", ErrBadRule, a, err)
				}
			}
		}
		p.tokens = append(p.tokens, token{alts: alts, anywhere: any, not: not})
	}
	return p, nil
}

// globMatch reports whether a path glob (lower case, doublestar syntax)
// matches p from a path-segment boundary on, case-insensitively: "*.pb.go"
// matches any base name, "**/gen/**" any path with a "gen" directory,
// ".github/workflows/*" such a directory anywhere. No regexp: a hook
// matches one path against a hundred globs, and compiling them was most of
// its first classification of an edit.
func globMatch(glob, p string) bool {
	for {
		if ok, _ := doublestar.Match(glob, p); ok {
			return true
		}
		i := strings.IndexByte(p, '/')
		if i < 0 {
			return false
		}
		p = p[i+1:]
	}
}

// Operation reports whether typ names what a call does (a command or a
// path it writes matches it), not only what the written text contains
// (js:console-log, go:error-wrap-v) or words about it.
func (t *Taxonomy) Operation(typ string) bool { return t.ops[typ] }

// Describe returns a short gerund phrase for an action type ("force-pushing
// a branch"), or the type itself when it has no description.
func (t *Taxonomy) Describe(typ string) string {
	if d, ok := t.desc[typ]; ok {
		return d
	}
	return typ
}

// Types lists every action type the taxonomy knows, in definition order.
func (t *Taxonomy) Types() []string {
	out := make([]string, len(t.order))
	for k, i := range t.order {
		out[i] = k
	}
	return out
}

// hits accumulates matched types with a specificity score.
type hits map[string]int

func (h hits) add(typ string, score int) {
	if score > h[typ] {
		h[typ] = score
	}
}

func (t *Taxonomy) sorted(h hits) []string {
	if len(h) == 0 {
		return nil
	}
	out := make([]string, 0, len(h))
	for k := range h {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if h[a] != h[b] {
			return h[a] > h[b]
		}
		if strings.Count(a, ":") != strings.Count(b, ":") {
			return strings.Count(a, ":") > strings.Count(b, ":")
		}
		oa, ok1 := t.order[a]
		ob, ok2 := t.order[b]
		if ok1 && ok2 && oa != ob {
			return oa < ob
		}
		return a < b
	})
	return out
}

// Classify returns every action type of a, most specific first, deduplicated.
func Classify(a Action) []string { return defaultTaxonomy().Classify(a) }

// ClassifyText classifies a free-text description of an action.
func ClassifyText(s string) []string { return defaultTaxonomy().ClassifyText(s) }

// ClassifyCall classifies an agent tool call by tool name and JSON input.
func ClassifyCall(tool string, input json.RawMessage) []string {
	return defaultTaxonomy().ClassifyCall(tool, input)
}

// Classify returns every action type of a, most specific first, deduplicated.
func (t *Taxonomy) Classify(a Action) []string {
	h := hits{}
	if a.Tool != "" || len(a.Input) > 0 {
		t.call(h, a.Tool, a.Input)
	}
	if a.Command != "" {
		t.shell(h, a.Command, 0)
	}
	for _, p := range a.Paths {
		t.path(h, p)
	}
	if a.Content != "" {
		t.contentHits(h, a.Content)
	}
	if a.Text != "" {
		t.text(h, a.Text)
	}
	return t.sorted(h)
}

// ClassifyText classifies a free-text description of an action: word cues,
// plus commands and code quoted in backticks.
func (t *Taxonomy) ClassifyText(s string) []string {
	h := hits{}
	t.text(h, s)
	return t.sorted(h)
}

// ClassifyCall classifies an agent tool call by tool name and JSON input.
func (t *Taxonomy) ClassifyCall(tool string, input json.RawMessage) []string {
	h := hits{}
	t.call(h, tool, input)
	return t.sorted(h)
}

// shapeOnly marks a hits map that content patterns do not add to
// (contentHits): what a call is by its command and its paths alone.
const shapeOnly = "\x00shape"

// contentOnly returns the types of all, ClassifyCall(tool, input), that
// the call has only through what it writes (console.log in the new text,
// a float money field), not through its command or paths.
func (t *Taxonomy) contentOnly(tool string, input json.RawMessage, all []string) []string {
	if len(all) == 0 {
		return nil
	}
	h := hits{shapeOnly: 0}
	t.call(h, tool, input)
	var out []string
	for _, ty := range all {
		if _, ok := h[ty]; !ok {
			out = append(out, ty)
		}
	}
	return out
}

func (t *Taxonomy) path(h hits, p string) {
	p = strings.ReplaceAll(strings.TrimSpace(p), `\`, "/")
	if p == "" || p == "/dev/null" {
		return
	}
	lp := strings.ToLower(p)
	for _, pp := range t.paths {
		if globMatch(pp.glob, lp) {
			h.add(pp.typ, 2)
		}
	}
}

func (t *Taxonomy) contentHits(h hits, s string) {
	if _, ok := h[shapeOnly]; ok {
		return
	}
	if len(s) > 200000 {
		s = s[:200000]
	}
	hay := textutil.NewHaystack(s, strings.ToLower(s))
	for _, cp := range t.content {
		if cp.fn != nil {
			if cp.fn(s) {
				h.add(cp.typ, 3)
			}
			continue
		}
		if hay.MayMatch(cp.reqs) && matchAround(cp, hay) {
			h.add(cp.typ, 3)
		}
	}
}

// prosePathCmdRE is a path-like word in prose ("bin/rubocop",
// "./gradlew") and the words after it up to a clause's end.
var prosePathCmdRE = textutil.Lazy(`(?:^|[\s(])((?:\.{1,2}/|[\w.-]+/)+[\w.-]+)((?:[ \t]+[\w:./=-]+){0,3})`)

var codeSpanRE = textutil.Lazy("(?s)```[a-zA-Z0-9_+-]*\n?(.*?)```|`([^`\n]+)`")

func (t *Taxonomy) text(h hits, s string) {
	if len(s) > 100000 {
		s = s[:100000]
	}
	// Quoted code: a command if it starts with a known command name,
	// otherwise content.
	for _, m := range codeSpanRE.FindAllStringSubmatch(s, 20) {
		code := m[1] + m[2]
		first := ""
		if f := strings.Fields(code); len(f) > 0 {
			first = path.Base(f[0])
		}
		if t.knownNames()[first] || first == "sudo" || first == "for" || first == "while" || first == "if" || first == "until" {
			// A known command, or a loop or test around commands ("for h
			// in app-1 app-2; do ssh ...").
			t.shell(h, code, 0)
		} else {
			t.contentHits(h, code)
			if strings.ContainsAny(code, "/.") && !strings.ContainsAny(code, " (){}=") {
				t.path(h, code)
			}
		}
	}
	// A command named in prose by its path ("always bin/rubocop",
	// "use ./gradlew check"): a path whose last name is a known command,
	// with the words after it up to the clause's end. (A bare word is
	// not: "black" and "make" are words first.)
	if strings.Contains(s, "/") {
		prose := codeSpanRE.ReplaceAllString(s, " ")
		for _, m := range prosePathCmdRE.FindAllStringSubmatch(prose, 10) {
			if t.knownNames()[path.Base(m[1])] {
				t.shell(h, path.Base(m[1])+m[2], 0)
			}
		}
	}
	st := t.stems(s)
	has := stemsIndex(st)
	for _, wp := range t.wordPatterns() {
		if has.all(wp.tokens) && matchWindow(st, wp.tokens) {
			h.add(wp.typ, len(wp.tokens))
		}
	}
}

// stems is the stems of s's words for the word rules, with a stem that is
// a command's name while its word is another word marked: "pipe" stems to
// "pip" and names no pip. A rule's words are stemmed alike, so "pipe" in
// a rule still matches "pipe" in a text. With no taxonomy, plain stems.
func (t *Taxonomy) stems(s string) []string {
	ws := words(s)
	out := make([]string, len(ws))
	var names map[string]bool // the command names, looked up only for a stem that is not its word
	for i, w := range ws {
		out[i] = stem(w)
		if out[i] == w || t == nil || !anotherWord(w, out[i]) {
			continue
		}
		if names == nil {
			names = t.knownNames()
		}
		if names[out[i]] {
			out[i] += "~"
		}
	}
	return out
}

// anotherWord reports whether word w, which stems to the command name
// name, is another word than a form of it: the stemmer took a final "e"
// ("pipe", "pipes" -> "pip"), not an ending of name's own ("makes",
// "kills", "mixes").
func anotherWord(w, name string) bool {
	rest, ok := strings.CutPrefix(w, name)
	return ok && (rest == "e" || rest == "es" && !strings.ContainsAny(name[len(name)-1:], "sxzh"))
}

// stemSet says which cue stems a text's stems st can match (stemIn): a
// word pattern one of whose tokens none of them matches is not looked
// for in a window (matchWindow, pattern after pattern, over every stem,
// was most of ClassifyText's CPU).
type stemSet struct {
	exact    map[string]bool // the stems
	prefixes map[string]bool // their prefixes of six letters or more, at most three shorter
	minLen   int             // of the stems
}

func stemsIndex(st []string) stemSet {
	ss := stemSet{exact: make(map[string]bool, len(st)), prefixes: map[string]bool{}, minLen: -1}
	for _, s := range st {
		ss.exact[s] = true
		for n := max(6, len(s)-3); n < len(s); n++ {
			ss.prefixes[s[:n]] = true
		}
		if ss.minLen < 0 || len(s) < ss.minLen {
			ss.minLen = len(s)
		}
	}
	return ss
}

// any says whether some stem is stemIn alts.
func (ss stemSet) any(alts []string) bool {
	for _, a := range alts {
		if ss.exact[a] || len(a) >= 6 && ss.prefixes[a] {
			return true // a stem equals a, or extends it
		}
		for n := max(6, ss.minLen, len(a)-3); n < len(a); n++ {
			if ss.exact[a[:n]] {
				return true // a extends a stem of six letters or more
			}
		}
	}
	return false
}

// all says whether every token of a word pattern is matched by a stem.
func (ss stemSet) all(tokens [][]string) bool {
	for _, c := range tokens {
		if !ss.any(c) {
			return false
		}
	}
	return true
}

// matchWindow reports whether every cue token occurs within a window of
// len(cue)+3 consecutive words, in any order.
func matchWindow(st []string, cue [][]string) bool {
	win := len(cue) + 3
	for i := range st {
		startsCue := false
		for _, c := range cue {
			if stemIn(st[i], c) {
				startsCue = true
				break
			}
		}
		if !startsCue {
			continue
		}
		end := min(i+win, len(st))
		ok := true
		var used uint64 // window positions a token took: one word is one token ("exception" is not "except exception")
		for _, c := range cue {
			hit := false
			for j := i; j < end; j++ {
				if used&(1<<uint(j-i)) == 0 && stemIn(st[j], c) {
					hit = true
					used |= 1 << uint(j-i)
					break
				}
			}
			if !hit {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func in(s string, alts []string) bool {
	for _, a := range alts {
		if s == a {
			return true
		}
	}
	return false
}

// stemIn is in with tolerance for the crude stemmer: a stem also matches a
// cue stem it extends or that extends it by at most three letters, when the
// shorter has at least six ("definit" ~ "defin" does not, "parameteriz" ~
// "parameter" does). A longer extension is another word: "reject" is not
// "rejectunauthorized", "string" not "stringresource".
func stemIn(s string, alts []string) bool {
	for _, a := range alts {
		if s == a {
			return true
		}
		short, long := s, a
		if len(short) > len(long) {
			short, long = long, short
		}
		if len(short) >= 6 && len(long)-len(short) <= 3 && strings.HasPrefix(long, short) {
			return true
		}
	}
	return false
}

// matchArgv applies the command patterns to one simple command.
func (t *Taxonomy) matchArgv(h hits, argv []string, cwd string) {
	if len(argv) == 0 {
		return
	}
	name := path.Base(argv[0])
	args := argv[1:]
	var pos []int // indexes of positional args
	for i, a := range args {
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, i)
		}
	}
	if cwd != "" {
		// The working directory is matched as an argument anywhere
		// ("*prod*"), never as a positional one.
		args = append(slices.Clip(args), cwd)
	}
	for _, p := range t.commandsOf(name) {
		if matchTokens(p.tokens, args, pos) {
			h.add(p.typ, p.score)
		}
	}
}

// commandsOf are the compiled command patterns that start with name, in
// the order of the rules (a hit keeps the best score, so the order does
// not change what is found). The given rules' patterns were checked by
// NewTaxonomy and the built-in ones are by the tests; one that does not
// compile matches nothing.
func (t *Taxonomy) commandsOf(name string) []cmdPattern {
	t.cmdMu.Lock()
	defer t.cmdMu.Unlock()
	if ps, ok := t.cmdsFor[name]; ok {
		return ps
	}
	var ps []cmdPattern
	for _, src := range t.cmdSrc {
		if !startsWith(src.names, name) {
			continue
		}
		if p, err := compileCommand(src.typ, src.pat); err == nil && in(name, p.name) {
			ps = append(ps, p)
		}
	}
	if t.cmdsFor == nil {
		t.cmdsFor = map[string][]cmdPattern{}
	}
	t.cmdsFor[name] = ps
	return ps
}

// startsWith reports whether name is one of a pattern's names ("git",
// "npm|pnpm|yarn").
func startsWith(names, name string) bool {
	for n := range strings.SplitSeq(names, "|") {
		if n == name {
			return true
		}
	}
	return false
}

// knownNames are the command names some pattern starts with, as a set,
// made on first use (quoted code in text, a lesson's things named).
func (t *Taxonomy) knownNames() map[string]bool {
	t.knownOnce.Do(func() {
		t.known = make(map[string]bool, len(t.cmdSrc))
		for _, src := range t.cmdSrc {
			for n := range strings.SplitSeq(src.names, "|") {
				t.known[n] = true
			}
		}
	})
	return t.known
}

func matchTokens(tokens []token, args []string, pos []int) bool {
	next := 0 // index into pos
	for _, tk := range tokens {
		switch {
		case tk.end:
			if next < len(pos) {
				return false
			}
		case tk.not:
			for _, a := range args {
				if argMatches(a, tk.alts) {
					return false
				}
			}
		case tk.anywhere:
			found := false
			for _, a := range args {
				if argMatches(a, tk.alts) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		default:
			found := false
			for next < len(pos) {
				a := args[pos[next]]
				next++
				if in(a, tk.alts) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
	}
	return true
}

func argMatches(a string, alts []string) bool {
	low := "" // a in lower case, made once if a glob asks for it
	for _, alt := range alts {
		switch {
		case a == alt:
			return true
		case strings.HasPrefix(alt, "--"):
			if strings.HasPrefix(a, alt+"=") {
				return true
			}
		case strings.HasPrefix(alt, "-") && len(alt) == 2:
			// Combined short flags: "-rf" has "-f". Only short clusters of
			// letters count, so "-short" is not "-s".
			if len(a) >= 2 && len(a) <= 5 && a[0] == '-' && a[1] != '-' && isLetters(a[1:]) &&
				strings.Contains(a[1:], alt[1:]) {
				return true
			}
		case len(alt) > 1 && strings.ContainsAny(alt, "*?["):
			s := a
			if !textutil.HasUpper(alt) {
				// Smart case, as rg and vim read a pattern: a glob in
				// lower case matches either case, so "*prod*" has the
				// stack QuaysideProd-Api and the host PROD-DB-1, while
				// "*PROD*" asks for capitals.
				if low == "" {
					low = strings.ToLower(a)
				}
				s = low
			}
			if ok, _ := path.Match(alt, s); ok {
				return true
			}
			// A path argument matches by any of its names ("*migration*"
			// has apps/db/migrations/0042.sql, "*prod*" k8s/prod/app.yaml):
			// a glob's star stops at a slash.
			if strings.Contains(s, "/") && !strings.Contains(alt, "/") {
				for _, name := range strings.Split(s, "/") {
					if ok, _ := path.Match(alt, name); ok && name != "" {
						return true
					}
				}
			}
		}
	}
	return false
}

func isLetters(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return s != ""
}

// TaxonomyOf is the taxonomy of kb.yaml's action_types: the built-in rules
// (Default) plus theirs.
func TaxonomyOf(extra []config.ActionTypeRule) (*Taxonomy, error) {
	if len(extra) == 0 {
		return Default(), nil
	}
	var rules []Rule
	for _, r := range extra {
		rules = append(rules, Rule{Type: r.Type, Commands: r.Commands, Paths: r.Paths, Content: r.Content, Words: r.Words})
	}
	return NewTaxonomy(rules)
}
