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
