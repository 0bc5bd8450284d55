package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"

	"github.com/kbmem/kb/internal/fsx"
)

// Stamp identifies the version of a source file that was indexed.
type Stamp struct {
	Mtime int64 // modification time, UnixNano
	Size  int64
}

// incomplete is the stamp of a file whose docs are only partly indexed (a
// file indexed in parts, or one whose update was interrupted): it matches
// no file, so the next sync takes the file up again.
var incomplete = Stamp{Mtime: -1, Size: -1}

// Progress records how far an append-only file (a trace session) is
// indexed, so that the next sync reads only what was appended since, and an
// interrupted one continues where it stopped.
type Progress struct {
	// Done is the number of bytes of the file whose docs are indexed: the
	// end of the last complete line read.
	Done int64
	// Lines is the number of lines before Done (for line numbers in the
	// problems found past it).
	Lines int64
	// Tail is a checksum of the bytes just before Done, chosen by the
	// caller, which tells a file that grew from one that was rewritten.
	Tail uint32
}

// stamps file format (little endian, varints from encoding/binary):
//
//	"KBSTAMP2" | uvarint gen | uvarint count | count × entry | crc32 (IEEE) of all previous bytes
//	entry = uvarint len, path, varint mtime, varint size, uvarint done, uvarint lines, uvarint tail
//
// done, lines and tail are the file's Progress (0 for files indexed whole).
const stampMagic = "KBSTAMP2"

func encodeStamps(gen uint64, m map[string]Stamp, prog map[string]Progress) []byte {
	size := len(stampMagic) + 2*binary.MaxVarintLen64 + 4
	for p := range m {
		size += len(p) + 6*binary.MaxVarintLen64
	}
	b := make([]byte, 0, size)
	b = append(b, stampMagic...)
	b = binary.AppendUvarint(b, gen)
	b = binary.AppendUvarint(b, uint64(len(m)))
	for p, s := range m { // map order: the file is not meant to be diffed
		b = binary.AppendUvarint(b, uint64(len(p)))
		b = append(b, p...)
		b = binary.AppendVarint(b, s.Mtime)
		b = binary.AppendVarint(b, s.Size)
		pr := prog[p]
		b = binary.AppendUvarint(b, uint64(max(pr.Done, 0)))
		b = binary.AppendUvarint(b, uint64(max(pr.Lines, 0)))
		b = binary.AppendUvarint(b, uint64(pr.Tail))
	}
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

var errStampsCorrupt = errors.New("stamps file corrupt")

func decodeStamps(b []byte) (gen uint64, m map[string]Stamp, prog map[string]Progress, err error) {
	if _, _, err := stampsHead(b); err != nil {
		return 0, nil, nil, err
	}
	body := b[:len(b)-4]
	// One string holds every path; map keys are substrings of it, which
	// saves an allocation per file (loading 100k stamps is on the path of
	// every kb command).
	r := body[len(stampMagic):]
	all := string(r)
	off := 0 // offset of r within all
	uv := func() uint64 {
		v, n := binary.Uvarint(r)
		if n <= 0 {
			err = fmt.Errorf("%w: truncated varint", errStampsCorrupt)
			return 0
		}
		r, off = r[n:], off+n
		return v
	}
	sv := func() int64 {
		v, n := binary.Varint(r)
		if n <= 0 {
			err = fmt.Errorf("%w: truncated varint", errStampsCorrupt)
			return 0
		}
		r, off = r[n:], off+n
		return v
	}
	gen = uv()
	count := uv()
	if err != nil {
		return 0, nil, nil, err
	}
	if count > uint64(len(r)) { // every entry takes at least 6 bytes
		return 0, nil, nil, fmt.Errorf("%w: count %d exceeds data", errStampsCorrupt, count)
	}
	m = make(map[string]Stamp, count)
	prog = map[string]Progress{}
	for i := uint64(0); i < count && err == nil; i++ {
		n := uv()
		if err != nil {
			break
		}
		if n > uint64(len(r)) {
			return 0, nil, nil, fmt.Errorf("%w: path length %d exceeds data", errStampsCorrupt, n)
		}
		p := all[off : off+int(n)]
		r, off = r[n:], off+int(n)
		s := Stamp{Mtime: sv(), Size: sv()}
		done, lines, tail := uv(), uv(), uv()
		if err == nil && (done > 1<<62 || lines > 1<<62 || tail > 1<<32-1) {
			err = fmt.Errorf("%w: progress of %q out of range", errStampsCorrupt, p)
		}
		m[p] = s
		if len(m) != int(i)+1 && err == nil { // one map operation per entry, not two
			err = fmt.Errorf("%w: %q listed twice", errStampsCorrupt, p)
		}
		if pr := (Progress{Done: int64(done), Lines: int64(lines), Tail: uint32(tail)}); pr != (Progress{}) {
			prog[p] = pr
		}
	}
	if err != nil {
		return 0, nil, nil, err
	}
	if len(r) != 0 {
		return 0, nil, nil, fmt.Errorf("%w: %d trailing bytes", errStampsCorrupt, len(r))
	}
	return gen, m, prog, nil
}

func readStamps(path string) (uint64, map[string]Stamp, map[string]Progress, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, nil, nil, err
	}
	return decodeStamps(b)
}

func writeStamps(path string, gen uint64, m map[string]Stamp, prog map[string]Progress) error {
	return fsx.WriteFile(path, encodeStamps(gen, m, prog), 0o644)
}
