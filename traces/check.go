package traces

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/kbmem/kb/internal/fsx"
)

// CheckFile checks the session file at rel under root (kb doctor): every
// line is a record, seq increases by one. It returns the sessions the
// records name and a problem for each break of the format, with its rule:
// "torn-line" for a torn fragment (the start of a record whose write was
// cut short, inside the file or as its unterminated last line; fixable by
// RepairTorn), "trace-record" for a line that is no record, "trace-seq"
// for a lost or duplicated record, "unreadable". A last line that is a
// whole record without its newline is fine (the next append adds it). A
// link is not followed.
func CheckFile(root, rel string) (sessions []string, probs []Problem) {
	f, err := fsx.OpenNoFollow(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, []Problem{{Path: rel, Msg: err.Error(), Rule: "unreadable"}}
	}
	defer f.Close()
	seen := map[string]bool{}
	r := bufio.NewReaderSize(f, 1<<16)
	line, want := 0, -1
	for {
		b, err := r.ReadBytes('\n')
		if len(b) > 0 {
			line++
			last := b[len(b)-1] != '\n'
			if t := bytes.TrimSpace(b); len(t) > 0 {
				var rec Record
				if jerr := json.Unmarshal(t, &rec); jerr != nil {
					switch {
					case TornFragment(t) && last:
						probs = append(probs, Problem{Path: rel, Line: line, Msg: "last line is a torn record (an interrupted append, or a writer still running); the next import, or kb doctor --fix, cuts it and writes the record again", Rule: "torn-line"})
					case TornFragment(t):
						probs = append(probs, Problem{Path: rel, Line: line, Msg: "torn record between whole ones (a write cut short by a full disk or a crash); kb doctor --fix drops it and re-imports the session's transcripts", Rule: "torn-line"})
					default:
						probs = append(probs, Problem{Path: rel, Line: line, Msg: "not a trace record: " + jerr.Error(), Rule: "trace-record"})
					}
				} else {
					if !seen[rec.Session] {
						seen[rec.Session] = true
						sessions = append(sessions, rec.Session)
					}
					if want >= 0 && rec.Seq != want {
						probs = append(probs, Problem{Path: rel, Line: line, Msg: fmt.Sprintf("seq %d where %d was expected (a lost or duplicated record)", rec.Seq, want), Rule: "trace-seq"})
					}
					want = rec.Seq + 1
				}
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				probs = append(probs, Problem{Path: rel, Line: line, Msg: err.Error(), Rule: "unreadable"})
			}
			return sessions, probs
		}
	}
}

// StripAgent is a session name without the "<agent>-" prefix a session
// file's name gives it.
func StripAgent(s string) string {
	for _, a := range []string{AgentClaudeCode, AgentCodex, AgentAider, AgentGemini, AgentGeneric} {
		if strings.HasPrefix(s, a+"-") {
			return strings.TrimPrefix(s, a+"-")
		}
	}
	return s
}
