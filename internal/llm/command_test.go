//go:build unix

package llm

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeScript writes an executable shell script to a temp dir.
func writeScript(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fake-llm")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func newCommandTest(t *testing.T, timeout time.Duration, argv ...string) Client {
	t.Helper()
	c, err := New(Config{Provider: "command", Command: argv, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCommand(t *testing.T) {
	tests := []struct {
		name     string
		script   string
		wantErr  error
		contains string
	}{
		{name: "bare JSON", script: `cat >/dev/null; echo '{"title":"use tabs","confidence":0.9}'`},
		{name: "fenced with prose", script: "cat >/dev/null; printf 'Sure! Here it is:\\n```json\\n{\"title\": \"use tabs\", \"confidence\": 0.9}\\n```\\nLet me know {if} you need more.\\n'"},
		{name: "no JSON", script: `cat >/dev/null; echo 'I could not find a correction.'`,
			wantErr: ErrMalformed, contains: "no JSON object found"},
		{name: "missing required key", script: `cat >/dev/null; echo '{"title":"use tabs"}'`,
			wantErr: ErrMalformed, contains: "missing required keys confidence"},
		{name: "exit status", script: `cat >/dev/null; echo 'not logged in' >&2; exit 3`,
			contains: "exit status 3; stderr: not logged in"},
		{name: "ignores stdin", script: `echo '{"title":"use tabs","confidence":0.9}'`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCommandTest(t, 0, writeScript(t, tc.script))
			var got result
			err := c.JSON(context.Background(), testRequest(), &got)
			if tc.contains == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got != (result{"use tabs", 0.9}) {
					t.Fatalf("got %+v", got)
				}
				return
			}
			wantErr(t, err, tc.wantErr, tc.contains)
			if !strings.HasPrefix(err.Error(), "llm: command ") {
				t.Errorf("error lacks context prefix: %v", err)
			}
		})
	}
}

func TestCommandPromptOnStdin(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "stdin.txt")
	script := writeScript(t, fmt.Sprintf(`cat > %q; echo "$1" > %q.arg; echo '{"title":"t","confidence":1}'`, in, in))
	c := newCommandTest(t, 0, script, "-p")
	var got result
	if err := c.JSON(context.Background(), testRequest(), &got); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	tr := testRequest()
	for _, want := range []string{tr.System, tr.Prompt, "Answer with only a JSON object matching this schema", string(testSchema)} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("stdin lacks %q:\n%s", want, data)
		}
	}
	if arg, _ := os.ReadFile(in + ".arg"); string(arg) != "-p\n" {
		t.Errorf("argv[1] = %q", arg)
	}
}

// readPIDs reads the process ids a script recorded.
func readPIDs(t *testing.T, path string) []int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("script did not record its pids: %v", err)
	}
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("pid file: %v", err)
		}
		pids = append(pids, pid)
	}
	if len(pids) == 0 {
		t.Fatal("no pids recorded")
	}
	return pids
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		// pid (comm) S ...: the state follows the last ')'.
		i := bytes.LastIndexByte(stat, ')')
		return i < 0 || i+2 >= len(stat) || (stat[i+2] != 'Z' && stat[i+2] != 'X')
	} else if runtime.GOOS == "linux" {
		return false
	}
	return syscall.Kill(pid, 0) == nil
}

// waitGone waits for SIGKILLed processes to finish dying. The bound only
// guards against a hung test; a live process after it is a failure.
func waitGone(t *testing.T, pids []int) {
	t.Helper()
	for _, pid := range pids {
		for i := 0; alive(pid); i++ {
			if i == 500 {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("process %d survived", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func TestCommandTimeoutKillsGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	// The background sleep inherits stdout, so a runner that only killed the
	// shell would also hang reading the pipe.
	script := writeScript(t, fmt.Sprintf(`sleep 60 &
echo $! $$ > %q
cat >/dev/null
sleep 60
echo '{"title":"late","confidence":1}'`, pidFile))
	c := newCommandTest(t, time.Second, script)
	var got result
	err := c.JSON(context.Background(), testRequest(), &got)
	wantErr(t, err, context.DeadlineExceeded, "killed")
	waitGone(t, readPIDs(t, pidFile))
}

func TestCommandCancel(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	script := writeScript(t, fmt.Sprintf(`echo $$ > %q.tmp; mv %q.tmp %q; exec sleep 60`, pidFile, pidFile, pidFile))
	c := newCommandTest(t, 0, script)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		var got result
		done <- c.JSON(ctx, testRequest(), &got)
	}()
	for i := 0; ; i++ {
		if _, err := os.Stat(pidFile); err == nil {
			break
		}
		if i == 1000 {
			t.Fatal("script never started")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	wantErr(t, <-done, context.Canceled, "")
	waitGone(t, readPIDs(t, pidFile))
}

func TestCommandLeavesNoDescendant(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	// A daemonised child with its output redirected would outlive a runner
	// that only waited for the shell.
	script := writeScript(t, fmt.Sprintf(`cat >/dev/null
sleep 60 >/dev/null 2>&1 </dev/null &
echo $! > %q
echo '{"title":"use tabs","confidence":0.9}'`, pidFile))
	c := newCommandTest(t, 0, script)
	var got result
	if err := c.JSON(context.Background(), testRequest(), &got); err != nil {
		t.Fatal(err)
	}
	waitGone(t, readPIDs(t, pidFile))
}

func TestCommandBigOutput(t *testing.T) {
	// More output than the capture limit must not block the program.
	script := writeScript(t, `cat >/dev/null
echo '{"title":"use tabs","confidence":0.9}'
head -c 6000000 /dev/zero | tr '\0' 'x'`)
	c := newCommandTest(t, 0, script)
	var got result
	if err := c.JSON(context.Background(), testRequest(), &got); err != nil {
		t.Fatal(err)
	}
}
