package kb

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kbmem/kb/agents"
)

// recorder collects watcher actions and hook calls.
type recorder struct {
	mu      sync.Mutex
	actions []WatchAction
	hooked  [][]string
	wake    chan struct{}
}

func newRecorder() *recorder { return &recorder{wake: make(chan struct{}, 1)} }

func (r *recorder) action(a WatchAction) {
	r.mu.Lock()
	r.actions = append(r.actions, a)
	r.mu.Unlock()
	r.poke()
}

func (r *recorder) hook(ctx context.Context, k *KB, ids []string) error {
	r.mu.Lock()
	r.hooked = append(r.hooked, slices.Clone(ids))
	r.mu.Unlock()
	r.poke()
	return nil
}

func (r *recorder) poke() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// waitFor polls cond on every action, for at most 10 s.
func (r *recorder) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		r.mu.Lock()
		ok := cond()
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-r.wake:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			r.mu.Lock()
			defer r.mu.Unlock()
			t.Fatalf("timed out waiting for %s; actions: %+v; hooks: %v", what, r.actions, r.hooked)
		}
	}
}

func (r *recorder) imported() int {
	n := 0
	for _, a := range r.actions {
		if a.Action == "import" {
			n += a.Records
		}
	}
	return n
}

func appendTo(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func sessionRecords(t *testing.T, k *KB, id string) int {
	t.Helper()
	tr, err := k.TraceShow(id, TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return len(tr.Records)
}

// TestWatch: the watcher follows a Claude Code directory that does not
// exist when it starts (the default "auto" source), imports a transcript
// while it grows, re-indexes an edited note, and calls the quiet hook once
// the session stops growing. A restart imports nothing twice.
func TestWatch(t *testing.T) {
	k := trNewKB(t)
	dirs := agents.ClaudeCodeDirs(k.ProjectRoot)
	if len(dirs) == 0 {
		t.Fatal("no Claude Code directory for the project")
	}
	transcript := filepath.Join(dirs[0], ccSession+".jsonl")

	rec := newRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- k.Watch(ctx, WatchOptions{OnQuiet: rec.hook, OnAction: rec.action,
			QuietAfter: 300 * time.Millisecond, Debounce: 50 * time.Millisecond})
	}()
	rec.waitFor(t, "start", func() bool { return len(rec.actions) > 0 })

	// The agent creates its directory and writes the session in bursts.
	if err := os.MkdirAll(dirs[0], 0o755); err != nil {
		t.Fatal(err)
	}
	appendTo(t, transcript, ccLine("u1", "2025-11-17T10:00:00Z", ccUser("add a retry to the fetcher")))
	rec.waitFor(t, "first import", func() bool { return rec.imported() >= 1 })
	appendTo(t, transcript, ccLine("a1", "2025-11-17T10:00:01Z", ccToolUse("t1", "Bash", json.RawMessage(`{"command":"go test ./..."}`)))+
		ccLine("r1", "2025-11-17T10:00:02Z", ccToolResult("t1", "ok")))
	// A half-written line is left for later.
	last := ccLine("a2", "2025-11-17T10:00:03Z", ccAssistantText("Added the retry."))
	appendTo(t, transcript, last[:20])
	rec.waitFor(t, "second import", func() bool { return rec.imported() >= 3 })
	appendTo(t, transcript, last[20:])
	rec.waitFor(t, "all records", func() bool { return rec.imported() >= 4 })

	// An edited note is re-indexed.
	rec.mu.Lock()
	n0 := len(rec.actions)
	rec.mu.Unlock()
	trWriteFile(t, filepath.Join(k.Root, LayerLibrary, "retry.md"), "---\nid: retry\ntype: convention\n---\nAlways retry idempotent fetches.\n")
	rec.waitFor(t, "re-index", func() bool {
		for _, a := range rec.actions[n0:] {
			if a.Action == "index" && strings.Contains(a.Message, ": 1 added") {
				return true
			}
		}
		return false
	})
	rec.waitFor(t, "quiet hook", func() bool {
		return len(rec.hooked) > 0 && slices.Contains(rec.hooked[len(rec.hooked)-1], ccSession)
	})
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Watch: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Watch did not stop on cancel")
	}
	if n := rec.imported(); n != 4 {
		t.Errorf("imported %d records, want 4", n)
	}
	if n := sessionRecords(t, k, ccSession); n != 5 {
		t.Errorf("session holds %d records, want 4 and the meta", n)
	}
	x, _, err := k.OpenIndex(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := x.Search(SearchOptions{Query: "idempotent"})
	x.Close()
	if err != nil || len(res.Hits) != 1 {
		t.Errorf("note not indexed: %v %+v", err, res)
	}

	// Restart: the catch-up pass appends nothing and calls no hook.
	rec2 := newRecorder()
	if err := k.Watch(context.Background(), WatchOptions{Once: true, OnQuiet: rec2.hook, OnAction: rec2.action, QuietAfter: time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if n := rec2.imported(); n != 0 || len(rec2.hooked) != 0 {
		t.Errorf("restart imported %d records, hooks %v", n, rec2.hooked)
	}
	if n := sessionRecords(t, k, ccSession); n != 5 {
		t.Errorf("after restart the session holds %d records", n)
	}
}

// TestWatchPendingSurvivesRestart: a session that got records but was not
// quiet yet when the watcher stopped gets its hook after the restart, once.
func TestWatchPendingSurvivesRestart(t *testing.T) {
	k := trNewKB(t)
	src := t.TempDir()
	trWriteFile(t, filepath.Join(src, ccSession+".jsonl"), ccLine("u1", "2025-11-17T10:00:00Z", ccUser("hello")))
	now := time.Date(2025, 11, 17, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	sources := []Source{{Kind: "sources", Path: src}}

	rec := newRecorder()
	if err := k.Watch(context.Background(), WatchOptions{Once: true, Sources: sources, Clock: clock,
		OnQuiet: rec.hook, OnAction: rec.action, QuietAfter: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if rec.imported() != 1 || len(rec.hooked) != 0 {
		t.Fatalf("first pass: imported %d, hooks %v", rec.imported(), rec.hooked)
	}
	now = now.Add(2 * time.Hour)
	for i := 0; i < 2; i++ {
		rec2 := newRecorder()
		if err := k.Watch(context.Background(), WatchOptions{Once: true, Sources: sources, Clock: clock,
			OnQuiet: rec2.hook, OnAction: rec2.action, QuietAfter: time.Hour}); err != nil {
			t.Fatal(err)
		}
		want := [][]string{{ccSession}}
		if i == 1 {
			want = nil
		}
		if rec2.imported() != 0 || fmt.Sprint(rec2.hooked) != fmt.Sprint(want) {
			t.Errorf("pass %d: imported %d, hooks %v, want %v", i+2, rec2.imported(), rec2.hooked, want)
		}
	}
}
