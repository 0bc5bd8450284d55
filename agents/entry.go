package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
)

// The hook entry point, cmd/kb-hook (ADR 0008): `kb hook AGENT` from the
// activation index, in a program that links only this package and below.

const hookUsage = "usage: kb-hook [--kb DIR] claude-code|codex"

// HookMain is kb-hook with its arguments, streams and environment; it
// returns the exit code. It exits 0 whatever happens to the answer; only a
// mistaken command line (which no agent sends on its own) exits 1, an
// error the agents show without blocking the tool call.
func HookMain(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	dir, agent := getenv("KB_DIR"), ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--kb" && i+1 < len(args):
			dir = args[i+1]
			i++
		case strings.HasPrefix(a, "--kb="):
			dir = strings.TrimPrefix(a, "--kb=")
		case a == "-h" || a == "--help":
			fmt.Fprintln(stdout, hookUsage)
			return 0
		case agent == "" && !strings.HasPrefix(a, "-"):
			agent = a
		default:
			fmt.Fprintf(stderr, "kb-hook: unexpected argument %q\n%s\n", a, hookUsage)
			return 1
		}
	}
	if _, ok := Lookup(agent); !ok {
		fmt.Fprintf(stderr, "kb-hook: unknown agent %q\n%s\n", agent, hookUsage)
		return 1
	}
	// A hook answers from what exists and never indexes: its memory is
	// small, and the soft limit keeps it so. Below the limit it never
	// collects garbage: the process ends within milliseconds.
	debug.SetMemoryLimit(256 << 20)
	debug.SetGCPercent(-1)
	kbExe := findKB()
	var h *HookKB
	o := HookRun{Agent: agent, MaxInput: MaxHookInput, ReadTimeout: HookReadTimeout,
		Budget: HookBudget, Kind: ErrorKind,
		LogPath: func(root string) string { return (&HookKB{Root: root}).LogPath() },
		Open: func(cwd string) (string, error) {
			var err error
			h, err = OpenHookKB(dir, cwd)
			if h == nil {
				return "", err
			}
			return h.Root, err
		},
		Answer: func(ctx context.Context, in *HookInput) (*HookOutput, string, error) {
			if h.Config.Embeddings.Enabled || h.Config.Recall.Judge {
				out, err := delegate(ctx, kbExe, h.Root, agent, in)
				return out, "", err
			}
			return h.Answer(ctx, agent, in)
		},
	}
	if getenv("KB_HOOK_NO_INDEX") == "" && kbExe != "" {
		o.IndexExe = kbExe
		o.Reindex = func(root string) (bool, error) {
			return Indexer(root).Start(kbExe, "--kb", root, "--quiet", "index", "--background")
		}
	}
	if getenv("KB_HOOK_NO_DRAIN") == "" {
		o.DrainExe = kbExe
	}
	_ = RunHook(context.Background(), stdin, stdout, o)
	return 0
}

// findKB is the kb binary beside this one, else kb on PATH, else "".
func findKB() string {
	if exe, err := os.Executable(); err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			p := filepath.Join(filepath.Dir(exe), "kb")
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
				return p
			}
		}
	}
	if p, err := exec.LookPath("kb"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	return ""
}

// delegate hands the event to `kb --kb ROOT hook AGENT`, for what this
// entry point does not link (the embeddings layer, the judge), within the
// hook's budget.
func delegate(ctx context.Context, kbExe, root, agent string, in *HookInput) (*HookOutput, error) {
	if kbExe == "" {
		return nil, fmt.Errorf("kb.yaml turns on embeddings or the judge, and no kb binary was found beside kb-hook or on PATH")
	}
	ev, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, kbExe, "--kb", root, "hook", agent)
	cmd.Stdin = bytes.NewReader(ev)
	cmd.Env = append(os.Environ(), "KB_DIR=")
	out, err := cmd.Output()
	if err != nil || len(bytes.TrimSpace(out)) == 0 {
		return nil, err
	}
	var o HookOutput
	if err := json.Unmarshal(out, &o); err != nil {
		return nil, fmt.Errorf("kb hook %s answered %d bytes that are no hook answer: %w", agent, len(out), err)
	}
	return &o, nil
}
