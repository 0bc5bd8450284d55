package redact

import sx "github.com/kbmem/kb/internal/secrets"

// What the detector shares with the session memory and the trace store
// (internal/secrets, which links no detector), under the names redaction
// has always had.
type (
	Secret  = sx.Secret
	Finding = sx.Finding
	Memory  = sx.Memory
	Saved   = sx.Saved
	span    = sx.Span
	lit     = sx.Lit
)

// NewKey, NewMemory, MapStrings and Marker are secrets'.
var (
	NewKey     = sx.NewKey
	NewMemory  = sx.NewMemory
	MapStrings = sx.MapStrings
	Marker     = sx.Marker
)

const projectPrefix = sx.ProjectPrefix
