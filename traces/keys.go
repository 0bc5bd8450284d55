package traces

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kbmem/kb/internal/fsx"
)

// Record identity.
//
// A record's identity is its session (the session file it belongs to) plus a
// key derived from the record itself, never from the path of the transcript
// it was read from, so that the same transcript imported from a second path
// (a moved project, ~/.claude restored from a backup) appends nothing the
// session file already holds, and a copy that grew appends only its new
// records. The key is, in order of preference:
//
//   - "I<id>/<role>/<kind>/<call id>/<n>": the agent's own id of the source
//     record (Claude Code's uuid, kept in Extra), the fields that tell apart
//     the records one line yields, and n, the count of identical keys met
//     before on the same line;
//   - "L<line>/<time>/<role>/<kind>/<tool>/<call id>/<n>" for a record from
//     a line without an id (Codex, generic JSONL, Claude Code's summary and
//     snapshot lines): its line, and fields redaction never changes, so a
//     new redaction rule does not make an old record look new;
//   - "D<hash>": a hash of the record as stored (Seq, Author and the source
//     path left out), for records without a line (whole-document formats) and for a
//     source that was rewritten (its lines no longer name records).
//
// Keys are compared as a multiset: a transcript that really holds the same
// record twice keeps both copies. The keys of each session file are kept in
// Root/.state/keys/<session file name> (see sessionKeys), derived data that
// is rebuilt from the session file whenever it is missing or does not match.

// keyOf returns the hashed identity key of rec. ord counts the records
// met before it, per source line and key: the nth identical record of a
// line gets n (one Claude Code line can yield several records).
func keyOf(rec *Record, ord map[string]int, byContent bool) (string, error) {
	var key string
	switch id := nativeID(rec); {
	case id != "":
		key = fmt.Sprintf("I%s/%s/%s/%s", id, rec.Role, rec.Kind, rec.CallID)
	case rec.Source.Line > 0 && !byContent:
		var ts int64
		if !rec.Time.IsZero() {
			ts = rec.Time.UnixNano()
		}
		key = fmt.Sprintf("L%d/%d/%s/%s/%s/%s", rec.Source.Line, ts, rec.Role, rec.Kind, rec.Tool, rec.CallID)
	default:
		// Identical content is counted by the multiset, not numbered.
		// Author is left out: it is derived from the record, and a record
		// imported before Author existed (or before a better attribution)
		// is the same record.
		r := *rec
		r.Seq = 0
		r.Source.File = ""
		r.Author = ""
		b, err := json.Marshal(&r)
		if err != nil {
			return "", fmt.Errorf("encode record of session %s: %w", rec.Session, err)
		}
		return hashKey("D" + string(b)), nil
	}
	g := rec.Source.File + "\x00" + strconv.Itoa(rec.Source.Line) + "\x00" + key
	n := ord[g]
	ord[g] = n + 1
	return hashKey(key + "/" + strconv.Itoa(n)), nil
}

func hashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return base64.RawURLEncoding.EncodeToString(sum[:12])
}

// nativeID is the agent's own id of the record's source line, or "".
func nativeID(rec *Record) string {
	raw, ok := rec.Extra["uuid"]
	if !ok || len(raw) < 3 || raw[0] != '"' {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// recordKeys is the multiset of the record keys of one session file.
type recordKeys struct {
	counts map[string]int32
	size   int64    // bytes of the session file the counts cover (a line boundary, or the end of a whole last record)
	mtime  int64    // the file's mtime (ns) when it had that size; 0 = unknown
	seq    int      // highest Seq among the covered records, -1 when none
	fresh  []string // keys added since the key file was written
	lines  int      // lines of the key file on disk
	// fileLen is the length of the key file as last read or written: a
	// line is appended only to the file those keys came from.
	fileLen int64
	whole   bool // the key file must be rewritten whole (rebuilt, compacted or new)
}

func newRecordKeys() *recordKeys {
	return &recordKeys{counts: map[string]int32{}, seq: -1, whole: true}
}

func (ks *recordKeys) add(key string) {
	ks.counts[key]++
	ks.fresh = append(ks.fresh, key)
}

// keyLine is one line of a key file: the keys of the records appended up
// to Size bytes of the session file, whose last bytes hash to Tail.
type keyLine struct {
	Size int64    `json:"size"`
	Tail string   `json:"tail"`
	Seq  int      `json:"seq"`
	Keys []string `json:"keys"`
}

const (
	keysDir = "keys"
	// keyFileLines is how many lines a key file may reach before it is
	// rewritten as one.
	keyFileLines = 64
	tailLen      = 256
)

func (s *Store) keyFile(rel string) string {
	return filepath.Join(s.Root, stateDir, keysDir, strings.TrimSuffix(path.Base(rel), ".jsonl")+".keys")
}

// sessionKeys returns the key set of the session file rel, from memory when
// the file has not changed since, else from its key file when that covers
// the whole file and ends on the same bytes, else rebuilt by reading the
// session file once.
func (s *Store) sessionKeys(rel string) (*recordKeys, error) {
	abs := filepath.Join(s.Root, filepath.FromSlash(rel))
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("session file: %w", err)
	}
	if ks := s.keys[rel]; ks != nil && ks.size == fi.Size() && ks.mtime == fi.ModTime().UnixNano() {
		return ks, nil
	}
	ks := s.readKeyFile(rel, abs, fi.Size())
	if ks == nil {
		ks = newRecordKeys()
		if err := scanKeys(abs, ks, false); err != nil {
			return nil, err
		}
	}
	if ks.size == fi.Size() {
		ks.mtime = fi.ModTime().UnixNano()
	}
	if s.keys == nil {
		s.keys = map[string]*recordKeys{}
	}
	s.keys[rel] = ks
	return ks, nil
}

// readKeyFile loads the key file of rel, or returns nil when it is missing,
// damaged, or does not describe the session file as it is (size and last
// bytes): the session file was rewritten, or grew without its keys.
func (s *Store) readKeyFile(rel, abs string, size int64) *recordKeys {
	data, err := os.ReadFile(s.keyFile(rel))
	if err != nil || len(data) == 0 || data[len(data)-1] != '\n' {
		return nil
	}
	ks := &recordKeys{counts: map[string]int32{}, seq: -1}
	var last keyLine
	for _, ln := range bytes.Split(data[:len(data)-1], []byte("\n")) {
		var kl keyLine
		if json.Unmarshal(ln, &kl) != nil || kl.Size < last.Size {
			return nil
		}
		for _, k := range kl.Keys {
			ks.counts[k]++
		}
		last = kl
		ks.lines++
	}
	if last.Size != size || tailHash(abs, size) != last.Tail {
		return nil
	}
	ks.size, ks.seq, ks.fileLen = last.Size, last.Seq, int64(len(data))
	ks.whole = ks.lines > keyFileLines
	return ks
}

// saveKeys writes what ks learnt since it was loaded: one more line of the
// key file, or the whole file when ks was rebuilt. It is a cache: a write
// that fails costs a rebuild later, never a record.
func (s *Store) saveKeys(rel string, ks *recordKeys) {
	if !ks.whole && len(ks.fresh) == 0 {
		return
	}
	abs := filepath.Join(s.Root, filepath.FromSlash(rel))
	fi, err := os.Stat(abs)
	if err != nil || fi.Size() != ks.size {
		delete(s.keys, rel)
		return
	}
	kl := keyLine{Size: ks.size, Tail: tailHash(abs, ks.size), Seq: ks.seq}
	p := s.keyFile(rel)
	if kf, err := os.Stat(p); err != nil || kf.Size() != ks.fileLen {
		ks.whole = true // the key file is gone or not ours: write it whole
	}
	if ks.whole {
		kl.Keys = make([]string, 0, len(ks.counts))
		for k, n := range ks.counts {
			for range n {
				kl.Keys = append(kl.Keys, k)
			}
		}
		b, err := json.Marshal(kl)
		if err == nil && fsx.WriteFile(p, append(b, '\n'), 0o644) == nil {
			ks.whole, ks.fresh, ks.lines, ks.fileLen = false, nil, 1, int64(len(b)+1)
		}
		return
	}
	kl.Keys = ks.fresh
	b, err := json.Marshal(kl)
	if err == nil && fsx.Append(p, append(b, '\n')) == nil {
		ks.fresh = nil
		ks.lines++
		ks.fileLen += int64(len(b) + 1)
		ks.whole = ks.lines > keyFileLines
	}
}

// forgetKeys drops the key file of a session file that was rewritten.
func (s *Store) forgetKeys(rel string) error {
	delete(s.keys, rel)
	if err := os.Remove(s.keyFile(rel)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// tailHash hashes the tailLen bytes of the file before offset size.
func tailHash(abs string, size int64) string {
	f, err := os.Open(abs)
	if err != nil {
		return ""
	}
	defer f.Close()
	from := max(size-tailLen, 0)
	b := make([]byte, size-from)
	if _, err := f.ReadAt(b, from); err != nil && !errors.Is(err, io.EOF) {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// keyScans counts the session files read whole for their keys (tests
// check that an import reads each at most once).
var keyScans atomic.Int64

// keyHead is the part of a stored record its key needs, unless the key is
// a content hash.
type keyHead struct {
	Seq    int                        `json:"seq"`
	Time   time.Time                  `json:"ts"`
	Role   string                     `json:"role"`
	Kind   string                     `json:"kind"`
	Tool   string                     `json:"tool"`
	CallID string                     `json:"call_id"`
	Source Source                     `json:"source"`
	Extra  map[string]json.RawMessage `json:"extra"`
}

// scanKeys reads the whole session file at abs into ks: the key of every
// record (the meta record first in the file excepted), the highest Seq, and
// the size up to its last complete line. Lines that are not records (a torn
// fragment) are skipped.
func scanKeys(abs string, ks *recordKeys, byContent bool) error {
	keyScans.Add(1)
	f, err := os.Open(abs)
	if err != nil {
		return fmt.Errorf("read session file: %w", err)
	}
	defer f.Close()
	ls := newLineScan(f, Pos{})
	ord := map[string]int{}
	for last := false; !last; {
		line, _, ok, err := ls.next()
		if err != nil {
			return fmt.Errorf("read session file %s: %w", abs, err)
		}
		if !ok {
			// A last line without its newline counts when it is a whole
			// record (the next append puts the newline after it).
			ks.size = ls.pos(nil).Offset
			rest, err := io.ReadAll(io.NewSectionReader(f, ks.size, 1<<62))
			if err != nil {
				return fmt.Errorf("read session file %s: %w", abs, err)
			}
			if len(rest) == 0 || !json.Valid(rest) {
				return nil
			}
			line, last = rest, true
			ks.size += int64(len(rest))
		}
		var h keyHead
		if json.Unmarshal(line, &h) != nil {
			continue
		}
		ks.seq = max(ks.seq, h.Seq)
		if h.Seq == 0 && h.Kind == KindMeta {
			continue
		}
		rec := Record{Seq: h.Seq, Time: h.Time, Role: h.Role, Kind: h.Kind, Tool: h.Tool, CallID: h.CallID, Source: h.Source, Extra: h.Extra}
		needsContent := nativeID(&rec) == "" && (byContent || rec.Source.Line <= 0)
		if needsContent {
			if json.Unmarshal(line, &rec) != nil {
				continue
			}
		}
		key, err := keyOf(&rec, ord, byContent)
		if err != nil {
			continue
		}
		ks.counts[key]++
	}
	return nil
}
