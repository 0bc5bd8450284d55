package reliability

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestImportInterruptResumes: Ctrl-C in the middle of `kb import` stops
// between files, keeps what was imported, says so and that a re-run
// resumes; the re-run imports exactly the rest. The process is held before
// its third file (a failpoint pause) so that the signal lands in the
// middle without relying on timing.
func TestImportInterruptResumes(t *testing.T) {
	k := newKB(t)
	src := filepath.Join(t.TempDir(), "exports")
	os.MkdirAll(src, 0o755)
	const files = 20
	for i := 0; i < files; i++ {
		var b strings.Builder
		for j := 0; j < 5; j++ {
			fmt.Fprintf(&b, `{"session":"s%02d","role":"user","text":"message %d of session %d","ts":"2026-01-0%dT10:00:0%dZ"}`+"\n", i, j, i, 1+i%9, j)
		}
		os.WriteFile(filepath.Join(src, fmt.Sprintf("chat-%02d.jsonl", i)), []byte(b.String()), 0o644)
	}
	pause := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, kbBin, "--kb", k.Root, "import", "--format", "generic", src)
	cmd.Env = append(kbEnv(k.Home), "KB_FAILPOINT=traces.import-file=3", "KB_FAILPOINT_PAUSE="+pause)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	reached := filepath.Join(pause, "traces.import-file.reached")
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(reached); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the import never reached its third file; stderr:\n%s", errb.String())
		}
	}
	cmd.Process.Signal(os.Interrupt)
	time.Sleep(50 * time.Millisecond) // let the signal be taken before the write goes on
	os.WriteFile(filepath.Join(pause, "traces.import-file.resume"), nil, 0o644)
	err := cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			t.Fatalf("killed by %v instead of stopping: stderr\n%s", ws.Signal(), errb.String())
		}
	}
	if code == 0 || !strings.Contains(errb.String(), "interrupted:") || !strings.Contains(errb.String(), "run the same command again") {
		t.Fatalf("exit %d, stderr:\n%s\nstdout:\n%s", code, errb.String(), out.String())
	}
	// What was kept is whole, and the re-run imports the rest.
	r := k.must(t, "import", "--format", "generic", "--json", src)
	if !strings.Contains(r.Stdout, `"files": 20`) {
		t.Errorf("re-run: %s", tail(r.Stdout, 800))
	}
	s := k.must(t, "sessions", "--json")
	if n := strings.Count(s.Stdout, `"id":`); n != files {
		t.Errorf("%d sessions after the re-run, want %d", n, files)
	}
}
