package recall

import (
	_ "embed"
	"fmt"
	"github.com/kbmem/kb/internal/lexicon"
	"github.com/kbmem/kb/internal/textutil"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Intent: a prompt names an action in its own words ("get rid of the
// build junk", "ship it", "fold this into my last commit"); the lexicon of
// equivalents (intent.txt, embedded; kb.yaml may add lines) rewrites those
// words into ones the action-type taxonomy classifies ("delete recursive
// directory", "deploy production", "amend"), so the request reaches the
// same cues as the command it stands for.

//go:embed intent.txt
var builtinEquivalents string

// equivalent is one lexicon line: phrases, each a regexp, and the
// canonical words they stand for.
type equivalent struct {
	phrases   []phrase
	canonical string
}

// phrase is one phrasing: lower-case words, "*" for any one word. It
// occurs in a text where its words follow one another, separated by
// white space, and it is neither preceded nor followed by a letter or a
// digit. (Matched by hand, not by a regexp: compiling the lexicon's
// Unicode-class regexps took most of a hook process's start.)
type phrase []string

// in reports whether p occurs in low, a lower-cased text.
func (p phrase) in(low string) bool {
	_, _, ok := p.find(low)
	return ok
}

// find is where p first occurs in low, a lower-cased text.
func (p phrase) find(low string) (start, end int, ok bool) {
	if len(p) == 0 {
		return 0, 0, false
	}
	if p[0] == "*" {
		for i := 0; i < len(low); i++ {
			if utf8.RuneStart(low[i]) && !unicode.IsSpace(rune(low[i])) && boundaryBefore(low, i) {
				if e, ok := p.end(low, i); ok {
					return i, e, true
				}
			}
		}
		return 0, 0, false
	}
	for i := 0; ; {
		j := strings.Index(low[i:], p[0])
		if j < 0 {
			return 0, 0, false
		}
		if boundaryBefore(low, i+j) {
			if e, ok := p.end(low, i+j); ok {
				return i + j, e, true
			}
		}
		i += j + 1
	}
}

// at reports whether p occurs in low starting at byte i.
func (p phrase) at(low string, i int) bool {
	_, ok := p.end(low, i)
	return ok
}

// end is where p ends in low when it occurs there starting at byte i.
func (p phrase) end(low string, i int) (int, bool) {
	for k, w := range p {
		if k > 0 {
			n := 0
			for i < len(low) {
				r, size := utf8.DecodeRuneInString(low[i:])
				if !unicode.IsSpace(r) {
					break
				}
				i += size
				n++
			}
			if n == 0 {
				return 0, false
			}
		}
		if w == "*" {
			n := 0
			for i < len(low) {
				r, size := utf8.DecodeRuneInString(low[i:])
				if unicode.IsSpace(r) {
					break
				}
				i += size
				n++
			}
			if n == 0 {
				return 0, false
			}
			continue
		}
		if !strings.HasPrefix(low[i:], w) {
			return 0, false
		}
		i += len(w)
	}
	if i < len(low) {
		r, _ := utf8.DecodeRuneInString(low[i:])
		if last, _ := utf8.DecodeLastRuneInString(low[:i]); lexicon.IsCJK(last) {
			return i, true
		}
		return i, !unicode.IsLetter(r) && !unicode.IsNumber(r)
	}
	return i, true
}

// boundaryBefore reports whether byte i of s starts it or follows a rune
// that is no letter and no digit.
func boundaryBefore(s string, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	if next, _ := utf8.DecodeRuneInString(s[i:]); lexicon.IsCJK(next) {
		return true // Chinese and Japanese run words together: no boundary to find
	}
	return !unicode.IsLetter(r) && !unicode.IsNumber(r)
}

// Lexicon maps phrasings of an action to the taxonomy's words.
type Lexicon struct{ eqs []equivalent }

var (
	defaultLexOnce sync.Once
	defaultLex     *Lexicon
)

// DefaultLexicon is the embedded lexicon of equivalents.
func DefaultLexicon() *Lexicon {
	defaultLexOnce.Do(func() {
		l, err := ParseLexicon(builtinEquivalents)
		if err != nil {
			panic("recall: intent.txt: " + err.Error())
		}
		defaultLex = l
	})
	return defaultLex
}

// ParseLexicon reads lexicon lines: "phrase | phrase => canonical words";
// blank lines and lines starting with # are skipped. An error names the
// line.
func ParseLexicon(text string) (*Lexicon, error) {
	l := &Lexicon{}
	for i, ln := range strings.Split(text, "\n") {
		ln = strings.TrimSpace(ln)
		if ln == "" || strings.HasPrefix(ln, "#") {
			continue
		}
		left, right, ok := strings.Cut(ln, "=>")
		right = strings.TrimSpace(right)
		if !ok || right == "" {
			return nil, fmt.Errorf("line %d: want \"phrase | phrase => canonical words\"", i+1)
		}
		eq := equivalent{canonical: strings.ToLower(right)}
		for _, p := range strings.Split(left, "|") {
			f := strings.Fields(strings.ToLower(p))
			if len(f) == 0 {
				continue
			}
			eq.phrases = append(eq.phrases, expandGap(f)...)
		}
		if len(eq.phrases) == 0 {
			return nil, fmt.Errorf("line %d: no phrase before =>", i+1)
		}
		l.eqs = append(l.eqs, eq)
	}
	return l, nil
}

// maxGap is how many words "**" stands for at most.
const maxGap = 4

// expandGap returns the phrases f stands for: itself, or, where its first
// "**" stands, one to maxGap words ("get ** live": "get the coupon fix
// live").
func expandGap(f []string) []phrase {
	i := slices.Index(f, "**")
	if i < 0 {
		return []phrase{phrase(f)}
	}
	var out []phrase
	for n := 1; n <= maxGap; n++ {
		g := slices.Concat(f[:i], slices.Repeat([]string{"*"}, n), f[i+1:])
		out = append(out, expandGap(g)...)
	}
	return out
}

// Extend returns a lexicon with more lines (kb.yaml's).
func (l *Lexicon) Extend(text string) (*Lexicon, error) {
	more, err := ParseLexicon(text)
	if err != nil {
		return nil, err
	}
	return &Lexicon{eqs: append(append([]equivalent{}, l.eqs...), more.eqs...)}, nil
}

// Rewrite returns, in one pass over the lexicon, the canonical words of
// every equivalent the text uses ("" when none) and up to max variants of
// the text: one word of an equivalent it uses swapped for each other
// one-word phrasing of the same line. "nuke the redis cache" is also
// "wipe the redis cache" and "purge the redis cache": the taxonomy's words
// for an act name some of its verbs, the lexicon names the others.
func (l *Lexicon) Rewrite(text string, max int) (canonical string, variants []string) {
	if l == nil {
		return "", nil
	}
	low := strings.ToLower(text)
	// Each line's phrases where they occur first.
	type found struct {
		eq    int
		p     phrase
		start int
		end   int
	}
	var fs []found
	for k, eq := range l.eqs {
		for _, p := range eq.phrases {
			// A few occurrences: the first may lie inside a longer
			// phrase, a later one stand alone.
			for at, n := 0, 0; n < 4 && at < len(low); n++ {
				start, end, ok := p.find(low[at:])
				if !ok || at > 0 && !boundaryBefore(low, at+start) {
					break
				}
				fs = append(fs, found{k, p, at + start, at + end})
				at += end
				if end == start {
					at++
				}
			}
		}
	}
	// A line whose every phrase lies inside a longer phrase another line
	// found says less than that one: "clean up the history" rewrites
	// history, it deletes no directory for its "clean up".
	inLonger := func(f found) bool {
		for _, g := range fs {
			if g.eq != f.eq && g.start <= f.start && f.end <= g.end && g.end-g.start > f.end-f.start {
				return true
			}
		}
		return false
	}
	var canon []string
	for k, eq := range l.eqs {
		var mine []found
		shadowed := true
		for _, f := range fs {
			if f.eq == k {
				mine = append(mine, f)
				shadowed = shadowed && inLonger(f)
			}
		}
		if len(mine) == 0 || shadowed {
			continue
		}
		canon = append(canon, eq.canonical)
		for i, f := range mine {
			p := f.p
			if i > 0 && slices.Equal(p, mine[i-1].p) {
				continue // another occurrence of the same phrase
			}
			if len(p) != 1 || p[0] == "*" || len(variants) >= max {
				continue
			}
			for _, q := range eq.phrases {
				if len(q) != 1 || q[0] == "*" || q[0] == p[0] || len(variants) >= max {
					continue
				}
				if v := replaceWord(low, p[0], q[0]); v != low && !slices.Contains(variants, v) {
					variants = append(variants, v)
				}
			}
		}
	}
	return strings.Join(canon, ". "), variants
}

// replaceWord replaces the occurrences of w in low that stand as a word.
func replaceWord(low, w, by string) string {
	var b strings.Builder
	for i := 0; ; {
		j := strings.Index(low[i:], w)
		if j < 0 {
			b.WriteString(low[i:])
			return b.String()
		}
		k := i + j
		if boundaryBefore(low, k) && (phrase{w}).at(low, k) {
			b.WriteString(low[i:k])
			b.WriteString(by)
		} else {
			b.WriteString(low[i : k+len(w)])
		}
		i = k + len(w)
	}
}

// inspectVerbs and changeVerbs tell a command that looks at a system
// (kubectl get, helm list, terraform plan) from one that changes it: the
// first of either among a command's words decides.
var (
	inspectVerbs = map[string]bool{"get": true, "list": true, "ls": true, "describe": true, "logs": true, "log": true, "status": true,
		"show": true, "plan": true, "diff": true, "version": true, "history": true, "top": true, "explain": true, "template": true,
		"lint": true, "validate": true, "output": true, "inspect": true, "ps": true, "images": true, "search": true, "view": true,
		"whoami": true, "cat": true, "tail": true, "info": true, "check": true, "audit": true, "-dry-run": true, "--dry-run": true, "preview": true, "what-if": true, "--what-if": true, "--check": true, "-check": true, "--noop": true, "--dry-run=client": true, "--dry-run=server": true,
		"--list-hosts": true, "--list-tasks": true, "--list-tags": true, "--syntax-check": true, "--list": true}
	changeVerbs = map[string]bool{"apply": true, "upgrade": true, "install": true, "delete": true, "create": true, "replace": true,
		"patch": true, "edit": true, "scale": true, "rollout": true, "set": true, "destroy": true, "import": true, "deploy": true,
		"push": true, "rm": true, "uninstall": true, "rollback": true, "drain": true, "cordon": true, "taint": true, "up": true, "release": true,
		"-delete": true, "-exec": true, "-execdir": true, "-ok": true}
	// inspectDomains are the action domains an inspection cannot be.
	inspectDomains = map[string]bool{"deploy": true, "infra": true, "k8s": true, "db": true, "queue": true}
)

// inspection reports whether every simple command of cmd only looks.
func inspection(cmd string) bool {
	if strings.TrimSpace(cmd) == "" {
		return false
	}
	if strings.Contains(cmd, "<<") {
		cmd = stripHeredocs(cmd) // a here-document is data, not commands
	}
	// psql -c "SELECT ...": a query that only reads.
	sqlRead := sqlClientRE.MatchString(cmd) && readSQLRE.MatchString(cmd) && !changeSQLRE.MatchString(cmd) && !writeSQLRE.MatchString(cmd)
	// Quoted words are arguments: a "|" inside a quoted pattern is no pipe.
	if strings.ContainsAny(cmd, `"'`) {
		cmd = quotedRE.ReplaceAllString(cmd, "ARG")
	}
	for _, part := range splitShell(cmd) {
		f := remoteCommand(strings.Fields(part))
		if len(f) == 0 {
			continue
		}
		verdict := false
		decided := false
		for _, w := range f[1:] {
			w = strings.ToLower(w)
			// artisan migrate:status, rake db:version: the last part of
			// a namespaced task says what it does.
			if i := strings.LastIndexByte(w, ':'); i > 0 && i < len(w)-1 && !strings.Contains(w, "/") {
				w = w[i+1:]
			}
			if i := strings.IndexByte(w, '-'); i > 0 && !inspectVerbs[w] && !changeVerbs[w] {
				// airflow dags list-runs, aws ec2 describe-instances,
				// aws s3api delete-object: the verb opens a hyphenated
				// subcommand.
				w = w[:i]
			}
			if inspectVerbs[w] {
				verdict, decided = true, true
				break
			}
			if changeVerbs[w] {
				decided = true
				break
			}
		}
		if decided && !verdict {
			return false
		}
		if !decided && !inspectPrograms[strings.ToLower(f[0])] && !readsWith(f) && !(sqlRead && sqlClients[strings.ToLower(f[0])]) {
			return false
		}
	}
	return true
}

// SQL clients and the queries that only read.
var (
	sqlClients  = map[string]bool{"psql": true, "mysql": true, "mariadb": true, "sqlite3": true, "sqlcmd": true, "clickhouse-client": true, "cqlsh": true, "bq": true, "snowsql": true}
	sqlClientRE = textutil.Lazy(`(?:^|[\s;&|(/])(?:psql|mysql|mariadb|sqlite3|sqlcmd|clickhouse-client|cqlsh|bq|snowsql)\s`)
	readSQLRE   = textutil.Lazy(`(?i)["'\s](?:select|show|explain|describe|\\d)\b`)
	writeSQLRE  = textutil.Lazy(`(?i)\b(?:insert|update|delete|upsert|merge|create|alter|drop|truncate|grant|revoke|vacuum|reindex|copy)\b|\s-f\s|--file`)
)

// remoteCommand is the command a `kubectl exec ... -- CMD` (or oc's) runs
// in the container, which is what the call does; f itself otherwise.
func remoteCommand(f []string) []string {
	if len(f) == 0 || (f[0] != "kubectl" && f[0] != "oc") || !slices.Contains(f, "exec") {
		return f
	}
	if i := slices.Index(f, "--"); i > 0 && i < len(f)-1 {
		return f[i+1:]
	}
	return f
}

// readsWith reports whether simple command f is an editor or a shell run
// only to read: sed and awk without in-place editing, `bash -n` (a syntax
// check), diff.
func readsWith(f []string) bool {
	switch strings.ToLower(f[0]) {
	case "sed", "gsed", "awk", "gawk", "perl":
		for _, a := range f[1:] {
			if strings.HasPrefix(a, "-i") || a == "--in-place" || strings.HasPrefix(a, "--in-place=") || a == "inplace" || a == "-pi" {
				return false
			}
		}
		return f[0] != "perl"
	case "bash", "sh", "zsh", "dash":
		return len(f) > 1 && f[1] == "-n"
	case "diff", "cmp", "colordiff", "printf", "basename", "dirname", "realpath", "readlink", "md5sum", "sha256sum", "shasum",
		"xxd", "od", "hexdump", "column", "tr", "nl", "comm", "date", "whoami", "id", "true", "test", "[":
		return true
	}
	return false
}

// heredocRE is the opening of a here-document: <<TAG, <<-TAG, <<'TAG'.
var heredocRE = textutil.Lazy(`<<-?\s*['"]?([A-Za-z_][A-Za-z0-9_]*)['"]?`)

// stripHeredocs removes the bodies of cmd's here-documents, up to their
// closing lines.
func stripHeredocs(cmd string) string {
	if !strings.Contains(cmd, "<<") {
		return cmd // no expression compiled for a hook's usual call
	}
	lines := strings.Split(cmd, "\n")
	var out []string
	tag := ""
	for _, ln := range lines {
		if tag != "" {
			if strings.TrimSpace(ln) == tag {
				tag = ""
			}
			continue
		}
		out = append(out, ln)
		if m := heredocRE.FindStringSubmatch(ln); m != nil {
			tag = m[1]
		}
	}
	return strings.Join(out, "\n")
}

// splitShell splits cmd at its shell operators (shellSplitRE), without
// compiling the expression for a command that has none (a hook's usual
// call).
func splitShell(cmd string) []string {
	if !strings.ContainsAny(cmd, ";|&") {
		return []string{cmd}
	}
	return shellSplitRE.Split(cmd, -1)
}

var (
	shellSplitRE    = textutil.Lazy(`\s*(?:&&|\|\||;|\|)\s*`)
	quotedRE        = textutil.Lazy(`"(?:[^"\\]|\\.)*"|'[^']*'`)
	inspectPrograms = map[string]bool{"cd": true, "echo": true, "cat": true, "grep": true, "head": true, "tail": true, "jq": true, "less": true, "wc": true, "sort": true,
		"find": true, "ls": true, "rg": true, "ag": true, "tree": true, "stat": true, "file": true, "du": true, "pwd": true, "which": true, "uniq": true, "cut": true}
)

// subjectRE is the thing a request is about when it opens by saying what
// state it is in: "the ais-ingest DLQ is full of junk", "admin's dev db
// got into a weird state".
var subjectRE = textutil.Lazy(`(?i)^\s*(?:so\s+|ok\s+|hey\s+)?(?:the\s+|our\s+|my\s+|this\s+)?([\p{L}\p{N}_.'/-]+(?:\s+[\p{L}\p{N}_.'/-]+){0,4}?)\s+(?:is|are|was|were|got|gets|has|have|had|keeps|needs|seems|looks|went|broke|broken|failed|fails|won't|can't|doesn't|isn't|aren't)\b`)

// pronounObjectRE is an act done to "it" or "them": "just empty it",
// "wipe it and start fresh".
var pronounObjectRE = textutil.Lazy(`(?i)\b([a-z]{3,})\s+(?:it|them)\b`)

// pronounAct resolves "VERB it" in a request to the thing the request
// opened with ("the DLQ is full of junk, just empty it" -> "empty DLQ"),
// so the act is classified with its object; "" when the request has no
// such shape.
func pronounAct(task string) string {
	if task == "" {
		return "" // a tool call: the expressions stay uncompiled
	}
	m := subjectRE.FindStringSubmatch(task)
	if m == nil {
		return ""
	}
	var acts []string
	for _, v := range pronounObjectRE.FindAllStringSubmatch(task, 4) {
		acts = append(acts, v[1]+" "+m[1])
	}
	return strings.Join(acts, ". ")
}
