package agents

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/kbmem/kb/internal/config"
	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/gitdir"
	"github.com/kbmem/kb/recall"
	"github.com/kbmem/kb/traces"
)

// A hook's answer, from the KB's activation index (recall.Compiled): the
// one path of `kb hook` and of the hook entry point cmd/kb-hook, which
// links neither bleve nor go-git (ADR 0008).

// HookKB is what a hook knows of the KB it answers from.
type HookKB struct {
	Root string
	// ProjectRoot is the top of the git work tree holding the KB, or Root
	// for a standalone KB (which then holds many projects' sessions).
	ProjectRoot string
	Config      config.Config
	// Extend, if set, adds to the engine what the hook entry point does
	// not link (kb's embeddings layer and judge).
	Extend func(e *recall.Engine, q recall.Query)
	// compiled is the activation index OpenHookKB opened to read kb.yaml's
	// snapshot, kept for Answer (one open a hook); compiledErr why it
	// could not be opened.
	compiled    *recall.Compiled
	compiledErr error
	// oneShot: the process answers one event and exits (OpenHookKB, for
	// HookMain), so the activation index is opened pinned
	// (recall.OpenCompiledPinned: no copies of the records it decodes).
	oneShot bool
}

// openCompiled opens the activation index, pinned in a one-shot process.
func (h *HookKB) openCompiled() (*recall.Compiled, error) {
	if h.oneShot {
		return recall.OpenCompiledPinned(h.ActivationPath())
	}
	return recall.OpenCompiled(h.ActivationPath())
}

// FindHookRoot finds the KB of a hook: dir when given (--kb, $KB_DIR),
// else the nearest KB at or above the event's cwd, or above the process's
// working directory when the event has none (or names no directory); ""
// when there is none.
func FindHookRoot(dir, cwd string) (string, error) {
	if dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", err
		}
		r, ok := config.RootAt(abs)
		if !ok {
			return "", fmt.Errorf("no %s at %s", config.File, abs)
		}
		return r, nil
	}
	if st, err := os.Stat(cwd); cwd == "" || err != nil || !st.IsDir() {
		if cwd, err = os.Getwd(); err != nil {
			return "", nil
		}
	}
	abs, _ := filepath.Abs(cwd)
	r, _ := fsx.FindUp(abs, config.RootAt)
	return r, nil
}

// OpenHookKB is the KB FindHookRoot finds, with its kb.yaml (read from
// the activation index's snapshot while the file is unchanged), and that
// index open for Answer; nil when there is none.
func OpenHookKB(dir, cwd string) (*HookKB, error) {
	root, err := FindHookRoot(dir, cwd)
	if root == "" {
		return nil, err
	}
	h := &HookKB{Root: root, ProjectRoot: root, oneShot: true}
	if top, ok := gitdir.TopLevel(root); ok {
		h.ProjectRoot = top
	}
	var snap config.Snapshot
	h.compiled, h.compiledErr = h.openCompiled()
	if h.compiled != nil && h.compiled.Meta().Config != nil {
		snap = *h.compiled.Meta().Config
	}
	c, err := config.LoadSnapshot(root, snap)
	if err != nil {
		return h, err
	}
	h.Config = c
	return h, nil
}

// ActivationPath is the KB's activation index.
func (h *HookKB) ActivationPath() string {
	return filepath.Join(h.Root, config.IndexDir, recall.CompiledFile)
}

// SessionsDir holds the session memories (SessionMemory).
func (h *HookKB) SessionsDir() string { return filepath.Join(h.Root, config.StateDir, "sessions") }

// Answer answers one hook event of agent. A nil output means "say
// nothing"; stale says why the activation index needs a sync ("" when it
// is up to date), which the caller leaves to a background indexer.
//
//   - SessionStart: standing context (conventions, preferences, active corrections).
//   - UserPromptSubmit: recall for the prompt.
//   - PreToolUse: recall for the tool call, and the decision
//     recall.pretooluse on an established high-consequence correction
//     (Dialect.Answer).
//   - the dialect's end events: the transcript is queued for import and
//     extraction; nothing is answered.
//
// It never builds anything: with no activation index it says nothing and
// reports it stale.
func (h *HookKB) Answer(ctx context.Context, agent string, in *HookInput) (*HookOutput, string, error) {
	d, ok := Lookup(agent)
	if !ok {
		return nil, "", fmt.Errorf("%w: unknown hook dialect %q (claude-code or codex)", ErrInvalidInput, agent)
	}
	if d.Ends(in.HookEventName) && in.TranscriptPath != "" {
		return nil, "", h.Enqueue(in.TranscriptPath)
	}
	q, ok := d.Query(in)
	if !ok {
		return nil, "", nil
	}
	c, err := h.compiled, h.compiledErr
	h.compiled, h.compiledErr = nil, nil
	if c == nil && err == nil {
		c, err = h.openCompiled()
	}
	switch {
	case errors.Is(err, recall.ErrNoCompiled):
		return nil, "no activation index", nil
	case err != nil:
		return nil, "activation index unreadable: " + err.Error(), nil
	}
	defer c.Close()
	stale := c.Changed(h.Root)
	e, err := recall.CompiledEngine(c, h.Config, h.ProjectRoot == h.Root, h.Root)
	if err != nil {
		return nil, stale, err
	}
	if stale == "" {
		// Trigger types of another taxonomy (an upgraded kb, kb.yaml's
		// action_types changed): the answer classifies them again, which
		// is slower, and the background indexer compiles them anew.
		if key := c.Meta().TaxonomyKey; key != "" && key != e.Taxonomy().Key() {
			stale = "compiled with another taxonomy"
		}
	}
	if h.Extend != nil {
		h.Extend(e, q)
	}
	res, err := e.Recall(ctx, q)
	if err != nil {
		return nil, stale, err
	}
	// What this session was shown already is not repeated (recall/memory.go).
	// A start, a resume, a /clear or a compaction: the context holds only
	// what this answer gives, so everything is given and the memory starts
	// over from it.
	mem := SessionMemory{Tree: fsx.Tree{Root: h.Root}, Dir: h.SessionsDir(), Session: in.SessionID}
	if in.HookEventName != EventSessionStart {
		res.Unseen(mem.Seen())
	}
	out := d.Answer(in, res, h.Config.Recall.PreToolUse)
	// What was shown, for the memory and the commitment stage
	// (recall/commitment.go).
	rec := recall.Injection{At: time.Now().UTC(), Event: in.HookEventName, Tool: q.Tool}
	if out != nil {
		rec.IDs = res.IDs()
		if out.HookSpecificOutput != nil {
			rec.Decision = out.HookSpecificOutput.PermissionDecision
		}
	}
	if err := mem.Record(rec); err != nil {
		LogHook(h.Root, h.LogPath(), in, "error", "session memory: "+err.Error())
	}
	return out, stale, nil
}

// Enqueue queues a session's transcript for import and extraction.
func (h *HookKB) Enqueue(transcriptPath string) error {
	abs, err := filepath.Abs(transcriptPath)
	if err != nil {
		return fmt.Errorf("enqueue session: %w", err)
	}
	if err := (&traces.Store{Root: h.Root}).Enqueue(abs, time.Now()); err != nil {
		return fmt.Errorf("enqueue session %s: %w", abs, err)
	}
	return nil
}

// LogPath is the KB's hook log.
func (h *HookKB) LogPath() string { return HookLogPath(h.Root) }

// HookLogPath is the hook log of the KB at root: one line per hook
// failure and per background process a hook started.
func HookLogPath(root string) string { return filepath.Join(root, config.StateDir, "hook.log") }
