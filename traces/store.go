package traces

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/secrets"
	"github.com/kbmem/kb/internal/textutil"
)

// ErrNotFound is returned (wrapped) when no session matches an id or prefix.
var ErrNotFound = errors.New("trace session not found")

// ErrAmbiguous is matched (errors.Is) by an *AmbiguousError.
var ErrAmbiguous = errors.New("ambiguous trace session prefix")

// AmbiguousError lists the sessions a prefix matches.
type AmbiguousError struct {
	Prefix  string
	Matches []string // session ids
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("session prefix %q: %v: matches %s", e.Prefix, ErrAmbiguous, strings.Join(e.Matches, ", "))
}

// Is lets errors.Is(err, ErrAmbiguous) match.
func (e *AmbiguousError) Is(target error) bool { return target == ErrAmbiguous }

// Store keeps normalized sessions as append-only JSONL files under
// Root/traces/YYYY/MM/<agent>-<session>.jsonl. The first line of a session
// file is a meta record (Seq 0) naming the agent, start, working directory
// and source transcript; records follow with Seq 1, 2, ... Whole records
// once written are never rewritten: every write is an fsx.Append. The one
// thing the store takes back is its own failed write: an append that fails
// (a full disk) is truncated back to where it started, and a torn fragment
// a killed process left at the end of a file is cut off before the next
// append, so a partial line never ends up between whole records.
//
// A record's identity is its session plus a key derived from the record
// (keys.go), not the path it was imported from: importing the same
// transcript from a second path appends nothing the session holds. Import
// keeps a checkpoint per source transcript in Root/.state/imports.json
// (size, mtime, a hash of its head, the parser position) and the keys of
// each session file in Root/.state/keys/. Both are caches: before
// appending, Import compares with the keys of the records the session file
// holds, so a crash between an append and the checkpoint write, or a
// deleted .state/, never duplicates a record.
//
// With a Redactor, every record is redacted before it is written, and what
// the Redactor found in a session is remembered in Root/.state/secrets.json
// (keyed hashes only; see redact.go) for the rest of the session.
//
// A Store is safe for use by one process at a time (the caller holds the KB
// write lock for Import and Append); its methods serialize on a mutex.
type Store struct {
	Root     string           // KB root; session files live under Root/traces/
	Redactor Redactor         // applied to every string of a record before anything is written (see redactRules); nil = no redaction
	Now      func() time.Time // clock for records appended without a time; nil = time.Now
	// Remembered, if set, is told how many places session memory redacted
	// (secrets the Redactor found elsewhere in the session).
	Remembered func(n int)

	mu      sync.Mutex
	imports *importCache
	keys    map[string]*recordKeys // session file -> its record keys, as last known
	mems    *memories
}

// ImportOptions choose the parser and agent of an import.
type ImportOptions struct {
	Format string // "" = detect from the content (or the format of the last import of the file)
	Agent  string // if set, overrides the agent of every imported record
}

// ImportResult tells what an import did.
type ImportResult struct {
	File      string    // absolute path of the source
	Format    string    // format used
	Sessions  []string  // session ids the source holds, as far as imported
	Appended  int       // records appended (meta records not counted)
	Unchanged bool      // the source had not changed since the last import
	Problems  []Problem // parts of the source skipped
}

// SessionInfo summarizes a session file.
type SessionInfo struct {
	ID          string
	Agent       string
	Path        string // slash-separated, relative to Root
	Start, End  time.Time
	Messages    int // user and assistant messages, thinking excluded
	ToolCalls   int
	Branch      string // last branch recorded
	Cwd         string
	FirstPrompt string // first message the person typed (not injected, not a slash command), at most 200 runes
	Source      string // source transcript the session was first imported from
}

const (
	tracesDir    = "traces"
	stateDir     = ".state"
	importsName  = "imports.json"
	sessionsName = "sessions.json"
	headLen      = 4096
	flushBytes   = 4 << 20
	// maxBuffered caps the bytes an import holds for all its sessions
	// together; past it every session is flushed, so memory stays flat in
	// the size of the transcript however many sessions it holds.
	maxBuffered = 16 << 20
)

// SessionFile is the path, relative to the KB root and slash-separated, of
// the session file of agent's session started at started:
// "traces/YYYY/MM/<agent>-<session>.jsonl" (YYYY/MM in UTC), or
// "traces/undated/..." for a zero time. Agent and session are sanitized:
// only ASCII letters, digits, '-', '_' and inner '.' are kept, no "..", at most
// about 100 bytes; a name that had to change gets a hash of the original so
// distinct ids stay distinct.
func SessionFile(agent, session string, started time.Time) string {
	name := sanitizeID(agent) + "-" + sanitizeID(session) + ".jsonl"
	if started.IsZero() {
		return path.Join(tracesDir, "undated", name)
	}
	u := started.UTC()
	if u.Year() < 1 || u.Year() > 9999 {
		return path.Join(tracesDir, "undated", name)
	}
	return fmt.Sprintf("%s/%04d/%02d/%s", tracesDir, u.Year(), int(u.Month()), name)
}

func sanitizeID(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' {
			b.WriteByte(c)
		} else {
			b.WriteByte('_')
		}
	}
	out := b.String()
	for strings.Contains(out, "..") {
		out = strings.ReplaceAll(out, "..", "_.")
	}
	if strings.HasPrefix(out, ".") || strings.HasSuffix(out, ".") {
		out = "_" + strings.Trim(out, ".") + "_"
	}
	if out == s && s != "" && len(out) <= 100 {
		return out
	}
	if len(out) > 80 {
		out = out[:80]
	}
	sum := sha256.Sum256([]byte(s))
	if out == "" {
		out = "_"
	}
	return out + "-" + hex.EncodeToString(sum[:4])
}

// ---------------------------------------------------------------------------
// Checkpoints

type importsDoc struct {
	Version int                    `json:"version"`
	Sources map[string]*checkpoint `json:"sources"`
}

type checkpoint struct {
	Format   string   `json:"format"`
	Agent    string   `json:"agent,omitempty"`
	Size     int64    `json:"size"`
	MTime    int64    `json:"mtime_ns"`
	Head     string   `json:"head"`
	HeadLen  int      `json:"head_len"`
	Pos      Pos      `json:"pos"`
	Sessions []string `json:"sessions,omitempty"`
}

type importCache struct {
	doc   *importsDoc
	size  int64
	mtime int64
}

func (s *Store) importsPath() string { return filepath.Join(s.Root, stateDir, importsName) }

// files confines the store's reads and writes to the KB root: no symlink a
// cloned KB committed (.state/, traces/2026/) is followed out of it.
func (s *Store) files() fsx.Tree {
	return fsx.Tree{Root: s.Root, Tmp: filepath.Join(s.Root, stateDir, "tmp")}
}

// loadImports returns the checkpoints, from memory when imports.json has not
// changed since it was last read or written. A corrupt file is treated as
// empty: the session files are the truth.
func (s *Store) loadImports() *importsDoc {
	p := s.importsPath()
	fi, err := os.Stat(p)
	if err != nil {
		if s.imports != nil && s.imports.size == -1 {
			return s.imports.doc
		}
		s.imports = &importCache{doc: &importsDoc{Version: 1, Sources: map[string]*checkpoint{}}, size: -1}
		return s.imports.doc
	}
	if s.imports != nil && s.imports.size == fi.Size() && s.imports.mtime == fi.ModTime().UnixNano() {
		return s.imports.doc
	}
	doc := &importsDoc{}
	if data, err := s.files().ReadFile(p); err != nil || json.Unmarshal(data, doc) != nil {
		doc = &importsDoc{}
	}
	if doc.Sources == nil {
		doc.Sources = map[string]*checkpoint{}
	}
	doc.Version = 1
	s.imports = &importCache{doc: doc, size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	return doc
}

func (s *Store) saveImports(doc *importsDoc) error {
	data, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("encode import checkpoints: %w", err)
	}
	p := s.importsPath()
	if err := s.files().WriteFile(p, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	if fi, err := os.Stat(p); err == nil {
		s.imports = &importCache{doc: doc, size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	} else {
		s.imports = nil
	}
	return nil
}

func hashHex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ---------------------------------------------------------------------------
// Import

// Import reads the transcript at path and appends to the session files the
// records they do not hold yet. An unchanged source (same size and mtime as
// at its last import) costs a stat. A grown source is parsed from the
// checkpoint position when its format is resumable, else re-parsed; a
// source that shrank or whose head changed is re-parsed from the start. In
// every case records already stored, from this path or any other, are
// skipped. The caller holds the KB write lock.
func (s *Store) Import(src string, opts ImportOptions) (ImportResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.importFile(src, opts, false)
}

// ImportAgain re-parses the transcript at src from its start, with the
// format and agent of its last import, and appends what the session files
// lack (kb doctor --fix, after it dropped a damaged line).
func (s *Store) ImportAgain(src string) (ImportResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	abs, err := sourcePath(src)
	if err != nil {
		return ImportResult{}, err
	}
	var opts ImportOptions
	if cp := s.loadImports().Sources[abs]; cp != nil {
		opts = ImportOptions{Format: cp.Format, Agent: cp.Agent}
	}
	return s.importFile(abs, opts, true)
}

func sourcePath(src string) (string, error) {
	abs, err := filepath.Abs(src)
	if err != nil {
		return "", fmt.Errorf("import %s: %w", src, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs, nil
}

// importFile is Import; full re-parses the source from its start.
func (s *Store) importFile(src string, opts ImportOptions, full bool) (ImportResult, error) {
	abs, err := sourcePath(src)
	if err != nil {
		return ImportResult{}, err
	}
	res := ImportResult{File: abs}
	fi, err := os.Stat(abs)
	if err != nil {
		return res, fmt.Errorf("import: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return res, fmt.Errorf("import %s: not a regular file", abs)
	}
	if fi.Size() == 0 {
		// Agents leave empty transcripts behind (Claude Code does): there
		// is nothing to import yet, and nothing to detect a format from.
		res.Format, res.Unchanged = opts.Format, true
		return res, nil
	}
	doc := s.loadImports()
	cp := doc.Sources[abs]
	if !full && cp != nil && cp.Size == fi.Size() && cp.MTime == fi.ModTime().UnixNano() &&
		(opts.Format == "" || opts.Format == cp.Format) && opts.Agent == cp.Agent {
		res.Format, res.Sessions, res.Unchanged = cp.Format, append([]string(nil), cp.Sessions...), true
		return res, nil
	}

	f, err := os.Open(abs)
	if err != nil {
		return res, fmt.Errorf("import: %w", err)
	}
	defer f.Close()
	var parser Parser
	var head []byte
	switch {
	case opts.Format != "":
		parser, err = ParserFor(opts.Format)
	case cp != nil && cp.Format != "":
		parser, err = ParserFor(cp.Format)
	default:
		parser, head, err = DetectReader(abs, f)
	}
	if err == nil && head == nil {
		head, err = readFull(f, DetectHeadSize)
	}
	if err != nil {
		return res, fmt.Errorf("import %s: %w", abs, err)
	}
	res.Format = parser.Format()

	fresh := full || cp == nil || cp.Format != parser.Format() || cp.Agent != opts.Agent
	replaced := !fresh && (fi.Size() < cp.Size || cp.HeadLen > len(head) || hashHex(head[:cp.HeadLen]) != cp.Head)
	resume := !fresh && !replaced && parser.Resumable() && cp.Pos.Offset > 0 && cp.Pos.Offset <= fi.Size()
	var start Pos
	if resume {
		start = cp.Pos
	}
	if _, err := f.Seek(start.Offset, io.SeekStart); err != nil {
		return res, fmt.Errorf("import %s: %w", abs, err)
	}

	w := &importer{store: s, src: abs, agent: opts.Agent, byContent: replaced, sessions: map[string]*sessWriter{}}
	if s.Redactor != nil {
		w.pipe = newRedactPipe(s)
		w.mems = s.loadMemories()
	}
	end, problems, perr := parser.Parse(io.LimitReader(f, fi.Size()-start.Offset), abs, start, w.emit)
	w.drain()
	res.Problems = problems
	if w.err != nil {
		w.forget()
		return res, w.err
	}
	if err := w.flushAll(); err != nil {
		w.forget()
		return res, err
	}
	w.saveKeys()
	if err := s.saveMemories(w.mems); err != nil {
		return res, fmt.Errorf("import %s: %w", abs, err)
	}
	res.Appended = w.appended
	if perr != nil {
		return res, fmt.Errorf("import %s: %w", abs, perr)
	}

	ncp := &checkpoint{
		Format: parser.Format(), Agent: opts.Agent, Size: fi.Size(), MTime: fi.ModTime().UnixNano(),
		HeadLen: min(len(head), headLen),
	}
	ncp.Head = hashHex(head[:ncp.HeadLen])
	if parser.Resumable() && end.Offset <= fi.Size() {
		ncp.Pos = end
	}
	seen := map[string]bool{}
	if cp != nil {
		for _, id := range cp.Sessions {
			if !seen[id] {
				seen[id] = true
				ncp.Sessions = append(ncp.Sessions, id)
			}
		}
	}
	for _, sw := range w.order {
		if !seen[sw.session] {
			seen[sw.session] = true
			ncp.Sessions = append(ncp.Sessions, sw.session)
		}
	}
	res.Sessions = append([]string(nil), ncp.Sessions...)
	doc.Sources[abs] = ncp
	if err := s.saveImports(doc); err != nil {
		return res, fmt.Errorf("import %s: %w", abs, err)
	}
	return res, nil
}

// importer receives the records of one import and appends the new ones.
type importer struct {
	store *Store
	src   string
	agent string
	// byContent keys records without an id by their content, not their
	// source line: the source was replaced, so a line number no longer
	// names a record.
	byContent bool
	index     map[string]string // session file base name -> rel path
	sessions  map[string]*sessWriter
	order     []*sessWriter
	appended  int
	buffered  int // estimated bytes queued in the session writers since the last flush of all
	err       error
	pipe      *redactPipe // nil: records are redacted in emit, one at a time
	mems      *memories   // nil: no redaction
}

// sessWriter is the state of one session file during an import or append.
type sessWriter struct {
	agent, session string
	rel            string // "" until the file's path is known (new session)
	size           int64  // size of the file (after our writes)
	mtime          int64  // its mtime after our last write
	next           int    // next Seq
	needMeta       bool
	keys           *recordKeys      // keys of the records the file holds (import only)
	used           map[string]int32 // keys this import met, stored before or appended
	ord            map[string]int   // identical keys met so far per source line (keyOf)
	pending        []Record         // records of a new session, until its path is known
	buf            bytes.Buffer
	memo           sessMemory
}

func (w *importer) emit(rec Record) error {
	if w.err != nil {
		return w.err
	}
	if w.agent != "" {
		rec.Agent = w.agent
	}
	if rec.Agent == "" {
		rec.Agent = AgentGeneric
	}
	if rec.Session == "" {
		rec.Session = fileStem(w.src)
	}
	rec.Seq = 0
	fixTime(&rec)
	if w.pipe != nil {
		w.pipe.push(rec, w.accept)
		return w.err
	}
	return w.accept(rec, w.store.redactRules(&rec))
}

// accept appends a redacted record unless the session file holds it
// already. Records arrive in source order, with the secrets the rules
// found in them, which the session's memory learns and removes from them.
func (w *importer) accept(rec Record, found []secrets.Secret) error {
	if w.err != nil {
		return w.err
	}
	sw, err := w.open(rec.Agent, rec.Session)
	if err != nil {
		w.err = err
		return err
	}
	w.store.remembered(w.mems.note(sw, &rec, found))
	key, err := keyOf(&rec, sw.ord, w.byContent)
	if err != nil {
		w.err = err
		return err
	}
	have := sw.keys.counts[key] > sw.used[key]
	sw.used[key]++
	if have {
		return nil
	}
	sw.keys.add(key)
	rec.Seq = sw.next
	sw.next++
	w.appended++
	w.buffered += recordSize(&rec) // queued in sw.buf, or in sw.pending for a new session
	if err := w.store.add(sw, rec); err != nil {
		w.err = err
		return err
	}
	if w.buffered > maxBuffered {
		if err := w.flushAll(); err != nil {
			w.err = err
			return err
		}
		w.buffered = 0
	}
	return nil
}

// drain waits for the records still being redacted and accepts them.
func (w *importer) drain() {
	if w.pipe != nil {
		w.pipe.close(w.accept)
		w.pipe = nil
	}
}

// redactPipe redacts records on every core while the parser goes on
// (redaction is most of an import's CPU time). Records are cut into
// batches; workers redact whole batches; batches are accepted strictly in
// the order they were cut, on the parser's goroutine, so the session
// writers stay single-threaded and records keep their order. At most
// 2 x workers batches are in flight, so memory stays bounded.
type redactPipe struct {
	store   *Store
	jobs    chan *redactBatch
	queue   []*redactBatch // cut, in order, not yet accepted
	cur     *redactBatch
	workers int
}

type redactBatch struct {
	recs  []Record
	found [][]secrets.Secret // per record
	bytes int
	done  chan struct{}
}

const (
	redactBatchRecords = 128
	redactBatchBytes   = 1 << 20
)

func newRedactPipe(s *Store) *redactPipe {
	n := runtime.GOMAXPROCS(0)
	if n < 2 {
		return nil
	}
	p := &redactPipe{store: s, jobs: make(chan *redactBatch), workers: n}
	for range n {
		go func() {
			for b := range p.jobs {
				b.found = make([][]secrets.Secret, len(b.recs))
				for i := range b.recs {
					b.found[i] = s.redactRules(&b.recs[i])
				}
				close(b.done)
			}
		}()
	}
	return p
}

// push adds a record; when its batch is full the batch goes to the
// workers, and every finished batch at the head of the queue is accepted.
func (p *redactPipe) push(rec Record, accept func(Record, []secrets.Secret) error) {
	if p.cur == nil {
		p.cur = &redactBatch{done: make(chan struct{})}
	}
	p.cur.recs = append(p.cur.recs, rec)
	p.cur.bytes += recordSize(&rec)
	if len(p.cur.recs) < redactBatchRecords && p.cur.bytes < redactBatchBytes {
		return
	}
	b := p.cur
	p.cur = nil
	p.queue = append(p.queue, b)
	p.jobs <- b
	p.take(accept, 2*p.workers)
}

// take accepts finished batches from the head of the queue, waiting for
// the head while more than limit batches are in flight.
func (p *redactPipe) take(accept func(Record, []secrets.Secret) error, limit int) {
	for len(p.queue) > 0 {
		b := p.queue[0]
		if len(p.queue) <= limit {
			select {
			case <-b.done:
			default:
				return
			}
		} else {
			<-b.done
		}
		for i, r := range b.recs {
			if accept(r, b.found[i]) != nil {
				break // the importer keeps the error; the rest is dropped
			}
		}
		p.queue[0] = nil
		p.queue = p.queue[1:]
	}
}

// close redacts and accepts what is left, then stops the workers.
func (p *redactPipe) close(accept func(Record, []secrets.Secret) error) {
	if p.cur != nil {
		p.queue = append(p.queue, p.cur)
		p.jobs <- p.cur
		p.cur = nil
	}
	p.take(accept, 0)
	close(p.jobs)
}

func (w *importer) open(agent, session string) (*sessWriter, error) {
	k := agent + "\x00" + session
	if sw := w.sessions[k]; sw != nil {
		return sw, nil
	}
	if w.index == nil {
		idx, err := w.store.index()
		if err != nil {
			return nil, err
		}
		w.index = idx
	}
	sw := &sessWriter{agent: agent, session: session, used: map[string]int32{}, ord: map[string]int{}}
	base := path.Base(SessionFile(agent, session, time.Time{}))
	if rel, ok := w.index[base]; ok {
		sw.rel = rel
		var ks *recordKeys
		if w.byContent {
			// Keys by content are for this import only: not cached.
			ks = newRecordKeys()
			if err := scanKeys(filepath.Join(w.store.Root, filepath.FromSlash(rel)), ks, true); err != nil {
				return nil, err
			}
			delete(w.store.keys, rel)
		} else {
			var err error
			if ks, err = w.store.sessionKeys(rel); err != nil {
				return nil, err
			}
		}
		sw.keys, sw.size = ks, ks.size
		sw.next = max(ks.seq, 0) + 1
		sw.needMeta = ks.seq < 0
	} else {
		sw.keys = newRecordKeys()
		sw.needMeta = true
		sw.next = 1
	}
	w.sessions[k] = sw
	w.order = append(w.order, sw)
	return sw, nil
}

// saveKeys records the keys of the session files this import read or
// wrote (after every flush succeeded).
func (w *importer) saveKeys() {
	if w.byContent {
		for _, sw := range w.order {
			delete(w.store.keys, sw.rel)
		}
		return
	}
	for _, sw := range w.order {
		if sw.rel == "" || sw.keys == nil {
			continue
		}
		ks := sw.keys
		if sw.mtime != 0 { // written by this import
			ks.size, ks.mtime = sw.size, sw.mtime
		}
		ks.seq = max(ks.seq, sw.next-1)
		if w.store.keys == nil {
			w.store.keys = map[string]*recordKeys{}
		}
		w.store.keys[sw.rel] = ks
		w.store.saveKeys(sw.rel, ks)
	}
}

// forget drops what an import that failed learnt about its session files:
// their keys in memory may name records that were never written.
func (w *importer) forget() {
	for _, sw := range w.order {
		if sw.rel != "" {
			delete(w.store.keys, sw.rel)
		}
	}
}

// storedHead is the part of a stored record lastSeq reads.
type storedHead struct {
	Seq int `json:"seq"`
}

// index maps session file base names to their paths under Root.
func (s *Store) index() (map[string]string, error) {
	idx := map[string]string{}
	root := filepath.Join(s.Root, tracesDir)
	years, err := s.files().ReadDir(root) // traces/ itself linked out of the KB is refused; below it, links are not entered
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return idx, nil
		}
		return nil, fmt.Errorf("list session files: %w", err)
	}
	for _, y := range years {
		if !y.IsDir() {
			continue
		}
		var dirs []string
		if y.Name() == "undated" {
			dirs = []string{y.Name()}
		} else {
			months, err := os.ReadDir(filepath.Join(root, y.Name()))
			if err != nil {
				return nil, fmt.Errorf("list session files: %w", err)
			}
			for _, m := range months {
				if m.IsDir() {
					dirs = append(dirs, y.Name()+"/"+m.Name())
				}
			}
		}
		for _, d := range dirs {
			files, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(d)))
			if err != nil {
				return nil, fmt.Errorf("list session files: %w", err)
			}
			for _, f := range files {
				if f.Type().IsRegular() && strings.HasSuffix(f.Name(), ".jsonl") {
					if _, dup := idx[f.Name()]; !dup {
						idx[f.Name()] = tracesDir + "/" + d + "/" + f.Name()
					}
				}
			}
		}
	}
	return idx, nil
}

// add queues rec for sw's file; a new session waits for its path (taken
// from its first record with a time) until flush.
func (s *Store) add(sw *sessWriter, rec Record) error {
	if sw.rel == "" {
		sw.pending = append(sw.pending, rec)
		return nil
	}
	if err := writeLine(&sw.buf, &rec); err != nil {
		return err
	}
	if sw.buf.Len() >= flushBytes {
		return s.flush(sw, "")
	}
	return nil
}

// recordSize estimates the memory a queued record holds.
func recordSize(r *Record) int {
	n := 256 + len(r.Text) + len(r.Output) + len(r.Input)
	for _, v := range r.Extra {
		n += len(v)
	}
	return n
}

func writeLine(buf *bytes.Buffer, rec *Record) error {
	if len(rec.Text) < hugeLine && len(rec.Output) < hugeLine {
		b, err := json.Marshal(rec)
		if err != nil {
			return fmt.Errorf("encode record %d of session %s: %w", rec.Seq, rec.Session, err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
		return nil
	}
	return writeHuge(buf, rec)
}

// Placeholders of writeHuge: a NUL never comes out of json.Marshal as is.
const (
	textMark   = "\x00kb-text\x00"
	outputMark = "\x00kb-output\x00"
)

// writeHuge writes a record with a huge Text or Output as json.Marshal
// would, but with those strings escaped straight into buf (grown once):
// encoding/json would build the line in a buffer of its own, grown and
// copied again and again, before buf copies it once more.
func writeHuge(buf *bytes.Buffer, rec *Record) error {
	r := *rec
	if r.Text != "" {
		r.Text = textMark
	}
	if r.Output != "" {
		r.Output = outputMark
	}
	b, err := json.Marshal(&r)
	if err != nil {
		return fmt.Errorf("encode record %d of session %s: %w", rec.Seq, rec.Session, err)
	}
	type part struct {
		mark []byte
		s    string
	}
	var parts []part
	for _, p := range []part{{jsonString(textMark), rec.Text}, {jsonString(outputMark), rec.Output}} {
		if p.s == "" {
			continue
		}
		if bytes.Count(b, p.mark) != 1 {
			// The mark is in another field too: no shortcut.
			b, err = json.Marshal(rec)
			if err != nil {
				return fmt.Errorf("encode record %d of session %s: %w", rec.Seq, rec.Session, err)
			}
			buf.Write(b)
			buf.WriteByte('\n')
			return nil
		}
		parts = append(parts, p)
	}
	buf.Grow(len(b) + len(rec.Text) + len(rec.Output) + (len(rec.Text)+len(rec.Output))/32 + 1)
	for _, p := range parts {
		i := bytes.Index(b, p.mark)
		buf.Write(b[:i])
		buf.Write(appendJSONString(buf.AvailableBuffer(), p.s))
		b = b[i+len(p.mark):]
	}
	buf.Write(b)
	buf.WriteByte('\n')
	return nil
}

// flush writes sw's queued records, creating the file with its meta record
// if the session is new. source names the source transcript for the meta.
func (s *Store) flush(sw *sessWriter, source string) error {
	n, err := catchUp(sw)
	s.remembered(n)
	if err != nil {
		return err
	}
	if sw.rel == "" || sw.needMeta {
		meta := Record{Session: sw.session, Seq: 0, Agent: sw.agent, Role: RoleSystem, Kind: KindMeta,
			Source: Source{File: source}}
		for _, r := range sw.pending {
			if meta.Time.IsZero() && !r.Time.IsZero() {
				meta.Time = r.Time
			}
			if meta.Cwd == "" {
				meta.Cwd = r.Cwd
			}
			if meta.Branch == "" {
				meta.Branch = r.Branch
			}
			if meta.Source.File == "" {
				meta.Source.File = r.Source.File
			}
		}
		if sw.rel == "" {
			sw.rel = SessionFile(sw.agent, sw.session, meta.Time)
		}
		var buf bytes.Buffer
		if sw.needMeta {
			if err := writeLine(&buf, &meta); err != nil {
				return err
			}
			sw.needMeta = false
		}
		for i := range sw.pending {
			if err := writeLine(&buf, &sw.pending[i]); err != nil {
				return err
			}
		}
		sw.pending = nil
		buf.Write(sw.buf.Bytes())
		sw.buf = buf
	}
	if sw.buf.Len() == 0 {
		return nil
	}
	abs, err := fsx.Within(s.Root, filepath.FromSlash(sw.rel))
	if err != nil {
		return fmt.Errorf("session file %s: %w", sw.rel, err)
	}
	if err := appendRecords(s.files(), abs, sw.buf.Bytes()); err != nil {
		return fmt.Errorf("append to %s: %w", sw.rel, err)
	}
	sw.buf = bytes.Buffer{} // drop the capacity too: an import may hold thousands of writers

	fi, err := os.Stat(abs)
	if err != nil {
		return fmt.Errorf("session file %s: %w", sw.rel, err)
	}
	sw.size, sw.mtime = fi.Size(), fi.ModTime().UnixNano()
	return nil
}

func (w *importer) flushAll() error {
	for _, sw := range w.order {
		if err := w.store.flush(sw, w.src); err != nil {
			return err
		}
	}
	return nil
}

// ---------------------------------------------------------------------------
// Append

// Append adds records to their sessions (kb trace append): each needs a
// Session; Agent defaults to generic, Kind to message, Role to system, Time
// to now. Seq is assigned after the last record of the session file, which
// is created with its meta record if new. It returns the records as written.
func (s *Store) Append(recs []Record) ([]Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	idx, err := s.index()
	if err != nil {
		return nil, err
	}
	var mems *memories
	if s.Redactor != nil {
		mems = s.loadMemories()
	}
	// All the records are at hand: redact them and learn what they reveal
	// before any is written, so that session memory treats them alike.
	ready := make([]Record, 0, len(recs))
	for i, rec := range recs {
		if rec.Session == "" {
			return nil, fmt.Errorf("append record %d: no session", i+1)
		}
		if rec.Agent == "" {
			rec.Agent = AgentGeneric
		}
		if rec.Kind == "" {
			rec.Kind = KindMessage
		}
		if rec.Role == "" {
			rec.Role = RoleSystem
		}
		fixTime(&rec)
		if rec.Time.IsZero() {
			rec.Time = now()
		}
		if len(rec.Input) > 0 && !json.Valid(rec.Input) {
			return nil, fmt.Errorf("append record %d: input is not valid JSON", i+1)
		}
		if rec.Author != "" && !slices.Contains(Authors, rec.Author) {
			return nil, fmt.Errorf("append record %d: unknown author %q (known: %s)", i+1, rec.Author, strings.Join(Authors, ", "))
		}
		setAuthor(&rec)
		if found := s.redactRules(&rec); mems != nil {
			mems.learn(rec.Agent, rec.Session, found)
		}
		ready = append(ready, rec)
	}
	sessions := map[string]*sessWriter{}
	var order []*sessWriter
	out := make([]Record, 0, len(recs))
	for _, rec := range ready {
		k := rec.Agent + "\x00" + rec.Session
		sw := sessions[k]
		if sw == nil {
			sw = &sessWriter{agent: rec.Agent, session: rec.Session}
			base := path.Base(SessionFile(rec.Agent, rec.Session, time.Time{}))
			if rel, ok := idx[base]; ok {
				sw.rel = rel
				last, err := lastSeq(filepath.Join(s.Root, filepath.FromSlash(rel)))
				if err != nil {
					return nil, err
				}
				sw.next = last + 1
				sw.needMeta = last < 0
				if last < 0 {
					sw.next = 1
				}
			} else {
				sw.needMeta, sw.next = true, 1
			}
			sessions[k] = sw
			order = append(order, sw)
		}
		s.remembered(mems.note(sw, &rec, nil))
		rec.Seq = sw.next
		sw.next++
		if err := s.add(sw, rec); err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	for _, sw := range order {
		if err := s.flush(sw, ""); err != nil {
			return nil, err
		}
	}
	if err := s.saveMemories(mems); err != nil {
		return nil, err
	}
	return out, nil
}

// lastSeq returns the Seq of the last valid record of a session file, or -1
// when it holds none. It reads the file backwards in growing windows.
func lastSeq(abs string) (int, error) {
	f, err := os.Open(abs)
	if err != nil {
		return 0, fmt.Errorf("read session file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("read session file: %w", err)
	}
	size := fi.Size()
	for window := int64(64 << 10); ; window *= 4 {
		from := max(size-window, 0)
		buf := make([]byte, size-from)
		if _, err := f.ReadAt(buf, from); err != nil && !errors.Is(err, io.EOF) {
			return 0, fmt.Errorf("read session file %s: %w", abs, err)
		}
		// Only complete records count: drop a torn tail (a whole record
		// without its newline counts), and a head cut by the window.
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 && !json.Valid(buf[i+1:]) {
			buf = buf[:i]
		} else if i < 0 && !json.Valid(buf) {
			buf = nil
		}
		lines := bytes.Split(buf, []byte("\n"))
		firstFull := 0
		if from > 0 {
			firstFull = 1
		}
		for i := len(lines) - 1; i >= firstFull; i-- {
			var h storedHead
			if len(bytes.TrimSpace(lines[i])) > 0 && json.Unmarshal(lines[i], &h) == nil {
				return h.Seq, nil
			}
		}
		if from == 0 {
			return -1, nil
		}
	}
}

// fixTime moves a time JSON cannot encode (year outside 0-9999) to Extra
// "bad_ts", as text, so the record can still be written.
func fixTime(rec *Record) {
	if y := rec.Time.Year(); !rec.Time.IsZero() && (y < 0 || y > 9999) {
		rec.Extra = mergeExtra(copyRaw(rec.Extra), map[string]json.RawMessage{"bad_ts": mustJSON(rec.Time.String())})
		rec.Time = time.Time{}
	}
}

func copyRaw(m map[string]json.RawMessage) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// ---------------------------------------------------------------------------
// Redaction (see redact.go)

// remembered reports n places redacted by session memory.
func (s *Store) remembered(n int) {
	if n > 0 && s.Remembered != nil {
		s.Remembered(n)
	}
}

// ---------------------------------------------------------------------------
// Reading

// Read calls fn for each record of the session (an id or unique prefix, as
// Find takes) in file order, as ReadFile does.
func (s *Store) Read(session string, fn func(Record) error) ([]Problem, error) {
	info, err := s.Find(session)
	if err != nil {
		return nil, err
	}
	_, probs, err := s.ReadFile(info.Path, fn)
	return probs, err
}

// ReadFile calls fn for each record of the session file at rel (a
// SessionInfo.Path) in file order, and returns the size of the complete
// lines it read: a torn last line (a writer still at it, or a crash) is
// neither read nor counted. A malformed line is a Problem (rule "trace")
// and skipped. Lines of any length are read; the file is opened inside
// Root, following no link out of it.
func (s *Store) ReadFile(rel string, fn func(Record) error) (int64, []Problem, error) {
	return s.readFile(rel, fn, false)
}

// ReadWork is ReadFile with the records in their work form (WorkText,
// work.go): the bounded view extraction judges. A huge line costs one
// pass over its bytes, not a decoding of its strings.
func (s *Store) ReadWork(rel string, fn func(Record) error) (int64, []Problem, error) {
	return s.readFile(rel, fn, true)
}

func (s *Store) readFile(rel string, fn func(Record) error, work bool) (int64, []Problem, error) {
	f, err := s.files().Open(filepath.Join(s.Root, filepath.FromSlash(rel)))
	if err != nil {
		return 0, nil, fmt.Errorf("read session %s: %w", rel, err)
	}
	defer f.Close()
	ls := newLineScan(f, Pos{})
	var problems []Problem
	for {
		line, num, ok, bad, err := ls.nextLine(work)
		if err != nil {
			return ls.off, problems, fmt.Errorf("read %s: %w", rel, err)
		}
		if !ok {
			return ls.off, problems, nil
		}
		if bad != nil {
			problems = append(problems, Problem{Path: rel, Line: num, Msg: "malformed record: " + bad.Error(), Rule: "trace"})
			continue
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(line, &rec); err != nil {
			problems = append(problems, Problem{Path: rel, Line: num, Msg: "malformed record: " + shortErr(err), Rule: "trace"})
			continue
		}
		if err := fn(rec); err != nil {
			return ls.off, problems, err
		}
	}
}

// Find returns the session whose id is session, or else the only one whose
// id (or "<agent>-<id>") starts with it.
func (s *Store) Find(session string) (SessionInfo, error) {
	all, err := s.Sessions()
	if err != nil {
		return SessionInfo{}, err
	}
	if session == "" {
		return SessionInfo{}, fmt.Errorf("session %q: %w", session, ErrNotFound)
	}
	var matches []SessionInfo
	for _, si := range all {
		if si.ID == session {
			return si, nil
		}
		if strings.HasPrefix(si.ID, session) || strings.HasPrefix(si.Agent+"-"+si.ID, session) {
			matches = append(matches, si)
		}
	}
	switch len(matches) {
	case 0:
		return SessionInfo{}, fmt.Errorf("session %q: %w", session, ErrNotFound)
	case 1:
		return matches[0], nil
	}
	e := &AmbiguousError{Prefix: session}
	for _, m := range matches {
		e.Matches = append(e.Matches, m.ID)
	}
	return SessionInfo{}, e
}

// sessionsDoc caches session summaries in Root/.state/sessions.json; a file
// that grew is summarized from where the cache left off.
type sessionsDoc struct {
	Version int                     `json:"version"`
	Files   map[string]*summaryScan `json:"files"`
}

type summaryScan struct {
	Size  int64       `json:"size"`
	Lines int         `json:"lines"`
	Info  SessionInfo `json:"info"`
}

// Sessions lists the session files under Root/traces, sorted by start time
// then id.
func (s *Store) Sessions() ([]SessionInfo, error) {
	idx, err := s.index()
	if err != nil {
		return nil, err
	}
	cachePath := filepath.Join(s.Root, stateDir, sessionsName)
	cache := &sessionsDoc{}
	if data, err := s.files().ReadFile(cachePath); err != nil || json.Unmarshal(data, cache) != nil || cache.Version != 1 {
		cache = &sessionsDoc{}
	}
	if cache.Files == nil {
		cache.Files = map[string]*summaryScan{}
	}
	dirty := false
	var out []SessionInfo
	rels := make([]string, 0, len(idx))
	for _, rel := range idx {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	live := map[string]bool{}
	for _, rel := range rels {
		live[rel] = true
		fi, err := os.Stat(filepath.Join(s.Root, filepath.FromSlash(rel)))
		if err != nil {
			continue
		}
		sc := cache.Files[rel]
		if sc == nil || sc.Size > fi.Size() {
			sc = &summaryScan{Info: SessionInfo{Path: rel}}
		}
		if sc.Size < fi.Size() {
			before := sc.Size
			if err := summarize(s.Root, sc); err != nil {
				return nil, err
			}
			if sc.Size != before || cache.Files[rel] != sc {
				cache.Files[rel] = sc
				dirty = true
			}
		}
		if sc.Info.ID == "" {
			continue // not a session file yet: no complete record
		}
		out = append(out, sc.Info)
	}
	for rel := range cache.Files {
		if !live[rel] {
			delete(cache.Files, rel)
			dirty = true
		}
	}
	if dirty {
		cache.Version = 1
		if data, err := json.Marshal(cache); err == nil {
			// A cache: failing to write it costs time, not correctness.
			_ = s.files().WriteFile(cachePath, data, 0o644)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Start.Equal(out[j].Start) {
			return out[i].Start.Before(out[j].Start)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// forgetSummary drops the cached summary of a session file that was
// rewritten.
func (s *Store) forgetSummary(rel string) error {
	p := filepath.Join(s.Root, stateDir, sessionsName)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	cache := &sessionsDoc{}
	if json.Unmarshal(data, cache) != nil {
		return os.Remove(p)
	}
	if _, ok := cache.Files[rel]; !ok {
		return nil
	}
	delete(cache.Files, rel)
	b, err := json.Marshal(cache)
	if err != nil {
		return err
	}
	return fsx.WriteFile(p, b, 0o644)
}

// summaryRec is the part of a record the summary needs.
type summaryRec struct {
	Session string    `json:"session"`
	Seq     int       `json:"seq"`
	Time    time.Time `json:"ts"`
	Agent   string    `json:"agent"`
	Role    string    `json:"role"`
	Kind    string    `json:"kind"`
	Text    string    `json:"text"`
	Cwd     string    `json:"cwd"`
	Branch  string    `json:"branch"`
	Marks   []string  `json:"marks"`
	Source  Source    `json:"source"`
}

// summarize extends sc with the complete lines after sc.Size.
func summarize(root string, sc *summaryScan) error {
	abs := filepath.Join(root, filepath.FromSlash(sc.Info.Path))
	f, err := os.Open(abs)
	if err != nil {
		return fmt.Errorf("summarize session: %w", err)
	}
	defer f.Close()
	if _, err := f.Seek(sc.Size, io.SeekStart); err != nil {
		return fmt.Errorf("summarize %s: %w", sc.Info.Path, err)
	}
	ls := newLineScan(f, Pos{Offset: sc.Size, Line: sc.Lines})
	in := &sc.Info
	for {
		line, _, ok, bad, err := ls.nextWork()
		if err != nil {
			return fmt.Errorf("summarize %s: %w", sc.Info.Path, err)
		}
		if !ok {
			break
		}
		var r summaryRec
		if bad != nil || json.Unmarshal(line, &r) != nil {
			continue
		}
		if in.ID == "" {
			in.ID, in.Agent = r.Session, r.Agent
		}
		if r.Kind == KindMeta && r.Seq == 0 {
			if in.Source == "" {
				in.Source = r.Source.File
			}
			if in.Start.IsZero() {
				in.Start = r.Time
			}
		}
		if !r.Time.IsZero() {
			if in.Start.IsZero() {
				in.Start = r.Time
			}
			if r.Time.After(in.End) {
				in.End = r.Time
			}
		}
		if in.Cwd == "" {
			in.Cwd = r.Cwd
		}
		if r.Branch != "" {
			in.Branch = r.Branch
		}
		rec := Record{Role: r.Role, Kind: r.Kind, Marks: r.Marks}
		switch r.Kind {
		case KindMessage:
			if (r.Role == RoleUser || r.Role == RoleAssistant) && !rec.Has(MarkThinking) {
				in.Messages++
			}
			if in.FirstPrompt == "" && rec.Human() && !rec.Has(MarkSlash) && strings.TrimSpace(r.Text) != "" {
				in.FirstPrompt = textutil.FirstRunes(strings.TrimSpace(r.Text), 200)
			}
		case KindToolCall:
			in.ToolCalls++
		}
	}
	p := ls.pos(nil)
	sc.Size, sc.Lines = p.Offset, p.Line
	return nil
}
