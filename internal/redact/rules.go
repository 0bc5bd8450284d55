package redact

import (
	"fmt"

	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/regexp"
)

// projectPrefix starts the id of every rule kb adds to gitleaks' set.
const projectPrefix = "kb-"

// secretName matches the part of a variable or key name that says its
// value is a secret.
const secretName = `(?i:passw(?:or)?d|passphrase|pwd|secret|token|api[_-]?key|apikey|private_?key|access_?key|credentials?|_auth\b|auth_)`

// notSecretName matches assignments whose name mentions a secret but whose
// value is about the secret, not the secret itself (TOKEN_URL=, secretName:).
var notSecretName = regexp.MustCompile(`(?i)(?:url|uri|endpoint|host|port|path|file|dir|name|_id|type|mode|header|prefix|length|size|ttl|timeout|expiry|expires|expiration|lifetime|algorithm|alg|enabled|region|version|format|user|username|ref|env|policy|store|provider|count|limit)["']?[ \t]*[:=]|(?i:author|tokens|tokeniz|\b(?:max|min|num)_|_count)`)

// placeholderValue matches values that only stand in for a secret:
// references to a variable, template holes, masks and the usual dummies.
var placeholderValue = regexp.MustCompile(`(?i)^(?:\$.*|<[^>]*>|\{\{.*\}\}|%[a-z_]+%|\*+|x{3,}|\.{3,}|changeme|change_me|example|placeholder|redacted|none|null|nil|true|false|undefined|your[_-].*|string|str|bytes|secret|password|token|\d{1,6})$`)

// identifier matches values that are code, not a secret: a lowercase word,
// an UPPER_CASE name, a dotted reference such as process.env.API_KEY.
var identifier = regexp.MustCompile(`^(?:[a-z][a-z-]*|[A-Z][A-Z0-9_]*|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+\)?)$`)

// projectRules returns kb's own rules, for secret shapes that turn up in
// agent transcripts and that gitleaks' defaults miss (TestProjectRulesNeeded
// shows each one is needed).
func projectRules() ([]config.Rule, error) {
	placeholders := &config.Allowlist{Description: "placeholders", Regexes: []*regexp.Regexp{placeholderValue}}
	code := &config.Allowlist{Description: "code identifiers", Regexes: []*regexp.Regexp{identifier}}
	names := &config.Allowlist{Description: "names about a secret", RegexTarget: "match", Regexes: []*regexp.Regexp{notSecretName}}
	rules := []config.Rule{
		{
			// postgres://user:pass@host, https://user:token@github.com/...
			RuleID:      "kb-url-password",
			Description: "Password or token in the userinfo part of a URL.",
			Regex:       regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]{1,30}://[^\s:/?#@'"\x60<>\[\]{}]{1,128}:([^\s/?#@'"\x60<>\[\]{}]{3,256})@[a-z0-9\[]`),
			Keywords:    []string{"://"},
			Allowlists:  []*config.Allowlist{placeholders},
		},
		{
			// DB_PASSWORD=..., export SECRET_KEY="...", set API_KEY=...
			RuleID:      "kb-env-secret",
			Description: "Shell or .env assignment to a variable named like a secret.",
			// A value in code (x = y) needs quotes; unquoted values count only
			// in the shell form NAME=value, which code rarely has.
			Regex: regexp.MustCompile(`(?m)(?:^|[\s;&|(\x60])(?:(?:export|set|setx|declare -x)[ \t]+)?-{0,2}[A-Za-z0-9_.-]*` + secretName + `[A-Za-z0-9_.-]*` +
				`(?:=(?:"([^"\s]{4,})"|'([^'\s]{4,})'|([^\s"'$#\x60(),][^\s"'\x60;&|(),]{3,})(?:[ \t;&|#]|$))` +
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
	}
	for i := range rules {
		rules[i].Tags = []string{"kb"}
		if err := rules[i].Validate(); err != nil {
			return nil, fmt.Errorf("redact: project rule %s: %w", rules[i].RuleID, err)
		}
	}
	return rules, nil
}
