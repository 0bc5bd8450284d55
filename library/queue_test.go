package library

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kbmem/kb/observations"
)

// A promotion commit's message names what it graduates in trailers that
// ParseProposal reads back.
func TestCommitMessageTrailers(t *testing.T) {
	grads := []Graduation{{Kind: TypeConvention, ID: "stage-by-name", Title: "Stage files by name", Why: "corrected in 3 sessions"}}
	msg := CommitMessage(grads, []string{"cor-1", "cor-2"}, []string{".kb/library/conventions/stage-by-name.md"})
	if !strings.HasPrefix(msg, "kb promote: 1 graduation(s) for review\n\n- convention stage-by-name: Stage files by name\n  corrected in 3 sessions\n") {
		t.Errorf("message:\n%s", msg)
	}
	p := ParseProposal("kb/promote-2026-04-01-1", "abc", msg)
	if p.Branch != "kb/promote-2026-04-01-1" || p.Tip != "abc" || p.Landed ||
		!reflect.DeepEqual(p.Promoted, []string{"cor-1", "cor-2"}) || !reflect.DeepEqual(p.Notes, []string{".kb/library/conventions/stage-by-name.md"}) {
		t.Errorf("proposal %+v", p)
	}
	if p := ParseProposal("b", "h", "a commit a person made\n"); p.Promoted != nil || p.Notes != nil {
		t.Errorf("no trailers: %+v", p)
	}
}

// The queue leaves out candidates pending on an open branch, those on a
// landed branch or behind a promoted note, and eligible ones a note
// already says; everything else is considered.
func TestBuildQueue(t *testing.T) {
	cor := func(id, lesson, typ string, sessions ...string) *observations.Observation {
		return &observations.Observation{ID: id, Type: observations.TypeCorrection, Lesson: lesson, Trigger: "doing " + typ,
			ActionTypes: []string{typ}, ActionType: typ, Sources: src(sessions...), Sessions: len(sessions)}
	}
	pending := cor("cor-pending", "Run make lint before pushing.", "git:push", "a", "b")
	landed := cor("cor-landed", "Never edit generated files.", "fs:edit", "a", "b")
	derived := cor("cor-derived", "Use uv, not pip.", "pkg:pip", "a", "b")
	covered := cor("cor-covered", "Never git add -A here; stage the files you changed by name.", "git:stage-all", "a", "b")
	fresh := cor("cor-fresh", "Squash fixup commits before review.", "git:commit", "a", "b")
	done := cor("cor-done", "Old lesson.", "git:commit", "a", "b")
	done.Status = observations.StatusPromoted
	stage := Note{ID: "stage-files-by-name", Path: "library/conventions/stage-files-by-name.md", Type: TypeConvention,
		Title: "Stage files by name, never git add -A", Text: "Stage the files you changed by name; git add -A has committed secrets here.",
		Triggers: []string{"git:stage-all"}}
	q := BuildQueue(QueueInput{
		Observations: []*observations.Observation{pending, landed, derived, covered, fresh, done},
		Proposals: []Proposal{
			{Branch: "kb/promote-1", Promoted: []string{"cor-landed"}, Landed: true},
			{Branch: "kb/promote-2", Promoted: []string{"cor-pending"}},
		},
		Derived: map[string]bool{"cor-derived": true},
		Notes:   []Note{stage},
		Rules:   Rules{CorrectionMinSessions: 2},
	})
	var ids []string
	for _, o := range q.Observations {
		ids = append(ids, o.ID)
	}
	if strings.Join(ids, ",") != "cor-fresh,cor-done" {
		t.Errorf("considered %v", ids)
	}
	if !reflect.DeepEqual(q.Pending, []string{"cor-pending"}) || !reflect.DeepEqual(q.Branches, []string{"kb/promote-2"}) {
		t.Errorf("pending %v, branches %v", q.Pending, q.Branches)
	}
	if len(q.Covered) != 1 || q.Covered[0].Observation != "cor-covered" || q.Covered[0].Note != "stage-files-by-name" {
		t.Errorf("covered %+v", q.Covered)
	}
	// Without proposals or notes every observation is considered.
	if q := BuildQueue(QueueInput{Observations: []*observations.Observation{pending, fresh}}); len(q.Observations) != 2 || len(q.Pending) != 0 {
		t.Errorf("empty queue input: %+v", q)
	}
}

// FuzzParseProposal: any commit message parses; the trailers of a message
// CommitMessage wrote read back as the ids and paths it was given.
func FuzzParseProposal(f *testing.F) {
	f.Add("kb promote: 1 graduation(s) for review\n\nKb-Promoted: a b\nKb-Notes: x.md\n", "cor-1 cor-2", "library/a.md")
	f.Add("", "", "")
	f.Add("Kb-Promoted:\nKb-Notes:", "x", "y z")
	f.Fuzz(func(t *testing.T, msg, ids, notes string) {
		ParseProposal("b", "h", msg) // never panics
		want, wantNotes := strings.Fields(ids), strings.Fields(notes)
		for _, s := range append(append([]string{}, want...), wantNotes...) {
			if strings.Contains(s, TrailerPromoted) || strings.Contains(s, TrailerNotes) {
				return
			}
		}
		p := ParseProposal("b", "h", CommitMessage(nil, want, wantNotes))
		if strings.Join(p.Promoted, " ") != strings.Join(want, " ") || strings.Join(p.Notes, " ") != strings.Join(wantNotes, " ") {
			t.Fatalf("round trip: %q %q -> %+v", want, wantNotes, p)
		}
	})
}
