package eval

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kbmem/kb/internal/testenv"
	"github.com/kbmem/kb/kb"
)

func TestActivationDevSet(t *testing.T) {
	testenv.Shared(t, "eval", "activation-dev.json")
	shared := testenv.Shared(t)
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	out := t.TempDir()
	cmd := exec.Command(py, filepath.Join(shared, "eval", "make_sessions.py"), filepath.Join(shared, "eval", "activation-dev.json"), out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make_sessions.py: %v\n%s", err, b)
	}
	rep, err := Activation(context.Background(), out, ActivationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Probes {
		if !p.Pass {
			t.Logf("probe %s failed (matched %q): %s", p.ID, p.Matched, p.Output)
		}
	}
	t.Logf("activation dev set: recall %.2f (%d/%d), false-fire rate %.2f (%d/%d), %d observations",
		rep.Recall, rep.Recalled, rep.Positive, rep.FalseFireRate, rep.FalseFires, rep.Negative, rep.Observations)
	if rep.Positive == 0 || rep.Negative == 0 {
		t.Fatalf("no probes: %+v", rep)
	}
	if rep.Recall < 0.9 || rep.FalseFireRate > 0.1 {
		t.Errorf("recall %.2f (want >= 0.9), false-fire rate %.2f (want <= 0.1)", rep.Recall, rep.FalseFireRate)
	}
}

func FuzzReadProbes(f *testing.F) {
	f.Add([]byte(`{"_id":"a","_expect":["x"],"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}` + "\n"))
	f.Add([]byte(`{"_id":"b","_expect":null,"hook_event_name":"UserPromptSubmit","prompt":"hi"}` + "\n\n{}\n"))
	f.Add([]byte(`{"_expect":"notalist"}`))
	f.Add([]byte("not json\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "probes.jsonl")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		probes, err := readProbes(p)
		if err != nil {
			if !errors.Is(err, kb.ErrInvalidInput) && !strings.Contains(err.Error(), p) {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		for _, pr := range probes {
			if !json.Valid(pr.input) || pr.id == "" {
				t.Fatalf("bad probe %+v", pr)
			}
		}
	})
}

// TestActivationScenarios runs the scenario sets written blind at stop 31
// (testdata/scenarios/README.md) and fails when recall falls below, or
// near-miss output rises above, what they scored last: a ratchet against
// regressions, not the targets. Raised as they improve.
func TestActivationScenarios(t *testing.T) {
	floors := map[string]struct {
		recalled, withOutput int
	}{
		"dev3":  {40, 0},
		"dev4":  {29, 0},
		"dev5":  {34, 0},
		"dev6":  {35, 2},
		"dev7":  {27, 0},
		"dev8":  {32, 1},
		"dev9":  {33, 3},
		"dev10": {37, 2},
		"dev11": {32, 5},
		"dev12": {34, 4},
		"dev13": {35, 5},
		"dev14": {29, 2},
		"dev15": {32, 2},
		"dev16": {28, 8},
		"dev23": {35, 4},
	}
	for name, floor := range floors {
		t.Run(name, func(t *testing.T) {
			rep, err := Activation(context.Background(), filepath.Join("testdata", "scenarios", name), ActivationOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: recall %.2f (%d/%d), distractors with output %d/%d", name, rep.Recall, rep.Recalled, rep.Positive,
				rep.WithOutput, rep.Negative)
			if rep.Recalled < floor.recalled || rep.WithOutput > floor.withOutput {
				t.Errorf("%s: %d/%d recalled (floor %d), %d near misses with output (ceiling %d)", name, rep.Recalled,
					rep.Positive, floor.recalled, rep.WithOutput, floor.withOutput)
			}
		})
	}
}
