package kb

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/kbmem/kb/agents"
	"github.com/kbmem/kb/recall"
	"github.com/kbmem/kb/traces"
)

// The commitment stage's pipeline (recall/commitment.go): once a session's
// trace is extracted, the lessons its hooks showed (the injection log the
// hook keeps beside the session memory) are judged on the calls its agent
// made afterwards. The verdicts are kept per session in
// .state/commitment.json; `kb status` sums them per lesson.

// commitmentFile holds the verdicts per session.
const commitmentFile = "commitment.json"

// LessonCommitment is how agents acted on one lesson (`kb status`).
type LessonCommitment = recall.LessonCommitment

// commitmentState is .state/commitment.json.
type commitmentState struct {
	Version  int                          `json:"version"`
	Sessions map[string]*sessionCommitted `json:"sessions"`
}

// sessionCommitted is one session's verdicts, and the sizes of the log and
// the trace they were judged on (a session that goes on is judged again).
type sessionCommitted struct {
	LogSize   int64            `json:"log_size"`
	TraceSize int64            `json:"trace_size"`
	Verdicts  []recall.Verdict `json:"verdicts"`
}

func (k *KB) commitmentPath() string { return filepath.Join(k.Root, StateDir, commitmentFile) }

func (k *KB) loadCommitment() *commitmentState {
	st := &commitmentState{}
	if !k.loadStateJSON(k.commitmentPath(), st) || st.Version != 1 {
		// Lost or corrupt: the sessions whose logs remain are judged again.
		st = &commitmentState{}
	}
	if st.Sessions == nil {
		st.Sessions = map[string]*sessionCommitted{}
	}
	st.Version = 1
	return st
}

// sessionMemory is the hook's memory of session id.
func (k *KB) sessionMemory(id string) agents.SessionMemory {
	h := &agents.HookKB{Root: k.Root}
	return agents.SessionMemory{Tree: k.files(), Dir: h.SessionsDir(), Session: id}
}

// judgeSessions runs the commitment stage on the sessions that have an
// injection log. The caller holds the lock. It never fails the run that
// calls it: a problem is logged and the session is judged next time.
func (k *KB) judgeSessions(ctx context.Context, sessions []traces.SessionInfo) {
	if len(sessions) == 0 {
		return
	}
	st := k.loadCommitment()
	store := &traces.Store{Root: k.Root}
	var e *recall.Engine
	changed := false
	for _, info := range sessions {
		inj, logSize, err := k.sessionMemory(info.ID).Injections()
		if errors.Is(err, fs.ErrNotExist) || err == nil && len(inj) == 0 {
			continue
		}
		if err != nil {
			k.logf("commitment: session %s: %v", info.ID, err)
			continue
		}
		// A session judged on this log and this trace is not read again.
		fi, err := k.files().Stat(filepath.Join(k.Root, filepath.FromSlash(info.Path)))
		if err != nil {
			k.logf("commitment: session %s: %v", info.ID, err)
			continue
		}
		if old := st.Sessions[info.ID]; old != nil && old.LogSize == logSize && old.TraceSize == fi.Size() {
			continue
		}
		var calls []recall.Call
		cwd := info.Cwd
		_, _, err = store.ReadFile(info.Path, func(r traces.Record) error {
			if r.Cwd != "" {
				cwd = r.Cwd
			}
			if r.Kind == traces.KindToolCall && r.Tool != "" && !r.Time.IsZero() {
				calls = append(calls, recall.Call{At: r.Time, Query: recall.Query{Tool: r.Tool, Input: r.Input, Cwd: cwd, Project: cwd}})
			}
			return nil
		})
		if err != nil {
			k.logf("commitment: session %s: %v", info.ID, err)
			continue
		}
		if e == nil {
			c, err := recall.OpenCompiled(k.activationPath())
			if err != nil {
				k.logf("commitment: %v (judged after the next sync)", err)
				return
			}
			defer c.Close()
			if e, err = recall.CompiledEngine(c, k.Config, k.ProjectRoot == k.Root, k.Root); err != nil {
				k.logf("commitment: %v", err)
				return
			}
		}
		vs, err := e.Commitment(ctx, inj, calls)
		if err != nil {
			k.logf("commitment: session %s: %v", info.ID, err)
			continue
		}
		st.Sessions[info.ID] = &sessionCommitted{LogSize: logSize, TraceSize: fi.Size(), Verdicts: vs}
		changed = true
	}
	if changed {
		if err := k.saveCommitment(st); err != nil {
			k.logf("commitment: %v", err)
		}
	}
}

func (k *KB) saveCommitment(st *commitmentState) error {
	return k.saveStateJSON(k.commitmentPath(), st, "commitment verdicts")
}

// Commitment sums the verdicts of the judged sessions per lesson, with
// titles from titles (id -> title) where known.
func (k *KB) Commitment(titles map[string]string) []LessonCommitment {
	st := k.loadCommitment()
	by := make(map[string][]recall.Verdict, len(st.Sessions))
	for id, s := range st.Sessions {
		by[id] = s.Verdicts
	}
	out := recall.Tally(by)
	for i := range out {
		out[i].Title = titles[out[i].ID]
	}
	return out
}

// LastShown are the ids the last hook answer of session showed (its
// injection log's last line); nil when answered is false or none is
// logged. For evaluations that replay sessions through HandleHook.
func (k *KB) LastShown(session string, answered bool) []string {
	if !answered {
		return nil
	}
	inj, _, err := k.sessionMemory(session).Injections()
	if err != nil || len(inj) == 0 {
		return nil
	}
	return inj[len(inj)-1].IDs
}
