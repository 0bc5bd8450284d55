package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"

	"github.com/kbmem/kb/internal/failpoint"
	"github.com/kbmem/kb/internal/fsx"
)

// stampLogFile, in the index directory, holds the stamps each Apply changed
// since the stamps file was last written whole: an Apply that changes a few
// files appends their entries (one record, fsynced) instead of rewriting the
// stamps of every file (5 MB at 100,000 files). The stamps an index holds
// are the stamps file's with the log's records applied in order.
//
// The log is bound to one stamps file: its header repeats that file's
// generation and checksum, and a log whose header does not match the
// stamps file is ignored (a crash between writing a new stamps file and
// removing the old log leaves one; the new stamps file already holds all of
// it). Each record carries the generation of its Apply, which follows the
// previous one's (the stamps file's for the first); reading stops at the
// first record that is torn (a crash during its append), fails its
// checksum, or does not follow. What was read then ends one generation
// behind bleve's at most, which Open resumes from the journal like any
// Apply whose stamps were not written; anything else is an unexplained
// mismatch, and the index is rebuilt. A writer cuts such a tail off before
// it appends.
//
// When the log holds more entries than a fraction of the stamps file's
// (stampLogMax), the next Apply writes the stamps file whole (with
// internal/fsx, atomically) and removes the log: compaction. A rebuild
// starts without one.
const stampLogFile = "stamps.log"

// failStampLog is the failpoint of an append to the stamps log (a short
// write: internal/failpoint).
const failStampLog = "index.stamplog"

// stamps log format (little endian, varints from encoding/binary):
//
//	header = "KBSTLOG1" | uint64 generation of the stamps file | uint32 its crc32
//	record = uvarint len | payload (len bytes) | crc32 (IEEE) of payload
//	payload = uvarint gen | uvarint count | count × entry
//	entry = byte op | uvarint len, path | if op is 0: varint mtime, varint size, uvarint done, uvarint lines, uvarint tail
//
// op 0 sets the file's stamp and progress (as in the stamps file), op 1
// removes the file.
const (
	stampLogMagic  = "KBSTLOG1"
	stampLogHeader = len(stampLogMagic) + 8 + 4
	opSet          = 0
	opRemove       = 1
)

// stampLogMax is how many entries the log may hold over a stamps file of
// base entries before it is compacted: reading the log costs about what
// decoding as many stamps does, so an open reads at most an eighth more
// than the stamps file, and the stamps file is rewritten after so many
// changed files (a growing index rewrites it at geometric intervals, not
// per Apply).
func stampLogMax(base int) int { return max(stampLogMin, base/8) }

// stampLogMin is the smallest bound of stampLogMax (a var for tests).
var stampLogMin = 2048

// stampEntry is one file's entry in a log record: its stamp and progress,
// or its removal.
type stampEntry struct {
	Path    string
	Removed bool
	Stamp   Stamp
	Prog    Progress
}

// stampRecord is the stamps one Apply changed.
type stampRecord struct {
	Gen     uint64
	Entries []stampEntry
}

var errStampLogCorrupt = errors.New("stamps log corrupt")

func stampLogHeaderOf(baseGen uint64, baseSum uint32) []byte {
	b := make([]byte, 0, stampLogHeader)
	b = append(b, stampLogMagic...)
	b = binary.LittleEndian.AppendUint64(b, baseGen)
	return binary.LittleEndian.AppendUint32(b, baseSum)
}

// appendStampRecord appends the encoding of rec to b.
func appendStampRecord(b []byte, rec stampRecord) []byte {
	n := 2 * binary.MaxVarintLen64
	for _, e := range rec.Entries {
		n += 1 + len(e.Path) + 6*binary.MaxVarintLen64
	}
	p := make([]byte, 0, n)
	p = binary.AppendUvarint(p, rec.Gen)
	p = binary.AppendUvarint(p, uint64(len(rec.Entries)))
	for _, e := range rec.Entries {
		op := byte(opSet)
		if e.Removed {
			op = opRemove
		}
		p = append(p, op)
		p = binary.AppendUvarint(p, uint64(len(e.Path)))
		p = append(p, e.Path...)
		if e.Removed {
			continue
		}
		p = binary.AppendVarint(p, e.Stamp.Mtime)
		p = binary.AppendVarint(p, e.Stamp.Size)
		p = binary.AppendUvarint(p, uint64(max(e.Prog.Done, 0)))
		p = binary.AppendUvarint(p, uint64(max(e.Prog.Lines, 0)))
		p = binary.AppendUvarint(p, uint64(e.Prog.Tail))
	}
	b = binary.AppendUvarint(b, uint64(len(p)))
	b = append(b, p...)
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(p))
}

// parseStampLog reads a stamps log that extends the stamps file of
// generation baseGen and checksum baseSum. It returns the records that
// follow one another from baseGen on, and valid, the length of the prefix
// of b they take (with the header); bound is false when b is not a log of
// that stamps file (another header, or too short for one), and then there
// are no records. Whatever follows valid (a torn or corrupt record, one
// out of sequence, and all after it) is not read.
func parseStampLog(b []byte, baseGen uint64, baseSum uint32) (recs []stampRecord, valid int, bound bool) {
	if len(b) < stampLogHeader || string(b[:stampLogHeader]) != string(stampLogHeaderOf(baseGen, baseSum)) {
		return nil, 0, false
	}
	off, gen := stampLogHeader, baseGen
	for off < len(b) {
		n, k := binary.Uvarint(b[off:])
		if k <= 0 || n > uint64(len(b)-off-k) || uint64(len(b)-off-k)-n < 4 {
			break // torn: the record does not fit
		}
		p := b[off+k : off+k+int(n)]
		if crc32.ChecksumIEEE(p) != binary.LittleEndian.Uint32(b[off+k+int(n):]) {
			break
		}
		rec, err := decodeStampPayload(p)
		if err != nil || rec.Gen != gen+1 {
			break
		}
		recs = append(recs, rec)
		gen = rec.Gen
		off += k + int(n) + 4
	}
	return recs, off, true
}

// decodeStampPayload decodes one record's payload (checksum verified).
func decodeStampPayload(p []byte) (rec stampRecord, err error) {
	bad := func(what string) (stampRecord, error) {
		return stampRecord{}, fmt.Errorf("%w: %s", errStampLogCorrupt, what)
	}
	r := varints{b: p}
	rec.Gen = r.uv()
	count := r.uv()
	if r.bad || count > uint64(len(r.b)) { // an entry takes at least 2 bytes
		return bad("entry count exceeds data")
	}
	if count > 0 {
		rec.Entries = make([]stampEntry, 0, count)
	}
	for range count {
		if len(r.b) == 0 || r.b[0] > opRemove {
			return bad("unknown entry")
		}
		e := stampEntry{Removed: r.b[0] == opRemove}
		r.b = r.b[1:]
		path, ok := r.bytes()
		if !ok {
			return bad("path length exceeds data")
		}
		e.Path = string(path)
		if !e.Removed {
			e.Stamp, e.Prog, ok = r.stamp()
			if !ok {
				return bad(fmt.Sprintf("stamp of %q truncated or out of range", e.Path))
			}
		}
		rec.Entries = append(rec.Entries, e)
	}
	if len(r.b) != 0 {
		return bad("trailing bytes")
	}
	return rec, nil
}

// varints reads the varints of the stamps formats off the front of b;
// bad is set once one is truncated.
type varints struct {
	b   []byte
	bad bool
}

func (r *varints) uv() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.bad, r.b = true, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *varints) sv() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.bad, r.b = true, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

// bytes reads a length-prefixed string (a slice of b).
func (r *varints) bytes() ([]byte, bool) {
	n := r.uv()
	if r.bad || n > uint64(len(r.b)) {
		r.bad = true
		return nil, false
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p, true
}

// stamp reads an entry's stamp and progress (the stamps file's layout).
func (r *varints) stamp() (Stamp, Progress, bool) {
	st := Stamp{Mtime: r.sv(), Size: r.sv()}
	done, lines, tail := r.uv(), r.uv(), r.uv()
	if r.bad || done > 1<<62 || lines > 1<<62 || tail > 1<<32-1 {
		return Stamp{}, Progress{}, false
	}
	return st, Progress{Done: int64(done), Lines: int64(lines), Tail: uint32(tail)}, true
}

// stampSet is the stamps of an index as read (readStampSet) and kept in
// step by Apply: the stamps file, decoded only when every stamp is needed
// (a sync of a few changed paths looks up a few), and the log's entries
// over it. Not safe for concurrent use; Index guards it with ix.mu.
type stampSet struct {
	gen uint64 // generation of the last record, or of the stamps file
	// base is the stamps file (its checksum verified), undecoded; nil once
	// decoded into stamps and prog, or for a stamps file written by this
	// process.
	base    []byte
	baseGen uint64
	baseSum uint32 // the stamps file's checksum (its last 4 bytes)
	baseN   int    // entries of the stamps file
	// over holds, while base is undecoded, the entries the log and this
	// process's Applies set over it, and the stamps looked up in base
	// (found, or a removal entry for a path it does not have).
	over map[string]stampEntry
	// stamps and prog are every stamp (base and over), once decoded.
	stamps map[string]Stamp
	prog   map[string]Progress
	// logSize is the length of the log's valid prefix (0: no log, or one
	// to remove), logEntries the entries its records hold; logTail is set
	// when the file holds more than that prefix (a torn or stale tail,
	// or another stamps file's log), which a writer removes first.
	logSize    int64
	logEntries int
	logTail    bool
	// behind is set when writing the stamps failed: the disk is then
	// behind memory by more than a record can say, and the next write is
	// of the stamps file whole.
	behind bool
	// release unmaps base (readStampSet), once; nil when base is not a
	// mapping.
	release func()
}

// newStampSet is the stamps of an empty index just created, whose stamps
// file (b) was written.
func newStampSet(b []byte) *stampSet {
	return &stampSet{baseSum: binary.LittleEndian.Uint32(b[len(b)-4:]), stamps: map[string]Stamp{}, prog: map[string]Progress{}}
}

// readStampSet reads the stamps file of the index in dir and the log over
// it. Errors are those of the stamps file (fs.ErrNotExist, errStampsCorrupt,
// I/O), and errStampsCorrupt for a log that is not a readable file; what
// the log holds cannot make it fail, only end early.
//
// The stamps file is mapped, not read: a command that opens the index
// looks up a few stamps, or none, and at 100,000 files reading its 5 MB
// into fresh memory was 17 of a search's 100 ms. The mapping lasts while
// base is undecoded; decode (which copies what it keeps) and the set
// becoming unreachable unmap it.
func readStampSet(dir string) (*stampSet, error) {
	b, unmap, err := fsx.MapFile(filepath.Join(dir, stampsFile))
	if err != nil {
		return nil, err
	}
	release := sync.OnceFunc(func() { _ = unmap() })
	gen, count, err := stampsHead(b)
	if err != nil {
		release()
		return nil, err
	}
	s := &stampSet{gen: gen, base: b, baseGen: gen, baseSum: binary.LittleEndian.Uint32(b[len(b)-4:]), baseN: int(count), over: map[string]stampEntry{},
		release: release}
	runtime.AddCleanup(s, func(release func()) { release() }, release)
	lb, err := os.ReadFile(filepath.Join(dir, stampLogFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return s, nil
	case errors.Is(err, fs.ErrPermission):
		return nil, err
	case err != nil:
		// Not a file (a directory, say): derived data, rebuilt.
		return nil, fmt.Errorf("%w: %s unreadable: %v", errStampsCorrupt, stampLogFile, err)
	}
	recs, valid, bound := parseStampLog(lb, s.baseGen, s.baseSum)
	for _, r := range recs {
		for _, e := range r.Entries {
			s.over[e.Path] = e
		}
		s.logEntries += len(r.Entries)
		s.gen = r.Gen
	}
	if bound {
		s.logSize = int64(valid)
	}
	s.logTail = valid < len(lb)
	return s, nil
}

// decoded reports whether every stamp is in stamps and prog.
func (s *stampSet) decoded() bool { return s.stamps != nil }

// decode decodes the stamps file and applies the entries over it.
func (s *stampSet) decode() {
	if s.decoded() {
		return
	}
	// The checksum was verified when the file was read: a failure here is
	// a bug, seen as an index without those files.
	s.stamps, s.prog = map[string]Stamp{}, map[string]Progress{}
	if s.base != nil {
		if _, m, p, err := decodeStamps(s.base); err == nil {
			s.stamps, s.prog = m, p
		}
	}
	for p, e := range s.over {
		s.apply(p, e)
	}
	s.base, s.over = nil, nil
	if s.release != nil {
		s.release() // decodeStamps copied what it keeps
	}
}

// apply sets one entry into the decoded stamps.
func (s *stampSet) apply(p string, e stampEntry) {
	switch {
	case e.Removed:
		delete(s.stamps, p)
		delete(s.prog, p)
	default:
		s.stamps[p] = e.Stamp
		if e.Prog != (Progress{}) {
			s.prog[p] = e.Prog
		} else {
			delete(s.prog, p)
		}
	}
}

// set records a file's new entry (e.Path), in memory.
func (s *stampSet) set(e stampEntry) {
	if s.decoded() {
		s.apply(e.Path, e)
		return
	}
	s.over[e.Path] = e
}

// lookup returns the stamp and progress of the file p.
func (s *stampSet) lookup(p string) (Stamp, Progress, bool) {
	if s.decoded() {
		st, ok := s.stamps[p]
		return st, s.prog[p], ok
	}
	s.find([]string{p})
	e := s.over[p]
	return e.Stamp, e.Prog, !e.Removed
}

// find looks up in the stamps file the paths that over does not hold yet
// (one pass over its entries, without decoding them into a map), and
// records what it found in over.
func (s *stampSet) find(paths []string) {
	if s.decoded() {
		return
	}
	want := map[string]bool{}
	for _, p := range paths {
		if _, ok := s.over[p]; !ok {
			want[p] = true
		}
	}
	if len(want) == 0 {
		return
	}
	if s.base != nil {
		scanStamps(s.base, func(path []byte, st Stamp, pr Progress) bool {
			if want[string(path)] {
				p := string(path)
				s.over[p] = stampEntry{Path: p, Stamp: st, Prog: pr}
				delete(want, p)
			}
			return len(want) > 0
		})
		runtime.KeepAlive(s) // base is mapped while s is reachable
	}
	for p := range want {
		s.over[p] = stampEntry{Path: p, Removed: true}
	}
}

// all decodes every stamp and returns them (not copies).
func (s *stampSet) all() (map[string]Stamp, map[string]Progress) {
	s.decode()
	return s.stamps, s.prog
}

// count is the number of stamps, decoding them.
func (s *stampSet) count() int { s.decode(); return len(s.stamps) }

// logFull reports whether n more entries would take the log past
// stampLogMax, or a failed write left the disk behind memory: the stamps
// file is then written whole.
func (s *stampSet) logFull(n int) bool {
	return s.behind || s.logEntries+n > stampLogMax(s.baseN)
}

// snapshot decodes every stamp and encodes them as a stamps file.
func (s *stampSet) snapshot() []byte {
	s.decode()
	return encodeStamps(s.gen, s.stamps, s.prog)
}

// appendRecord appends rec to the log in dir (created, with its header,
// when s has none): one write and an fsync. A tail left by a crash (or the
// log of another stamps file) is cut off first, so that the record follows
// the valid ones. Only the log's bookkeeping in s changes.
func (s *stampSet) appendRecord(dir string, rec stampRecord) (err error) {
	defer func() {
		if err != nil {
			s.behind, s.logTail = true, true
		}
	}()
	var b []byte
	flags := os.O_WRONLY | os.O_CREATE | oNoFollow
	if s.logSize == 0 {
		b = stampLogHeaderOf(s.baseGen, s.baseSum)
		flags |= os.O_TRUNC // another stamps file's log, or a torn header
	}
	b = appendStampRecord(b, rec)
	f, err := os.OpenFile(filepath.Join(dir, stampLogFile), flags, 0o644)
	if err != nil {
		return err
	}
	if s.logTail && s.logSize > 0 {
		err = f.Truncate(s.logSize)
	}
	if err == nil {
		if n, short := failpoint.ShortWrite(failStampLog, len(b)); short {
			_, err = f.WriteAt(b[:n], s.logSize) // a full disk, half-way
			err = errors.Join(err, fmt.Errorf("write %s: %w (failpoint %s)", stampLogFile, syscall.ENOSPC, failStampLog))
		} else {
			_, err = f.WriteAt(b, s.logSize)
		}
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	created := s.logSize == 0
	s.logSize += int64(len(b))
	s.logEntries += len(rec.Entries)
	s.logTail = false
	if created {
		return fsx.SyncDir(dir) // the log's name
	}
	return nil
}

// writeSnapshot writes data (snapshot's) as the stamps file in dir,
// atomically, and removes the log, which it now holds. A crash in between
// leaves a log whose header names the previous stamps file: ignored, and
// replaced by the next append.
func (s *stampSet) writeSnapshot(dir string, data []byte) error {
	if err := fsx.WriteFile(filepath.Join(dir, stampsFile), data, 0o644); err != nil {
		s.behind = true
		return err
	}
	gen, n, _ := stampsHead(data)
	s.baseGen, s.baseSum, s.baseN = gen, binary.LittleEndian.Uint32(data[len(data)-4:]), int(n)
	s.logSize, s.logEntries, s.behind = 0, 0, false
	err := os.Remove(filepath.Join(dir, stampLogFile))
	s.logTail = err != nil && !errors.Is(err, fs.ErrNotExist)
	return nil
}

// stampsHead checks a stamps file's header and checksum and returns its
// generation and entry count, without decoding the entries.
func stampsHead(b []byte) (gen, count uint64, err error) {
	if len(b) < len(stampMagic)+4 || string(b[:len(stampMagic)]) != stampMagic {
		return 0, 0, fmt.Errorf("%w: bad header", errStampsCorrupt)
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return 0, 0, fmt.Errorf("%w: checksum mismatch", errStampsCorrupt)
	}
	r := body[len(stampMagic):]
	gen, n := binary.Uvarint(r)
	if n <= 0 {
		return 0, 0, fmt.Errorf("%w: truncated varint", errStampsCorrupt)
	}
	count, m := binary.Uvarint(r[n:])
	if m <= 0 {
		return 0, 0, fmt.Errorf("%w: truncated varint", errStampsCorrupt)
	}
	return gen, count, nil
}

// scanStamps calls visit with each entry of a stamps file (checksum
// verified), until visit returns false. The path is a slice of b: it
// allocates nothing for the entries it only passes.
func scanStamps(b []byte, visit func(path []byte, st Stamp, pr Progress) bool) {
	r := varints{b: b[len(stampMagic) : len(b)-4]}
	r.uv() // generation
	count := r.uv()
	for i := uint64(0); i < count && !r.bad; i++ {
		path, ok := r.bytes()
		st, pr, ok2 := r.stamp()
		if !ok || !ok2 || !visit(path, st, pr) {
			return
		}
	}
}
