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
