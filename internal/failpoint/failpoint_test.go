package failpoint

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHit runs this test binary as a child that hits a point three times
// with the point armed at 2: it must die there, before printing "after 2".
func TestHit(t *testing.T) {
	if os.Getenv("FAILPOINT_CHILD") == "1" {
		for i := 1; i <= 3; i++ {
			Hit("other")
			Hit("write")
			os.Stdout.WriteString("after " + string(rune('0'+i)) + "\n")
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHit$")
	cmd.Env = append(os.Environ(), "FAILPOINT_CHILD=1", Env+"=write=2")
	out, err := cmd.Output()
	if err == nil {
		t.Fatalf("child was not killed; output:\n%s", out)
	}
	if got := string(out); !strings.Contains(got, "after 1") || strings.Contains(got, "after 2") {
		t.Fatalf("child output %q, want it killed at the second hit", got)
	}
}

func TestParse(t *testing.T) {
	for _, v := range []string{"", "write", "write=0", "write=-1", "write=x", "=3", "write=2:boom", "write=:short"} {
		if _, _, _, ok := parse(v); ok {
			t.Errorf("parse(%q) armed a point", v)
		}
	}
	if n, i, a, ok := parse("extract.write=7"); !ok || n != "extract.write" || i != 7 || a != "kill" {
		t.Errorf("parse = %q %d %q %v", n, i, a, ok)
	}
	if n, i, a, ok := parse("traces.append=2:short"); !ok || n != "traces.append" || i != 2 || a != "short" {
		t.Errorf("parse = %q %d %q %v", n, i, a, ok)
	}
}

// TestShortWrite arms a short write at the second pass: only that one is
// short, and Hit at the same name does not kill.
func TestShortWrite(t *testing.T) {
	Arm("append=2:short")
	defer Arm("")
	Hit("append")
	var got []int
	for range 3 {
		n, short := ShortWrite("append", 10)
		if short {
			got = append(got, n)
		}
	}
	if len(got) != 1 || got[0] != 5 {
		t.Fatalf("short writes %v, want one of 5 bytes", got)
	}
	if _, short := ShortWrite("other", 10); short {
		t.Error("an unarmed point wrote short")
	}
}

// TestPause runs a child armed with a pause directory: it must stop at the
// second hit, say so with its note, and go on once resumed.
func TestPause(t *testing.T) {
	if os.Getenv("FAILPOINT_CHILD") == "2" {
		for i := 1; i <= 3; i++ {
			HitNote("write", "file-"+string(rune('0'+i)))
			os.Stdout.WriteString("after " + string(rune('0'+i)) + "\n")
		}
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestPause$")
	cmd.Env = append(os.Environ(), "FAILPOINT_CHILD=2", Env+"=write=2", PauseEnv+"="+dir)
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	reached := filepath.Join(dir, "write.reached")
	for {
		select {
		case err := <-done:
			t.Fatalf("child ended (%v) without pausing; output:\n%s", err, out.String())
		default:
		}
		if b, err := os.ReadFile(reached); err == nil {
			if string(b) != "file-2" {
				t.Fatalf("note %q, want file-2", b)
			}
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := os.WriteFile(filepath.Join(dir, "write.resume"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("child: %v", err)
	}
	if !strings.Contains(out.String(), "after 3") {
		t.Fatalf("child output %q, want all three passes", out.String())
	}
}

func TestOnHit(t *testing.T) {
	var notes []string
	remove := OnHit("p", func(n string) { notes = append(notes, n) })
	HitNote("p", "a")
	HitNote("q", "b")
	remove()
	HitNote("p", "c")
	if strings.Join(notes, ",") != "a" {
		t.Fatalf("notes %v, want [a]", notes)
	}
}
