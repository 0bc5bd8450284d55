package traces

import (
	"fmt"
	"os"
	"strings"
)

// CheckReport is what CheckAll found in the session files.
type CheckReport struct {
	Files    int             // session files checked
	Sessions map[string]bool // the sessions their records name
	Problems []Problem       // what is wrong with them (after repair)
	Fixed    []Problem       // torn fragments dropped, rule "torn-line"
}

// CheckAll checks every session file of the store (CheckFile; kb doctor).
// With repair set, a file with torn lines is repaired through the store
// repair returns (RepairAndReimport; that store redacts what it imports
// again) and checked again. The caller holds the KB write lock to repair.
func (s *Store) CheckAll(repair func() (*Store, error)) (*CheckReport, error) {
	rep := &CheckReport{Sessions: map[string]bool{}}
	check := func(rel string) []Problem {
		sessions, probs := CheckFile(s.Root, rel)
		for _, id := range sessions {
			rep.Sessions[id] = true
		}
		return probs
	}
	var redacting *Store
	for _, rel := range s.Files() {
		rep.Files++
		probs := check(rel)
		if repair != nil && hasRule(probs, "torn-line") {
			if redacting == nil {
				var err error
				if redacting, err = repair(); err != nil {
					return nil, err
				}
			}
			fixed, err := redacting.RepairAndReimport(rel)
			if err != nil {
				return nil, fmt.Errorf("repair %s: %w", rel, err)
			}
			rep.Fixed = append(rep.Fixed, fixed...)
			probs = check(rel)
		}
		rep.Problems = append(rep.Problems, probs...)
	}
	return rep, nil
}

func hasRule(probs []Problem, rule string) bool {
	for _, p := range probs {
		if p.Rule == rule {
			return true
		}
	}
	return false
}

// RepairAndReimport drops the torn fragments of a session file
// (RepairTorn) and imports again, from their start, the transcripts its
// records came from, so that a record whose only copy was torn is written
// whole again. It returns one problem (rule "torn-line") per fragment,
// saying what was done; a transcript that is gone or fails to import is
// named in it, not an error.
func (s *Store) RepairAndReimport(rel string) ([]Problem, error) {
	rep, err := s.RepairTorn(rel)
	if err != nil {
		return nil, err
	}
	var notes []string
	restored := 0
	for _, src := range rep.Sources {
		if fi, err := os.Stat(src); err != nil || !fi.Mode().IsRegular() {
			notes = append(notes, "transcript gone: "+src)
			continue
		}
		res, err := s.ImportAgain(src)
		restored += res.Appended
		if err != nil {
			notes = append(notes, "re-import "+src+": "+err.Error())
		}
	}
	var out []Problem
	for _, d := range rep.Dropped {
		msg := fmt.Sprintf("torn record (%d bytes) dropped; %d transcript(s) re-imported, %d record(s) written again", d.Bytes, len(rep.Sources), restored)
		if len(notes) > 0 {
			msg += " (" + strings.Join(notes, "; ") + ")"
		}
		out = append(out, Problem{Path: rel, Line: d.Line, Msg: msg, Rule: "torn-line"})
	}
	return out, nil
}
