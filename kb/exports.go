package kb

import (
	"github.com/kbmem/kb/library"
	"github.com/kbmem/kb/observations"
	"github.com/kbmem/kb/traces"
)

// The value types and names of the layers that the faces (cmd/kb, the MCP
// server) show or take, re-exported so that a face needs only kb.

// TraceRecord is one record of a session (traces.Record).
type TraceRecord = traces.Record

// The kinds, roles and marks of trace records.
const (
	KindMeta       = traces.KindMeta
	KindMessage    = traces.KindMessage
	KindToolCall   = traces.KindToolCall
	KindToolResult = traces.KindToolResult
	RoleUser       = traces.RoleUser
	RoleAssistant  = traces.RoleAssistant
	RoleTool       = traces.RoleTool
	MarkInjected   = traces.MarkInjected
	MarkThinking   = traces.MarkThinking
)

// ObservationTypes are the observation types, in their canonical order.
func ObservationTypes() []string { return append([]string(nil), observations.AllTypes...) }

// NoteTypes are the types `kb new` makes a library note of, sorted.
func NoteTypes() []string { return library.SortedTypes() }
