package kb

import (
	"errors"
	"testing"
	"unicode"
)

// FuzzParseConfig feeds arbitrary kb.yaml files to ParseConfig and, when
// they parse, builds the action-type taxonomy and the redaction rules they
// extend: never a panic; a rejected file is a *ConfigError with a message
// free of control characters;
// an accepted one passed validation.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(DefaultConfigYAML))
	f.Add([]byte("recall:\n  budget: 800\n  pretooluse: ask\n"))
	f.Add([]byte("recall:\n  pretooluse: maybe\n"))
	f.Add([]byte("lock:\n  timeout: 3s\nwatch:\n  debounce: 10ms\n"))
	f.Add([]byte("lock:\n  timeout: forever\n"))
	f.Add([]byte("action_types:\n  - type: deploy:prod\n    commands: ['kubectl apply -f prod/']\n    words: ['(unclosed']\n"))
	f.Add([]byte("traces:\n  redact_rules:\n    - id: x\n      regex: '(?P<'\n"))
	f.Add([]byte("unknown_key: 1\n"))
	f.Add([]byte("recall: [1, 2\n"))
	f.Add([]byte("\xef\xbb\xbfrecall:\r\n  budget: -1\r\n"))
	f.Add([]byte("\"$(touch /tmp/x)\\n\\u001b[2J\": 1\n"))
	f.Add([]byte("recall:\n  budget: \"\\u001b]0;x\\u0007\"\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseConfig(b)
		if err != nil {
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Msg == "" {
				t.Fatalf("error %v (%T) is not a ConfigError with a message", err, err)
			}
			// The message reaches terminals and hook.log: never a raw
			// control character from the file.
			for _, r := range ce.Msg {
				if unicode.IsControl(r) {
					t.Fatalf("message %q holds control character %U", ce.Msg, r)
				}
			}
			return
		}
		if c.Recall.Budget < 0 {
			t.Fatalf("accepted a negative budget")
		}
		k := &KB{Root: t.TempDir(), Config: c}
		_, _ = k.Taxonomy()
		if len(c.Traces.RedactRules) > 0 { // building the redactor takes ~60 ms: only for user rules
			_, _, _ = k.traceStore(false, nil)
		}
	})
}
