package eval

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// Replay over the repository's real transcripts (testdata/transcripts:
// Claude Code and Codex sessions): every call replayed, the context
// counted, and every injected call's items logged by id.
func TestReplayRealTranscripts(t *testing.T) {
	dirs := []string{filepath.Join("..", "testdata", "transcripts", "claude-code"), filepath.Join("..", "testdata", "transcripts", "codex")}
	rep, err := Replay(context.Background(), dirs, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions == 0 || rep.Calls == 0 {
		t.Fatalf("nothing replayed: %+v", rep)
	}
	if rep.WithContext != len(rep.Injected) || rep.WithContext > rep.Calls || rep.Rate != float64(rep.WithContext)/float64(rep.Calls) {
		t.Errorf("counts: %+v", rep)
	}
	n := 0
	for _, c := range rep.Injected {
		n += len(c.IDs)
		if len(c.IDs) == 0 || c.Session == "" || !strings.Contains(c.Context, c.IDs[0]) {
			t.Errorf("injected call without its items: %+v", c)
		}
	}
	if n != rep.Items {
		t.Errorf("items %d, listed %d", rep.Items, n)
	}
	t.Logf("%d sessions, %d calls, %d with context, %d items", rep.Sessions, rep.Calls, rep.WithContext, rep.Items)
}
