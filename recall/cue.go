package recall

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/kbmem/kb/internal/lexicon"
	"github.com/kbmem/kb/internal/textutil"
	"github.com/kbmem/kb/observations"
)

// cue is a query analysed once: its action types and content tokens.
type cue struct {
	types   []string
	text    string            // the cue as text, for the embeddings layer
	tokens  map[string]bool   // stems
	wordOf  map[string]string // stem -> first word seen, for reasons
	words   []string          // distinct raw words, for the lexical query
	action  string            // short description of the proposed action, for "You are about to ..."
	hasCall bool
	program string // the program a proposed shell command runs ("pnpm")
	// programs are the programs of every simple command of the call
	// ("cd web && yarn add zod": yarn), for a lesson that names its tool.
	programs []string
	cmdKeys  []string // the command's keys (commandKeys)
	kind     string   // "shell" or "edit" for a tool call, "" for words
	// editQ is the edit call, read again only when a lesson asks:
	// whether its file is new (creates, a stat, once) or it only adds
	// lines (additive, a parse, once). No I/O on other hooks.
	editQ    Query
	created  int8 // 0 unknown, 1 creates, -1 does not
	additive int8 // 0 unknown, 1 only adds, -1 does not
	// question is a prompt asking about something rather than asking for
	// an action ("what does the commit hook do?"): a type match then needs
	// a word of the lesson besides the type's own.
	question bool
	tax      *observations.Taxonomy
	// readOnly is a call that changes nothing (Read, Grep...): lexical
	// overlap with what it reads is no cue.
	readOnly bool
	files    []fileRef // files the proposal names
	// written is the code an edit writes (comments removed, in the file's
	// language); command is the shell command a call runs. Signatures of
	// lessons are matched against them (lesson.go).
	written, command string
	squeezed         *string // squeeze(written), made on first use
	// editPath is the path of the file an edit writes, as the call names
	// it ("" for anything else).
	editPath string
	// replaced is the code an edit replaces (old_string): the place in
	// the file where the written code goes.
	replaced string
	// named are the stems of what a call names rather than writes: its
	// command, paths and description, without the content an edit
	// writes (nil: the same as tokens). The content of an edit shares the
	// project's vocabulary with many lessons; it is matched by their
	// signatures, not by shared words.
	named map[string]bool
	// inspects is a shell command that only looks (git diff, find, grep,
	// kubectl get): the files it names are not being changed, so a lesson
	// about changing one of them is not for this moment.
	inspects bool
	// test caches testCode: 0 not yet known, 1 test code, -1 not.
	test int8
	// secret caches carriesSecret the same way; flagVals caches flags.
	secret   int8
	flagVals map[string][]string
	// writtenTypes and pathTypes are the action types of the code an edit
	// writes, read alone, and of its path alone (nil until asked).
	writtenTypes, pathTypes []string
	// pathWords caches pathStems.
	pathWords map[string]bool
}

var readOnlyTools = map[string]bool{"read": true, "grep": true, "glob": true, "ls": true, "webfetch": true, "websearch": true,
	"todowrite": true, "todoread": true, "bashoutput": true, "view_image": true, "read_file": true, "list_directory": true,
	"search_file_content": true, "web_fetch": true, "google_web_search": true, "notebookread": true, "exitplanmode": true}

func buildCue(tax *observations.Taxonomy, q Query) *cue { return buildCueLex(tax, nil, q) }

// buildCueLex is buildCue with a lexicon of equivalents (nil: the
// embedded one).
// runScriptRE is the script an interpreter runs in a command.
var runScriptRE = textutil.Lazy(`(?:^|[\s;&|("'])(?:python3?|node|ruby|bash|sh|zsh|perl|php|deno run|bun run|bun|go run|ts-node|tsx)\s+(?:-\S+\s+)*(?:\S*/)?([\w.-]+\.(?:py|js|mjs|cjs|ts|rb|sh|pl|php|go))\b`)

// runScriptExts are the extensions runScriptRE's script ends with: a
// command without one runs no script, and the expression is not compiled.
var runScriptExts = []string{".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".sh", ".pl", ".php", ".go"}

// runDirectRE is a script a command runs as its program
// ("./scripts/deploy.sh prod", "bin/setup.py"): run, not changed.
var runDirectRE = textutil.Lazy(`(?:^|[;&|(]|\$\()\s*(?:[\w.~-]*/)+([\w.-]+\.(?:py|js|mjs|cjs|ts|rb|sh|bash|pl|php))(?:\s|$|[;&|)])`)

// withoutRunScripts is files less the scripts cmd runs.
func withoutRunScripts(files []fileRef, cmd string) []fileRef {
	if !slices.ContainsFunc(runScriptExts, func(x string) bool { return strings.Contains(cmd, x) }) {
		return files
	}
	run := map[string]bool{}
	for _, m := range runScriptRE.FindAllStringSubmatch(cmd, -1) {
		run[m[1]] = true
	}
	for _, m := range runDirectRE.FindAllStringSubmatch(cmd, -1) {
		run[m[1]] = true
	}
	if len(run) == 0 {
		return files
	}
	out := files[:0:0]
	for _, f := range files {
		if !run[f.base] {
			out = append(out, f)
		}
	}
	return out
}

// changesProduction reports whether a request asks for a change and names
// production (and no other environment): a verb that changes things
// starts one of its clauses.
func changesProduction(task string) bool {
	env := environments(task)
	if !env["prod"] || len(env) > 1 {
		return false
	}
	for _, cl := range strings.FieldsFunc(strings.ToLower(task), func(r rune) bool { return strings.ContainsRune(".;:!?\n,—–", r) }) {
		f := strings.Fields(cl)
		for len(f) > 1 && (lexicon.StopExtract.Has(f[0]) || f[0] == "pls") && !requestVerbs[f[0]] {
			f = f[1:] // "just", "please", "then", "can you": the request's verb follows
		}
		if len(f) > 0 && requestVerbs[strings.Trim(f[0], "'\"`")] {
			return true
		}
	}
	return false
}

// requestVerbs start a request that changes something.
var requestVerbs = map[string]bool{"bump": true, "change": true, "set": true, "update": true, "resize": true, "restart": true, "delete": true,
	"drop": true, "remove": true, "add": true, "flip": true, "scale": true, "apply": true, "run": true, "rerun": true, "re-run": true,
	"patch": true, "rotate": true, "purge": true, "clear": true, "increase": true, "decrease": true, "raise": true, "lower": true,
	"enable": true, "disable": true, "turn": true, "rename": true, "migrate": true, "deploy": true, "push": true, "roll": true,
	"reset": true, "truncate": true, "insert": true, "create": true, "kill": true, "terminate": true, "backfill": true, "replay": true,
	"redeliver": true, "mark": true, "edit": true, "modify": true, "grant": true, "revoke": true, "move": true, "upgrade": true,
	"downgrade": true, "reindex": true, "rebuild": true, "wipe": true, "empty": true, "fix": true, "correct": true}

// moneyRE is an amount of money in a request: a currency sign or code
// next to a number (€2.50, $3, 12 EUR, 5 euros, ¥500).
var moneyRE = textutil.Lazy(`[€$£¥₹₩]\s?\d|\d(?:[.,]\d+)?\s?(?:€|EUR|USD|GBP|JPY|CHF|euros?|dollars?|pounds?|yen|rubles?|yuan|元|円|원)\b`)

func buildCueLex(tax *observations.Taxonomy, lex *Lexicon, q Query) *cue {
	c := &cue{tokens: map[string]bool{}, wordOf: map[string]string{}, tax: tax}
	// The task is free text (word cues); the action is a shell command.
	a := observations.Action{Tool: q.Tool, Input: q.Input, Paths: q.Files, Command: q.Action, Text: q.Task}
	if q.Tool != "" || len(q.Input) > 0 || q.Action != "" || q.Task != "" || len(q.Files) > 0 {
		c.types = tax.Classify(a)
	}
	// Word cues match within a small window: identifiers and filler words
	// ("drop the unused coupon_code column") can push the words of a cue
	// apart. Classify the condensed text too.
	if q.Task != "" {
		if dense := condense(q.Task); dense != "" && dense != strings.ToLower(strings.TrimSpace(q.Task)) {
			for _, t := range tax.ClassifyText(dense) {
				if !slices.Contains(c.types, t) {
					c.types = append(c.types, t)
				}
			}
		}
	}
	// "the DLQ is full of junk, just empty it": the act with its object.
	if act := pronounAct(q.Task); act != "" && !isQuestion(q.Task) {
		for _, t := range tax.ClassifyText(act) {
			if !slices.Contains(c.types, t) {
				c.types = append(c.types, t)
			}
		}
	}
	// A request in other words: the lexicon's canonical words classify,
	// and are words of the request ("pull the forecast from the Met
	// Office API" asks for an HTTP client).
	var canonical string
	if q.Task != "" && !isQuestion(q.Task) {
		if lex == nil {
			lex = DefaultLexicon() // parsed on first use: a tool call has no task
		}
		if canon, variants := lex.Rewrite(q.Task, 16); canon != "" {
			canonical = canon
			for _, text := range append([]string{canon}, variants...) {
				for _, t := range tax.ClassifyText(text) {
					if !slices.Contains(c.types, t) {
						c.types = append(c.types, t)
					}
				}
			}
		}
	}
	if q.Task != "" && !isQuestion(q.Task) && changesProduction(q.Task) && !slices.Contains(c.types, "deploy:production") {
		// "bump the ack deadline on the prod alerts subscription": a
		// change asked for in production is a change of production,
		// whatever it changes.
		c.types = append(c.types, "deploy:production")
	}
	if q.Task != "" && moneyRE.MatchString(q.Task) {
		// "a port tax of €2.50": an amount of money is the word money.
		canonical += " money amount price"
	}
	c.readOnly = q.Tool != "" && readOnlyTools[strings.ToLower(q.Tool)]
	if c.types == nil {
		c.types = []string{}
	}
	var parts []string
	parts = append(parts, q.Task, q.Action)
	parts = append(parts, q.Files...)
	var named []string
	if q.Tool != "" || len(q.Input) > 0 {
		all, n := inputTexts(q.Input)
		parts, named = append(parts, all...), n
		c.hasCall = true
	}
	all := strings.Join(parts, "\n")
	if q.Cwd != "" {
		all = strings.ReplaceAll(all, strings.TrimRight(q.Cwd, "/")+"/", "")
	}
	c.text = textutil.Truncate(strings.TrimSpace(all), maxEmbedText)
	reduced, files := reducePaths(all)
	c.files = files
	seen := map[string]bool{}
	// The file names first, whole: the index holds "timeline.html" as one
	// word, so lessons about the file are retrieved and then matched as
	// the same file.
	for _, f := range files {
		if q := `"` + f.base + `"`; !seen[q] && len(c.words) < 8 {
			seen[q] = true
			c.words = append(c.words, q)
		}
	}
	// Then the kind of each file, for retrieval only: a lesson corrected
	// on Assets/Prefabs/StopDetail.prefab ("do not hand-edit prefab
	// yaml") is about SignaturePad.prefab beside it, and says so by the
	// extension's word or its directory's, not by the file's name.
	for _, f := range files {
		for _, w := range []string{strings.TrimPrefix(path.Ext(f.base), "."), f.parent[strings.LastIndexByte(f.parent, '/')+1:]} {
			if w = strings.ToLower(w); len(w) >= 4 && !genericDirs[w] && !seen[w] && len(c.words) < 10 && isWord(w) {
				seen[w] = true
				c.words = append(c.words, w)
			}
		}
	}
	for _, w := range Words(reduced + " " + canonical) {
		s := stem(w)
		if s == "" {
			continue
		}
		c.tokens[s] = true
		if _, ok := c.wordOf[s]; !ok {
			c.wordOf[s] = w
		}
		if !seen[w] && len(c.words) < 40 {
			seen[w] = true
			c.words = append(c.words, w)
		}
	}
	c.written, c.command, c.editPath = callTexts(q)
	if c.written != "" {
		c.replaced = replacedText(q)
		c.named = map[string]bool{}
		head := append([]string{q.Task, q.Action}, q.Files...)
		reduced, files := reducePaths(strings.Join(append(head, named...), "\n"))
		// The files a call touches are those it names, not those the
		// content it writes mentions (a script that runs manage.py does
		// not edit manage.py).
		c.files = files
		for _, w := range Words(reduced) {
			if s := stem(w); s != "" {
				c.named[s] = true
			}
		}
	}
	if c.command != "" {
		// The script a command runs (python manage.py ..., node build.js)
		// is run, not changed: a lesson corrected while it ran is not
		// about every other command that runs it.
		c.files = withoutRunScripts(c.files, c.command)
	}
	c.inspects = c.command != "" && inspection(c.command)
	if c.inspects {
		// Looking at production is not changing it.
		kept := c.types[:0]
		for _, t := range c.types {
			// A runner's type goes too: `npx serverless logs` only looks.
			if !inspectDomains[typeDomain(t)] && !runnerTypes[t] {
				kept = append(kept, t)
			}
		}
		c.types = kept
	}
	c.action = describeAction(q)
	c.program = programOf(q)
	c.programs = programsOf(c.command)
	c.cmdKeys = commandKeys(c.command)
	c.question = !c.hasCall && q.Action == "" && isQuestion(q.Task)
	if c.hasCall {
		c.kind = "edit"
		if c.program != "" && !editsInPlace(c.command) {
			c.kind = "shell"
		}
	}
	if c.written != "" {
		c.editQ = q // read again only when a lesson asks (creates, onlyAdds)
	}
	return c
}

// creates reports whether the call is a Write of a file that is not
// there yet (createsFile), computed on first use.
func (cu *cue) creates() bool { return memo(&cu.created, func() bool { return createsFile(cu.editQ) }) }

// onlyAdds reports whether the edit only adds lines (additiveEdit),
// computed on first use.
func (cu *cue) onlyAdds() bool {
	return memo(&cu.additive, func() bool { return additiveEdit(cu.editQ) })
}

// memo is f, computed once into state (0 unknown, 1 true, -1 false).
func memo(state *int8, f func() bool) bool {
	if *state == 0 {
		*state = -1
		if f() {
			*state = 1
		}
	}
	return *state > 0
}

// createsFile reports whether q writes a file that does not exist yet: a
// Write (or create) call whose path, resolved against the event's working
// directory, is not there.
func createsFile(q Query) bool {
	switch strings.ToLower(q.Tool) {
	case "write", "create", "create_file", "write_file":
	default:
		return false
	}
	m, ok := inputMap(q.Input)
	if !ok {
		return false
	}
	p, _ := m["file_path"].(string)
	if p == "" {
		p, _ = m["path"].(string)
	}
	if p == "" {
		return false
	}
	if !filepath.IsAbs(p) && q.Cwd != "" {
		p = filepath.Join(q.Cwd, p)
	}
	_, err := os.Lstat(p)
	return errors.Is(err, fs.ErrNotExist)
}

// inPlaceRE is a command that rewrites a file where it is: sed -i, perl
// -pi, ruby -pi. It edits as an Edit call does, through another tool.
var inPlaceRE = textutil.Lazy(`(?:^|[\s;&|(])(?:sed|gsed)\s+(?:-[A-Za-z]*i|--in-place)|(?:^|[\s;&|(])(?:perl|ruby)\s+(?:-\S+\s+)*-[A-Za-z0-9]*i`)

// editsInPlace reports whether a shell command edits files in place.
func editsInPlace(cmd string) bool {
	return (strings.Contains(cmd, "sed") || strings.Contains(cmd, "perl") || strings.Contains(cmd, "ruby")) && inPlaceRE.MatchString(cmd)
}

// condense keeps the plain words of a text: no identifiers (snake_case,
// camelCase, words with digits or dots), no stop words.
func condense(s string) string {
	var keep []string
	for _, f := range strings.Fields(s) {
		w := strings.Trim(f, ".,;:!?()[]{}\"'`")
		if w == "" || strings.ContainsAny(w, "_./\\0123456789=") || (w != strings.ToLower(w) && w != strings.ToUpper(w[:1])+strings.ToLower(w[1:])) {
			continue
		}
		lw := strings.ToLower(w)
		if stopWords.Has(lw) && !keepWords[lw] {
			continue
		}
		keep = append(keep, lw)
	}
	return strings.Join(keep, " ")
}

// inputTexts returns the strings of a tool input that describe what it
// does (the command, the path, the content written, the pattern
// searched), and those of them that name rather than write: the content
// an edit writes left out, a patch cut to its file lines.
func inputTexts(raw json.RawMessage) (all, named []string) {
	m, ok := inputMap(raw)
	if !ok {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return []string{s}, []string{patchHeaders(s)}
		}
		return []string{string(raw)}, nil
	}
	for _, key := range []string{"command", "cmd", "file_path", "path", "notebook_path", "new_string", "content",
		"new_str", "file_text", "new_source", "pattern", "query", "url", "prompt", "description", "input", "patch"} {
		var vals []string
		switch v := m[key].(type) {
		case string:
			vals = []string{v}
		case []any:
			for _, e := range v {
				if s, ok := e.(string); ok {
					vals = append(vals, s)
				}
			}
		}
		all = append(all, vals...)
		switch key {
		case "new_string", "content", "new_str", "file_text", "new_source":
		case "input", "patch":
			for _, v := range vals {
				named = append(named, patchHeaders(v))
			}
		default:
			named = append(named, vals...)
		}
	}
	if edits, ok := m["edits"].([]any); ok {
		for _, e := range edits {
			if em, ok := e.(map[string]any); ok {
				if s, ok := em["new_string"].(string); ok {
					all = append(all, s)
				}
			}
		}
	}
	return all, named
}

// describeAction is the proposed action in a few words: "run `go test ./...`".
func describeAction(q Query) string {
	m, _ := inputMap(q.Input)
	str := func(keys ...string) string {
		for _, k := range keys {
			if s, ok := m[k].(string); ok && s != "" {
				return s
			}
		}
		return ""
	}
	rel := func(p string) string {
		if q.Cwd != "" {
			if r, err := filepath.Rel(q.Cwd, p); err == nil && !strings.HasPrefix(r, "..") {
				return filepath.ToSlash(r)
			}
		}
		return p
	}
	if cmd, _ := commandText(m); cmd != "" {
		return "run `" + textutil.Truncate(textutil.OneLine(cmd), 100) + "`"
	}
	if p := str("file_path", "path", "notebook_path"); p != "" {
		verb := "edit"
		if strings.EqualFold(q.Tool, "Write") {
			verb = "write"
		}
		return verb + " `" + textutil.Truncate(rel(p), 100) + "`"
	}
	if q.Action != "" {
		return "run `" + textutil.Truncate(textutil.OneLine(q.Action), 100) + "`"
	}
	return ""
}

// isQuestion reports whether a prompt asks about something ("what does
// X do?", "explain Y") rather than asking for an action. Requests phrased
// as questions ("can you commit this?") are not questions here, nor is a
// question the prompt goes on to act on ("does the address form still
// work? run the tests for AddressForm.vue"): a later sentence that is no
// question and opens with no subject asks for the action.
func isQuestion(s string) bool {
	if !opensQuestion(s) {
		return false
	}
	for _, sent := range sentences(strings.TrimSpace(s))[1:] {
		if !strings.HasSuffix(sent, "?") && !opensQuestion(sent) && requestOpening(sent) {
			return false
		}
	}
	return true
}

// requestOpening reports whether a sentence opens as a request does: with
// a word that is no pronoun, article or other subject ("run the tests",
// "then deploy it", not "it fails on CI" or "the build is red").
func requestOpening(sent string) bool {
	f := strings.Fields(strings.ToLower(sent))
	if len(f) < 2 {
		return false
	}
	switch strings.Trim(f[0], ",.:;!?\"'`") {
	case "i", "i'm", "im", "i've", "i'd", "it", "it's", "its", "we", "we're", "you", "you're", "they", "he", "she",
		"the", "this", "that", "these", "those", "there", "there's", "a", "an", "my", "our", "your", "his", "her",
		"and", "or", "but", "because", "so", "if", "since", "thanks", "thank", "ok", "okay", "yes", "no":
		return false
	}
	return true
}

// opensQuestion is isQuestion of the prompt's first words alone.
func opensQuestion(s string) bool {
	f := strings.Fields(strings.ToLower(s))
	if len(f) == 0 {
		return false
	}
	switch strings.Trim(f[0], ",.:;!?") {
	case "what", "what's", "whats", "how", "how's", "why", "where", "when", "which", "who", "explain", "summarise",
		"summarize", "describe", "does", "is", "are", "was", "were", "did":
		return true
	}
	return aboutRE.MatchString(s)
}

// aboutRE is a request to tell or write about something, not to do it:
// "walk me through how a reading ends up in the mart", "write the
// release notes for 2.9.0" asks for words about a release, not for one.
var aboutRE = textutil.Lazy(`(?i)^\W*(?:please\s+|can you\s+|could you\s+)?(?:walk me through|talk me through|tell me|show me how|help me understand|(?:write|draft|prepare|compose|update)\s+(?:up\s+)?(?:the\s+|a\s+|an\s+|some\s+)?(?:[\w.-]+\s+){0,2}(?:release notes|changelog|change log|announcement|summary|write-?up|blog post|docs|documentation|readme|pr description|description|email|post|notes))\b`)

// programOf is the program a proposed shell command runs: its first word
// after sudo/env and VAR=value assignments, lower-cased.
func programOf(q Query) string {
	cmd := q.Action
	if q.Tool != "" || len(q.Input) > 0 {
		m, ok := inputMap(q.Input)
		if !ok {
			return ""
		}
		c, ok := commandText(m)
		if !ok {
			return ""
		}
		cmd = c
	}
	for _, f := range strings.Fields(cmd) {
		if f == "sudo" || f == "env" || f == "time" || f == "nice" || strings.Contains(f, "=") || strings.HasPrefix(f, "-") {
			continue
		}
		return strings.ToLower(filepath.Base(f))
	}
	return ""
}

// programsOf lists the programs the simple commands of cmd run, lower
// case, without cd, sudo, env and assignments.
//
// A runner and the program it runs are both named: `uv run black` runs
// uv and black, `npx prettier` npx and prettier, `python -m pytest`
// python and pytest.
func programsOf(cmd string) []string {
	var out []string
	add := func(f string) string {
		p := strings.ToLower(filepath.Base(strings.Trim(f, "({")))
		if p != "cd" && p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
		return p
	}
	for _, part := range splitShell(strings.NewReplacer("\n", ";", "$(", ";", "`", ";").Replace(stripHeredocs(cmd))) {
		fields := strings.Fields(part)
		for i, f := range fields {
			if f == "sudo" || f == "env" || f == "time" || f == "nice" || f == "exec" || strings.Contains(f, "=") || strings.HasPrefix(f, "-") {
				continue
			}
			if p := add(f); i+1 < len(fields) {
				if own, ok := packageRunners[p]; ok && !own.Has(fields[i+1]) && !strings.HasPrefix(fields[i+1], "-") {
					// `pnpm vitest`, `yarn jest`: a word that is none of
					// the package manager's commands runs a binary of the
					// project (or a script named like one).
					add(fields[i+1])
				} else if ok && (fields[i+1] == "dlx" || fields[i+1] == "exec") && i+2 < len(fields) {
					add(fields[i+2])
				}
				if run, ok := runners[p]; ok {
					rest := fields[i+1:]
					if run != "" {
						if rest[0] != run {
							break
						}
						rest = rest[1:]
					}
					for _, g := range rest {
						if !strings.HasPrefix(g, "-") && !strings.Contains(g, "=") {
							add(g)
							break
						}
					}
				}
			}
			break
		}
	}
	return out
}

// packageRunners are the package managers that run a project binary
// named right after them (`pnpm vitest`, `yarn jest`, `bun vite`), with
// their own commands, which do not.
var packageRunners = map[string]*lexicon.Set{
	"pnpm": lexicon.NewSet(`add audit bin config create dedupe deploy dlx env exec fetch i import init install install-test it licenses link list ln ls outdated pack patch patch-commit prune publish rb rebuild remove rm root run server setup start store t test un uninstall unlink up update why`),
	"yarn": lexicon.NewSet(`add audit autoclean bin cache config create dedupe dlx exec generate-lock-entry global help import info init install licenses link list login logout node npm outdated owner pack patch plugin policies publish rebuild remove run set start tag team test unlink unplug up upgrade upgrade-interactive version versions why workspace workspaces`),
	"bun":  lexicon.NewSet(`add build create exec i init install link outdated pm publish remove repl rm run test unlink update upgrade x`),
}

// runners are programs that run another one, with the subcommand that
// does it ("" when the next word is the program): uv run X, npx X.
var runners = map[string]string{"uv": "run", "uvx": "", "poetry": "run", "pipenv": "run", "pdm": "run", "hatch": "run",
	"npx": "", "bunx": "", "pnpx": "", "pnpm": "exec", "bundle": "exec", "python": "-m", "python3": "-m"}

// callTexts returns the code a proposed edit writes, its comments removed
// in the language of its file, and the shell command a call runs.
func callTexts(q Query) (written, command, file string) {
	m, ok := inputMap(q.Input)
	if len(q.Input) > 0 && !ok {
		var patch string
		if json.Unmarshal(q.Input, &patch) != nil {
			return "", q.Action, ""
		}
		m = map[string]any{"patch": patch}
	}
	var parts []string
	for _, k := range []string{"new_string", "content", "new_str", "file_text", "new_source", "insert_text"} {
		if s, ok := m[k].(string); ok {
			parts = append(parts, s)
		}
	}
	if edits, ok := m["edits"].([]any); ok {
		for _, e := range edits {
			if em, ok := e.(map[string]any); ok {
				if s, ok := em["new_string"].(string); ok {
					parts = append(parts, s)
				}
			}
		}
	}
	for _, k := range []string{"file_path", "path", "notebook_path"} {
		if s, ok := m[k].(string); ok && s != "" {
			file = s
			break
		}
	}
	// apply_patch: the added lines of each file of the patch.
	for _, k := range []string{"patch", "input"} {
		s, ok := m[k].(string)
		if !ok || !strings.Contains(s, "*** ") && !strings.Contains(s, "\n+") {
			continue
		}
		for _, ln := range strings.Split(s, "\n") {
			if f, ok := strings.CutPrefix(ln, "*** Add File: "); ok {
				file = f
			} else if f, ok := strings.CutPrefix(ln, "*** Update File: "); ok {
				file = f
			} else if strings.HasPrefix(ln, "+") && !strings.HasPrefix(ln, "+++") {
				parts = append(parts, ln[1:])
			}
		}
	}
	if len(parts) > 0 {
		written = stripComments(strings.Join(parts, "\n"), file)
	}
	command, _ = commandText(m)
	if command == "" {
		command = q.Action
	}
	if written == "" {
		file = ""
	}
	return written, command, file
}

// replacedText is the code an Edit or MultiEdit replaces.
func replacedText(q Query) string {
	m, ok := inputMap(q.Input)
	if !ok {
		return ""
	}
	var parts []string
	for _, k := range []string{"old_string", "old_str"} {
		if s, ok := m[k].(string); ok {
			parts = append(parts, s)
		}
	}
	if edits, ok := m["edits"].([]any); ok {
		for _, e := range edits {
			if em, ok := e.(map[string]any); ok {
				if s, ok := em["old_string"].(string); ok {
					parts = append(parts, s)
				}
			}
		}
	}
	return strings.Join(parts, "\n")
}

// patchHeaders keeps the file lines of an apply_patch text.
func patchHeaders(s string) string {
	var keep []string
	for _, ln := range strings.Split(s, "\n") {
		if strings.HasPrefix(ln, "*** ") {
			keep = append(keep, ln)
		}
	}
	return strings.Join(keep, "\n")
}

// additiveEdit reports whether an Edit or MultiEdit only adds: every
// line of each old_string is kept, in order, in its new_string.
func additiveEdit(q Query) bool {
	if len(q.Input) == 0 {
		return false
	}
	var m struct {
		Old   *string `json:"old_string"`
		New   string  `json:"new_string"`
		Edits []struct {
			Old string `json:"old_string"`
			New string `json:"new_string"`
		} `json:"edits"`
	}
	if json.Unmarshal(q.Input, &m) != nil {
		return false
	}
	if m.Old != nil {
		return keepsLines(*m.Old, m.New)
	}
	for _, e := range m.Edits {
		if !keepsLines(e.Old, e.New) {
			return false
		}
	}
	return len(m.Edits) > 0
}

// keepsLines reports whether new holds every line of old, in order, and
// more: lines were only added (a field inserted before a closing brace).
func keepsLines(old, new string) bool {
	if strings.TrimSpace(old) == "" || len(new) <= len(old) {
		return false
	}
	nl := strings.Split(new, "\n")
	j := 0
	for _, l := range strings.Split(old, "\n") {
		for j < len(nl) && nl[j] != l {
			j++
		}
		if j == len(nl) {
			return false
		}
		j++
	}
	return true
}

// isWord reports whether w is letters only.
func isWord(w string) bool {
	return strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }) < 0
}

// commandText is a shell call's command line and whether the input holds
// one: "command" (Claude Code's Bash, Codex's hook input, Codex's shell as
// an argv, ["bash", "-lc", CMD] read as CMD) or "cmd" (Codex's
// exec_command, as its transcripts hold it).
func commandText(m map[string]any) (string, bool) {
	v, ok := m["command"]
	if !ok || v == nil {
		v = m["cmd"]
	}
	switch x := v.(type) {
	case string:
		return x, true
	case []any:
		var argv []string
		for _, a := range x {
			if s, ok := a.(string); ok {
				argv = append(argv, s)
			}
		}
		if line, ok := observations.ShellLine(argv); ok {
			return line, true // Codex's ["bash", "-lc", CMD]
		}
		return strings.Join(argv, " "), true
	}
	return "", false
}

// inputMap is a tool call's input decoded as an object. The cue reads it
// for its texts, its program, its file, what it replaces and what it
// creates: it is decoded once per input (the last one is kept), not once
// for each. The map is shared: callers read it.
func inputMap(raw json.RawMessage) (map[string]any, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	lastInput.Lock()
	defer lastInput.Unlock()
	if bytes.Equal(raw, lastInput.raw) {
		return lastInput.m, lastInput.ok
	}
	var m map[string]any
	ok := json.Unmarshal(raw, &m) == nil && m != nil
	lastInput.raw, lastInput.m, lastInput.ok = slices.Clone(raw), m, ok
	return m, ok
}

var lastInput struct {
	sync.Mutex
	raw json.RawMessage
	m   map[string]any
	ok  bool
}
