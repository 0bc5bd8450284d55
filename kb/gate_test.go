package kb

import (
	"context"
	"strings"
	"testing"

	"github.com/kbmem/kb/observations"
)

// TestOneGate: extraction, promote and learn ask the same gate. A mined
// agent routine (Read -> Edit -> TodoWrite), an obvious rule ("run the
// tests") and a command the Makefile declares are extracted by none,
// proposed by none and learned by none, although each recurs enough for
// promote's rules; a real convention passes all three, and promote after
// learn still proposes it (what learn wrote into AGENTS.md is not the
// project saying it).
func TestOneGate(t *testing.T) {
	proj, k := lnProject(t)
	lnWrite(t, proj, "Makefile", "lint:\n\tgolangci-lint run ./...\n")
	routine := lnObs(observations.TypeProcedure, "", 0.6, "s1", "s2", "s3")
	routine.Goal, routine.Steps = "Recurring workflow: Read → Edit *.js → TodoWrite", []string{"Read", "Edit *.js", "TodoWrite"}
	routine.Title = "Recurring: Read → Edit *.js → TodoWrite"
	obvious := lnObs(observations.TypeCorrection, "Run the tests.", 0.8, "s1", "s2")
	declared := lnObs(observations.TypeCorrection, "Run `make lint` before pushing.", 0.8, "s1", "s2")
	good := lnObs(observations.TypeCorrection, lnRecurring, 0.8, "s1", "s2")
	good.ActionTypes, good.ActionType = []string{"git:push-force"}, "git:push-force"
	bad := []*observations.Observation{routine, obvious, declared}
	all := append(append([]*observations.Observation(nil), bad...), good)

	// Extraction: the merge writes only the convention.
	var cands []*observations.Observation
	for _, o := range all {
		cp := *o
		cp.ID = ""
		cands = append(cands, &cp)
	}
	res, err := (&observations.Merger{Gate: k.Gate()}).Merge(context.Background(), cands)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Writes) != 1 || !strings.Contains(string(res.Writes[0].Content), "force-push") {
		t.Errorf("extraction wrote %d files, want the convention only (gated %v)", len(res.Writes), res.Gated)
	}
	if res.Gated[observations.GateObvious] != 2 || res.Gated[observations.GateDerivable] != 1 {
		t.Errorf("gated %v, want 2 obvious and 1 derivable", res.Gated)
	}

	lnSave(t, k, all...)
	promoted := func() []string {
		dry, err := k.Promote(context.Background(), PromoteOptions{DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, g := range dry.Graduations {
			got = append(got, g.Observations...)
		}
		return got
	}
	if got := promoted(); len(got) != 1 || got[0] != good.ID {
		t.Errorf("promote proposed %v, want only %s", got, good.ID)
	}
	lres := lnLearn(t, k, LearnOptions{})
	for part, want := range map[string]string{
		"Read, then Edit": "gate: obvious",
		"Run the tests":   "gate: obvious",
		"make lint":       "gate: derivable (Makefile)",
		"force-push":      "",
	} {
		if got := lnDropReason(lres, part); got != want {
			t.Errorf("learn: %q dropped as %q, want %q", part, got, want)
		}
	}
	if len(lres.Applied) != 1 || !strings.Contains(lres.Applied[0].Fact, "force-push") {
		t.Errorf("learn applied %+v", lres.Applied)
	}
	if got := promoted(); len(got) != 1 || got[0] != good.ID {
		t.Errorf("promote after learn proposed %v, want only %s", got, good.ID)
	}
}
