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
	"sync"
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
	kbExe := sync.OnceValue(findKB)
	kbIndex, kbDrain := kbExe, kbExe
	if getenv("KB_HOOK_NO_INDEX") != "" {
		kbIndex = nil
	}
	if getenv("KB_HOOK_NO_DRAIN") != "" {
		kbDrain = nil
	}
	var h *HookKB
	o := NewHookRun(agent, kbIndex, kbDrain)
	o.Open = func(cwd string) (string, error) {
		var err error
		h, err = OpenHookKB(dir, cwd)
		if h == nil {
			return "", err
		}
		return h.Root, err
	}
	o.Answer = func(ctx context.Context, in *HookInput) (*HookOutput, string, error) {
		if h.Config.Embeddings.Enabled || h.Config.Recall.Judge {
			out, err := delegate(ctx, kbExe(), h.Root, agent, in)
			return out, "", err
		}
		return h.Answer(ctx, agent, in)
	}
	_ = RunHook(context.Background(), stdin, stdout, o)
	return 0
}

// NewHookRun is a HookRun of agent with the hook's bounds, its log and
// error kinds, and, when given, what finds the kb executables it starts
// detached: indexExe for a missing or stale index (StartIndexer),
// drainExe after a session's end. The caller sets Open and Answer.
func NewHookRun(agent string, indexExe, drainExe func() string) HookRun {
	o := HookRun{Agent: agent, MaxInput: MaxHookInput, ReadTimeout: HookReadTimeout, Budget: HookBudget,
		IndexExe: indexExe, DrainExe: drainExe, LogPath: HookLogPath, Kind: ErrorKind}
	if indexExe != nil {
		o.Reindex = func(root string) (bool, error) {
			exe := indexExe()
			if exe == "" {
				return false, nil
			}
			return StartIndexer(exe, root)
		}
	}
	return o
}

// Exe is a lookup of the executable path p for NewHookRun: nil when p is
// "" (none to start).
func Exe(p string) func() string {
	if p == "" {
		return nil
	}
	return func() string { return p }
}

// StartIndexer starts exe --kb root --quiet index --background, detached,
// unless another background indexer of the KB runs.
func StartIndexer(exe, root string) (bool, error) {
	return Indexer(root).Start(exe, "--kb", root, "--quiet", "index", "--background")
}

// Beside is the executable name in the directory of the executable exe
// (symlinks resolved), or "" when there is none: kb-hook finds kb so, and
// kb hook install finds kb-hook.
func Beside(exe, name string) string {
	if exe == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	p := filepath.Join(filepath.Dir(exe), name)
	if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
		return p
	}
	return ""
}

// findKB is the kb binary beside this one, else kb on PATH, else "".
func findKB() string {
	if exe, err := os.Executable(); err == nil {
		if p := Beside(exe, "kb"); p != "" {
			return p
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
