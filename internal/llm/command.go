package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

const (
	maxCommandStdout = 4 << 20
	maxCommandStderr = 64 << 10
	// pipeGrace bounds how long output pipes are drained after the process
	// group is gone (a process that left the group may still hold them).
	pipeGrace = 2 * time.Second
)

type command struct {
	name    string
	argv    []string
	timeout time.Duration
}

func newCommand(cfg Config) (*command, error) {
	if len(cfg.Command) == 0 || strings.TrimSpace(cfg.Command[0]) == "" {
		return nil, fmt.Errorf("llm: command: llm.command must name a program, e.g. [claude, -p]")
	}
	if _, err := exec.LookPath(cfg.Command[0]); err != nil {
		return nil, fmt.Errorf("llm: command: %w", err)
	}
	return &command{
		name:    "command " + cfg.Command[0],
		argv:    append([]string(nil), cfg.Command...),
		timeout: cfg.Timeout,
	}, nil
}

func (c *command) JSON(ctx context.Context, req Request, out any) error {
	p, err := prepare(req, out)
	if err != nil {
		return fmt.Errorf("llm: %s: %w", c.name, err)
	}
	ctx, cancel := withTimeout(ctx, c.timeout)
	defer cancel()
	stdout, err := runCommand(ctx, c.argv, []byte(commandPrompt(p)))
	if err != nil {
		return fmt.Errorf("llm: %s: %w", c.name, err)
	}
	raw, err := ExtractJSON(stdout)
	if err == nil {
		err = decodeObject(raw, p.required, out)
	}
	if err != nil {
		return fmt.Errorf("llm: %s: %w", c.name, err)
	}
	return nil
}

// commandPrompt is what the command reads on stdin.
func commandPrompt(p prepared) string {
	var b strings.Builder
	if s := strings.TrimSpace(p.System); s != "" {
		b.WriteString(s)
		b.WriteString("\n\n")
	}
	b.WriteString(strings.TrimSpace(p.Prompt))
	b.WriteString("\n\nAnswer with only a JSON object matching this schema (no prose, no markdown fences):\n")
	b.Write(p.Schema)
	b.WriteString("\n")
	return b.String()
}

// runCommand runs argv in its own process group with stdin as input and
// returns its stdout. On cancellation, and after the program exits, the whole
// group is killed, so no descendant outlives the call.
func runCommand(ctx context.Context, argv []string, stdin []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Stdout = outW
	cmd.Stderr = errW
	// Stdin is copied by a goroutine; if a stray descendant keeps the pipe
	// open, Wait closes it after this delay instead of hanging.
	cmd.WaitDelay = pipeGrace
	setProcessGroup(cmd)
	startErr := cmd.Start()
	outW.Close()
	errW.Close()
	if startErr != nil {
		outR.Close()
		errR.Close()
		return nil, startErr
	}

	stdout := &capBuffer{limit: maxCommandStdout}
	stderr := &capBuffer{limit: maxCommandStderr}
	var readers sync.WaitGroup
	readers.Go(func() { io.Copy(stdout, outR) })
	readers.Go(func() { io.Copy(stderr, errR) })

	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var waitErr error
	select {
	case waitErr = <-waited:
	case <-ctx.Done():
		killGroup(cmd)
		waitErr = <-waited
	}
	killGroup(cmd) // descendants left running by a program that exited

	drained := make(chan struct{})
	go func() { readers.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(pipeGrace):
		outR.Close() // unblocks the readers
		errR.Close()
		<-drained
	}
	outR.Close()
	errR.Close()

	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("killed: %w", err)
	}
	if waitErr != nil && !(errors.Is(waitErr, exec.ErrWaitDelay) && cmd.ProcessState.Success()) {
		msg := strings.TrimSpace(string(stderr.Bytes()))
		if msg == "" {
			return nil, waitErr
		}
		return nil, fmt.Errorf("%w; stderr: %s", waitErr, excerpt([]byte(msg), maxErrorBody))
	}
	return stdout.Bytes(), nil
}

// capBuffer keeps the first limit bytes written and discards the rest, so a
// chatty program never blocks on a full pipe.
type capBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	limit int
}

func (b *capBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.limit - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (b *capBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}
