//go:build !unix

package fsx

// oNoFollow is 0 where open has no O_NOFOLLOW: OpenNoFollow checks with
// Lstat instead, and Tree resolves every link before opening.
const oNoFollow = 0

// sameDevice cannot tell without Stat_t: temp files go beside their
// target, and `kb doctor` cleans those an interrupted write leaves.
func sameDevice(a, b string) bool { return false }

// DropMapped does nothing where files are read, not mapped.
func DropMapped(b []byte) {}
