package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"
	"github.com/gofrs/flock"
	bolt "go.etcd.io/bbolt"

	"github.com/kbmem/kb/internal/failpoint"
	"github.com/kbmem/kb/internal/fsx"
)

// SchemaVersion is the version of the mapping and of the sidecar formats.
// Bump it whenever either changes; an index of another version is rebuilt.
// 2: stamps record the progress of append-only files; docs record a
// truncated body. 3: text fields use kb_en (file names and identifiers
// also by their parts). 4: observations' excerpt and author stored, so
// recall reads the person's words without opening the file. 5: their
// sources stored (recall tells a lesson of an unknown project). 6: the
// stamps log (stamps.log) over the stamps file. 7: the body without term
// positions (a phrase on it is checked on the stored text).
const SchemaVersion = 7

// BusyTimeout is how long Open waits for another process that holds the
// index open before failing with ErrBusy.
var BusyTimeout = 2 * time.Second

// RebuildLockTimeout is how long Open waits for another process that is
// rebuilding the same damaged index (creating it empty takes milliseconds).
var RebuildLockTimeout = 10 * time.Second

// batchDocs is the number of documents per bleve batch. Larger batches give
// fewer, bigger segments (less merging) but hold more memory. Measured on a
// 10k-note Apply: 2000 peaked at 571 MB RSS, 250 at 281 MB, with no visible
// slowdown (22 s vs 26 s wall); CPU per note is flat from 250 to 2500.
// The merger's floor is the same size (mergePlan).
const batchDocs = 500

// mergePlan is the merge policy of a writable index: bleve's default but
// for the floor, which it sets to a batch. Under bleve's floor of 2,000
// documents, every segment of a batch counts as 2,000, so the merger
// merged batches in cascades (43 merges at 10,000 notes); with a floor of
// one batch it merges about as many times as there are tiers (10).
func mergePlan() map[string]any {
	return map[string]any{"FloorSegmentSize": batchDocs}
}

// batchBytes bounds the text of one bleve batch, so that memory stays
// bounded by a few batches however large the documents are: 250 notes of
// MaxBody each would otherwise make one batch of 500 MB.
const batchBytes = 4 << 20

// MaxBody is the most of a document's body that is indexed (and stored):
// a larger body is cut to its head at a UTF-8 boundary, and Doc.Truncated
// records its full size. The source file keeps everything; search and
// snippets see the first MaxBody bytes. Indexing costs about 70 bytes of
// memory and 0.25 s per byte-megabyte of body, so an uncapped 100 MB note
// took 25 s and 7 GB.
const MaxBody = 2 << 20

// CapBody returns body cut to MaxBody bytes (at a rune boundary) and the
// size to record in Doc.Truncated: len(body) when it was cut, else 0.
func CapBody(body string) (string, int64) {
	if len(body) <= MaxBody {
		return body, 0
	}
	n := MaxBody
	for n > 0 && n > MaxBody-4 && !utf8.RuneStart(body[n]) {
		n--
	}
	return body[:n], int64(len(body))
}

// Names inside the index directory.
const (
	schemaFile = "schema"
	stampsFile = "stamps"
	bleveDir   = "bleve"
	// rebuildLock serializes rebuilds across processes.
	rebuildLock = "rebuild.lock"
)

var (
	// ErrBusy means another process holds the index open.
	ErrBusy = errors.New("index is in use by another process")
	// ErrReadOnly is returned by Apply and Reset on an index opened with OpenReadOnly.
	ErrReadOnly = errors.New("index is open read-only")
	// ErrClosed is returned after Close.
	ErrClosed = errors.New("index is closed")
	// ErrCorrupt is returned when bleve fails on data it reads lazily
	// (Open checks what it can); `kb index --rebuild` repairs it.
	ErrCorrupt = errors.New("index data unreadable; run `kb index --rebuild`")
)

// Doc is one searchable unit: a note, or one dialogue turn of a trace session.
type Doc struct {
	ID          string // unique: note id, or "session#seq" for trace turns
	Path        string // source file, slash path relative to the KB root (set from Change.Path)
	Layer       string // traces | observations | episodes | library
	Type        string
	Title       string
	Description string
	Body        string
	Tags        []string
	Lifecycle   string
	Status      string
	Created     time.Time
	Updated     time.Time
	Session     string // trace session id (traces layer)
	Seq         int
	Links       []string // raw link targets; stored lower-cased
	// Truncated is the full size in bytes of a body that was cut to
	// MaxBody (Apply cuts it, if the caller did not); 0 when Body is whole.
	// Searchable as truncated:>0.
	Truncated int64
	Text      map[string]string   // extra analyzed fields, searchable as key:word
	Keywords  map[string][]string // extra exact fields, searchable as key:value
	Num       map[string]float64  // extra numeric fields, searchable as key:>1
}

// Change replaces all docs of one source file (Remove=false) or removes them.
//
// A large file can be indexed in parts, one Apply each, so that memory stays
// bounded and a killed process keeps what it committed: the first part
// replaces the file's docs, the next ones set Append; every part but the
// last sets Partial, which records the file as incomplete (not Stamp) so
// that a sync interrupted between parts takes it up again. Progress, for an
// append-only file, says how far the part's docs reach; it is stored with
// the stamp and returned by Index.Progress.
type Change struct {
	Path     string
	Stamp    Stamp
	Docs     []Doc
	Remove   bool
	Append   bool // add Docs to the file's docs (same ids replace), delete none
	Partial  bool // more parts follow: record the file as incomplete
	Progress Progress
}

// OpenInfo tells whether Open had to rebuild the index and why.
type OpenInfo struct {
	Rebuilt bool
	Reason  string // "missing", "corrupt: ...", "schema 0 -> 1", ...
	// Resumed is set when an update was interrupted (the process was
	// killed) and Open kept what it had committed: the files it was
	// changing are marked incomplete, so the next sync finishes them.
	Resumed []string
}

// DocError reports a doc that cannot be indexed; Apply indexes nothing then.
type DocError struct {
	Path, ID, Msg string
}

func (e *DocError) Error() string {
	if e.ID == "" {
		return fmt.Sprintf("index: %s: %s", e.Path, e.Msg)
	}
	return fmt.Sprintf("index: %s: doc %q: %s", e.Path, e.ID, e.Msg)
}

// StaleError is returned by OpenReadOnly when the index would need a
// rebuild, which only Open can do.
type StaleError struct{ Reason string }

func (e *StaleError) Error() string { return "index needs a rebuild: " + e.Reason }

// Index is an open search index. Its methods are safe for concurrent use;
// Apply and Reset are serialized.
type Index struct {
	dir      string
	readOnly bool
	// syncLimit is the soft memory limit of a sync (SetSyncMemoryLimit);
	// 0: none.
	syncLimit int64

	wmu sync.Mutex   // serializes Apply and Reset
	mu  sync.RWMutex // guards the fields below
	bi  bleve.Index
	m   mapping.IndexMapping
	an  analyzers
	// st, reg and gen describe what bi holds; see doc.go.
	st  *stampSet
	reg registry
	gen uint64
	// carry lists the files of failed Applies that may have committed some
	// batches: their stamps are incomplete in memory, and the next journal
	// names them too, until a stamps write records that on disk.
	carry []string
	// resumed is what Open resumed (OpenInfo.Resumed).
	resumed []string
}

// Open opens the index in dir, creating it if needed. A missing, unreadable,
// corrupt or other-schema index is removed and recreated empty; OpenInfo
// says so. A busy index (held by another process) fails with ErrBusy.
func Open(dir string) (*Index, OpenInfo, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, OpenInfo{}, fmt.Errorf("index: %w", err)
	}
	ix, reason, err := openExisting(dir, false, BusyTimeout)
	if err != nil {
		return nil, OpenInfo{}, err
	}
	if reason == "" {
		return ix, OpenInfo{Resumed: ix.resumed}, nil
	}
	// Two processes finding the same bad index must not both rebuild it:
	// the second would remove the index the first just created (its schema
	// file is written last, so until then it looks damaged too). The
	// rebuild lock is held only while the empty index is created; whoever
	// gets it second looks again and finds a healthy index.
	fl := flock.New(filepath.Join(dir, rebuildLock))
	ctx, cancel := context.WithTimeout(context.Background(), RebuildLockTimeout)
	defer cancel()
	if ok, err := fl.TryLockContext(ctx, 20*time.Millisecond); err != nil || !ok {
		return nil, OpenInfo{}, fmt.Errorf("index: %s: another process is rebuilding it: %w", dir, ErrBusy)
	}
	defer fl.Unlock()
	if again, r, err := openExisting(dir, false, BusyTimeout); err != nil {
		return nil, OpenInfo{}, err
	} else if r == "" {
		return again, OpenInfo{Resumed: again.resumed}, nil // rebuilt by another process meanwhile
	}
	ix, err = create(dir)
	if err != nil {
		return nil, OpenInfo{}, err
	}
	return ix, OpenInfo{Rebuilt: true, Reason: reason}, nil
}

// OpenReadOnly opens an existing, healthy index for searching only. It
// skips bleve's background persister and merger, so it is cheaper to open
// and close, but it cannot repair anything: an index that Open would
// rebuild yields a *StaleError. It still waits for a writer in another
// process (bolt's shared lock), failing with ErrBusy after BusyTimeout.
func OpenReadOnly(dir string) (*Index, error) {
	return OpenReadOnlyWait(dir, BusyTimeout)
}

// OpenReadOnlyWait is OpenReadOnly waiting at most wait for a writer (a
// hook cannot wait long: it answers with nothing instead).
func OpenReadOnlyWait(dir string, wait time.Duration) (*Index, error) {
	return openReadOnly(dir, wait, nil)
}

// OpenToSearch is OpenReadOnly for queries at the generation bleve holds,
// when the caller knows that generation matches the files (a freshness
// keeper's clean answer, kb/sync.go): the stamps are read when first asked
// for (Stamps, Progress), not at open. A query needs none of them, and at
// 100,000 files the stamps file and its log are 5 MB read and checksummed
// and 1,000 page faults of a search's heap. So the stamps' own damage
// (a corrupt file, bleve ahead of them after a killed update) is found by
// the next open that reads them, not by a query.
func OpenToSearch(dir string) (*Index, error) {
	return openReadOnly(dir, BusyTimeout, unstamped)
}

func openReadOnly(dir string, wait time.Duration, pre *stampSet) (*Index, error) {
	ix, reason, err := openExistingWith(dir, true, wait, pre)
	if err != nil {
		return nil, err
	}
	if reason != "" {
		return nil, &StaleError{Reason: reason}
	}
	return ix, nil
}

// unstamped, as openExistingWith's pre, opens without reading the stamps
// (OpenToSearch); Index.stampSet reads them on first use.
var unstamped = new(stampSet)

func runtimeConfig(readOnly bool, wait time.Duration) map[string]any {
	cfg := map[string]any{
		"bolt_timeout": max(wait, time.Millisecond).String(),
		"read_only":    readOnly,
	}
	if !readOnly {
		cfg["scorchMergePlanOptions"] = mergePlan()
	}
	return cfg
}

// openExisting returns a non-empty reason when the index must be rebuilt,
// and an error only for conditions a rebuild cannot fix.
func openExisting(dir string, readOnly bool, wait time.Duration) (ix *Index, reason string, err error) {
	return openExistingWith(dir, readOnly, wait, nil)
}

// openExistingWith is openExisting with the stamps already read (pre, when
// not nil), so that a caller that looked at them first does not decode
// them twice.
func openExistingWith(dir string, readOnly bool, wait time.Duration, pre *stampSet) (ix *Index, reason string, err error) {
	b, err := os.ReadFile(filepath.Join(dir, schemaFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, serr := os.Stat(filepath.Join(dir, bleveDir)); serr == nil {
			return nil, "corrupt: schema file missing", nil
		}
		return nil, "missing", nil
	case err != nil:
		return nil, "", fmt.Errorf("index: %w", err)
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return nil, "corrupt: schema file unreadable", nil
	}
	if v != SchemaVersion {
		return nil, fmt.Sprintf("schema %d -> %d", v, SchemaVersion), nil
	}

	bi, err := openBleve(filepath.Join(dir, bleveDir), runtimeConfig(readOnly, wait))
	if err != nil {
		if errors.Is(err, bolt.ErrTimeout) {
			return nil, "", fmt.Errorf("index: %s: %w", dir, ErrBusy)
		}
		if errors.Is(err, fs.ErrPermission) {
			return nil, "", fmt.Errorf("index: %w", err)
		}
		return nil, "corrupt: " + shortErr(err), nil
	}
	ix = &Index{dir: dir, readOnly: readOnly, bi: bi, m: bi.Mapping()}
	reason, err = ix.load(pre)
	if reason != "" || err != nil {
		bi.Close()
		return nil, reason, err
	}
	return ix, "", nil
}

// Resumed lists the files an interrupted update was changing when this
// Index was opened (see OpenInfo.Resumed); nil when none.
func (ix *Index) Resumed() []string { return ix.resumed }

// load reads the generation, field registry and stamps of a freshly opened
// bleve index and checks that they agree.
func (ix *Index) load(pre *stampSet) (reason string, err error) {
	var err2 error
	if ix.an, err2 = loadAnalyzers(ix.m); err2 != nil {
		return "corrupt: " + err2.Error(), nil
	}
	if _, err := ix.bi.DocCount(); err != nil {
		return "corrupt: " + shortErr(err), nil
	}
	gb, err := ix.bi.GetInternal([]byte(genKey))
	if err != nil {
		return "corrupt: " + shortErr(err), nil
	}
	var bgen uint64
	if len(gb) > 0 {
		if bgen, err = strconv.ParseUint(string(gb), 10, 64); err != nil {
			return "corrupt: generation unreadable", nil
		}
	}
	rb, err := ix.bi.GetInternal([]byte(registryKey))
	if err != nil {
		return "corrupt: " + shortErr(err), nil
	}
	if ix.reg, err = unmarshalRegistry(rb); err != nil {
		return "corrupt: " + err.Error(), nil
	}
	if pre == unstamped {
		ix.gen = bgen
		return "", nil
	}
	// The stamps file is checked but decoded only when every stamp is
	// needed: a search needs none, a sync of a few paths a few.
	s := pre
	if s == nil {
		s, err = readStampSet(ix.dir)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "corrupt: stamps file missing", nil
	case errors.Is(err, errStampsCorrupt):
		return "corrupt: " + err.Error(), nil
	case err != nil:
		return "", fmt.Errorf("index: %w", err)
	}
	ix.st = s
	switch sgen := s.gen; {
	case bgen > sgen:
		// A process was killed during an Apply, after some of its batches
		// committed. Its journal says which files it was changing.
		j, ok, err := readJournal(ix.dir)
		if err != nil {
			return "", err
		}
		if !ok || j.Gen != bgen || bgen != sgen+1 {
			return fmt.Sprintf("interrupted update: index generation %d, stamps %d", bgen, sgen), nil
		}
		entries := j.resume(s)
		s.gen = bgen
		if !ix.readOnly {
			// Record the resumed state, so that the stamps agree with
			// bleve again; a failure here leaves the same state for the
			// next Open to resume.
			if err := ix.persist(bgen, entries); err != nil {
				return "", fmt.Errorf("index: write stamps: %w", err)
			}
			removeJournal(ix.dir)
		}
		ix.resumed = append(append([]string{}, j.Replace...), j.Append...)
		sort.Strings(ix.resumed)
	case bgen < sgen:
		return fmt.Sprintf("corrupt: index generation %d behind stamps %d (lost segments?)", bgen, sgen), nil
	}
	ix.gen = bgen
	return "", nil
}

// persist records the stamps an Apply of generation gen changed (entries,
// in order; the last of a path wins) in memory and on disk: as one record
// appended to the stamps log, or by writing the stamps file whole when the
// log is full (see stampLogFile). The lock is not held while it writes.
func (ix *Index) persist(gen uint64, entries []stampEntry) error {
	s := ix.st
	ix.mu.Lock()
	for _, e := range entries {
		s.set(e)
	}
	s.gen = gen
	var data []byte
	if s.logFull(len(entries)) {
		data = s.snapshot()
	}
	ix.mu.Unlock()
	if data == nil {
		err := s.appendRecord(ix.dir, stampRecord{Gen: gen, Entries: entries})
		if err == nil {
			return nil
		}
		// A log that cannot be appended to: the stamps file whole, which
		// also gets rid of it.
		ix.mu.Lock()
		data = s.snapshot()
		ix.mu.Unlock()
		if werr := s.writeSnapshot(ix.dir, data); werr != nil {
			return fmt.Errorf("%w (appending to %s: %v)", werr, stampLogFile, err)
		}
		return nil
	}
	return s.writeSnapshot(ix.dir, data)
}

// openBleve opens a bleve index, turning a panic inside bleve (garbage
// files) into an error.
func openBleve(path string, cfg map[string]any) (bi bleve.Index, err error) {
	defer func() {
		if r := recover(); r != nil {
			bi, err = nil, fmt.Errorf("bleve panicked: %v", r)
		}
	}()
	return bleve.OpenUsing(path, cfg)
}

// shortErr keeps reasons to a few words: the first line, at most 120 bytes.
func shortErr(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return s
}

// create removes whatever index files dir holds and makes an empty index.
// The schema file is written last: its presence marks a complete index.
func create(dir string) (*Index, error) {
	if err := removeFiles(dir); err != nil {
		return nil, err
	}
	m := newMapping()
	bi, err := bleve.NewUsing(filepath.Join(dir, bleveDir), m, scorch.Name, bleve.Config.DefaultKVStore, runtimeConfig(false, BusyTimeout))
	if err != nil {
		if errors.Is(err, bolt.ErrTimeout) {
			err = ErrBusy
		}
		return nil, fmt.Errorf("index: create %s: %w", dir, err)
	}
	ix := &Index{dir: dir, bi: bi, m: m, reg: registry{}}
	if ix.an, err = loadAnalyzers(m); err == nil {
		data := encodeStamps(0, nil, nil)
		ix.st = newStampSet(data)
		if err = fsx.WriteFile(filepath.Join(dir, stampsFile), data, 0o644); err == nil {
			err = fsx.WriteFile(filepath.Join(dir, schemaFile), []byte(strconv.Itoa(SchemaVersion)+"\n"), 0o644)
		}
	}
	if err != nil {
		bi.Close()
		return nil, fmt.Errorf("index: create %s: %w", dir, err)
	}
	return ix, nil
}

func removeFiles(dir string) error {
	for _, name := range []string{schemaFile, stampsFile, stampLogFile, journalFile, bleveDir} {
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("index: remove old index: %w", err)
		}
	}
	return nil
}

// Close releases the index. Further calls return ErrClosed.
func (ix *Index) Close() error {
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.bi == nil {
		return nil
	}
	err := ix.bi.Close()
	ix.bi = nil
	if err != nil {
		return fmt.Errorf("index: close: %w", err)
	}
	return nil
}

// Reset drops every doc and stamp (kb index --rebuild).
func (ix *Index) Reset() error {
	if ix.readOnly {
		return ErrReadOnly
	}
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.bi == nil {
		return ErrClosed
	}
	if err := ix.bi.Close(); err != nil {
		return fmt.Errorf("index: reset: %w", err)
	}
	ix.bi = nil
	fresh, err := create(ix.dir)
	if err != nil {
		return err
	}
	ix.bi, ix.m, ix.an = fresh.bi, fresh.m, fresh.an
	ix.st, ix.reg, ix.gen, ix.carry = fresh.st, fresh.reg, fresh.gen, nil
	return nil
}

// Stamps returns a copy of the stamps of all indexed files, keyed by path.
// A file indexed only in part (Change.Partial, or an interrupted update)
// has a stamp that matches no file.
func (ix *Index) Stamps() map[string]Stamp {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	m, _ := ix.stampSet().all()
	return maps.Clone(m)
}

// Progress returns the recorded progress of an append-only file.
func (ix *Index) Progress(path string) (Progress, bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	_, p, ok := ix.stampSet().lookup(path)
	return p, ok && p != (Progress{})
}

// known returns which of paths have a stamp (one pass over the stamps
// file for those not looked up yet, when it is not decoded).
func (ix *Index) known(paths []string) map[string]bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	st := ix.stampSet()
	st.find(paths)
	out := make(map[string]bool, len(paths))
	for _, p := range paths {
		_, _, out[p] = st.lookup(p)
	}
	return out
}

// stampSet returns the stamps, read now if the index was opened without
// them (OpenToSearch): stamps that cannot be read are none, as for an
// index that holds no file. The caller holds ix.mu.
func (ix *Index) stampSet() *stampSet {
	if ix.st == nil {
		s, err := readStampSet(ix.dir)
		if err != nil {
			s = newStampSet(encodeStamps(ix.gen, nil, nil))
		}
		ix.st = s
	}
	return ix.st
}

// Count returns the number of docs in the index.
func (ix *Index) Count() (uint64, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.bi == nil {
		return 0, ErrClosed
	}
	n, err := ix.bi.DocCount()
	if err != nil {
		return 0, fmt.Errorf("index: count: %w", err)
	}
	return n, nil
}

// Apply replaces all docs of each changed file with its new docs (old docs
// the file no longer produces are deleted), appends them (Change.Append) or
// removes them, then persists the stamps. It is idempotent. Doc.Path is set
// to Change.Path. If two docs share an ID, the last one wins. Invalid docs
// (*DocError) make Apply index nothing. A body over MaxBody is cut.
//
// Docs are committed in batches bounded by count and bytes. Before the
// first batch a journal names the files being changed, so that a process
// killed halfway loses only the batches not yet committed: the next Open
// resumes from the journal instead of rebuilding (see journalFile).
func (ix *Index) Apply(changes []Change) error {
	if ix.readOnly {
		return ErrReadOnly
	}
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	ix.mu.RLock()
	bi, reg := ix.bi, ix.reg
	ix.mu.RUnlock()
	if bi == nil {
		return ErrClosed
	}
	if len(changes) == 0 {
		return nil
	}

	// Validate everything first, so that a bad doc commits nothing.
	add := registry{}
	last := map[string][2]int{} // doc id -> position of its last occurrence
	for i := range changes {
		c := &changes[i]
		if c.Path == "" {
			return &DocError{Msg: "change without a path"}
		}
		if c.Remove {
			continue
		}
		for j := range c.Docs {
			if err := checkDoc(c.Path, &c.Docs[j], reg, add); err != nil {
				return err
			}
			last[c.Docs[j].ID] = [2]int{i, j}
		}
	}

	// Old docs of files we indexed before; an unstamped file has none (a
	// failed or interrupted Apply leaves its files stamped incomplete).
	// Appended parts delete nothing.
	var dels []string
	var r bindex.IndexReader
	j := journal{Gen: ix.gen + 1, Replace: slices.Clone(ix.carry)}
	var replaced []string
	for i := range changes {
		if c := &changes[i]; !c.Append || c.Remove {
			replaced = append(replaced, c.Path)
		}
	}
	known := ix.known(replaced)
	for i := range changes {
		c := &changes[i]
		if c.Append && !c.Remove {
			j.Append = append(j.Append, c.Path)
			continue
		}
		j.Replace = append(j.Replace, c.Path)
		if !known[c.Path] {
			continue
		}
		if r == nil {
			adv, err := bi.Advanced()
			if err == nil {
				r, err = adv.Reader()
			}
			if err != nil {
				return fmt.Errorf("index: apply: %w", err)
			}
			defer r.Close()
		}
		ids, err := docsOfPath(r, c.Path)
		if err != nil {
			return fmt.Errorf("index: apply %s: %w", c.Path, err)
		}
		for _, id := range ids {
			if _, keep := last[id]; !keep {
				dels = append(dels, id)
			}
		}
	}
	if err := writeJournal(ix.dir, j); err != nil {
		return fmt.Errorf("index: write journal: %w", err)
	}

	gen := ix.gen + 1
	genVal := []byte(strconv.FormatUint(gen, 10))
	var regVal []byte
	if len(add) > 0 {
		merged := maps.Clone(reg)
		maps.Copy(merged, add)
		regVal = merged.marshal()
	}
	newBatch := func() *bleve.Batch {
		b := bi.NewBatch()
		b.SetInternal([]byte(genKey), genVal)
		if regVal != nil {
			b.SetInternal([]byte(registryKey), regVal)
		}
		return b
	}
	// Batches are committed one at a time: bleve analyzes a batch's docs
	// on every core and builds its segment on one, while the sync's
	// loaders keep the other busy (applyParts). Two batches at a time
	// cost more CPU than one.
	commit := func(b *bleve.Batch) error {
		failpoint.Hit("index.batch")
		batches.Add(1)
		return bi.Batch(b)
	}
	fill := func() error {
		b, pending, size := newBatch(), 0, 0
		for _, id := range dels {
			b.Delete(id)
		}
		for i := range changes {
			c := &changes[i]
			if c.Remove {
				continue
			}
			for j := range c.Docs {
				d := c.Docs[j]
				if last[d.ID] != [2]int{i, j} {
					continue // a later doc has the same id
				}
				d.Path = c.Path
				if len(d.Body) > MaxBody {
					var full int64
					d.Body, full = CapBody(d.Body)
					d.Truncated = max(d.Truncated, full)
				}
				if err := b.IndexAdvanced(ix.an.buildDocument(&d)); err != nil {
					return &DocError{Path: c.Path, ID: d.ID, Msg: err.Error()}
				}
				pending++
				size += docBytes(&d)
				if pending >= batchDocs || size >= batchBytes {
					if err := commit(b); err != nil {
						return err
					}
					b, pending, size = newBatch(), 0, 0
				}
			}
		}
		return commit(b) // also when empty: it records the generation
	}
	if err := fill(); err != nil {
		// Some batches may have committed: the replaced files are
		// incomplete now, so the next Apply looks up their docs (and the
		// next sync takes them up again).
		ix.mu.Lock()
		for _, p := range j.Replace {
			ix.st.set(stampEntry{Path: p, Stamp: incomplete})
		}
		ix.carry = j.Replace
		ix.mu.Unlock()
		var de *DocError
		if errors.As(err, &de) {
			return err
		}
		return fmt.Errorf("index: apply: %w", err)
	}

	// The docs are durable; record what they came from. If this write
	// fails, the next Open resumes from the journal.
	failpoint.Hit("index.stamps")
	// The files of failed Applies are incomplete on disk too (unless
	// this one changed them).
	entries := make([]stampEntry, 0, len(ix.carry)+len(changes))
	for _, p := range ix.carry {
		entries = append(entries, stampEntry{Path: p, Stamp: incomplete})
	}
	for i := range changes {
		c := &changes[i]
		e := stampEntry{Path: c.Path, Removed: c.Remove, Stamp: c.Stamp, Prog: c.Progress}
		switch {
		case c.Remove:
			e.Stamp, e.Prog = Stamp{}, Progress{}
		case c.Partial:
			e.Stamp = incomplete
		}
		entries = append(entries, e)
	}
	ix.mu.Lock()
	if len(add) > 0 {
		merged := maps.Clone(ix.reg)
		maps.Copy(merged, add)
		ix.reg = merged
	}
	ix.gen = gen
	ix.mu.Unlock()
	if err := ix.persist(gen, entries); err != nil {
		return fmt.Errorf("index: write stamps: %w", err)
	}
	ix.carry = nil
	removeJournal(ix.dir)
	return nil
}

// batches counts the batches Apply committed (for tests).
var batches atomic.Int64

// docBytes estimates the text of a doc that a batch holds while bleve
// analyzes it.
func docBytes(d *Doc) int {
	n := len(d.ID) + len(d.Path) + len(d.Title) + len(d.Description) + len(d.Body) + 64
	for _, v := range d.Text {
		n += len(v)
	}
	for _, vs := range d.Keywords {
		for _, v := range vs {
			n += len(v)
		}
	}
	for _, v := range d.Links {
		n += len(v)
	}
	return n
}

// docsOfPath lists the ids of the docs whose path field is path.
func docsOfPath(r bindex.IndexReader, path string) ([]string, error) {
	tfr, err := r.TermFieldReader(context.Background(), []byte(path), fPath, false, false, false)
	if err != nil {
		return nil, err
	}
	defer tfr.Close()
	var ids []string
	var tfd bindex.TermFieldDoc
	for {
		next, err := tfr.Next(&tfd)
		if err != nil {
			return nil, err
		}
		if next == nil {
			return ids, nil
		}
		id, err := r.ExternalID(next.ID)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
		tfd.Reset()
	}
}

// Get returns the stored fields of one doc.
func (ix *Index) Get(id string) (*Doc, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.bi == nil {
		return nil, false
	}
	var d *Doc
	err := guard(func() error {
		bd, err := ix.bi.Document(id)
		if err != nil || bd == nil {
			return err
		}
		d = &Doc{ID: id}
		bd.VisitFields(func(f bindex.Field) {
			var typ byte
			switch f.(type) {
			case *document.TextField:
				typ = 't'
			case *document.NumericField:
				typ = 'n'
			case *document.DateTimeField:
				typ = 'd'
			default:
				return
			}
			ix.decodeField(d, f.Name(), typ, f.Value())
		})
		return nil
	})
	if err != nil || d == nil {
		return nil, false
	}
	return d, true
}

// DefaultAllFields are the stored fields All returns when given none.
var DefaultAllFields = []string{fPath, fLayer, fType, fTitle, fTags, fLinks}

// All returns every doc with only the given stored fields filled (field
// names as in queries: path, layer, type, title, description, body, tags,
// links, lifecycle, status, created, updated, session, seq, or a dynamic
// field); ID is always set. Without fields it returns DefaultAllFields. It
// reads the stored fields segment by segment, without search machinery.
func (ix *Index) All(fields ...string) ([]Doc, error) { return ix.AllOf(nil, fields...) }

// AllOf is All for the docs of the given layers only (every layer when
// none): the others are visited but not kept, so a listing of the notes
// of a KB with a million trace turns holds only the notes.
func (ix *Index) AllOf(layers []string, fields ...string) ([]Doc, error) {
	return ix.AllWhere(layers, nil, fields...)
}

// AllWhere is AllOf for the docs whose id keep accepts (every doc when
// keep is nil): the others' stored fields are not decoded, so that a
// caller reads a large index a part at a time in bounded memory.
func (ix *Index) AllWhere(layers []string, keepID func(id string) bool, fields ...string) ([]Doc, error) {
	if len(fields) == 0 {
		fields = DefaultAllFields
	}
	keep := func(d *Doc) bool { return len(layers) == 0 || slices.Contains(layers, d.Layer) }
	if len(layers) > 0 && !slices.Contains(fields, fLayer) {
		fields = append(slices.Clone(fields), fLayer)
	}
	want := make(map[string]bool, len(fields))
	for _, f := range fields {
		want[f] = true
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.bi == nil {
		return nil, ErrClosed
	}
	var out []Doc
	err := ix.inSnapshot(func(snap *scorch.IndexSnapshot) error {
		n, err := snap.DocCount()
		if err != nil {
			return err
		}
		if len(layers) == 0 {
			out = make([]Doc, 0, n)
		}
		// Keyword values repeat (layer, type, tags, path of trace turns):
		// intern them, which saves most allocations of a 100k-doc listing.
		pool := map[string]string{}
		intern := func(val []byte) string {
			if s, ok := pool[string(val)]; ok {
				return s
			}
			s := string(val)
			pool[s] = s
			return s
		}
		for _, seg := range snap.Segments() {
			drop := mappedFile(seg.Segment())
			it := seg.DocNumbersLive().Iterator()
			for n := 1; it.HasNext(); n++ {
				if n%dropEvery == 0 {
					fsx.DropMapped(drop)
				}
				num := uint64(it.Next())
				if keepID != nil {
					// The id alone first: the others' stored fields are
					// not decoded. Not a visitor that stops at _id: zapx
					// then returns its decoding context to its sync.Pool
					// twice, and two readers after it (a listing, bleve's
					// merger) share one buffer and cursor, reading
					// documents without their fields.
					id, err := seg.DocID(num)
					if err != nil {
						return err
					}
					if !keepID(string(id)) {
						continue
					}
				}
				var d Doc
				err := seg.VisitDocument(num, func(name string, typ byte, val []byte, _ []uint64) bool {
					switch {
					case name == "_id":
						d.ID = string(val)
					case !want[name]:
					case typ == 't' && name != fTitle && name != fDescription && name != fBody:
						ix.setText(&d, name, intern(val))
					default:
						ix.decodeField(&d, name, typ, val)
					}
					return true
				})
				if err != nil {
					return err
				}
				if keep(&d) {
					out = append(out, d)
				}
			}
			fsx.DropMapped(drop)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("index: all: %w", err)
	}
	return out, nil
}

// ReleaseMappedEvery releases the pages of the index's mapped segments
// (fsx.DropMapped) every interval until the returned stop is called: while
// a large sync's merges and a compile read most of the index, pages read
// once would otherwise stay counted in the process's RSS (at 100,000 notes,
// a merge at the end of kb index took it from ~60 to ~430 MB of the
// segments). The pages stay in the page cache: what reads them again
// maps them again. stop waits for a release under way.
func (ix *Index) ReleaseMappedEvery(interval time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				ix.releaseMapped()
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done); wg.Wait() }) }
}

// releaseMapped releases the pages of the segments of the current
// snapshot, which the reader keeps mapped meanwhile.
func (ix *Index) releaseMapped() {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.bi == nil {
		return
	}
	_ = ix.inSnapshot(func(snap *scorch.IndexSnapshot) error {
		for _, seg := range snap.Segments() {
			fsx.DropMapped(mappedFile(seg.Segment()))
		}
		return nil
	})
}

// inSnapshot calls fn with a snapshot of the open index's segments, which
// stay mapped until it returns (guarded: a bleve panic is an error).
// Callers hold ix.mu and have checked ix.bi.
func (ix *Index) inSnapshot(fn func(*scorch.IndexSnapshot) error) error {
	return guard(func() error {
		adv, err := ix.bi.Advanced()
		if err != nil {
			return err
		}
		r, err := adv.Reader()
		if err != nil {
			return err
		}
		defer r.Close()
		snap, ok := r.(*scorch.IndexSnapshot)
		if !ok {
			return fmt.Errorf("unexpected bleve reader %T", r)
		}
		return fn(snap)
	})
}

// dropEvery is the number of documents AllWhere reads from a segment
// between two releases of the segment's mapped pages (fsx.DropMapped):
// a listing of every stored body at 100,000 notes otherwise left 320 MB
// of bleve's files counted in the process's RSS.
const dropEvery = 4096

// mappedFile is the memory map of a segment persisted in a file, nil for
// one in memory (whose bytes are the heap's, not to be released).
func mappedFile(seg any) []byte {
	if z, ok := seg.(interface {
		Path() string
		Data() []byte
	}); ok && z.Path() != "" {
		return z.Data()
	}
	return nil
}

// decodeField sets one stored field on d. Callers hold ix.mu.
func (ix *Index) decodeField(d *Doc, name string, typ byte, val []byte) {
	switch typ {
	case 't':
		ix.setText(d, name, string(val))
	case 'n':
		v, err := document.NewNumericFieldFromBytes(name, nil, val).Number()
		if err != nil {
			return
		}
		if name == fSeq {
			d.Seq = int(v)
		} else if name == fTruncated {
			d.Truncated = int64(v)
		} else if ix.reg[name] == kindNum {
			if d.Num == nil {
				d.Num = map[string]float64{}
			}
			d.Num[name] = v
		}
	case 'd':
		t, _, err := document.NewDateTimeFieldFromBytes(name, nil, val).DateTime()
		if err != nil {
			return
		}
		switch name {
		case fCreated:
			d.Created = t
		case fUpdated:
			d.Updated = t
		}
	}
}

// setText sets one stored text or keyword field on d.
func (ix *Index) setText(d *Doc, name, s string) {
	switch name {
	case fPath:
		d.Path = s
	case fLayer:
		d.Layer = s
	case fType:
		d.Type = s
	case fTitle:
		d.Title = s
	case fDescription:
		d.Description = s
	case fBody:
		d.Body = s
	case fTags:
		d.Tags = append(d.Tags, s)
	case fLifecycle:
		d.Lifecycle = s
	case fStatus:
		d.Status = s
	case fSession:
		d.Session = s
	case fLinks:
		d.Links = append(d.Links, s)
	default:
		switch ix.reg[name] {
		case kindText:
			if d.Text == nil {
				d.Text = map[string]string{}
			}
			d.Text[name] = s
		case kindKeyword:
			if d.Keywords == nil {
				d.Keywords = map[string][]string{}
			}
			d.Keywords[name] = append(d.Keywords[name], s)
		}
	}
}

// guard runs f, turning a panic inside bleve (a corrupt segment read
// lazily) into an error that tells the user how to recover.
func guard(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w (bleve: %v)", ErrCorrupt, r)
		}
	}()
	return f()
}

// SetSyncMemoryLimit sets the soft memory limit (debug.SetMemoryLimit) a
// sync runs under, when the process has none of its own (GOMEMLIMIT): for
// a caller that keeps data of its own for each document loaded, which the
// collector's relaxed pace of a large sync would otherwise triple.
func (ix *Index) SetSyncMemoryLimit(n int64) { ix.syncLimit = n }
