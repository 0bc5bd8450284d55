package traces

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/secrets"
)

// Redactor removes secrets from the strings of records before they are
// written. Text and JSON are called from several goroutines at once. Each
// returns, with the redacted value, the secret values it found; the Store
// remembers them for the rest of the session (secrets.Memory), so that a
// value found once is removed wherever it comes back, in records before it
// not yet written and in later imports of the session.
type Redactor interface {
	Text(s string) (string, []secrets.Secret)
	JSON(raw []byte) ([]byte, []secrets.Secret) // the output must be valid JSON when raw is
}

// redactRules redacts every string of rec but its identity (session,
// agent, role, kind, marks, source, tool, call id, the agent's own record
// ids in Extra) and the names of its Extra fields with the rules, and
// returns the secrets found. The identity stays as the agent wrote it
// because a record is known by it (keys.go): a redaction rule added later
// must not make a stored record look new.
func (s *Store) redactRules(rec *Record) []secrets.Secret {
	if s.Redactor == nil {
		return nil
	}
	var found []secrets.Secret
	for _, p := range []*string{&rec.Text, &rec.Output, &rec.Branch, &rec.Cwd, &rec.Model} {
		if *p == "" {
			continue
		}
		out, f := s.Redactor.Text(*p)
		*p = out
		found = append(found, f...)
	}
	rec.Input = s.redactRaw(rec.Input, &found)
	if len(rec.Extra) > 0 {
		extra := make(map[string]json.RawMessage, len(rec.Extra))
		for k, v := range rec.Extra {
			if identityField[k] {
				extra[k] = v
				continue
			}
			extra[k] = s.redactRaw(v, &found) // keys are the agent's field names
		}
		rec.Extra = extra
	}
	return found
}

// identityField names the Extra fields that hold the agent's own ids of a
// record or session (uuids it generated, never text anyone typed).
var identityField = map[string]bool{"uuid": true, "parentUuid": true, "logicalParentUuid": true, "sessionId": true}

// redactRaw redacts the strings of a JSON value, keeping it valid.
func (s *Store) redactRaw(raw json.RawMessage, found *[]secrets.Secret) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	out, f := s.Redactor.JSON(raw)
	*found = append(*found, f...)
	if json.Valid(out) {
		return out
	}
	// The Redactor broke the value: keep nothing of it rather than risk
	// the raw secret.
	return json.RawMessage(`"[REDACTED]"`)
}

// remember removes from rec every form of the secrets m remembers,
// returning the number of places replaced.
func remember(m *secrets.Memory, rec *Record) int {
	if m == nil || m.Empty() {
		return 0
	}
	n := 0
	for _, p := range []*string{&rec.Text, &rec.Output, &rec.Branch, &rec.Cwd, &rec.Model} {
		out, k := m.String(*p)
		*p, n = out, n+k
	}
	if out, k := m.JSON(rec.Input); k > 0 {
		rec.Input, n = out, n+k
	}
	if len(rec.Extra) > 0 {
		changed := false
		extra := make(map[string]json.RawMessage, len(rec.Extra))
		for key, v := range rec.Extra {
			if identityField[key] {
				extra[key] = v
				continue
			}
			nv, k := m.JSON(v)
			extra[key] = nv
			if k > 0 {
				changed, n = true, n+k
			}
		}
		if changed {
			rec.Extra = extra
		}
	}
	return n
}

// ---------------------------------------------------------------------------
// Session memory, kept across imports in .state/secrets.json

const secretsName = "secrets.json"

// secretsDoc is .state/secrets.json: the key of the keyed hashes and, per
// session ("<agent>/<session>"), the saved forms of its secrets. It holds
// no secret value.
type secretsDoc struct {
	Version  int                        `json:"version"`
	Key      string                     `json:"key"` // hex
	Sessions map[string][]secrets.Saved `json:"sessions"`
}

// memories are the session memories of a Store.
type memories struct {
	key   []byte
	doc   *secretsDoc
	live  map[string]*secrets.Memory // by session key; nil entry: looked up, nothing saved
	dirty map[string]bool
	size  int64 // of the file when read or written; -1: absent
	mtime int64
}

func memKey(agent, session string) string { return agent + "/" + session }

func (s *Store) secretsPath() string { return filepath.Join(s.Root, stateDir, secretsName) }

// loadMemories returns the session memories, reading .state/secrets.json
// again when it changed since it was last read or written. A missing or
// unreadable file gives an empty memory with a new key: what it held can
// no longer be matched, and the session files are not affected.
func (s *Store) loadMemories() *memories {
	p := s.secretsPath()
	size, mtime := int64(-1), int64(0)
	if fi, err := os.Stat(p); err == nil {
		size, mtime = fi.Size(), fi.ModTime().UnixNano()
	}
	if s.mems != nil && s.mems.size == size && s.mems.mtime == mtime {
		return s.mems
	}
	ms := &memories{live: map[string]*secrets.Memory{}, dirty: map[string]bool{}, size: size, mtime: mtime}
	doc := &secretsDoc{}
	if size >= 0 {
		if data, err := os.ReadFile(p); err != nil || json.Unmarshal(data, doc) != nil {
			doc = &secretsDoc{}
		}
	}
	if key, err := hex.DecodeString(doc.Key); err == nil && len(key) >= 16 {
		ms.key = key
	} else {
		ms.key = secrets.NewKey()
		doc = &secretsDoc{Key: hex.EncodeToString(ms.key)}
	}
	doc.Version = 1
	if doc.Sessions == nil {
		doc.Sessions = map[string][]secrets.Saved{}
	}
	ms.doc = doc
	s.mems = ms
	return ms
}

// of returns the memory of a session, or nil when it remembers nothing
// and create is false.
func (ms *memories) of(agent, session string, create bool) *secrets.Memory {
	k := memKey(agent, session)
	if m := ms.live[k]; m != nil {
		return m
	}
	saved := ms.doc.Sessions[k]
	if len(saved) == 0 && !create {
		return nil
	}
	m := secrets.NewMemory(ms.key, saved)
	ms.live[k] = m
	return m
}

// learn remembers found for a session; it reports whether anything new
// was learned.
func (ms *memories) learn(agent, session string, found []secrets.Secret) bool {
	if len(found) == 0 {
		return false
	}
	if !ms.of(agent, session, true).Learn(found) {
		return false
	}
	ms.dirty[memKey(agent, session)] = true
	return true
}

// save writes the memories of the sessions that learned something.
func (s *Store) saveMemories(ms *memories) error {
	if ms == nil || len(ms.dirty) == 0 {
		return nil
	}
	keys := make([]string, 0, len(ms.dirty))
	for k := range ms.dirty {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ms.doc.Sessions[k] = ms.live[k].Saved()
	}
	data, err := json.Marshal(ms.doc)
	if err != nil {
		return fmt.Errorf("encode session memory: %w", err)
	}
	p := s.secretsPath()
	if err := fsx.WriteFile(p, data, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	ms.dirty = map[string]bool{}
	if fi, err := os.Stat(p); err == nil {
		ms.size, ms.mtime = fi.Size(), fi.ModTime().UnixNano()
	} else {
		s.mems = nil
	}
	return nil
}

// sessMemory is what a session writer knows of its session's memory.
type sessMemory struct {
	mem      *secrets.Memory
	learned  int // values learned during this import or append
	buffered int // learned when the queued records were last made consistent
}

// note learns the secrets a record held and removes the remembered ones
// from it. It returns the places replaced.
func (ms *memories) note(sw *sessWriter, rec *Record, found []secrets.Secret) int {
	if ms == nil {
		return 0
	}
	if ms.learn(sw.agent, sw.session, found) {
		sw.memo.learned++
	}
	if sw.memo.mem == nil {
		sw.memo.mem = ms.of(sw.agent, sw.session, false)
	}
	return remember(sw.memo.mem, rec)
}

// catchUp removes from the records queued for sw the secrets learned
// after they were queued, so that every record of an import written in
// one flush is redacted with what the whole batch revealed. It returns
// the places replaced.
func catchUp(sw *sessWriter) (int, error) {
	if sw.memo.mem == nil || sw.memo.learned == sw.memo.buffered {
		return 0, nil
	}
	sw.memo.buffered = sw.memo.learned
	n := 0
	for i := range sw.pending {
		n += remember(sw.memo.mem, &sw.pending[i])
	}
	if sw.buf.Len() == 0 {
		return n, nil
	}
	var out bytes.Buffer
	out.Grow(sw.buf.Len())
	for _, line := range bytes.SplitAfter(sw.buf.Bytes(), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(line, &rec); err != nil {
			out.Write(line) // cannot happen: writeLine wrote it
			continue
		}
		k := remember(sw.memo.mem, &rec)
		if k == 0 {
			out.Write(line)
			continue
		}
		n += k
		if err := writeLine(&out, &rec); err != nil {
			return n, err
		}
	}
	sw.buf = out
	return n, nil
}
