package recall

import (
	"cmp"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/kbmem/kb/internal/textutil"
)

// What a refused shell command says beyond its action type. The taxonomy
// knows many commands, not every CLI: `gcloud iam service-accounts keys
// create` has no type, and `gsutil rm gs://gridwise-raw/...` refused
// because "nothing leaves gridwise-raw" is about that bucket, not about
// every gsutil rm. Two signals of the refused call itself, each read from
// the trigger's quoted command:
//
//   - its command path (the program and its subcommand words): a later
//     call that runs the same path is the same action, whatever its
//     arguments; used only for an untyped command with a path of three
//     words or more (`gcloud iam service-accounts ...`), since a short path
//     (`gsutil rm`) says too little on its own;
//   - its objects: the names in it the person's words repeat (a bucket,
//     a project, a database: "gridwise-raw", "gridwise-prod"). When the
//     refused call changed something (rm, mv, DELETE, TRUNCATE, ...), a
//     later call that changes the same object, through any tool, is the
//     same action; one that only reads it is not.

// refusedCommand is the command a shell trigger quotes, less the "…" of a
// trigger cut short.
func refusedCommand(trigger string) string {
	return strings.TrimSpace(strings.TrimSuffix(triggerQuote(trigger), "…"))
}

// triggerQuote is what a trigger quotes in backticks: the corrected
// command or file, "" when it quotes nothing.
func triggerQuote(trigger string) string { return strings.Trim(backtickRE.FindString(trigger), "`") }

// commandPaths lists the command path of each simple command of cmd: the
// program (base name, lower case) and the subcommand words after it, up
// to the first flag, path, assignment or value, at most five words.
func commandPaths(cmd string) []string { return commandPathsWith(cmd, subcommandRE.RE()) }

// keyWordRE is a word of a command key: a subcommand, with the colons of
// a namespaced one (`php artisan migrate:status`, `npm run db:reset`).
var keyWordRE = textutil.Lazy(`^[a-z][a-z0-9:-]*$`)

// commandPathsWith is commandPaths with the subcommand words sub matches.
func commandPathsWith(cmd string, sub *regexp.Regexp) []string {
	var out []string
	for _, part := range splitShell(strings.ReplaceAll(cmd, "\n", ";")) {
		fields := strings.Fields(part)
		i := 0
		for i < len(fields) && (fields[i] == "sudo" || fields[i] == "env" || fields[i] == "time" || fields[i] == "exec" ||
			strings.Contains(fields[i], "=") && !strings.HasPrefix(fields[i], "-")) {
			i++
		}
		if i >= len(fields) || fields[i] == "cd" {
			continue
		}
		path := []string{strings.ToLower(filepath.Base(fields[i]))}
		for _, f := range fields[i+1:] {
			if len(path) == 5 || !sub.MatchString(f) {
				break
			}
			path = append(path, f)
		}
		out = append(out, strings.Join(path, " "))
	}
	return out
}

var subcommandRE = textutil.Lazy(`^[a-z][a-z0-9-]*$`)

// commandKeys are the command paths of cmd (commandPaths) with two words
// or more, a runner in front left out (npx, uv run, bundle exec) and the
// program by the first name of its alias set (toolAliases): what a
// command is known by when it runs again ("serverless deploy" for `npx
// serverless deploy --stage prod` and for `sls deploy`).
func commandKeys(cmd string) []string {
	var out []string
	for _, p := range commandPathsWith(cmd, keyWordRE.RE()) {
		w := strings.Fields(p)
		if sub, ok := runners[w[0]]; ok && len(w) > 1 && !strings.HasPrefix(sub, "-") {
			switch {
			case sub == "":
				w = w[1:]
			case w[1] == sub && len(w) > 2:
				w = w[2:]
			}
		}
		if len(w) < 2 {
			continue
		}
		w[0] = aliasOf(w[0])
		if k := strings.Join(w, " "); !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// aliasOf is the first name of program p's alias set, p when it has none.
func aliasOf(p string) string {
	for _, a := range toolAliases {
		if slices.Contains(a, p) {
			return a[0]
		}
	}
	return p
}

// refusedKeys are the keys of the command a shell trigger quotes
// (commandKeys), when it is a single command: a refused chain (`git
// checkout -- . && git clean -fd`) does not say which of its commands was
// wrong. The activation index files a lesson under them (anchors) and
// matchCommand finds them run again.
func refusedKeys(trigger string) []string {
	if callKind(trigger) != "shell" {
		return nil
	}
	refused := refusedCommand(trigger)
	if len(commandPaths(refused)) != 1 {
		return nil
	}
	return commandKeys(refused)
}

// commandAnchor is the anchor a command key is filed under: its first two
// words.
func commandAnchor(key string) string {
	w := strings.Fields(key)
	return "cmd:" + strings.Join(w[:min(2, len(w))], " ")
}

// sameCommand is the refused command key one of proposed's keys repeats
// (begins with: `aws sqs purge-queue` is not `aws sqs list-queues`, nor
// `php artisan migrate:status` `php artisan make:controller`), "" when
// none does.
func sameCommand(refused, proposed []string) string {
	for _, r := range refused {
		if samePath(r, proposed) {
			return r
		}
	}
	return ""
}

// samePath reports whether one of the proposal's command paths begins
// with the refused path (word by word).
func samePath(refused string, proposed []string) bool {
	for _, p := range proposed {
		if p == refused || strings.HasPrefix(p, refused+" ") {
			return true
		}
	}
	return false
}

// otherSubcommand reports whether proposed runs the program of a refused
// command path under another subcommand (neither path begins the other):
// `dotnet user-secrets set` is not `dotnet add`, `pulumi up` not `pulumi
// config set`. False when it does not run that program.
func otherSubcommand(refused, proposed string) bool {
	rs := commandPaths(refused)
	ps := commandPaths(proposed)
	other := false
	for _, r := range rs {
		prog, rsub, ok := strings.Cut(r, " ")
		if !ok {
			continue
		}
		for _, p := range ps {
			pprog, psub, _ := strings.Cut(p, " ")
			if pprog != prog {
				continue
			}
			if psub == "" || psub == rsub || strings.HasPrefix(psub, rsub+" ") || strings.HasPrefix(rsub, psub+" ") {
				return false
			}
			other = true
		}
	}
	return other
}

// commandObjects are the names of the refused command the person's words
// repeat: identifiers with a separator or a digit in them, five
// characters or more ("gridwise-raw", "orders_v2", "db-main-1"), as
// whole words in both.
func commandObjects(cmd, said string) []string {
	if said == "" {
		return nil
	}
	var out []string
	lower := strings.ToLower(said)
	for _, tok := range objectSplitRE.Split(strings.ToLower(cmd), -1) {
		tok = strings.Trim(tok, ".-_")
		if len(tok) < 5 || !strings.ContainsAny(tok, "-_0123456789") || !strings.ContainsAny(tok, "abcdefghijklmnopqrstuvwxyz") ||
			strings.HasPrefix(tok, "-") || slices.Contains(out, tok) {
			continue
		}
		if wordIn(lower, tok) {
			out = append(out, tok)
		}
	}
	return out
}

// objectSplitRE splits a command into the names it holds: at spaces,
// quotes, assignments, paths, URLs and SQL punctuation.
var objectSplitRE = textutil.Lazy("[\\s'\"`=:/,;()\\[\\]{}@]+")

// wordIn reports whether w occurs in s with no identifier character
// (letter, digit, _ or -) on either side.
func wordIn(s, w string) bool {
	return textutil.BoundedIn(s, w, func(j, end int) bool {
		return (j == 0 || !objectByte(s[j-1])) && (end == len(s) || !objectByte(s[end]))
	})
}

func objectByte(b byte) bool { return textutil.IdentByte(b) || b == '-' }

// changes reports whether a command changes what it names: a delete, a
// move, a write of rows or a schema change, as a command word or an SQL
// keyword (not a flag: `docker run --rm` removes nothing the person
// named).
func changes(cmd string) bool {
	return changeWordRE.MatchString(cmd) || changeSQLRE.MatchString(cmd)
}

var (
	changeWordRE = textutil.Lazy(`(?:^|[\s;&|(])(?:rm|rb|rmdir|mv|del|delete|remove|purge|destroy|drop|truncate|wipe|prune|shred|unlink|overwrite)(?:\s|$)`)
	changeSQLRE  = textutil.Lazy(`(?i)\b(?:delete\s+from|truncate\s+table|truncate\s+[\w."]+|drop\s+(?:table|view|schema|database|index)|update\s+[\w."]+\s+set|insert\s+(?:into|overwrite)|alter\s+table|merge\s+into)\b`)
)

// refusedHit is the signal the refused command gives for a proposed
// command: the objects it changed, changed again, or its command path, run
// again. "" when neither.
func (cu *cue) refusedHit(c *candidate) string {
	if cu.command == "" || callKind(c.trigger) != "shell" {
		return ""
	}
	refused := refusedCommand(c.trigger)
	if refused == "" {
		return ""
	}
	if objs := commandObjects(refused, c.said); len(objs) > 0 {
		// The person named what the refused call touched: that object
		// is the lesson's scope, the path alone is no evidence.
		if !changes(refused) || !changes(cu.command) {
			return ""
		}
		lower := strings.ToLower(cu.command)
		for _, o := range objs {
			if wordIn(lower, o) {
				return o
			}
		}
		return ""
	}
	if len(c.types) > 0 {
		return ""
	}
	for _, p := range commandPaths(refused) {
		if strings.Count(p, " ") >= 2 && samePath(p, commandPaths(cu.command)) {
			return p
		}
		// "we dropped rubocop for standard": the person's negated words
		// name the refused program itself, so any call of it is the
		// corrected action.
		progs := programsOf(p)
		for i, prog := range progs {
			if _, runner := runners[prog]; runner && i < len(progs)-1 {
				continue // `bundle exec rubocop`: the program is rubocop
			}
			if len(prog) >= 3 && slices.Contains(cu.programs, prog) && negatesProgram(c.said, prog) &&
				!otherNamedSubcommand(c.said, p, prog, cu.command) {
				return prog
			}
		}
	}
	return ""
}

// negatesWord reports whether a clause of said that holds a negation names
// w as a whole word.
func negatesWord(said, w string) bool { return clauseNames(said, w, true) }

// negatesProgram reports whether a clause of said that holds a negation
// names program p itself: not a file or path that holds its name
// ("Pulumi.staging.yaml", "infra/pulumi").
func negatesProgram(said, p string) bool {
	return clauseWith(said, true, func(cl string) bool { return programIn(cl, p) })
}

// programIn reports whether s names program p as a word of its own: no
// identifier byte, '.' or '/' on either side.
func programIn(s, p string) bool {
	return textutil.BoundedIn(s, p, func(j, end int) bool {
		before := j == 0 || !objectByte(s[j-1]) && s[j-1] != '.' && s[j-1] != '/'
		after := end == len(s) || !objectByte(s[end]) && s[end] != '/' && !(s[end] == '.' && end+1 < len(s) && textutil.IdentByte(s[end+1]))
		return before && after
	})
}

// clauseNames reports whether a clause of said (lower-cased) names w as a
// whole word and holds a negation when negated, none when not.
func clauseNames(said, w string, negated bool) bool {
	return clauseWith(said, negated, func(cl string) bool { return wordIn(cl, w) })
}

// clauseWith reports whether a clause of said (lower-cased) satisfies has
// and holds a negation when negated, none when not. has holds of a text
// when it holds of one of its clauses (a word or a name, bounded by what
// ends a clause): a text it does not hold of is not split, which is most
// lessons of a hook's hundred candidates.
func clauseWith(said string, negated bool, has func(cl string) bool) bool {
	said = strings.ToLower(said)
	if !has(said) {
		return false
	}
	for _, cl := range splitClauses(said) {
		if has(cl) && negRE.MatchString(cl) == negated {
			return true
		}
	}
	return false
}

// otherLanguage reports whether a code signature of a lesson corrected on
// an edit was found in code of another language than the corrected file's:
// in a shell command (unless the signature is that command: `rm -rf
// build`), or in a file whose extension belongs to another language.
// Files of unknown kinds are not ruled out.
func (cu *cue) otherLanguage(c *candidate) bool {
	if callKind(c.trigger) != "edit" {
		return false
	}
	corrected := languageOf(strings.Trim(backtickRE.FindString(c.trigger[strings.Index(c.trigger, "`"):]), "`"))
	if corrected == "" {
		return false
	}
	if cu.written == "" {
		if cu.command == "" {
			return false
		}
		first, _, _ := strings.Cut(c.sigHit, " ")
		if slices.ContainsFunc(cu.types, func(t string) bool { return typeDomain(t) == "pkg" }) && wordIn(strings.ToLower(cu.command), strings.ToLower(c.sigHit)) {
			return false // `uv add requests`: installing the banned package
		}
		return !slices.Contains(cu.programs, strings.ToLower(first))
	}
	for _, f := range cu.files {
		if l := languageOf(f.base); l != "" {
			return l != corrected
		}
	}
	return false
}

// languageOf is the language of a file by its extension, "" when unknown:
// one name for the extensions that hold the same code.
func languageOf(file string) string {
	return languages[strings.ToLower(filepath.Ext(file))]
}

var languages = map[string]string{
	".py": "python", ".pyi": "python", ".ipynb": "python",
	".js": "js", ".jsx": "js", ".mjs": "js", ".cjs": "js", ".ts": "js", ".tsx": "js", ".vue": "js", ".svelte": "js",
	".sql": "sql", ".rb": "ruby", ".erb": "ruby", ".rake": "ruby", ".go": "go", ".rs": "rust",
	".java": "jvm", ".kt": "jvm", ".kts": "jvm", ".scala": "jvm", ".groovy": "jvm",
	".swift": "swift", ".m": "objc", ".cs": "dotnet", ".fs": "dotnet", ".ex": "elixir", ".exs": "elixir", ".heex": "elixir",
	".php": "php", ".c": "c", ".h": "c", ".cc": "c", ".cpp": "c", ".hpp": "c",
	".sh": "shell", ".bash": "shell", ".zsh": "shell",
	".yml": "yaml", ".yaml": "yaml", ".json": "json", ".toml": "toml", ".tf": "hcl", ".hcl": "hcl",
	".html": "html", ".css": "css", ".scss": "css", ".md": "markdown",
	".proto": "proto", ".graphql": "graphql", ".gql": "graphql", ".dart": "dart", ".lua": "lua", ".r": "r", ".jl": "julia",
	".hs": "haskell", ".ml": "ocaml", ".clj": "clojure", ".erl": "erlang", ".zig": "zig", ".nim": "nim",
}

// lacksNamedFlags reports whether the refused command of a shell-corrected
// lesson had flags the person's words repeat ("不要 down -v", "no -A")
// and the proposal runs the same command path with none of them.
func (cu *cue) lacksNamedFlags(c *candidate) bool {
	if callKind(c.trigger) != "shell" {
		return false
	}
	if len(c.types) > 0 && !broadTypes[c.types[0]] && slices.Contains(cu.types, c.types[0]) {
		// `git commit -n`, `SKIP=ruff git commit`: the proposal is the
		// corrected kind of action however it writes it.
		return false
	}
	refused := refusedCommand(c.trigger)
	named := namedFlags(refused, withoutAdvisedSpans(c.said, c.lessonSignatures()))
	if len(named) == 0 || !samePath(firstOr(commandPaths(refused)), commandPaths(cu.command)) {
		// Only the same command without the flag: another tool's
		// command (`git push -f` for `--force`, helm for kubectl) is
		// judged by its type.
		return false
	}
	for _, f := range strings.Fields(cu.command) {
		if slices.Contains(named, strings.Trim(f, `'"`)) {
			return false
		}
	}
	// "never commit secrets, and never `git add -A`": the lesson's other
	// words ("secrets") met in the proposal (values-prod.secrets.yaml) are
	// more than the flag.
	for _, w := range Words(strings.ToLower(cu.command)) {
		if len(w) >= 4 && !strings.Contains(refused, w) && c.ownStems().has(stem(w)) {
			return false
		}
	}
	return true
}

// namedFlags are the flags of command cmd (-v, --force) that said repeats
// as a word of its own.
func namedFlags(cmd, said string) []string {
	var out []string
	for _, f := range strings.Fields(cmd) {
		f = strings.Trim(f, `'"`)
		if len(f) < 2 || f[0] != '-' || f == "--" || strings.Trim(f, "-0123456789") == "" || slices.Contains(out, f) {
			continue
		}
		for i := 0; ; {
			j := strings.Index(said[i:], f)
			if j < 0 {
				break
			}
			j += i
			end := j + len(f)
			before := j == 0 || !flagByte(said[j-1])
			after := end == len(said) || !flagByte(said[end])
			if before && after {
				out = append(out, f)
				break
			}
			i = j + 1
		}
	}
	return out
}

// flagByte is a byte a flag word continues with.
func flagByte(b byte) bool { return b == '-' || b == '_' || b == '=' || textutil.IdentByte(b) }

// otherBranch reports whether the proposal pushes to a branch of its own
// (not a shared one, not one the lesson names) and the lesson is about
// another: the branch of the refused push, which the person's words name,
// or the shared branches a rule names.
func (cu *cue) otherBranch(c *candidate) bool {
	mine := strings.ToLower(pushBranch(cu.command))
	top, _, _ := strings.Cut(mine, "/")
	if mine == "" || sharedBranches[mine] || sharedBranches[top] {
		return false // main, release/2026.03: a shared branch
	}
	said := strings.ToLower(cmp.Or(c.said, c.lesson))
	if wordIn(said, mine) {
		return false
	}
	if theirs := strings.ToLower(pushBranch(refusedCommand(c.trigger))); callKind(c.trigger) == "shell" && theirs != "" {
		return theirs != mine && wordIn(said, theirs)
	}
	// A rule without a refused push ("never rewrite develop or main")
	// names the shared branches it is about.
	for b := range sharedBranches {
		if wordIn(said, b) {
			return true
		}
	}
	return false
}

// sharedBranches are the names teams give the branches everyone works
// from: a rule about pushing names them.
var sharedBranches = map[string]bool{"main": true, "master": true, "develop": true, "development": true, "trunk": true,
	"staging": true, "production": true, "prod": true, "release": true}

// pushBranch is the branch a `git push` names (the destination of its
// last refspec: "origin main", "origin HEAD:develop", "+main"), or "".
func pushBranch(cmd string) string {
	for _, part := range splitShell(cmd) {
		f := strings.Fields(part)
		at := slices.Index(f, "push")
		if at < 1 || f[at-1] != "git" && !strings.HasSuffix(f[at-1], "/git") && !slices.Contains(f[:at], "git") {
			continue
		}
		var pos []string
		for _, a := range f[at+1:] {
			if !strings.HasPrefix(a, "-") {
				pos = append(pos, strings.Trim(a, `'"`))
			}
		}
		if len(pos) < 2 {
			return ""
		}
		ref := pos[len(pos)-1]
		if _, dst, ok := strings.Cut(ref, ":"); ok {
			ref = dst
		}
		return strings.TrimPrefix(strings.TrimPrefix(ref, "+"), "refs/heads/")
	}
	return ""
}

// otherNamedSubcommand reports whether the person named the refused
// program with its subcommand ("ローカルで packer build は実行しないで")
// and cmd runs another one (packer fmt): the lesson is about that
// subcommand, not every call of the program.
func otherNamedSubcommand(said, refusedPath, prog, cmd string) bool {
	f := strings.Fields(refusedPath)
	i := slices.Index(f, prog)
	if i < 0 || i+1 >= len(f) || strings.HasPrefix(f[i+1], "-") {
		return false
	}
	sub := prog + " " + f[i+1]
	return wordIn(strings.ToLower(said), sub) && !wordIn(strings.ToLower(cmd), sub)
}

// withoutAdvisedSpans is said less the code spans it advises: the flags
// of `cargo nextest run -p quarry-api` are the instead-part's, not flags
// the person took from the refused command as what was wrong.
func withoutAdvisedSpans(said string, sigs []signature) string {
	for _, s := range sigs {
		if !s.prohibited {
			said = strings.ReplaceAll(said, "`"+s.text+"`", " ")
		}
	}
	return said
}
