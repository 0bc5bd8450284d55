// Package diag holds the one positioned problem every part of kb reports:
// a file, a line in it when known, what is wrong, and which rule said so.
// A malformed trace line, an observation file that does not parse, a
// kb.yaml typo and a broken link all print the same way, path:line: msg,
// and a caller tells them apart by Rule, not by type.
package diag

import "fmt"

// Problem is something wrong at a place in a file. Line is 1-based, 0 when
// unknown. Rule names the check that found it ("parse", "observation",
// "broken-link"...), "" when the type of the error says it.
type Problem struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Msg  string `json:"message"`
	Rule string `json:"rule,omitempty"`
}

// String prints path:line: msg, or path: msg without a line.
func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.Path, p.Line, p.Msg)
	}
	return fmt.Sprintf("%s: %s", p.Path, p.Msg)
}

// Error makes a Problem an error; functions return it as a *Problem, so
// that errors.As finds it.
func (p Problem) Error() string { return p.String() }
