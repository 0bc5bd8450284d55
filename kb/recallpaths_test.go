package kb

import (
	"context"
	"testing"

	"github.com/kbmem/kb/observations"
)

// TestRecallProjectScope: in a standalone KB, a one-off lesson of another
// project stays out when the hook says which project the agent is in; a
// lesson about a high-consequence action, or seen in two projects, travels.
func TestRecallProjectScope(t *testing.T) {
	k := newExtractKB(t)
	put := func(o *observations.Observation) string { rcSave(t, k, o); return o.ID }
	put(&observations.Observation{Type: observations.TypeCorrection, Trigger: "installing a dependency: `npm install`",
		Lesson: "Use pnpm, the lockfile is pnpm-lock.yaml.", ActionType: "pkg:install", ActionTypes: []string{"pkg:install", "pkg:npm"},
		Importance: 0.8, Sessions: 1, Projects: []string{"/home/dev/shop"}})
	put(&observations.Observation{Type: observations.TypeCorrection, Trigger: "force-pushing: `git push --force origin main`",
		Lesson: "Never force-push to main; open a pull request.", ActionType: "git:push-force", ActionTypes: []string{"git:push-force"},
		Importance: 0.9, Sessions: 1, Projects: []string{"/home/dev/shop"}})
	ctx := context.Background()
	recall := func(action, project string) []string {
		res, err := k.Recall(ctx, RecallQuery{Action: action, Project: project})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, it := range res.Items {
			ids = append(ids, it.Type+" "+it.Text)
		}
		return ids
	}
	if got := recall("npm install left-pad", "/home/dev/shop"); len(got) != 1 {
		t.Errorf("in its project: %v", got)
	}
	if got := recall("npm install left-pad", ""); len(got) != 1 {
		t.Errorf("no project given: %v", got)
	}
	if got := recall("npm install left-pad", "/srv/ledger"); len(got) != 0 {
		t.Errorf("another project recalled a one-off lesson: %v", got)
	}
	if got := recall("git push --force origin main", "/srv/ledger"); len(got) != 1 {
		t.Errorf("a high-consequence lesson did not travel: %v", got)
	}
}

// TestStandingLeavesOutSituational: the standing context of a new session
// holds corrections that recurred or were promoted; a correction given
// once (on an edit of one file, or on any call) waits for its own cue.
func TestStandingLeavesOutSituational(t *testing.T) {
	k := newExtractKB(t)
	put := func(o *observations.Observation) string { rcSave(t, k, o); return o.ID }
	once := put(&observations.Observation{Type: observations.TypeCorrection, Trigger: "editing `templates/components/timeline.html`",
		Lesson: "Do not loop through all items; the group names should match the filters.", ActionType: "code:edit", Importance: 0.7, Sessions: 1})
	twice := put(&observations.Observation{Type: observations.TypeCorrection, Trigger: "editing `api/rates.go`",
		Lesson: "Round balances half-even in rates.go.", ActionType: "code:edit", Importance: 0.7, Sessions: 2})
	general := put(&observations.Observation{Type: observations.TypeCorrection, Trigger: "adding or installing a dependency: `npm install`",
		Lesson: "Use pnpm.", ActionType: "pkg:install", Importance: 0.7, Sessions: 1, Status: observations.StatusPromoted})
	oneOff := put(&observations.Observation{Type: observations.TypeCorrection, Trigger: "adding or installing a dependency: `pip install x`",
		Lesson: "Use uv add.", ActionType: "pkg:install", Importance: 0.7, Sessions: 1})
	res, err := k.Recall(context.Background(), RecallQuery{Standing: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, it := range res.Items {
		got[it.ID] = true
	}
	if got[once] || got[oneOff] || !got[twice] || !got[general] {
		t.Errorf("standing items %v: want %s (recurring) and %s (promoted), not the one-offs %s, %s", got, twice, general, once, oneOff)
	}
	// At its moment it is recalled: an edit of the file that writes what
	// it is about (a loop through the items).
	res, err = k.Recall(context.Background(), RecallQuery{Tool: "Edit", Input: []byte(`{"file_path":"/w/shop/templates/components/timeline.html","new_string":"items.forEach(item => item.visible = filters.has(item.group))"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) == 0 || res.Items[0].ID != once {
		t.Errorf("editing timeline.html recalled %+v", res.Items)
	}
}

// TestAdvisedActionDoesNotFire: a lesson given at a moment without an
// action type ("calling ExitPlanMode") gets its type from its own words;
// doing what it advises is no reason to recall it, doing what it forbids is.
func TestAdvisedActionDoesNotFire(t *testing.T) {
	k := newExtractKB(t)
	put := func(o *observations.Observation) string { rcSave(t, k, o); return o.ID }
	advice := put(&observations.Observation{Type: observations.TypeCorrection, Trigger: "calling ExitPlanMode",
		Lesson: "First commit the changes of the previous task, then proceed with this plan.", ActionType: "git:commit",
		ActionTypes: []string{"git:commit"}, Importance: 0.7, Sessions: 1})
	ban := put(&observations.Observation{Type: observations.TypeCorrection, Trigger: "when asked to wrap up the release",
		Lesson: "Do not commit the generated lockfile.", ActionType: "git:commit",
		ActionTypes: []string{"git:commit"}, Importance: 0.7, Sessions: 1})
	res, err := k.Recall(context.Background(), RecallQuery{Action: "git commit -m 'tar support'"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, it := range res.Items {
		got[it.ID] = true
	}
	if got[advice] || !got[ban] {
		t.Errorf("recalled %v: want %s (a ban), not %s (advice being followed)", got, ban, advice)
	}
}
