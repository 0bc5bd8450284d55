package recall

import (
	"strings"
	"testing"

	"github.com/kbmem/kb/observations"
)

// TestFoldCovered: an observation and a library note that give the same
// lesson become one line (the observation's, naming the note); an
// unrelated note stays.
func TestFoldCovered(t *testing.T) {
	obs := &candidate{path: "observations/correction/cor-1.md", id: "cor-1", layer: LayerObservations, typ: observations.TypeCorrection,
		types: []string{"git:stage-all", "git:commit"}, trigger: "staging every change at once: `git add -A`",
		lesson: "Never git add -A in this repo: it picked up .env.local last time. Stage the files you changed by name."}
	note := &candidate{path: "library/conventions/stage-files-by-name.md", id: "stage-files-by-name", layer: LayerLibrary, typ: "convention",
		title: "Stage files by name, never git add -A", description: "Stage the files you changed by name; git add -A has committed secrets and build output here.",
		types: []string{"git:stage-all"}, phrases: []string{"git add -A"}}
	other := &candidate{path: "library/conventions/commit-messages.md", id: "commit-messages", layer: LayerLibrary, typ: "convention",
		title: "Conventional commit messages", description: "type(scope) summary in the imperative, no emoji, body says why.",
		types: []string{"git:commit"}}
	byPath := map[string]*candidate{}
	for _, c := range []*candidate{obs, note, other} {
		byPath[c.path] = c
	}
	items := []Item{
		{ID: "stage-files-by-name", Path: note.path, Score: 0.9, Text: "CONVENTION Stage files by name, never git add -A: ... [stage-files-by-name]"},
		{ID: "cor-1", Path: obs.path, Score: 0.8, Text: "You are about to run `git add -A`. This was corrected: Never git add -A. [cor-1]"},
		{ID: "commit-messages", Path: other.path, Score: 0.5, Text: "CONVENTION Conventional commit messages. [commit-messages]"},
	}
	got := foldCovered(items, byPath)
	if len(got) != 2 || got[0].ID != "cor-1" || got[1].ID != "commit-messages" {
		t.Fatalf("items %+v", got)
	}
	if !strings.HasSuffix(got[0].Text, "[cor-1, stage-files-by-name]") || got[0].Score != 0.9 {
		t.Errorf("folded item %+v", got[0])
	}
}

// TestUnknownProjectTravelsLikeAnother: in a KB of many projects, a lesson
// extracted from a session that recorded no working directory (an aider
// history) is of a project nobody knows: a one-off stays out of another
// project's hooks, as another project's would, unless it is promoted or
// about a high-consequence action; a lesson with no project and no session
// (written by hand) applies anywhere.
func TestUnknownProjectTravelsLikeAnother(t *testing.T) {
	cfg := &Config{ScopeProjects: true}
	q := Query{Project: "/w/app"}
	aider := &candidate{fromSession: true}
	if !outOfScope(aider, q, cfg, nil, nil) {
		t.Error("a one-off lesson of an unknown project reached another project")
	}
	high := &candidate{fromSession: true, typeScore: 1, matchedAT: "git:push-force"}
	if outOfScope(high, q, cfg, map[string]bool{"git:push-force": true}, nil) {
		t.Error("a high-consequence lesson of an unknown project was left out")
	}
	if outOfScope(&candidate{fromSession: true, status: "promoted"}, q, cfg, nil, nil) {
		t.Error("a promoted lesson was left out")
	}
	// High-consequence means about it in the lesson's words: a refused
	// rm -rf followed by "find a cleaner way to reinstall" stays home.
	tax, _ := observations.NewTaxonomy(nil)
	reinstall := &candidate{fromSession: true, typeScore: 1, matchedAT: "fs:delete-recursive", projects: []string{"/w/other"},
		lesson: "Find a cleaner way to reinstall without manually going hunting for cached files."}
	deleting := &candidate{fromSession: true, typeScore: 1, matchedAT: "fs:delete-recursive", projects: []string{"/w/other"},
		lesson: "Never rm -rf a directory without asking; use git clean -n first."}
	hi := map[string]bool{"fs:delete-recursive": true}
	if !outOfScope(reinstall, q, cfg, hi, tax) || outOfScope(deleting, q, cfg, hi, tax) {
		t.Errorf("high-consequence by its words: reinstall travelled %v, deleting stayed %v",
			!outOfScope(reinstall, q, cfg, hi, tax), outOfScope(deleting, q, cfg, hi, tax))
	}
	if outOfScope(&candidate{}, q, cfg, nil, nil) {
		t.Error("a hand-written lesson (no project, no session) was left out")
	}
	if outOfScope(aider, q, &Config{}, nil, nil) || outOfScope(aider, Query{}, cfg, nil, nil) {
		t.Error("scoped without ScopeProjects or without a project")
	}
	if outOfScope(&candidate{fromSession: true, projects: []string{"/w/app"}}, q, cfg, nil, nil) {
		t.Error("this project's lesson was left out")
	}
}
