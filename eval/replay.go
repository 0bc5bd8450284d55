package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kbmem/kb/agents"
	"github.com/kbmem/kb/kb"
	"github.com/kbmem/kb/traces"
)

// Replay measures what the hooks inject on real work: the transcripts at
// paths are imported into a fresh KB and extracted, then every session is
// replayed in transcript order through the hook handler of its agent: a
// SessionStart, then each call that changes something (a shell command or
// an edit; reads and searches are passed over, as recall passes them over)
// as a PreToolUse event with the session's real id and working directory.
// The session memory is on, as in a real session.
//
// The lessons were extracted from these same sessions, so the figures are
// of a KB that knows the work; they count noise (calls that receive
// context, items per call) rather than recall.

// ReplayOptions configure Replay.
type ReplayOptions struct {
	KBDir string // as ActivationOptions.KBDir
}

// ReplayCall is one replayed call that received context.
type ReplayCall struct {
	Session string   `json:"session"`
	Project string   `json:"project,omitempty"`
	Tool    string   `json:"tool"`
	Action  string   `json:"action"`
	IDs     []string `json:"ids"`
	Context string   `json:"context"`
}

// ReplayReport is the result of Replay.
type ReplayReport struct {
	Sessions    int     `json:"sessions"`
	Calls       int     `json:"calls"`        // PreToolUse events replayed
	WithContext int     `json:"with_context"` // ... that received context
	Items       int     `json:"items"`        // items injected into them
	Rate        float64 `json:"rate"`         // WithContext / Calls
	Decisions   int     `json:"decisions"`    // PreToolUse answers that asked or denied
	// StartItems are the items of each project's SessionStart (the most
	// of its sessions), by working directory.
	StartItems map[string]int `json:"start_items"`
	Injected   []ReplayCall   `json:"injected"`
}

// replayed are the tools whose calls the replay feeds: those that run or
// write something, in the dialects' spelling.
var replayed = map[string]bool{"bash": true, "edit": true, "write": true, "multiedit": true, "notebookedit": true,
	"shell": true, "exec_command": true, "apply_patch": true, "local_shell": true, "container.exec": true}

// Replay replays the sessions of the transcripts at paths (see above).
func Replay(ctx context.Context, paths []string, o ReplayOptions) (*ReplayReport, error) {
	k, _, cleanup, err := evalKB(ctx, o.KBDir, paths)
	defer cleanup()
	if err != nil {
		return nil, fmt.Errorf("eval replay: %w", err)
	}
	store := &traces.Store{Root: k.Root}
	sessions, err := store.Sessions()
	if err != nil {
		return nil, fmt.Errorf("eval replay: %w", err)
	}
	sort.Slice(sessions, func(i, j int) bool { return sessions[i].Start.Before(sessions[j].Start) })
	rep := &ReplayReport{StartItems: map[string]int{}, Injected: []ReplayCall{}}
	for _, info := range sessions {
		if _, ok := agents.Lookup(info.Agent); !ok {
			continue
		}
		rep.Sessions++
		cwd := info.Cwd
		ask := func(ev map[string]any) (*kb.HookOutput, error) {
			raw, _ := json.Marshal(ev)
			b, err := k.HandleHook(ctx, info.Agent, raw)
			if err != nil || len(strings.TrimSpace(string(b))) == 0 {
				return nil, err
			}
			var out kb.HookOutput
			if err := json.Unmarshal(b, &out); err != nil {
				return nil, err
			}
			return &out, nil
		}
		started := false
		_, _, err := store.ReadFile(info.Path, func(r traces.Record) error {
			if r.Cwd != "" {
				cwd = r.Cwd
			}
			if !started {
				started = true
				out, err := ask(map[string]any{"hook_event_name": agents.EventSessionStart, "session_id": info.ID, "cwd": cwd, "source": "startup"})
				if err != nil {
					return err
				}
				if n := len(k.LastShown(info.ID, out != nil)); n > rep.StartItems[cwd] {
					rep.StartItems[cwd] = n
				}
			}
			if r.Kind != traces.KindToolCall || !replayed[strings.ToLower(r.Tool)] {
				return nil
			}
			rep.Calls++
			out, err := ask(map[string]any{"hook_event_name": agents.EventPreToolUse, "session_id": info.ID, "cwd": cwd,
				"tool_name": r.Tool, "tool_input": r.Input})
			if err != nil {
				return err
			}
			if out == nil || out.HookSpecificOutput == nil {
				return nil
			}
			h := out.HookSpecificOutput
			ids := k.LastShown(info.ID, true)
			rep.WithContext++
			rep.Items += len(ids)
			if h.PermissionDecision == "ask" || h.PermissionDecision == "deny" {
				rep.Decisions++
			}
			rep.Injected = append(rep.Injected, ReplayCall{Session: info.ID, Project: cwd, Tool: r.Tool,
				Action: short(string(r.Input), 160), IDs: ids, Context: h.AdditionalContext})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("eval replay: %s: %w", filepath.Base(info.Path), err)
		}
	}
	if rep.Calls > 0 {
		rep.Rate = float64(rep.WithContext) / float64(rep.Calls)
	}
	return rep, nil
}

func short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
