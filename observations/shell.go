package observations

import (
	"encoding/json"
	"errors"
	"github.com/kbmem/kb/internal/textutil"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Shell commands are parsed, not grepped: every simple command of a script
// (in pipelines, && / || / ; lists, subshells, blocks and $(...)) is
// classified by its argv after wrappers are stripped. What a command writes
// (redirect targets, tee, sed -i, cp/mv destinations, here-documents) is
// classified as written paths and content, and SQL handed to a database
// client (-c, -e, here-documents) as content.

const maxShellDepth = 4

func (t *Taxonomy) shell(h hits, cmd string, depth int) {
	if depth > maxShellDepth || strings.TrimSpace(cmd) == "" {
		return
	}
	if len(cmd) > 100000 {
		cmd = cmd[:100000]
	}
	// The expression needs a pipe and curl or wget: most commands have
	// neither, and a hook does not compile it for them.
	if strings.Contains(cmd, "|") && (strings.Contains(cmd, "curl") || strings.Contains(cmd, "wget")) && curlPipeRE.MatchString(cmd) {
		h.add("sys:curl-pipe-shell", 3)
	}
	if depth == 0 && strings.ContainsAny(cmd, `'"`) {
		// Code a command runs inline (python -c, rails runner, node -e,
		// psql -c, bq query): what it writes is content.
		for _, m := range inlineCodeRE.FindAllStringSubmatch(cmd, 8) {
			t.contentHits(h, m[1]+m[2])
		}
	}
	f, err := parseShell(cmd)
	if err != nil {
		t.fallbackShell(h, cmd, depth)
		return
	}
	// The directory a script changed into ("cd infra/envs/prod &&
	// terraform apply") names the environment of the commands after it.
	cwd := ""
	syntax.Walk(f, func(n syntax.Node) bool {
		if st, ok := n.(*syntax.Stmt); ok {
			if dir, ok := cdTarget(st); ok {
				cwd = dir
			}
			t.stmt(h, st, depth, cwd)
		}
		return true
	})
}

func parseShell(cmd string) (f *syntax.File, err error) {
	defer func() {
		if r := recover(); r != nil { // the parser must never take kb down
			f, err = nil, errShellPanic
		}
	}()
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
}

var errShellPanic = errors.New("shell parser panic")

// inlineCodeRE is the quoted code a command runs inline: after -c, -e,
// --execute, --command, runner, eval, query or exec.
var inlineCodeRE = textutil.Lazy(`(?:\s-[ce]|\s--execute|\s--command|\srunner|\seval|\squery|\sexec)(?:\s+--?[\w=-]+)*\s+(?:'([^']{4,})'|"((?:[^"\\]|\\.){4,})")`)

var curlPipeRE = textutil.Lazy(`\b(curl|wget)\b[^|;&\n]*\|\s*(sudo\s+(-\S+\s+)*)?(ba|z|da|k)?sh\b`)

// cdTarget is the directory of a `cd DIR` statement.
func cdTarget(st *syntax.Stmt) (string, bool) {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || call == nil || len(call.Args) != 2 || wordString(call.Args[0]) != "cd" {
		return "", false
	}
	return wordString(call.Args[1]), true
}

func (t *Taxonomy) stmt(h hits, st *syntax.Stmt, depth int, cwd string) {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || call == nil {
		return
	}
	argv := make([]string, 0, len(call.Args))
	for _, w := range call.Args {
		argv = append(argv, wordString(w))
	}
	var outs []string
	var hdocs []string
	for _, r := range st.Redirs {
		if r == nil {
			continue
		}
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll:
			if r.Word != nil {
				outs = append(outs, wordString(r.Word))
			}
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc != nil {
				hdocs = append(hdocs, wordString(r.Hdoc))
			}
		case syntax.WordHdoc:
			if r.Word != nil {
				hdocs = append(hdocs, wordString(r.Word))
			}
		}
	}
	before := len(h)
	final := t.simple(h, argv, depth, cwd)
	if len(h) == before {
		t.commandWords(h, final, call.Assigns)
	}
	if len(call.Assigns) > 0 && len(final) > 1 && path.Base(final[0]) == "git" {
		for _, a := range call.Assigns {
			if a != nil && a.Name != nil && skipsHooks(a.Name.Value, wordString(a.Value)) {
				h.add("git:no-verify", 3)
			}
		}
	}
	for _, o := range outs {
		t.path(h, o)
	}
	if len(hdocs) > 0 && len(final) > 0 {
		name := path.Base(final[0])
		if dbClients[name] || (len(outs) > 0 && (name == "cat" || name == "tee")) ||
			(name == "tee" && len(final) > 1) {
			for _, d := range hdocs {
				t.contentHits(h, d)
			}
		}
	}
}

// skipsHooks reports whether an environment variable set for a git
// command turns its hooks off: husky's HUSKY=0, pre-commit's SKIP=ids,
// lefthook's LEFTHOOK=0, overcommit's OVERCOMMIT_DISABLE=1.
func skipsHooks(name, value string) bool {
	switch name {
	case "HUSKY", "LEFTHOOK":
		return value == "0" || value == "false"
	case "SKIP":
		return value != ""
	case "OVERCOMMIT_DISABLE", "HUSKY_SKIP_HOOKS":
		return value == "1" || value == "true"
	}
	return false
}

// cacheClients are the command-line clients of key-value stores.
var cacheClients = map[string]bool{"redis-cli": true, "valkey-cli": true, "keydb-cli": true}

// simple classifies one simple command and every command it wraps, run in
// the directory cwd ("" when the script did not change it); it returns the
// innermost argv.
func (t *Taxonomy) simple(h hits, argv []string, depth int, cwd string) []string {
	for guard := 0; len(argv) > 0 && guard < 8; guard++ {
		t.matchArgv(h, argv, cwd)
		t.argvWrites(h, argv)
		name := path.Base(argv[0])
		switch {
		case cacheClients[name]:
			for _, a := range argv[1:] {
				if la := strings.ToLower(a); la == "flushall" || la == "flushdb" {
					h.add("db:flush-cache", 3)
				}
			}
		case name == "git":
			for i, a := range argv[1:] {
				if strings.HasPrefix(a, "core.hooksPath=") && i > 0 && argv[i] == "-c" {
					h.add("git:no-verify", 3)
				}
			}
		case name == "ssh":
			// ssh HOST 'cmd': the command runs on the server; changing a
			// server's files or services by hand there is its own act.
			if remote := sshRemote(argv[1:]); remote != "" {
				t.shell(h, remote, depth+1)
				if serverChangeRE.MatchString(remote) {
					h.add("ops:server-hand-edit", 3)
				}
			}
		case name == "env":
			for _, a := range argv[1:] {
				if k, v, ok := strings.Cut(a, "="); ok && skipsHooks(k, v) && slices.Contains(argv, "git") {
					h.add("git:no-verify", 3)
				}
			}
		}
		if dbClients[name] || name == "python" || name == "python3" || name == "node" {
			for _, a := range argv[1:] {
				if len(a) > 6 && strings.ContainsAny(a, " \n") {
					t.contentHits(h, a)
				}
			}
		}
		if line, ok := ShellLine(argv); ok {
			t.shell(h, line, depth+1)
			return argv
		}
		if name == "eval" && len(argv) > 1 {
			t.shell(h, strings.Join(argv[1:], " "), depth+1)
			return argv
		}
		next := unwrap(argv)
		if next == nil {
			return argv
		}
		argv = next
	}
	return argv
}

var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "fish": true}

// ShellLine returns the command line a shell is given to run with -c
// ("sh -c CMD", "bash -lc CMD": Codex runs every command this way), and
// whether argv is such a call.
func ShellLine(argv []string) (string, bool) {
	if len(argv) == 0 || !shells[path.Base(argv[0])] {
		return "", false
	}
	for i := 1; i+1 < len(argv); i++ {
		if strings.HasPrefix(argv[i], "-") && !strings.HasPrefix(argv[i], "--") && strings.Contains(argv[i], "c") {
			return argv[i+1], true
		}
	}
	return "", false
}

var dbClients = map[string]bool{"psql": true, "mysql": true, "mariadb": true, "sqlite3": true, "sqlite": true,
	"sqlcmd": true, "clickhouse-client": true, "cockroach": true, "duckdb": true, "pgcli": true, "mycli": true}

// flagsWithValue lists, per wrapper, short flags that take a separate value.
var flagsWithValue = map[string]string{
	"sudo": "ugCghprtUD", "doas": "uC", "env": "uCS", "nice": "n", "ionice": "cnp", "timeout": "sk",
	"xargs": "nIPdLsEa", "npx": "p", "stdbuf": "ioe", "uv": "p", "poetry": "C",
}

// unwrap strips one wrapper from argv ("sudo -u x cmd", "env A=1 cmd",
// "time cmd", "uv run cmd", "python -m mod", "npx tool", "pnpm dlx tool")
// and returns the wrapped command, or nil when argv wraps nothing.
func unwrap(argv []string) []string {
	name := path.Base(argv[0])
	rest := argv[1:]
	skipFlags := func(r []string) []string {
		vals := flagsWithValue[name]
		for len(r) > 0 && strings.HasPrefix(r[0], "-") && r[0] != "-" {
			f := r[0]
			r = r[1:]
			if f == "--" {
				break
			}
			if len(f) == 2 && vals != "" && strings.ContainsRune(vals, rune(f[1])) && len(r) > 0 {
				r = r[1:]
			}
		}
		return r
	}
	var out []string
	switch name {
	case "sudo", "doas", "time", "nohup", "command", "exec", "builtin", "caffeinate", "stdbuf", "nice", "ionice", "npx", "bunx", "pnpx", "uvx", "xargs", "unbuffer", "chronic":
		out = skipFlags(rest)
	case "env":
		out = skipFlags(rest)
		for len(out) > 0 && strings.Contains(out[0], "=") && !strings.HasPrefix(out[0], "=") {
			out = out[1:]
		}
	case "timeout":
		out = skipFlags(rest)
		if len(out) > 0 {
			out = out[1:]
		}
	case "uv", "poetry", "pipenv", "pdm", "hatch", "rye", "conda", "bundle", "pnpm", "yarn", "npm":
		if len(rest) > 0 && (rest[0] == "run" || rest[0] == "exec" || rest[0] == "dlx" && (name == "pnpm" || name == "yarn")) {
			out = skipFlags(rest[1:])
			if name == "conda" || rest[0] == "run" && (name == "npm" || name == "yarn" || name == "pnpm") {
				// "npm run test" runs a script, not a command named test; the
				// script name is classified by the npm patterns themselves.
				// ("pnpm exec vercel" and "pnpm dlx vercel" run the tool, as
				// npx does.)
				return nil
			}
		}
	case "pipx", "bun":
		if len(rest) > 0 && (name == "pipx" && rest[0] == "run" || name == "bun" && rest[0] == "x") {
			out = skipFlags(rest[1:])
		}
	case "kubectl", "oc":
		// kubectl exec POD -- cmd: the command run in the container.
		if slices.Contains(rest, "exec") {
			if i := slices.Index(rest, "--"); i >= 0 {
				out = rest[i+1:]
			}
		}
	case "docker", "podman":
		// docker exec [flags] CONTAINER cmd, docker compose exec SERVICE cmd.
		r := rest
		if len(r) > 1 && r[0] == "compose" {
			r = r[1:]
		}
		if len(r) > 0 && r[0] == "exec" {
			r = skipFlags(r[1:])
			if len(r) > 1 {
				out = r[1:]
			}
		}
	case "python", "python3", "python2", "py", "pypy3":
		for i, a := range rest {
			if a == "-m" && i+1 < len(rest) {
				out = rest[i+1:]
				break
			}
			if !strings.HasPrefix(a, "-") {
				break
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// sshRemote is the command an ssh call runs on the host, "" for a login:
// what follows the first argument that is no option or option value.
func sshRemote(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			continue
		}
		if strings.HasPrefix(a, "-") {
			if len(a) == 2 && strings.ContainsRune("bcDEeFIiJLlmOoPpQRSWw", rune(a[1])) {
				i++ // the option's value
			}
			continue
		}
		return strings.Join(args[i+1:], " ")
	}
	return ""
}

// serverChangeRE is a remote command that changes the server: a file
// edited, written, copied or removed, a service restarted or enabled, a
// package installed, permissions changed.
var serverChangeRE = textutil.Lazy(`(?:^|[\s;&|(])(?:sed\s+(?:-\w+\s+)*-i|tee\b|install\s|cp\s|mv\s|rm\s|chmod\s|chown\s|ln\s+-s|crontab\s|systemctl\s+(?:restart|reload|stop|start|enable|disable|mask|daemon-reload)\b|service\s+\S+\s+(?:restart|reload|stop|start)\b|(?:apt|apt-get|yum|dnf|apk|zypper)\s+(?:-\w+\s+)*(?:install|remove|upgrade)\b|pip3?\s+install\b)|>>?\s*/(?:etc|opt|srv|usr|var)/`)

// argvWrites classifies the paths a command writes.
func (t *Taxonomy) argvWrites(h hits, argv []string) {
	name := path.Base(argv[0])
	var pos []string
	inPlace, script := false, false
	for _, a := range argv[1:] {
		switch {
		case a == "-i" || strings.HasPrefix(a, "--in-place") || (strings.HasPrefix(a, "-i") && name == "sed" && len(a) <= 6):
			inPlace = true
		case a == "-e" || a == "-f" || a == "--expression":
			script = true
		case strings.HasPrefix(a, "-"):
		default:
			pos = append(pos, a)
		}
	}
	var written []string
	switch name {
	case "tee", "touch", "truncate":
		written = pos
	case "cp", "mv", "install", "rsync", "ln":
		if len(pos) >= 2 {
			written = pos[len(pos)-1:]
		}
	case "sed", "perl":
		if inPlace {
			if script || len(pos) < 2 {
				written = pos
			} else {
				written = pos[1:]
			}
		}
	}
	for _, p := range written {
		t.path(h, p)
	}
}

func wordString(w *syntax.Word) string {
	if w == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range w.Parts {
		partString(&b, p)
	}
	return b.String()
}

func partString(b *strings.Builder, p syntax.WordPart) {
	switch x := p.(type) {
	case *syntax.Lit:
		b.WriteString(x.Value)
	case *syntax.SglQuoted:
		b.WriteString(x.Value)
	case *syntax.DblQuoted:
		for _, q := range x.Parts {
			partString(b, q)
		}
	case *syntax.ParamExp:
		b.WriteString("$")
		if x.Param != nil {
			b.WriteString(x.Param.Value)
		}
	case *syntax.CmdSubst:
		b.WriteString("$(…)")
	default:
		b.WriteString("…")
	}
}

var fallbackSplitRE = textutil.Lazy(`&&|\|\||[;|&\n()]|\$\(|` + "`")

// fallbackShell classifies a command the parser rejected: split on list and
// pipe operators, tokenize each part with simple quote handling.
func (t *Taxonomy) fallbackShell(h hits, cmd string, depth int) {
	for _, part := range fallbackSplitRE.Split(cmd, 64) {
		argv := ShellWords(part)
		for len(argv) > 0 && (strings.Contains(argv[0], "=") && !strings.HasPrefix(argv[0], "=") || shellKeywords[argv[0]]) {
			argv = argv[1:] // an assignment, or the "do" of a loop cut short
		}
		if len(argv) > 0 {
			before := len(h)
			if final := t.simple(h, argv, depth, ""); len(h) == before {
				t.commandWords(h, final, nil)
			}
		}
	}
}

// shellKeywords open the body of a compound command: the command after
// one is what runs.
var shellKeywords = map[string]bool{"do": true, "then": true, "else": true, "{": true, "(": true, "!": true}

// ShellWords splits a command line into words, honouring single and
// double quotes and backslash escapes; an unterminated quote runs to the
// end.
func ShellWords(s string) []string {
	var out []string
	var b strings.Builder
	inWord := false
	var quote rune
	esc := false
	for _, r := range s {
		switch {
		case esc:
			b.WriteRune(r)
			esc = false
		case r == '\\' && quote != '\'':
			esc = true
			inWord = true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				b.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote = r
			inWord = true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				out = append(out, b.String())
				b.Reset()
				inWord = false
			}
		default:
			b.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		out = append(out, b.String())
	}
	return out
}

// Tool calls.

var (
	shellTools = map[string]bool{"bash": true, "shell": true, "exec_command": true, "local_shell": true,
		"run_shell_command": true, "container.exec": true, "terminal": true, "run_terminal_cmd": true,
		"execute_command": true, "shell_command": true, "run_command": true, "bashoutput": false}
	editTools = map[string]bool{"edit": true, "multiedit": true, "write": true, "notebookedit": true,
		"str_replace_editor": true, "str_replace_based_edit_tool": true, "write_file": true, "replace": true,
		"edit_file": true, "create_file": true, "strreplace": true, "write_to_file": true, "insert": true}
	pathKeys    = []string{"file_path", "path", "notebook_path", "filePath", "file", "target_file", "filename"}
	contentKeys = []string{"new_string", "content", "new_str", "file_text", "new_source", "code_edit", "insert_text", "text", "new_content"}
)

func (t *Taxonomy) call(h hits, tool string, input json.RawMessage) {
	lt := strings.ToLower(tool)
	if i := strings.LastIndex(lt, "__"); i >= 0 { // MCP: mcp__server__tool
		lt = lt[i+2:]
	}
	var m map[string]any
	if err := json.Unmarshal(input, &m); err != nil || m == nil {
		// A JSON string, or raw text (Codex custom tool calls carry the
		// patch itself).
		var s string
		if json.Unmarshal(input, &s) != nil {
			s = string(input)
		}
		switch {
		case lt == "apply_patch" || strings.Contains(s, "*** Begin Patch"):
			t.patch(h, s)
		case shellTools[lt]:
			t.shell(h, s, 0)
		}
		return
	}
	switch {
	case lt == "apply_patch":
		for _, k := range []string{"input", "patch", "diff"} {
			if s, ok := m[k].(string); ok {
				t.patch(h, s)
			}
		}
		return
	case editTools[lt]:
		t.edit(h, m)
		return
	case shellTools[lt]:
		t.commandValue(h, m)
		return
	}
	switch lt {
	case "read", "grep", "glob", "ls", "webfetch", "websearch", "task", "todowrite", "todoread",
		"exitplanmode", "bashoutput", "killshell", "view_image", "update_plan", "read_file", "list_directory",
		"search_file_content", "web_fetch", "google_web_search":
		return
	}
	if _, ok := m["command"]; ok {
		t.commandValue(h, m)
		return
	}
	if _, ok := m["cmd"]; ok {
		t.commandValue(h, m)
		return
	}
	for _, k := range contentKeys {
		if _, ok := m[k]; ok {
			t.edit(h, m)
			return
		}
	}
}

func (t *Taxonomy) commandValue(h hits, m map[string]any) {
	v, ok := m["command"]
	if !ok {
		v = m["cmd"]
	}
	switch c := v.(type) {
	case string:
		t.shell(h, c, 0)
	case []any:
		argv := make([]string, 0, len(c))
		for _, a := range c {
			if s, ok := a.(string); ok {
				argv = append(argv, s)
			}
		}
		if len(argv) == 0 {
			return
		}
		t.simple(h, argv, 0, "")
	}
}

func (t *Taxonomy) edit(h hits, m map[string]any) {
	for _, k := range pathKeys {
		if p, ok := m[k].(string); ok {
			t.path(h, p)
			break
		}
	}
	var content []string
	for _, k := range contentKeys {
		if s, ok := m[k].(string); ok {
			content = append(content, s)
		}
	}
	if edits, ok := m["edits"].([]any); ok {
		for _, e := range edits {
			if em, ok := e.(map[string]any); ok {
				for _, k := range contentKeys {
					if s, ok := em[k].(string); ok {
						content = append(content, s)
					}
				}
			}
		}
	}
	if len(content) > 0 {
		t.contentHits(h, strings.Join(content, "\n"))
	}
}

// patch classifies a Codex apply_patch body or a unified diff: the files it
// touches and the lines it adds.
func (t *Taxonomy) patch(h hits, s string) {
	var added []string
	for _, line := range strings.Split(s, "\n") {
		switch {
		case strings.HasPrefix(line, "*** Add File: "), strings.HasPrefix(line, "*** Update File: "),
			strings.HasPrefix(line, "*** Move to: "):
			t.path(h, strings.TrimSpace(line[strings.Index(line, ":")+1:]))
		case strings.HasPrefix(line, "*** Delete File: "):
			t.path(h, strings.TrimSpace(line[len("*** Delete File: "):]))
			h.add("fs:delete", 2)
		case strings.HasPrefix(line, "+++ "):
			p := strings.TrimSpace(line[4:])
			p = strings.TrimPrefix(p, "b/")
			t.path(h, p)
		case strings.HasPrefix(line, "+"):
			added = append(added, line[1:])
		}
	}
	if len(added) > 0 {
		t.contentHits(h, strings.Join(added, "\n"))
	}
}

// commandWords classifies a command no pattern knows by what it names:
// the program, its subcommands, make or just targets, long flags and the
// values of its settings ("make deploy ENV=prod", "sls deploy",
// "kafka-topics.sh --delete", "artisan db:wipe") are the words of the
// action, read as a request in words would be ("deploy prod"). A
// program's name alone is no action, unless it is a script of the
// project's (./scripts/release.sh). File names and quoted text are no words of the action.
func (t *Taxonomy) commandWords(h hits, argv []string, assigns []*syntax.Assign) {
	if len(argv) == 0 || quietPrograms[path.Base(argv[0])] {
		return
	}
	name := path.Base(argv[0])
	if ext := path.Ext(name); scriptExts[ext] {
		name = strings.TrimSuffix(name, ext)
	}
	var words []string
	add := func(s string) {
		for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '_' || r == ':' || r == '.' }) {
			words = append(words, strings.ToLower(w))
		}
	}
	setting := func(kv string) {
		if _, v, ok := strings.Cut(kv, "="); ok && actionWordRE.MatchString(v) {
			add(v)
		}
	}
	for _, a := range assigns {
		if a != nil && a.Value != nil {
			setting("=" + wordString(a.Value))
		}
	}
	script := name != path.Base(argv[0]) || strings.Contains(argv[0], "/")
	n := len(words)
	add(name)
	own := len(words) - n
	pos := 0
	for _, a := range argv[1:] {
		switch {
		case strings.HasPrefix(a, "--") && len(a) > 3:
			f, v, ok := strings.Cut(a[2:], "=")
			if actionWordRE.MatchString(f) {
				add(f)
			}
			if ok && actionWordRE.MatchString(v) {
				add(v)
			}
		case strings.HasPrefix(a, "-"):
		case strings.Contains(a, "="):
			setting(a)
		case pos < 4 && actionWordRE.MatchString(a):
			add(a)
			pos++
		default:
			pos++
		}
	}
	if len(words) == own && !script {
		return
	}
	// A verb alone names the action in a command ("flutter test", "sls
	// deploy"), where a request in words says "run the tests".
	t.fewWords(h, append([]string{"run"}, words...))
}

// fewWords classifies a handful of words (a command's) by the word rules
// of operation types, tokenizing only the rules that mention one of them:
// a hook that classifies one command must not pay for stemming every rule
// (ClassifyText does that once per process, for a prompt).
func (t *Taxonomy) fewWords(h hits, words []string) {
	st := t.stems(strings.Join(words, " "))
	has := stemsIndex(st)
	for i, c := range t.wordCues {
		if !t.ops[c.typ] || !mentionsAny(c.cue, words) {
			continue // what a call does, not what code contains
		}
		if toks := t.wordTokensAt(i); toks != nil && has.all(toks) && matchWindow(st, toks) {
			h.add(c.typ, 1)
		}
	}
}

// mentionsAny reports whether a word rule's text holds the first four
// letters of one of words (a stem is a prefix of its word).
func mentionsAny(cue string, words []string) bool {
	for _, w := range words {
		if len(w) >= 3 && strings.Contains(cue, w[:min(4, len(w))]) {
			return true
		}
	}
	return false
}

// wordTokensAt is the tokens of word rule i, stemmed on first use.
func (t *Taxonomy) wordTokensAt(i int) [][]string {
	t.fewMu.Lock()
	defer t.fewMu.Unlock()
	if t.fewToks == nil {
		t.fewToks = make([][][]string, len(t.wordCues))
		t.fewDone = make([]bool, len(t.wordCues))
	}
	if !t.fewDone[i] {
		t.fewToks[i], _ = t.wordTokens(t.wordCues[i].cue)
		t.fewDone[i] = true
	}
	return t.fewToks[i]
}

// actionWordRE is a word a command may name its action by: a
// subcommand, target or setting value, not a path, file name or number.
var actionWordRE = textutil.Lazy(`^[A-Za-z][A-Za-z0-9]*(?:[-_:][A-Za-z0-9]+)*$`)

// scriptExts are the extensions of scripts run by their file name.
var scriptExts = map[string]bool{".sh": true, ".bash": true, ".py": true, ".js": true, ".mjs": true, ".ts": true, ".rb": true, ".pl": true, ".ps1": true}

// QuietProgram reports whether program p only reads, searches, prints or
// moves text and files (quietPrograms).
func QuietProgram(p string) bool { return quietPrograms[p] }

// quietPrograms are programs whose arguments are no action words: they
// read, search, print or move text and files.
var quietPrograms = map[string]bool{"cat": true, "less": true, "more": true, "head": true, "tail": true, "grep": true, "egrep": true,
	"rg": true, "ag": true, "ls": true, "find": true, "fd": true, "echo": true, "printf": true, "sed": true, "awk": true, "wc": true,
	"diff": true, "jq": true, "yq": true, "cd": true, "pwd": true, "which": true, "type": true, "file": true, "stat": true, "tree": true,
	"open": true, "code": true, "vim": true, "vi": true, "nano": true, "emacs": true, "touch": true, "mkdir": true, "cp": true, "mv": true,
	"ln": true, "chmod": true, "chown": true, "sort": true, "uniq": true, "cut": true, "tr": true, "xxd": true, "tee": true, "man": true,
	"test": true, "[": true, "true": true, "false": true, "sleep": true, "export": true, "source": true, ".": true, "set": true,
	"unset": true, "read": true, "date": true, "git": true}
