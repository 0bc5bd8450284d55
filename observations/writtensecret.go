package observations

import (
	"github.com/kbmem/kb/internal/secrets"
	"github.com/kbmem/kb/traces"
)

// writtenSecret reports whether written content holds a credential that
// code:hardcoded-secret's expressions do not see: one kb redacted when it
// imported the trace (traces.HoldsRedaction: PLAID_SECRET =
// "[REDACTED:plaid-secret-key]" was a key; the expressions read the
// marker, not the key), or a literal given to a secret's name in any
// form, quoted or not, as YAML, .env, .properties and shell files write it
// (secrets.Assigned, which the hook's secret check reads too).
func writtenSecret(s string) bool { return traces.HoldsRedaction(s) || secrets.Assigned(s) }
