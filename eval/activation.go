package eval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kbmem/kb/kb"
)

// ActivationOptions configure Activation.
type ActivationOptions struct {
	// KBDir, if set, is where the evaluation KB is built (it must not hold
	// a KB yet); by default a temporary directory, removed afterwards.
	KBDir string
	// Agent is the hook dialect the probes are fed to: "claude-code" (default) or "codex".
	Agent string
}

// ProbeResult is the outcome of one activation probe.
type ProbeResult struct {
	ID      string   `json:"id"`
	Event   string   `json:"event"`
	Expect  []string `json:"expect"` // nil: the probe must surface nothing
	Pass    bool     `json:"pass"`
	Matched string   `json:"matched,omitempty"` // the phrase found (or, for a distractor, the phrase that fired)
	Output  string   `json:"output"`
	Error   string   `json:"error,omitempty"`
}

// ActivationReport is the result of Activation.
type ActivationReport struct {
	Sessions     int `json:"sessions"`
	Observations int `json:"observations"`
	Positive     int `json:"positive"`    // probes expecting a lesson
	Recalled     int `json:"recalled"`    // ... that got one
	Negative     int `json:"negative"`    // distractor probes
	FalseFires   int `json:"false_fires"` // ... that surfaced a lesson some probe expects
	// WithOutput counts the distractors that got any answer at all (the
	// issue's measure: any output on a distractor counts).
	WithOutput    int           `json:"with_output"`
	Recall        float64       `json:"recall"`
	FalseFireRate float64       `json:"false_fire_rate"`
	Probes        []ProbeResult `json:"probes"`
}

// Activation scores activation on a directory made by
// make_sessions.py: DIR/transcripts/*.jsonl are imported into a fresh KB
// and extracted, then every line of DIR/probes.jsonl (less its "_id" and
// "_expect" keys) is fed to the hook handler. A probe passes when one of
// its expected phrases appears, case-insensitively, in the handler's
// output; a probe expecting nothing passes when no phrase of any probe
// appears.
func Activation(ctx context.Context, dir string, o ActivationOptions) (*ActivationReport, error) {
	probes, err := readProbes(filepath.Join(dir, "probes.jsonl"))
	if err != nil {
		return nil, err
	}
	k, xr, cleanup, err := evalKB(ctx, o.KBDir, []string{filepath.Join(dir, "transcripts")})
	defer cleanup()
	if err != nil {
		return nil, fmt.Errorf("eval activation: %w", err)
	}
	rep := &ActivationReport{Sessions: len(xr.Sessions), Observations: xr.New + xr.Merged + xr.Unchanged, Probes: []ProbeResult{}}
	var all []string
	for _, p := range probes {
		all = append(all, p.expect...)
	}
	agent := o.Agent
	if agent == "" {
		agent = kb.AgentClaudeCode
	}
	for _, p := range probes {
		r := ProbeResult{ID: p.id, Event: p.event, Expect: p.expect}
		out, herr := k.HandleHook(ctx, agent, p.input)
		if herr != nil {
			r.Error = herr.Error()
		}
		r.Output = string(out)
		low := strings.ToLower(r.Output)
		if p.expect != nil {
			rep.Positive++
			for _, ph := range p.expect {
				if strings.Contains(low, strings.ToLower(ph)) {
					r.Pass, r.Matched = true, ph
					break
				}
			}
			if r.Pass {
				rep.Recalled++
			}
		} else {
			rep.Negative++
			if len(bytes.TrimSpace(out)) > 0 {
				rep.WithOutput++
			}
			r.Pass = true
			for _, ph := range all {
				if strings.Contains(low, strings.ToLower(ph)) {
					r.Pass, r.Matched = false, ph
					break
				}
			}
			if !r.Pass {
				rep.FalseFires++
			}
		}
		rep.Probes = append(rep.Probes, r)
	}
	if rep.Positive > 0 {
		rep.Recall = float64(rep.Recalled) / float64(rep.Positive)
	}
	if rep.Negative > 0 {
		rep.FalseFireRate = float64(rep.FalseFires) / float64(rep.Negative)
	}
	return rep, nil
}

type probe struct {
	id, event string
	expect    []string
	input     []byte
}

func readProbes(path string) ([]probe, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("eval activation: %w", err)
	}
	var out []probe
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<16), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("%s:%d: %w: %v", path, line, kb.ErrInvalidInput, err)
		}
		p := probe{}
		_ = json.Unmarshal(m["_id"], &p.id)
		_ = json.Unmarshal(m["hook_event_name"], &p.event)
		if e, ok := m["_expect"]; ok && string(e) != "null" {
			if err := json.Unmarshal(e, &p.expect); err != nil {
				return nil, fmt.Errorf("%s:%d: _expect: %w: %v", path, line, kb.ErrInvalidInput, err)
			}
			if p.expect == nil {
				p.expect = []string{}
			}
		}
		delete(m, "_id")
		delete(m, "_expect")
		p.input, _ = json.Marshal(m)
		if p.id == "" {
			p.id = fmt.Sprintf("line-%d", line)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// evalKB builds a fresh KB in root (a temporary directory when root is
// ""; removed by cleanup) from the transcripts at paths: imported,
// extracted, and indexed, as kb's background indexer would have left it
// (hooks answer from the index as it is and never sync it).
func evalKB(ctx context.Context, root string, paths []string) (k *kb.KB, xr *kb.ExtractReport, cleanup func(), err error) {
	cleanup = func() {}
	if root == "" {
		tmp, err := os.MkdirTemp("", "kb-eval-")
		if err != nil {
			return nil, nil, cleanup, err
		}
		cleanup = func() { os.RemoveAll(tmp) }
		root = tmp
	} else if st, err := os.Stat(filepath.Join(root, kb.ConfigFile)); err == nil && st.Mode().IsRegular() {
		return nil, nil, cleanup, fmt.Errorf("%s already holds a KB: %w", root, kb.ErrExists)
	}
	if _, err := kb.Init(root); err != nil {
		return nil, nil, cleanup, err
	}
	if k, err = kb.OpenRoot(root); err != nil {
		return nil, nil, cleanup, err
	}
	k.Logf = func(string, ...any) {}
	if _, err := k.Import(ctx, paths, kb.ImportOptions{}); err != nil {
		var pe *kb.PartialImportError
		if !errors.As(err, &pe) {
			return nil, nil, cleanup, err
		}
	}
	if xr, err = k.Extract(ctx, kb.ExtractOptions{All: true}); err != nil {
		return nil, nil, cleanup, err
	}
	x, _, err := k.OpenIndex(ctx, nil)
	if err != nil {
		return nil, nil, cleanup, err
	}
	if err := x.Close(); err != nil {
		return nil, nil, cleanup, err
	}
	return k, xr, cleanup, nil
}
