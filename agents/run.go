package agents

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/textutil"
)

// The plumbing of one hook run, what every agent's hook needs around the
// answer: the event read within bounds, the answer within a time budget,
// the kb processes it starts detached, and its one-line log.

// ReadEvent reads one hook event from r within limit bytes and timeout
// (ReadHookEvent) and parses it (ParseHookInput).
func ReadEvent(ctx context.Context, r io.Reader, limit int64, timeout time.Duration) (*HookInput, error) {
	raw, err := ReadHookEvent(ctx, r, limit, timeout)
	if err != nil {
		return nil, err
	}
	return ParseHookInput(raw)
}

// AnswerWithin runs answer on its own goroutine and waits for it until ctx
// is done: a panic in answer is an internal error, and an answer that
// comes after ctx is "over budget". The late work goes on in its goroutine
// until the process exits; what it would answer is too late for the agent.
func AnswerWithin[T any](ctx context.Context, budget time.Duration, answer func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() {
			if p := recover(); p != nil {
				r.err = fmt.Errorf("internal error: %v", p)
			}
			done <- r
		}()
		r.v, r.err = answer()
	}()
	select {
	case r := <-done:
		if r.err != nil && ctx.Err() != nil {
			// The answer gave up because the budget ran out (its own
			// context said so first): the same over-budget answer.
			var zero T
			return zero, fmt.Errorf("over budget: no answer within %s", budget)
		}
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, fmt.Errorf("over budget: no answer within %s", budget)
	}
}

// StartDetached starts `exe args...` in dir in its own session (so that
// signals to the agent's process group do not reach it), with no
// terminal, KB_DIR cleared and out as its stdout and stderr (nil: none),
// and does not wait for it.
func StartDetached(dir string, out *os.File, exe string, args ...string) error {
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KB_DIR=")
	if out != nil {
		cmd.Stdout, cmd.Stderr = out, out
	}
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}

// LogHook appends one line about a hook event (its name and tool, kind,
// msg) to the log file logPath inside root, through root's tree: a log (or
// its directory) that a cloned repository committed as a symlink out of
// root is refused, not appended to. The line has no control characters:
// the event name and the message may carry text from the hook input or
// from a settings file.
func LogHook(root, logPath string, in *HookInput, kind, msg string) {
	ev := "?"
	if in != nil {
		ev = in.HookEventName
		if in.ToolName != "" {
			ev += "/" + in.ToolName
		}
	}
	line := fmt.Sprintf("%s %s %s: %s\n", time.Now().UTC().Format(time.RFC3339), textutil.StripControl(textutil.OneLine(ev)), kind, textutil.StripControl(textutil.OneLine(msg)))
	tree := fsx.Tree{Root: root}
	if tree.MkdirAll(filepath.Dir(logPath)) == nil {
		_ = tree.Append(logPath, []byte(line))
	}
}
