package learn

import (
	"fmt"

	"github.com/kbmem/kb/traces"
)

// Summary is the result in one line, as kb watch logs it: the result,
// the reason when there is one, and how many entries were written.
func (r *Result) Summary() string {
	msg := r.Result
	if r.Reason != "" {
		msg += " (" + r.Reason + ")"
	}
	if n := len(r.Applied); n > 0 {
		msg += fmt.Sprintf(", %d entr%s written", n, map[bool]string{true: "y", false: "ies"}[n == 1])
	}
	return msg
}

// SkipsOfImport are the sources an import could not read or passed over,
// as a tick reports them.
func SkipsOfImport(rep *traces.ImportReport) []Skip {
	if rep == nil {
		return nil
	}
	var out []Skip
	for _, f := range rep.Files {
		if f.Error != "" {
			out = append(out, Skip{Source: f.File, Reason: f.Error})
		}
	}
	for _, s := range rep.Skipped {
		out = append(out, Skip{Source: s.File, Reason: s.Reason})
	}
	return out
}
