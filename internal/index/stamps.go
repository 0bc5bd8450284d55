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

// stamps file format (little endian, varints from encoding/binary):
//
//	"KBSTAMP1" | uvarint gen | uvarint count | count × (uvarint len, path, varint mtime, varint size) | crc32 (IEEE) of all previous bytes
const stampMagic = "KBSTAMP1"

func encodeStamps(gen uint64, m map[string]Stamp) []byte {
	size := len(stampMagic) + 2*binary.MaxVarintLen64 + 4
	for p := range m {
		size += len(p) + 3*binary.MaxVarintLen64
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
	}
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

var errStampsCorrupt = errors.New("stamps file corrupt")

func decodeStamps(b []byte) (gen uint64, m map[string]Stamp, err error) {
	if len(b) < len(stampMagic)+4 || string(b[:len(stampMagic)]) != stampMagic {
		return 0, nil, fmt.Errorf("%w: bad header", errStampsCorrupt)
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return 0, nil, fmt.Errorf("%w: checksum mismatch", errStampsCorrupt)
	}
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
		return 0, nil, err
	}
	if count > uint64(len(r)) { // every entry takes at least 3 bytes
		return 0, nil, fmt.Errorf("%w: count %d exceeds data", errStampsCorrupt, count)
	}
	m = make(map[string]Stamp, count)
	for i := uint64(0); i < count && err == nil; i++ {
		n := uv()
		if err != nil {
			break
		}
		if n > uint64(len(r)) {
			return 0, nil, fmt.Errorf("%w: path length %d exceeds data", errStampsCorrupt, n)
		}
		p := all[off : off+int(n)]
		r, off = r[n:], off+int(n)
		s := Stamp{Mtime: sv(), Size: sv()}
		m[p] = s
	}
	if err != nil {
		return 0, nil, err
	}
	if len(r) != 0 {
		return 0, nil, fmt.Errorf("%w: %d trailing bytes", errStampsCorrupt, len(r))
	}
	return gen, m, nil
}

func readStamps(path string) (uint64, map[string]Stamp, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, nil, err
	}
	return decodeStamps(b)
}

func writeStamps(path string, gen uint64, m map[string]Stamp) error {
	return fsx.WriteFile(path, encodeStamps(gen, m), 0o644)
}
