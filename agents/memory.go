package agents

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/recall"
)

// SessionMemory is what the hooks of one agent session were shown: one
// line per answer that showed items, in DIR/<session>.injected (DIR is
// the KB's .state/sessions), a recall.Injection as JSON: when, the event,
// the tool, the ids, the decision. A SessionStart line (written even when
// it showed nothing) starts the memory over. The same log serves the
// session memory (Seen) and the commitment stage (Injections). Appends
// from hooks running at once only add lines; a lost line only means a
// lesson is shown once more, or one answer is not judged. Files of
// sessions untouched for sessionMemoryAge are removed when a new session
// starts one.
type SessionMemory struct {
	Tree    fsx.Tree
	Dir     string
	Session string
}

// sessionMemoryAge is how long a session's memory is kept.
const sessionMemoryAge = 30 * 24 * time.Hour

// InjectedExt ends the name of a session's log.
const InjectedExt = ".injected"

// path is the session's log, or "" for a session without a usable id.
func (m SessionMemory) path() string {
	s := m.Session
	if s == "" || len(s) > 200 {
		return ""
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return ""
		}
	}
	if strings.Trim(s, ".") == "" {
		return ""
	}
	return filepath.Join(m.Dir, s+InjectedExt)
}

// lines reads the session's log and its size; a torn or malformed line is
// skipped.
func (m SessionMemory) lines() ([]recall.Injection, int64, error) {
	p := m.path()
	if p == "" {
		return nil, 0, nil
	}
	b, err := m.Tree.ReadFile(p)
	if err != nil {
		return nil, 0, err
	}
	var out []recall.Injection
	for _, ln := range strings.Split(string(b), "\n") {
		var in recall.Injection
		if ln = strings.TrimSpace(ln); ln != "" && json.Unmarshal([]byte(ln), &in) == nil {
			out = append(out, in)
		}
	}
	return out, int64(len(b)), nil
}

// Seen returns the ids the session was shown since its last SessionStart,
// with how many answers showed each (none on any error).
func (m SessionMemory) Seen() map[string]int {
	ins, _, err := m.lines()
	if err != nil || len(ins) == 0 {
		return nil
	}
	seen := map[string]int{}
	for _, in := range ins {
		if in.Event == EventSessionStart {
			clear(seen)
		}
		for _, id := range in.IDs {
			seen[id]++
		}
	}
	return seen
}

// Injections are the answers of the session that showed items, for the
// commitment stage, and the size of the log.
func (m SessionMemory) Injections() ([]recall.Injection, int64, error) {
	ins, size, err := m.lines()
	kept := ins[:0]
	for _, in := range ins {
		if len(in.IDs) > 0 {
			kept = append(kept, in)
		}
	}
	return kept, size, err
}

// Record appends one answer to the session's log. An answer that showed
// nothing is recorded only for a SessionStart, whose line starts the
// memory over.
func (m SessionMemory) Record(in recall.Injection) error {
	p := m.path()
	if p == "" || len(in.IDs) == 0 && in.Event != EventSessionStart {
		return nil
	}
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	if _, err := m.Tree.Stat(p); err != nil {
		if err := m.Tree.MkdirAll(m.Dir); err != nil {
			return err
		}
		m.prune()
	}
	// A cache in the hook's path: appended without fsync.
	f, err := m.Tree.OpenLog(p, false)
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// prune removes the logs of sessions untouched for sessionMemoryAge.
func (m SessionMemory) prune() {
	ents, err := m.Tree.ReadDir(m.Dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), InjectedExt) && !strings.HasSuffix(e.Name(), ".seen") {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > sessionMemoryAge {
			_ = m.Tree.Remove(filepath.Join(m.Dir, e.Name()))
		}
	}
}
