package kb

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/kbmem/kb/recall"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

func hookEvent(t *testing.T, ev map[string]any) *HookInput {
	t.Helper()
	raw, _ := json.Marshal(ev)
	in, err := ParseHookInput(raw)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// A hook never builds or syncs the index: without one it answers nothing
// and creates none; with a stale one it answers from what the index holds
// and leaves it as it is; either way it says the index needs work.
func TestHookNeverIndexes(t *testing.T) {
	k := rcPushForceKB(t, "ask")
	ev := hookEvent(t, map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash",
		"tool_input": map[string]any{"command": "git push --force origin main"}})
	out, hs, err := k.hook(context.Background(), AgentClaudeCode, ev)
	if err != nil || out != nil {
		t.Fatalf("no index: answered %+v, %v", out, err)
	}
	if hs.stale != "no activation index" {
		t.Errorf("stale = %q, want no activation index", hs.stale)
	}
	if _, err := os.Stat(filepath.Join(k.Root, IndexDir)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the hook created the index: %v", err)
	}

	syncIndex(t, k)
	out, hs, err = k.hook(context.Background(), AgentClaudeCode, ev)
	if err != nil || out == nil || hs.stale != "" {
		t.Fatalf("fresh index: %+v, %q, %v", out, hs.stale, err)
	}

	// A new lesson since the last sync: the hook answers from the index
	// as it is (the force-push lesson), and does not index the new file.
	rcCorrection(t, k, "deleting the cache", "Never rm -rf the cache; run make clean.", []string{"fs:delete-recursive"})
	// The stamps file and the log of the updates since it was written.
	stamps := func() []byte {
		a, _ := os.ReadFile(filepath.Join(k.Root, IndexDir, "stamps"))
		b, _ := os.ReadFile(filepath.Join(k.Root, IndexDir, "stamps.log"))
		return append(a, b...)
	}
	before := stamps()
	out, hs, err = k.hook(context.Background(), AgentClaudeCode, ev)
	if err != nil || out == nil || !strings.Contains(out.HookSpecificOutput.AdditionalContext, "Never force-push main") {
		t.Fatalf("stale index: %+v, %v", out, err)
	}
	if hs.stale == "" {
		t.Error("a stale index was not reported stale")
	}
	if !bytes.Equal(before, stamps()) {
		t.Error("the hook synced the index")
	}
}

// The event is read as soon as it is complete: an agent that leaves stdin
// open does not stall the hook.
func TestRunHookDoesNotWaitForEOF(t *testing.T) {
	k := rcPushForceKB(t, "ask")
	syncIndex(t, k)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	defer pr.Close()
	ev := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push --force origin main"}}`
	if _, err := pw.WriteString(ev); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- RunHook(context.Background(), AgentClaudeCode, pr, &out, HookRunOptions{Find: FindOptions{Dir: k.Root}})
	}()
	select {
	case err := <-done:
		if err != nil || !strings.Contains(out.String(), "Never force-push main") {
			t.Fatalf("answer %q, %v", out.String(), err)
		}
	case <-time.After(time.Minute): // a generous bound, not a measurement
		t.Fatal("RunHook waited for the end of stdin")
	}
}

// A hook that runs out of its budget answers nothing and logs it.
func TestRunHookOverBudget(t *testing.T) {
	k := rcPushForceKB(t, "ask")
	syncIndex(t, k)
	old := hookBudget
	hookBudget = time.Nanosecond
	t.Cleanup(func() { hookBudget = old })
	var out bytes.Buffer
	ev := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push --force origin main"}}`
	err := RunHook(context.Background(), AgentClaudeCode, strings.NewReader(ev), &out, HookRunOptions{Find: FindOptions{Dir: k.Root}})
	if err == nil || out.Len() > 0 {
		t.Fatalf("over budget: %q, %v", out.String(), err)
	}
	log, _ := os.ReadFile(filepath.Join(k.Root, StateDir, "hook.log"))
	if !strings.Contains(string(log), "over budget") {
		t.Errorf("hook.log = %q", log)
	}
}

// Without an index, RunHook starts the background indexer (here a script
// recording its arguments) and answers nothing.
func TestRunHookStartsIndexer(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell script")
	}
	k := rcPushForceKB(t, "ask")
	dir := t.TempDir()
	exe := filepath.Join(dir, "fake-kb")
	args := filepath.Join(dir, "args")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\necho \"$@\" > "+args+".tmp && mv "+args+".tmp "+args+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	ev := `{"hook_event_name":"UserPromptSubmit","prompt":"commit these changes"}`
	if err := RunHook(context.Background(), AgentClaudeCode, strings.NewReader(ev), &out, HookRunOptions{Find: FindOptions{Dir: k.Root}, IndexExe: exe}); err != nil || out.Len() > 0 {
		t.Fatalf("no index: %q, %v", out.String(), err)
	}
	var got []byte
	for range 600 { // polls for the detached process, up to a minute
		if b, err := os.ReadFile(args); err == nil {
			got = b
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if want := "--kb " + k.Root + " --quiet index --background\n"; string(got) != want {
		t.Errorf("indexer started with %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(k.Root, IndexDir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the hook created the index: %v", err)
	}
}

// BackgroundIndex syncs the layers recall reads, one at a time.
func TestBackgroundIndex(t *testing.T) {
	k := rcPushForceKB(t, "ask")
	writeSession(t, k, "s1", 0, 5, "alpha")
	st, ran, err := k.BackgroundIndex(context.Background())
	if err != nil || !ran {
		t.Fatalf("BackgroundIndex: %v %v", ran, err)
	}
	if st.Added != 2 {
		t.Errorf("added %d files, want the 2 observations (traces are left out)", st.Added)
	}
	ev := hookEvent(t, map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash",
		"tool_input": map[string]any{"command": "git push --force origin main"}})
	if out, hs, err := k.hook(context.Background(), AgentClaudeCode, ev); out == nil || hs.stale != "" || err != nil {
		t.Errorf("after the background index: %+v %q %v", out, hs.stale, err)
	}
	// While one runs (its lock held), another does nothing.
	l, err := k.lockIndexer()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if _, ran, err := k.BackgroundIndex(context.Background()); ran || err != nil {
		t.Errorf("second indexer ran: %v %v", ran, err)
	}
}

// A sync of the traces alone does not tell the hooks the notes are fresh.
func TestTraceSyncKeepsHooksStale(t *testing.T) {
	k := rcPushForceKB(t, "ask")
	syncIndex(t, k)
	rcCorrection(t, k, "deleting the cache", "Never rm -rf the cache; run make clean.", []string{"fs:delete-recursive"})
	x, _, err := k.OpenIndexLayers(context.Background(), []string{LayerTraces}, nil)
	if err != nil {
		t.Fatal(err)
	}
	x.Close()
	if k.dirsUnchanged() {
		t.Error("a traces-only sync recorded the directory times: hooks would trust a stale index")
	}
}

// A damaged activation index (truncated, zeroed, another program's bytes)
// is refused whole: the hook answers nothing, says it is stale, and the
// next sync compiles it again from the files, after which the hook
// answers as before.
func TestHookDamagedActivationIndex(t *testing.T) {
	k, ev, want := indexedPushForce(t, "ask")
	p := k.activationPath()
	good, _ := os.ReadFile(p)
	for name, bad := range map[string][]byte{
		"truncated": good[:len(good)/2], "zeroed": make([]byte, len(good)), "empty": nil,
		"foreign": []byte("---\ntitle: not an index\n---\n"),
	} {
		if err := os.WriteFile(p, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		out, hs, err := k.hook(context.Background(), AgentClaudeCode, ev)
		if err != nil || out != nil || hs.stale == "" {
			t.Errorf("%s: answered %+v, stale %q, %v", name, out, hs.stale, err)
		}
		syncIndex(t, k)
		out, hs, err = k.hook(context.Background(), AgentClaudeCode, ev)
		if err != nil || out == nil || hs.stale != "" || out.HookSpecificOutput.AdditionalContext != want.HookSpecificOutput.AdditionalContext {
			t.Errorf("%s: after a sync: %+v, stale %q, %v", name, out, hs.stale, err)
		}
	}
}

// A read command that syncs an edit (kb search) answers without compiling
// the activation index (tens of seconds at 100k notes): it marks the
// change; the next hook answers from the index it has, says it is stale,
// and the background indexer's sync compiles it and clears the mark, after
// which the hook answers with the edit.
func TestReadCommandDefersActivation(t *testing.T) {
	k, ev, _ := indexedPushForce(t, "context")
	// Edit the lesson by hand, in place, then search.
	files, _, err := k.LoadObservations(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var path string
	for _, f := range files {
		if strings.Contains(f.Obs.Lesson, "Never force-push main") {
			path = filepath.Join(k.Root, filepath.FromSlash(f.Path))
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, []byte(strings.ReplaceAll(string(b), "open a revert PR instead", "open a revert PR against main instead")), 0o644)
	readCommandMarks(t, k)
	out, hs, err := k.hook(context.Background(), AgentClaudeCode, ev)
	if err != nil || out == nil || hs.stale == "" {
		t.Fatalf("hook after the read command: %+v, stale %q, %v", out, hs.stale, err)
	}
	if _, ran, err := k.BackgroundIndex(context.Background()); err != nil || !ran {
		t.Fatalf("background indexer: ran %v, %v", ran, err)
	}
	out, hs, err = k.hook(context.Background(), AgentClaudeCode, ev)
	if err != nil || out == nil || hs.stale != "" || k.activationPending() ||
		!strings.Contains(out.HookSpecificOutput.AdditionalContext, "revert PR against main") {
		t.Errorf("after the background compile: %+v, stale %q, pending %v, %v", out, hs.stale, k.activationPending(), err)
	}
}

// readCommandMarks runs a read command's sync (kb search) and checks that
// it left the activation index as it was, marked pending.
func readCommandMarks(t *testing.T, k *KB) {
	t.Helper()
	compiled, _ := os.Stat(k.activationPath())
	x, _, err := k.OpenIndexToRead(context.Background(), recallLayers, nil)
	if err != nil {
		t.Fatal(err)
	}
	x.Close()
	if after, _ := os.Stat(k.activationPath()); !after.ModTime().Equal(compiled.ModTime()) || !k.activationPending() {
		t.Fatalf("the read command compiled (%v) or left no mark (%v)", !after.ModTime().Equal(compiled.ModTime()), k.activationPending())
	}
}

// indexedPushForce is rcPushForceKB indexed, its PreToolUse event for a
// force push, and the hook's answer to it, which must be given and fresh.
func indexedPushForce(t *testing.T, mode string) (*KB, *HookInput, *HookOutput) {
	t.Helper()
	k := rcPushForceKB(t, mode)
	syncIndex(t, k)
	ev := hookEvent(t, map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash",
		"tool_input": map[string]any{"command": "git push --force origin main"}})
	want, hs, err := k.hook(context.Background(), AgentClaudeCode, ev)
	if err != nil || want == nil || hs.stale != "" {
		t.Fatalf("healthy: %+v, stale %q, %v", want, hs.stale, err)
	}
	return k, ev, want
}

// A compile of every document in rounds (a first compile of a large KB)
// writes the same sections as one pass, and a hook answers from it as
// before; an edit afterwards is compiled incrementally to the same bytes
// as a compile from scratch.
func TestCompileInRounds(t *testing.T) {
	k, ev, want := indexedPushForce(t, "context")
	words := strings.Fields("deploy staging cache token review merge schema renderer migration wipe")
	for i := range 37 {
		body := fmt.Sprintf("---\ntitle: Note %d about %s\ntags: [%s]\n---\n\nWhen you %s, %s first. See [[note-%d]].\n",
			i, words[i%len(words)], words[(i+3)%len(words)], words[(i+1)%len(words)], words[(i+2)%len(words)], (i+1)%37)
		p := filepath.Join(k.Root, "library", "notes", fmt.Sprintf("note-%d.md", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	syncIndex(t, k)
	sections := func() []byte { return activationSections(t, k) }
	compileFresh := func(rounds int) []byte {
		t.Helper()
		defer func(n int) { roundDocs = n }(roundDocs)
		roundDocs = rounds
		os.Remove(k.activationPath())
		x, _, err := k.OpenIndex(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer x.Close()
		if err := x.compileActivation(nil); err != nil {
			t.Fatal(err)
		}
		return sections()
	}
	one := compileFresh(1 << 20)
	if got := compileFresh(8); !bytes.Equal(got, one) {
		t.Fatalf("compiled in rounds of 8: %d bytes of sections, in one pass %d", len(got), len(one))
	}
	if got, _, err := k.hook(context.Background(), AgentClaudeCode, ev); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("hook after rounds: %+v, %v; want %+v", got, err, want)
	}
	// An edit: the sync's incremental compile equals a compile from scratch.
	p := filepath.Join(k.Root, "library", "notes", "note-5.md")
	if err := os.WriteFile(p, []byte("---\ntitle: Note 5 rewritten\n---\n\nWipe the staging cache with care.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	syncIndex(t, k)
	if inc, fresh := sections(), compileFresh(1<<20); !bytes.Equal(inc, fresh) {
		t.Fatalf("incremental compile after an edit: %d bytes of sections, from scratch %d", len(inc), len(fresh))
	}
}

// A first compile that left item records unloaded (over MaxLoads: at
// 100,000 notes one compile loads 20,000) is finished by the writers'
// syncs and the background indexer, never by a read command: each such
// compile took a `kb search` at 100k notes 40 s and 2 GB, five searches in
// a row. The read command answers, marks the index pending, and the
// next sync of a writer loads more.
func TestReadCommandLeavesUnloadedToIndexer(t *testing.T) {
	defer func(n int) { maxLoads = n }(maxLoads)
	maxLoads = 1
	k := rcPushForceKB(t, "context")
	rcCorrection(t, k, "running migrations", "Run migrations with --dry-run first.", []string{"db:migrate"})
	syncIndex(t, k)
	meta := func() recall.CompiledMeta {
		t.Helper()
		c, err := recall.OpenCompiled(k.activationPath())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		return c.Meta()
	}
	before := meta()
	if before.Unloaded == 0 {
		t.Fatalf("first compile with MaxLoads 1 loaded everything: %+v", before)
	}
	readCommandMarks(t, k)
	syncIndex(t, k) // a writer's sync: loads one more
	if got := meta().Unloaded; got >= before.Unloaded || k.activationPending() {
		t.Errorf("after a writer's sync: %d unloaded (was %d), pending %v", got, before.Unloaded, k.activationPending())
	}
}

// activationSections are the sections of k's activation index, after its
// header, whose meta has the compile time.
func activationSections(t *testing.T, k *KB) []byte {
	t.Helper()
	b, err := os.ReadFile(k.activationPath())
	if err != nil || len(b) < 12 {
		t.Fatalf("activation index: %v", err)
	}
	return b[12+binary.LittleEndian.Uint32(b[8:12]):]
}
