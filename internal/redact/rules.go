package redact

import (
	"fmt"
	"sync"

	sx "github.com/kbmem/kb/internal/secrets"

	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/regexp"
)

// projectPrefix starts the id of every rule kb adds to gitleaks' set.

// secretName matches the part of a variable or key name that says its
// value is a secret.
const secretName = sx.NamePattern

// lazyRE is a package-level expression compiled on first use (as
// textutil.Lazy, in the regexp package gitleaks' rules take): compiled at
// start, these were 210 KB and ~2% of the CPU of every kb process (a
// search under the freshness keeper), which mostly redacts nothing.
func lazyRE(src string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(src) })
}

// notSecretName matches assignments whose name mentions a secret but whose
// value is about the secret, not the secret itself (TOKEN_URL=, secretName:).
var notSecretName = lazyRE(`(?i)(?:url|uri|endpoint|host|port|path|file|dir|name|_id|type|mode|header|prefix|length|size|ttl|timeout|expiry|expires|expiration|lifetime|algorithm|alg|enabled|region|version|format|user|username|ref|env|policy|store|provider|count|limit)["']?[ \t]*[:=]|(?i:author|tokens|tokeniz|\b(?:max|min|num)_|_count)`)

// placeholderValue matches values that only stand in for a secret:
// references to a variable, template holes, masks and the usual dummies.
var placeholderValue = lazyRE(sx.PlaceholderPattern)

// identifier matches values that are code, not a secret: a lowercase word,
// an UPPER_CASE name, a dotted reference such as process.env.API_KEY.
var identifier = lazyRE(`^(?:[a-z][a-z-]*|[A-Z][A-Z0-9_]*|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+\)?)$`)

// flagSecretName matches the part of a flag name that says its value is a
// secret.
const flagSecretName = `(?i:passw(?:or)?d|passphrase|pass\b|pwd|secret|token|api-?key|apikey|access-?key|auth-?key|private-?key|credentials?)`

// notSecretFlag matches flags whose name mentions a secret but whose value
// is not one: a file, a variable, a length, a prompt.
var notSecretFlag = lazyRE(`(?i)^[ \t'"=(]?--?[A-Za-z0-9_-]*(?:stdin|file|path|env|prompt|cmd|command|helper|manager|length|len|policy|reset|hash|type|url|uri|endpoint|header|prefix|name|id|dir|expir|ttl|timeout|count|limit|size|min|max|format|mode|help|source|from|store|server|host|port|user|method|kind|scope|audience|budget|tokens|tokeniz)[A-Za-z0-9_-]*(?:[ \t]|=)`)

// notFlagValue matches flag values that are not secrets: docker build's
// --secret id=...,src=..., paths, booleans.
var notFlagValue = lazyRE(`(?i)^(?:(?:id|src|source|env|type|target)=.*|[~.]?/.*|true|false|yes|no|on|off|-)$`)

// proseValue is a password written in prose without quotes: a run of
// password characters holding a letter and a digit (a word alone is not
// taken for a password), not ending in sentence punctuation.
const proseValue = `(?:[A-Za-z0-9!@#$%^&*_+=~/.-]*[A-Za-z][A-Za-z0-9!@#$%^&*_+=~/.-]*[0-9]|[A-Za-z0-9!@#$%^&*_+=~/.-]*[0-9][A-Za-z0-9!@#$%^&*_+=~/.-]*[A-Za-z])[A-Za-z0-9!@#$%^&*_+=~/-]*(?:\.[A-Za-z0-9!@#$%^&*_+=~/-]+)*`

// notProsePassword matches what follows "password is" in prose without
// being a password: short values, hyphenated words ("base64-encoded"),
// names of algorithms and versions.
var notProsePassword = lazyRE(`(?i)^(?:.{1,5}|[a-z]+[0-9]*(?:-[a-z0-9]+)*-[a-z]+|(?:sha|md|argon|pbkdf|aes|rsa|ed|x|pkcs|utf|base|bcrypt|scrypt|hmac|oauth|http|tls|v)[0-9a-z-]*|[0-9]+[a-z]{0,6})$`)

// cliPasswords are the password flags of tools that take one on the
// command line, one rule per tool family (a single regex of all of them
// is several times slower). All share the marker kb-cli-password. The
// value is an alternative of three groups (single quoted, double quoted,
// bare); the first non-empty one is the secret. Keywords of three letters
// or less would need a long token around them (see tokenRun): they carry
// the space after them.
var cliPasswords = func() []config.Rule {
	const val = `(?:'([^'\r\n]{3,256})'|"([^"\r\n$\x60\\]{3,256})"|([^\s'"$\x60;&|<>(){}\[\]\\-][^\s'"\x60;&|<>(){}]{2,255}))`
	const args = `[^\r\n;&|]*?[ \t]` // the rest of the command before the flag
	tools := []struct {
		keywords []string
		regex    string
	}{
		{[]string{"sshpass"}, `\bsshpass` + args + `-p[ \t]*` + val},
		{[]string{"login"}, `\b(?:docker|podman|nerdctl|buildah|skopeo|helm|oras|crane|regctl)(?:[ \t]+registry)?[ \t]+login\b` + args + `-p[ \t]+` + val},
		{[]string{"mysql", "mariadb"}, `\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlpump|mysqlsh|mariadb|mariadb-dump|mariadb-admin)\b` + args + `-p` + val},
		{[]string{"redis-cli"}, `\bredis-cli\b` + args + `-a[ \t]+` + val},
		{[]string{"sqlcmd", "bcp ", "mssql-cli", "osql", "isql"}, `\b(?:sqlcmd|bcp|mssql-cli|osql|isql)\b` + args + `-P[ \t]*` + val},
		{[]string{"ldap"}, `\bldap[a-z]*\b` + args + `-w[ \t]+` + val},
		{[]string{"pass:"}, `[ \t]-pass(?:in|out)?[ \t]+pass:` + val},
		{[]string{"zip "}, `\b(?:zip|unzip)\b` + args + `-P[ \t]*` + val},
		{[]string{"7z ", "7za ", "7zz ", "rar "}, `\b(?:7z|7za|7zz|rar|unrar)\b` + args + `-p` + val},
		{[]string{"pass "}, `[ \t]-(?:src|dest|new)?(?:store|key)pass[ \t]+` + val},
		{[]string{"smbclient", "rpcclient", "smbmap", "mount.cifs"}, `\b(?:smbclient|rpcclient|smbmap|mount\.cifs)\b` + args + `-U[ \t]*['"]?[^\s%'"]+%` + val},
		{[]string{"htpasswd"}, `\bhtpasswd\b` + args + `-[A-Za-z]*b[A-Za-z]*[ \t]+(?:-[A-Za-z]+[ \t]+)*[^\s-]\S*[ \t]+[^\s-]\S*[ \t]+` + val},
	}
	out := make([]config.Rule, len(tools))
	for i, tl := range tools {
		out[i] = config.Rule{
			RuleID:      fmt.Sprintf("%s%d", cliPasswordPrefix, i+1),
			Description: "Password passed to a command-line tool by its password flag.",
			Regex:       regexp.MustCompile(tl.regex),
			Keywords:    tl.keywords,
		}
	}
	return out
}

// cliPasswordPrefix starts the ids of the cliPasswords rules, which all
// report as cliPasswordRule.
const (
	cliPasswordPrefix = "kb-cli-password-"
	cliPasswordRule   = "kb-cli-password"
)

// projectRules returns kb's own rules, for secret shapes that turn up in
// agent transcripts and that gitleaks' defaults miss (TestProjectRulesNeeded
// shows each one is needed).
func projectRules() ([]config.Rule, error) {
	placeholders := &config.Allowlist{Description: "placeholders", Regexes: []*regexp.Regexp{placeholderValue()}}
	code := &config.Allowlist{Description: "code identifiers", Regexes: []*regexp.Regexp{identifier()}}
	names := &config.Allowlist{Description: "names about a secret", RegexTarget: "match", Regexes: []*regexp.Regexp{notSecretName()}}
	rules := []config.Rule{
		{
			// postgres://user:pass@host, https://user:token@github.com/...
			RuleID:      "kb-url-password",
			Description: "Password or token in the userinfo part of a URL.",
			// The user may be empty: redis://:password@host.
			Regex:      regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]{1,30}://[^\s:/?#@'"\x60<>\[\]{}]{0,128}:([^\s/?#@'"\x60<>\[\]{}]{3,256})@[a-z0-9\[]`),
			Keywords:   []string{"://"},
			Allowlists: []*config.Allowlist{placeholders},
		},
		{
			// DB_PASSWORD=..., export SECRET_KEY="...", set API_KEY=...
			RuleID:      "kb-env-secret",
			Description: "Shell or .env assignment to a variable named like a secret.",
			// A value in code (x = y) needs quotes; unquoted values count only
			// in the shell form NAME=value, which code rarely has. "==" is a
			// comparison or a pin (tiktoken==0.7.0), not an assignment.
			Regex: regexp.MustCompile(`(?m)(?:^|[\s;&|(\x60])(?:(?:export|set|setx|declare -x)[ \t]+)?-{0,2}[A-Za-z0-9_.-]*` + secretName + `[A-Za-z0-9_.-]*` +
				`(?:=(?:"([^"\s]{4,})"|'([^'\s]{4,})'|([^\s"'$#\x60(),=][^\s"'\x60;&|(),]{3,})(?:[ \t;&|#]|$))` +
				`|[ \t]+=[ \t]*(?:"([^"\s]{4,})"|'([^'\s]{4,})'))`),
			Keywords:   []string{"pass", "pwd", "secret", "token", "key", "credential", "auth"},
			Allowlists: []*config.Allowlist{placeholders, names},
		},
		{
			// api_key: ..., "password": "..." (JSON is seen as key: value)
			RuleID:      "kb-config-secret",
			Description: "YAML or JSON member named like a secret with a literal value.",
			Regex: regexp.MustCompile(`(?m)^[ \t]*(?:-[ \t]+)?["']?[A-Za-z0-9_.-]*` + secretName + `[A-Za-z0-9_.-]*["']?[ \t]*:[ \t]+` +
				`(?:"([^"\r\n]{6,})"|'([^'\r\n]{6,})'|([^\s"'#$&*!|>{\[%<,;()][^\s#,;(){}\[\]]{5,}))[ \t]*(?:#.*)?$`),
			Keywords:   []string{"pass", "pwd", "secret", "token", "key", "credential", "auth"},
			Allowlists: []*config.Allowlist{placeholders, code, names},
		},
		{
			// Authorization: Bearer ..., Authorization: Basic ..., bearer <token>
			RuleID:      "kb-auth-header",
			Description: "Credential in an Authorization header or after the Bearer scheme.",
			Regex: regexp.MustCompile(`(?i)(?:\b(?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?(?:(?:bearer|token|basic|digest|bot)[ \t]+)?([a-z0-9._~+/-]{12,}=*)` +
				`|\bbearer[ \t]+([a-z0-9._~+/-]{20,}=*))`),
			Entropy:    3,
			Keywords:   []string{"authorization", "bearer"},
			Allowlists: []*config.Allowlist{placeholders, code},
		},
		{
			// A private key block cut short (head -5 id_rsa, a truncated tool
			// output) that gitleaks' private-key rule, which wants the END
			// line, does not see. Lines may carry a line-number prefix, and be
			// separated by escaped newlines inside JSON-ish text.
			RuleID:      "kb-private-key",
			Description: "Private key block, complete or truncated.",
			Regex: regexp.MustCompile(`-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----` +
				`(?:(?:\r?\n|\\r?\\n)[ \t]*(?:\d+(?:→|\t|:|\|)[ \t]*)?(?:[A-Za-z0-9+/=]{16,}|[A-Za-z-]+:[^\r\n\\]*|))+`),
			Keywords: []string{"-----begin"},
		},
		{
			// --password SECRET, --api-token=SECRET, -secret SECRET.
			RuleID:      "kb-flag-secret",
			Description: "Value of a command-line flag named like a secret.",
			Regex: regexp.MustCompile(`(?:^|[ \t'"=(])--?(?:[A-Za-z0-9][A-Za-z0-9_-]*?)?` + flagSecretName + `[A-Za-z0-9_-]*(?:[ \t]+|=)` +
				`(?:'([^'\r\n]{3,256})'|"([^"\r\n$\x60\\]{3,256})"|([^\s'"$\x60;&|<>(){}\[\]\\-][^\s'"\x60;&|<>(){}]{2,255}))`),
			Keywords: []string{"pass", "pwd", "secret", "token", "key", "credential", "auth"},
			Allowlists: []*config.Allowlist{placeholders, code,
				{Description: "flags about a secret", RegexTarget: "match", Regexes: []*regexp.Regexp{notSecretFlag()}},
				{Description: "flag values that are not secrets", Regexes: []*regexp.Regexp{notFlagValue()}}},
		},
		{
			// curl -b 'sessionid=...', Cookie: a=...; b=..., Set-Cookie: sid=...
			// The whole list is matched; detect splits it into its values.
			RuleID:      "kb-cookie",
			Description: "Cookie values in a Cookie or Set-Cookie header or curl's cookie flag.",
			Regex: regexp.MustCompile(`(?i)(?:(?:^|[ \t'"])(?:-b|--cookie)(?:[ \t]+|=)['"]?|\b(?:set-)?cookie["']?[ \t]*[:=][ \t]*['"]?)` +
				`((?:[^\s=;,'"]{1,128}=[^\s;'"]*(?:;[ \t]*)?)+)`),
			Keywords: []string{"cookie", " -b ", "\t-b "},
		},
		{
			// host:port:database:user:password, the line format of .pgpass.
			RuleID:      "kb-pgpass",
			Description: "Password field of a PostgreSQL .pgpass line.",
			Regex: regexp.MustCompile(`(?m)(?:^|[\s'"→])[^\s:'"#→]*[A-Za-z.*][^\s:'"#]*:(?:\d{1,5}|\*):[^\s:'"]+:[^\s:'"]+:` +
				`([^\s:'"]{3,256})(?:$|[\s'"])`),
			Keywords: []string{":5432:", ":6432:", ":*:", "pgpass"},
		},
		{
			// {"password":"..."} on one line, 'api_key': '...' in a repr,
			// "token" => "..." in Ruby, \"secret\":\"...\" escaped.
			RuleID:      "kb-json-secret",
			Description: "Inline JSON, dict or hash member named like a secret with a string value.",
			Regex: regexp.MustCompile(`(?:\\?"[A-Za-z0-9_.-]*` + secretName + `[A-Za-z0-9_.-]*\\?"[ \t]*(?::|=>)[ \t]*\\?"([^"\\\r\n]{4,256})\\?"` +
				`|'[A-Za-z0-9_.-]*` + secretName + `[A-Za-z0-9_.-]*'[ \t]*(?::|=>)[ \t]*'([^'\\\r\n]{4,256})')`),
			Keywords:   []string{"pass", "pwd", "secret", "token", "key", "credential", "auth"},
			Allowlists: []*config.Allowlist{placeholders, code, names},
		},
		{
			// "the postgres password is Tr0ub4dor&3", "my password: hunter22".
			RuleID:      "kb-prose-password",
			Description: "Password stated in prose after \"password is\" or \"password:\".",
			Regex: regexp.MustCompile(`(?i)\b(?:pass(?:word|wd|phrase|code)|pwd)s?\b(?:[ \t]+(?:for|of|on|at|to|in)(?:[ \t]+[\w@./:-]{1,40}){1,3})?` +
				`[ \t]*(?:[ \t](?:is|was|would be|will be|should be|remains)|:|=)[ \t]+(?:(?:now|still|just|set to|simply)[ \t]+)?` +
				`(?:["'\x60]([^"'\x60\s]{4,128})["'\x60]|(` + proseValue + `))`),
			Keywords: []string{"pass", "pwd"},
			Allowlists: []*config.Allowlist{placeholders,
				{Description: "words, not passwords", Regexes: []*regexp.Regexp{notProsePassword()}}},
		},
	}
	// mysql -pSECRET, sshpass -p SECRET, docker login -p SECRET,
	// redis-cli -a SECRET, openssl -passin pass:SECRET...: each tool's rule
	// names it, so that -p elsewhere (mkdir -p, ssh -p 22) is left alone.
	for _, r := range cliPasswords() {
		r.Allowlists = []*config.Allowlist{placeholders}
		rules = append(rules, r)
	}
	for i := range rules {
		rules[i].Tags = []string{"kb"}
		if err := rules[i].Validate(); err != nil {
			return nil, fmt.Errorf("redact: project rule %s: %w", rules[i].RuleID, err)
		}
	}
	return rules, nil
}
