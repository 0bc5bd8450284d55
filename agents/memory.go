package agents

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/recall"
)

// SessionMemory is what the hooks of one agent session were shown: the
// ids of the recalled items, one a line, in DIR/<session>.seen (DIR is
// the KB's .state/sessions). Appends from hooks running at once only add
// lines; a lost line only means a lesson is shown once more. Files of
// sessions untouched for sessionMemoryAge are removed when a new session
// starts one.
type SessionMemory struct {
	Tree    fsx.Tree
	Dir     string
	Session string
}

// sessionMemoryAge is how long a session's memory is kept.
const sessionMemoryAge = 30 * 24 * time.Hour

// path is the session's file, or "" for a session without a usable id.
func (m SessionMemory) path() string { return m.file(".seen") }

// file is the session's file with extension ext, or "" for a session
// without a usable id.
func (m SessionMemory) file(ext string) string {
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
	return filepath.Join(m.Dir, s+ext)
}

// Seen returns the ids the session was shown (none on any error).
func (m SessionMemory) Seen() map[string]bool {
	p := m.path()
	if p == "" {
		return nil
	}
	b, err := m.Tree.ReadFile(p)
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	for _, ln := range strings.Split(string(b), "\n") {
		if ln = strings.TrimSpace(ln); ln != "" {
			seen[ln] = true
		}
	}
	return seen
}

// Shown records ids as shown to the session.
func (m SessionMemory) Shown(ids []string) error {
	p := m.path()
	if p == "" || len(ids) == 0 {
		return nil
	}
	if _, err := m.Tree.Stat(p); err != nil {
		if err := m.Tree.MkdirAll(m.Dir); err != nil {
			return err
		}
		m.prune()
	}
	// A cache in the hook's path: appended without fsync (a line lost in a
	// crash only means a lesson is shown once more).
	f, err := m.Tree.OpenLog(p, false)
	if err != nil {
		return err
	}
	_, err = f.WriteString(strings.Join(ids, "\n") + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Reset makes ids the whole memory of the session: a SessionStart (new,
// resumed, cleared or compacted context) holds only what it was given.
func (m SessionMemory) Reset(ids []string) error {
	p := m.path()
	if p == "" {
		return nil
	}
	if err := m.Tree.MkdirAll(m.Dir); err != nil {
		return err
	}
	m.prune()
	var b []byte
	if len(ids) > 0 {
		b = []byte(strings.Join(ids, "\n") + "\n")
	}
	return m.Tree.WriteFile(p, b, 0o644)
}

// InjectedExt ends the name of a session's injection log.
const InjectedExt = ".injected"

// Injected appends what one answer showed to the session's injection log,
// DIR/<session>.injected: one recall.Injection a JSON line, which the
// commitment stage reads once the session's trace is imported. Like the
// memory, it is appended without fsync and outlives a SessionStart.
func (m SessionMemory) Injected(in recall.Injection) error {
	p := m.file(InjectedExt)
	if p == "" || len(in.IDs) == 0 {
		return nil
	}
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	if err := m.Tree.MkdirAll(m.Dir); err != nil {
		return err
	}
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

// prune removes the memory of sessions untouched for sessionMemoryAge.
func (m SessionMemory) prune() {
	ents, err := m.Tree.ReadDir(m.Dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".seen") && !strings.HasSuffix(e.Name(), InjectedExt) {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > sessionMemoryAge {
			_ = m.Tree.Remove(filepath.Join(m.Dir, e.Name()))
		}
	}
}

// Injections reads the session's injection log and its size; a torn or
// malformed line is skipped (it only means one answer is not judged).
func (m SessionMemory) Injections() ([]recall.Injection, int64, error) {
	p := m.file(InjectedExt)
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
		if ln = strings.TrimSpace(ln); ln != "" && json.Unmarshal([]byte(ln), &in) == nil && len(in.IDs) > 0 {
			out = append(out, in)
		}
	}
	return out, int64(len(b)), nil
}
