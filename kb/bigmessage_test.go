package kb

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kbmem/kb/traces"
)

// bigPaste is about n bytes of a build log, with secret written halfway
// and tail written 1 KB before its end.
func bigPaste(n int, secret, tail string) string {
	var b strings.Builder
	b.Grow(n + 4096)
	midDone, tailDone := false, false
	for i := 0; b.Len() < n; i++ {
		if !midDone && b.Len() >= n/2 {
			b.WriteString("export GITHUB_TOKEN=" + secret + "\n")
			midDone = true
		}
		if !tailDone && b.Len() >= n-1024 {
			b.WriteString("curl -H 'Authorization: token " + tail + "' https://api.github.com/user\n")
			tailDone = true
		}
		b.WriteString("ok   github.com/acme/app/internal/pkg" + strings.Repeat("x", i%7) + "  0.0" + string(rune('0'+i%10)) + "s  step build of target linux/amd64\n")
	}
	return b.String()
}

// TestBigMessage: a session whose prompt holds a 12 MB paste is stored
// whole with every secret of the paste redacted (one in its middle, one
// 1 KB before its end: redaction reads all of it), and is extracted from
// its work form: the person's correction before the paste is found as it
// is in the same session without the paste (the extractors read a
// message's first lines of prose, observations.maxProse).
func TestBigMessage(t *testing.T) {
	k := trNewKB(t)
	ctx := context.Background()
	dir := t.TempDir()
	mid := "ghp_Zx81KqW0pLm3Nf7Rt2Yv9Hc4Jd6Bs5Ga1Eu0"
	end := "ghp_Qa72LsX1mNb4Vc8Rt5Yw2Hk9Jd3Fs6Gz0Pe1"
	paste := bigPaste(12<<20, mid, end)
	if !strings.Contains(paste, mid) || !strings.Contains(paste[len(paste)-2048:], end) {
		t.Fatal("fixture: secrets not planted")
	}
	correction := "no, don't use pip here, use uv add instead"
	start := time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct{ sid, text string }{
		{"aaaaaaaa-0000-4000-8000-000000000001", correction + ". The build log:\n"},
		{"bbbbbbbb-0000-4000-8000-000000000002", correction + ". The build log:\n" + paste},
	} {
		s := exNewCC(c.sid, start).user("add requests to the project")
		s.tool("Bash", map[string]any{"command": "pip install requests"}, "Successfully installed requests-2.32.3")
		s.user(c.text).say("Understood, I will use uv add.")
		s.write(t, dir)
	}
	rep, err := k.Import(ctx, []string{dir}, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Totals.Redacted < 2 {
		t.Fatalf("%d secrets redacted, want both", rep.Totals.Redacted)
	}
	// Lossless: the stored prompt is the paste with only the secrets
	// replaced.
	var stored string
	st := &traces.Store{Root: k.Root}
	if _, err := st.Read("bbbbbbbb", func(r traces.Record) error {
		if len(r.Text) > len(stored) {
			stored = r.Text
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := correction + ". The build log:\n" + paste
	want = strings.ReplaceAll(strings.ReplaceAll(want, mid, "[SECRET]"), end, "[SECRET]")
	if got := regexp.MustCompile(`\[REDACTED:[a-z0-9-]+\]`).ReplaceAllString(stored, "[SECRET]"); got != want {
		t.Fatalf("stored prompt of %d bytes is not the original with its secrets redacted (%d bytes)", len(stored), len(want))
	}
	err = filepath.WalkDir(filepath.Join(k.Root, "traces"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && (strings.Contains(string(b), mid) || strings.Contains(string(b), end)) {
			t.Errorf("%s holds a secret", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	// Extraction reads the work form: at most WorkMax bytes a string.
	info, err := st.Find("bbbbbbbb")
	if err != nil {
		t.Fatal(err)
	}
	sess, _, _, err := k.readSession(info)
	if err != nil {
		t.Fatal(err)
	}
	cut := false
	for _, r := range sess.Records {
		if len(r.Text) > traces.WorkMax {
			t.Fatalf("extraction reads a text of %d bytes", len(r.Text))
		}
		cut = cut || strings.Contains(r.Text, " bytes not read here]")
	}
	if !cut {
		t.Fatal("the paste is not in its work form")
	}

	xr := exExtract(t, k, ExtractOptions{})
	if len(xr.Sessions) != 2 {
		t.Fatalf("extracted %v, want both sessions", xr.Sessions)
	}
	cs := exOfType(exLoadObs(t, k), "correction", "")
	var small, big bool
	for _, f := range cs {
		for _, s := range f.Obs.Sources {
			small = small || strings.HasPrefix(s.Session, "aaaaaaaa")
			big = big || strings.HasPrefix(s.Session, "bbbbbbbb")
		}
	}
	if !small {
		t.Fatalf("fixture: no correction from the session without the paste (%d corrections)", len(cs))
	}
	if !big {
		t.Fatalf("the correction before a 12 MB paste is not found (%d corrections)", len(cs))
	}
}
