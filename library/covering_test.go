package library

import (
	"testing"

	"github.com/kbmem/kb/observations"
)

func TestCovering(t *testing.T) {
	stage := Note{ID: "stage-files-by-name", Path: "library/conventions/stage-files-by-name.md", Type: TypeConvention,
		Title:    "Stage files by name, never git add -A",
		Text:     "Stage the files you changed by name; git add -A has committed secrets and build output here. Run git add path/to/file for the files the change touched.",
		Triggers: []string{"git:stage-all", "git add -A", "stage all files"}}
	commits := Note{ID: "commit-messages", Path: "library/conventions/commit-messages.md", Type: TypeConvention,
		Title: "Conventional commit messages", Text: "type(scope) summary in the imperative, no emoji, body says why.",
		Triggers: []string{"git:commit"}}
	uv := Note{ID: "uv-for-python", Path: "library/preferences/uv-for-python.md", Type: TypePreference,
		Title: "Use uv for Python dependencies and commands", Text: "uv add for dependencies, uv run to execute; never pip install directly.",
		Triggers: []string{"pkg:pip-install"}}
	notes := []Note{commits, stage, uv}

	addAll := &observations.Observation{ID: "cor-1", Type: observations.TypeCorrection,
		Lesson:      "Never git add -A in this repo: it picked up .env.local last time. Stage the files you changed by name.",
		Trigger:     "staging every change at once (git add -A / .): `git add -A && git commit -m 'fix rounding'`",
		ActionTypes: []string{"git:stage-all", "git:commit", "db:migration"}}
	if n := Covering(addAll, notes); n == nil || n.ID != "stage-files-by-name" {
		t.Errorf("git add -A correction: covered by %+v, want stage-files-by-name", n)
	}
	pip := &observations.Observation{ID: "cor-2", Type: observations.TypeCorrection,
		Lesson:      "Do not use pip directly. This project is managed with uv: uv add for dependencies, uv run to execute anything.",
		ActionTypes: []string{"pkg:pip-install"}}
	if n := Covering(pip, notes); n == nil || n.ID != "uv-for-python" {
		t.Errorf("pip correction: covered by %+v, want uv-for-python", n)
	}
	// Same action type, another lesson: not covered.
	force := &observations.Observation{ID: "cor-3", Type: observations.TypeCorrection,
		Lesson: "Never force-push to main; open a pull request.", ActionTypes: []string{"git:push-force"}}
	squash := &observations.Observation{ID: "cor-4", Type: observations.TypeCorrection,
		Lesson: "Squash the fixup commits before asking for review.", ActionTypes: []string{"git:commit"}}
	for _, o := range []*observations.Observation{force, squash} {
		if n := Covering(o, notes); n != nil {
			t.Errorf("%s (%q) covered by %s", o.ID, o.Lesson, n.ID)
		}
	}
	// A note derived from the observation is its graduation, not a cover.
	own := stage
	own.DerivedFrom = []string{"cor-1"}
	if n := Covering(addAll, []Note{own}); n != nil {
		t.Errorf("covered by its own graduation %s", n.ID)
	}
	for _, s := range []string{"git:stage-all", "pkg:pip-install", "k8s:apply.dry-run"} {
		if !isActionType(s) {
			t.Errorf("%q is an action type", s)
		}
	}
	for _, s := range []string{"git add -A", "stage all files", ":x", "x:", "Git:Push"} {
		if isActionType(s) {
			t.Errorf("%q is not an action type", s)
		}
	}
}
