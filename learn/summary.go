package learn

import "fmt"

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
