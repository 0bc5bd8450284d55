package observations

import (
	"strings"
)

// Pasted material in a person's message: a log, a compiler error, a stack
// trace, a shell session. It is evidence that something failed and context
// for the observation, never the lesson: splitPasted keeps it apart from
// the person's own words.

// logStartRE finds where pasted output begins inside a line: a shell
// prompt, a log level, an exception, a file:line position, an HTTP status.
var logStartRE = lazyRegexp(`(Traceback \(most recent call last\)|\b[A-Z][A-Za-z]*(Error|Exception|Warning)\b:?|\b(INFO|WARN|WARNING|ERROR|DEBUG|FATAL|CRITICAL)\b[:\s]|\bpanic: |\bgoroutine \d+|npm (ERR|error)!?|\[plugin:|\bE\s{2,}\S|(^|\s)\$ \S|^PS [A-Za-z]:\\|^\([\w.-]+\) |\b[\w./\\-]+\.(py|go|js|jsx|ts|tsx|rs|java|rb|c|cc|cpp|h|php|cs|kt|swift|vue|mjs|cjs):\d+|HTTP/\d(\.\d)?"?\s+\d{3}\b|^\s*at [\w.$<>]+ ?\(|^\s*File "|^\d{2}:\d{2}:\d{2}|^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|^\s*[│├└┌╭╰|>]\s|^\s*\^+\s*$)`)

// isLogLine reports whether a whole line reads as program output.
func isLogLine(t string) bool {
	t = strings.TrimSpace(t)
	if t == "" {
		return false
	}
	loc := logStartRE.FindStringIndex(t)
	return loc != nil && loc[0] == 0
}

// splitPasted separates the person's words from pasted output. A line
// that starts as output, and the tail of a line after "...:" where output
// begins, go to the pasted part; so does everything after the first
// output line except later lines that read as prose again.
func splitPasted(s string) (words, pasted string) {
	var w, p []string
	inLog := false
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		if isLogLine(t) {
			p = append(p, t)
			inLog = true
			continue
		}
		if loc := logStartRE.FindStringIndex(t); loc != nil && loc[0] > 0 {
			// "look at the error: Traceback ...": the words before the
			// colon are the person's, the rest is output.
			if c := strings.LastIndexAny(t[:loc[0]], ":："); c >= 0 && c >= loc[0]-40 {
				end := c + 1
				if t[c] != ':' {
					end = c + len("：")
				}
				if head := strings.TrimSpace(t[:end]); wordCount(head) > 0 {
					w = append(w, head)
				}
				p = append(p, strings.TrimSpace(t[end:]))
				inLog = true
				continue
			}
		}
		if inLog && !readsAsProse(t) {
			p = append(p, t)
			continue
		}
		inLog = false
		w = append(w, t)
	}
	return strings.Join(w, "\n"), strings.Join(p, "\n")
}

// readsAsProse reports whether a line after pasted output is the person
// speaking again: mostly words, ending like a sentence or short.
func readsAsProse(t string) bool {
	n := wordCount(t)
	if n < 3 {
		return false
	}
	letters, other := 0, 0
	for _, r := range t {
		switch {
		case r == ' ':
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f:
			letters++
		default:
			other++
		}
	}
	return letters > 4*other
}
