package observations

import (
	"strings"

	"github.com/kbmem/kb/internal/textutil"
	"github.com/kbmem/kb/traces"
)

// writtenSecret reports whether written content holds a credential that
// code:hardcoded-secret's expressions do not see: one kb redacted when it
// imported the trace (traces.HoldsRedaction: PLAID_SECRET =
// "[REDACTED:plaid-secret-key]" was a key; the expressions read the
// marker, not the key), or a secret's name set to a literal without
// quotes (unquotedSecret).
func writtenSecret(s string) bool { return traces.HoldsRedaction(s) || unquotedSecret(s) }

// unquotedSecret reports whether content sets a secret's name to a literal
// without quotes, one setting per line, as YAML, .env, .properties and
// shell files write it: "secret_access_key: 9a1d4c7e0b3f6a2d",
// "API_TOKEN=f3a9c1e07b2d", "export DB_PASSWORD=hunter2hunter2". The value
// is a credential's shape: at least 8 characters of letters, digits and
// -_+/=., with a letter and a digit, to the end of the line. A reference
// ($VAR, ${VAR}, <%= ... %>, {{ ... }}, ENV[...]) has other characters and
// is not one; neither is a word (token_type: bearer) or a number.
func unquotedSecret(s string) bool {
	lower := textutil.ASCIILower(s)
	if !strings.Contains(lower, "key") && !strings.Contains(lower, "secret") && !strings.Contains(lower, "pass") &&
		!strings.Contains(lower, "pwd") && !strings.Contains(lower, "token") && !strings.Contains(lower, "credential") {
		return false
	}
	for len(lower) > 0 {
		line := lower
		if i := strings.IndexByte(lower, '\n'); i >= 0 {
			line, lower = lower[:i], lower[i+1:]
		} else {
			lower = ""
		}
		if secretSetting(line) {
			return true
		}
	}
	return false
}

// secretSetting reports whether one line (in lower case) is NAME: VALUE or
// NAME=VALUE with a secret's name and an unquoted credential as value.
func secretSetting(line string) bool {
	line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
	line = strings.TrimPrefix(line, "export ")
	i := strings.IndexAny(line, ":=")
	if i <= 0 {
		return false
	}
	name := strings.TrimSpace(line[:i])
	if name == "" || strings.IndexFunc(name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.')
	}) >= 0 {
		return false
	}
	if !strings.Contains(name, "secret") && !strings.Contains(name, "passw") && !strings.Contains(name, "passwd") &&
		name != "pwd" && !strings.HasSuffix(name, "_pwd") && !strings.Contains(name, "token") && !strings.Contains(name, "credential") &&
		!strings.Contains(name, "api_key") && !strings.Contains(name, "apikey") && !strings.Contains(name, "api-key") &&
		!strings.Contains(name, "access_key") && !strings.Contains(name, "access-key") && !strings.Contains(name, "private_key") {
		return false
	}
	v := strings.TrimSpace(line[i+1:])
	if len(v) < 8 {
		return false
	}
	letter, digit := false, false
	for j := 0; j < len(v); j++ {
		switch c := v[j]; {
		case c >= 'a' && c <= 'z':
			letter = true
		case c >= '0' && c <= '9':
			digit = true
		case c == '_' || c == '-' || c == '+' || c == '/' || c == '=' || c == '.':
		default:
			return false // a reference, a quote, a space, a comment
		}
	}
	return letter && digit
}
