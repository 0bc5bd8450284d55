package traces

import (
	"io"

	"github.com/kbmem/kb/internal/diag"
)

// Pos is a resumable position in a transcript file: the byte offset and the
// number of lines consumed before it, plus parser state that must survive a
// resume (for example a Codex session id read from the first line).
type Pos struct {
	Offset int64             `json:"offset"`
	Line   int               `json:"line"`
	State  map[string]string `json:"state,omitempty"`
}

// Problem is a part of a transcript that could not be imported: a malformed
// line, an unknown structure. It is reported and skipped, never fatal.
type Problem = diag.Problem

// A Parser turns one transcript file of a given format into records.
type Parser interface {
	// Format names the transcript format: one of the Agent constants.
	Format() string
	// Resumable reports whether Parse can start at a line boundary in the
	// middle of a file (line-oriented formats). Whole-document formats are
	// re-parsed from the start and the store skips what it already has.
	Resumable() bool
	// Parse reads r, positioned at start, and calls emit for each record in
	// file order. Parsers set Session, Agent, Role, Kind, the content fields,
	// Marks, Source and Extra; the store assigns Seq. A trailing line without
	// a newline is not consumed (the agent may still be writing it). Parse
	// returns the position after the last consumed line, and the problems it
	// skipped. err is reserved for I/O failures and for files that are not
	// transcripts of this format at all.
	Parse(r io.Reader, file string, start Pos, emit func(Record) error) (end Pos, problems []Problem, err error)
}
