package kb

import (
	"errors"
	"strings"
	"testing"
)

// TestConfigErrorsQuoteTheFilesText: a kb.yaml key or value comes back
// Go-quoted in the message, with no control character, and the message
// still says what and where.
func TestConfigErrorsQuoteTheFilesText(t *testing.T) {
	for _, c := range []struct {
		yaml, want string
		line       int
	}{
		{"version: 1\n\"$(touch /tmp/x)\": 1\n", `unknown key "$(touch /tmp/x)"`, 2},
		{"\"a\\nb\\u001b[31m\": 1\n", `unknown key "a\nb\x1b[31m"`, 1},
		{"recall:\n  budget: \"\\u001b]0;pwned\\u0007\"\n", `"\x1b]0;pwned\a"`, 2},
		{"recall:\n  budget: `x\n", "", 2},
	} {
		_, err := ParseConfig([]byte(c.yaml))
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Fatalf("%q: err %v", c.yaml, err)
		}
		if !strings.Contains(ce.Msg, c.want) {
			t.Errorf("%q: message %q does not contain %s", c.yaml, ce.Msg, c.want)
		}
		if ce.Line != c.line {
			t.Errorf("%q: line %d, want %d", c.yaml, ce.Line, c.line)
		}
		if strings.HasPrefix(ce.Msg, "line ") {
			t.Errorf("%q: message repeats the line: %q", c.yaml, ce.Msg)
		}
		for _, r := range ce.Msg {
			if r < 0x20 || r == 0x7f {
				t.Errorf("%q: message %q holds control character %U", c.yaml, ce.Msg, r)
			}
		}
	}
}
