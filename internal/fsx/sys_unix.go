//go:build unix

package fsx

import (
	"os"
	"syscall"
)

// oNoFollow makes open fail on a symlink as the last path component.
const oNoFollow = syscall.O_NOFOLLOW

// sameDevice reports whether two existing directories are on one
// filesystem, so that a rename between them is atomic.
func sameDevice(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	if err != nil {
		return false
	}
	da, ok1 := sa.Sys().(*syscall.Stat_t)
	db, ok2 := sb.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && da.Dev == db.Dev
}

// DropMapped releases the pages of a read-only shared file mapping b from
// the process's resident set: they stay in the page cache, and the next
// read of b maps them again. A pass over a large mapped file (bleve's
// segments, a round of the activation index) would otherwise keep every
// page it touched counted in the process's RSS until the file is unmapped.
// b must be a whole MAP_SHARED file mapping as mmap returned it (a private
// or anonymous mapping would lose its contents).
func DropMapped(b []byte) {
	if len(b) > 0 {
		_ = syscall.Madvise(b, syscall.MADV_DONTNEED)
	}
}

// MapFile maps the file at path into memory, read-only and shared; the
// returned function unmaps it. An empty file is read as no bytes. The
// bytes must not be written, nor used after unmap: a read of a large file
// that is then looked at in part (the activation index, the index's stamps)
// costs the pages it touches, where os.ReadFile copies every byte into
// fresh memory (17 ms for 5 MB of stamps in a new process here, 3 ms
// mapped, checksum included).
func MapFile(path string) ([]byte, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if st.Size() == 0 || int64(int(st.Size())) != st.Size() {
		return nil, func() error { return nil }, nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return b, func() error { return syscall.Munmap(b) }, nil
}
