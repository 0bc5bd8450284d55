package secrets

import (
	"regexp"
	"strings"
	"sync"
)

// Assigned reports whether text gives a literal value to something named
// like a secret: a key, variable, flag or config entry whose name says
// password, secret, token, API key, access or shared key (a Wi-Fi psk), credential or
// connection string, followed by ':', '=', a space or '(' (a setter call) and a value of eight
// characters or more that holds a letter and a digit and is no
// placeholder ($VAR, <...>, {{...}}, changeme...). It is the cheap half of
// what the detector (internal/redact) finds, for the hook: it tells "the
// agent writes a secret into this file" from "the agent writes a setting
// into this file" without loading the detector's rules.
func Assigned(text string) bool {
	if CredentialURL(text) {
		return true
	}
	lower := strings.ToLower(text)
	if !mayName(lower) {
		return false
	}
	if len(lower) != len(text) {
		return assignedIn(text) // offsets differ: no line-wise reading
	}
	// A match never crosses a line: the text is read line by line, and
	// the expression runs only on a line where a secret's word is
	// followed by a value it could take (mayAssign): "the key point of
	// step 1" names no secret, and running the case-insensitive
	// expression on every such line of a Write was most of its cost.
	for start := 0; start < len(text); {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		if mayAssign(lower[start:end]) && assignedIn(text[start:end]) {
			return true
		}
		start = end + 1
	}
	return false
}

// nameWords are the words one of which every secret's name holds
// (NamePattern, shared key, connection string), in lower case.
var nameWords = []string{"pass", "pwd", "secret", "token", "key", "credential", "connection", "psk", "auth"}

// mayAssign reports whether a line (in lower case) may hold what
// assignedIn looks for: one of nameWords followed, somewhere after it, by
// a run of eight or more characters a value is made of, a digit among
// them (the value assignedIn keeps is part of such a run).
func mayAssign(line string) bool {
	for _, k := range nameWords {
		for i := 0; ; {
			j := strings.Index(line[i:], k)
			if j < 0 {
				break
			}
			i += j + len(k)
			if valueRunAfter(line[i:]) {
				return true
			}
		}
	}
	return false
}

// valueRunAfter reports whether s holds a run of 8 or more characters
// that are not white space, quotes, a backtick or ,;{}(), with a digit.
func valueRunAfter(s string) bool {
	n, digit := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\r', '\n', '\f', '"', '\'', '`', ',', ';', '{', '}', '(', ')':
			if n >= 8 && digit {
				return true
			}
			n, digit = 0, false
		default:
			n++
			digit = digit || c >= '0' && c <= '9'
		}
	}
	return n >= 8 && digit
}

// assignedIn is Assigned's match, on a text that may name a secret.
func assignedIn(text string) bool {
	for _, m := range assignedRE().FindAllStringSubmatch(text, -1) {
		v := strings.Trim(m[1], `"'`)
		if len(v) < 8 || !strings.ContainsAny(v, "0123456789") || strings.IndexFunc(v, isLetter) < 0 {
			continue
		}
		if placeholderRE().MatchString(v) || strings.Contains(v, "REDACTED") {
			continue
		}
		return true
	}
	return false
}

// mayName is the fast rejection of a text in lower case: no secret-like
// word at all.
func mayName(lower string) bool {
	for _, k := range nameWords {
		if strings.Contains(lower, k) {
			return true
		}
	}
	return false
}

func isLetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// NamePattern matches the part of a name (a variable, a key, a flag) that
// says its value is a secret; the detector's rules (internal/redact) and
// Assigned share it.
const NamePattern = `(?i:passw(?:or)?d|passphrase|pwd|secret|token|api[_-]?key|apikey|private_?key|access_?key|credentials?|_auth\b|auth_|_psk\b|wpa_?psk)`

var (
	assignedRE = sync.OnceValue(func() *regexp.Regexp {
		// No run of name characters before the name: the value is what
		// is read, and that leading run made the hook's check several
		// times slower.
		return regexp.MustCompile(`(?i)(?:` + NamePattern + `|shared[_-]?key|connection[_-]?string)[A-Za-z0-9_.-]*["']?` +
			`(?:[ \t]*:?[:=][ \t]*|[ \t]+|\([ \t]*)["']?([^\s"'` + "`" + `,;{}()]+)`)
	})
	placeholderRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(PlaceholderPattern) })
)

// CredentialURL reports whether text holds a URL that is itself a
// credential: a chat webhook (Slack, Discord, Teams), a password in its
// user info, or a token, key or signature in its query (not a
// placeholder: ${DB_PASSWORD}).
func CredentialURL(text string) bool {
	if !strings.Contains(text, "://") {
		return false
	}
	if webhookURLRE().MatchString(text) {
		return true
	}
	for _, m := range credentialInURLRE().FindAllStringSubmatch(text, -1) {
		v := m[1] + m[2]
		if !placeholderRE().MatchString(v) && !strings.Contains(v, "REDACTED") {
			return true
		}
	}
	return false
}

var (
	webhookURLRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_-]{20,}|discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{20,}|\.webhook\.office\.com/webhookb2/[A-Za-z0-9@/-]{20,}`)
	})
	credentialInURLRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`://[^/\s:@"'<>]+:([^/\s@"'<>]{6,})@|[?&](?:token|access_token|api_key|apikey|key|sig|signature|secret|client_secret|password)=([A-Za-z0-9%._~+-]{12,})`)
	})
)
