//go:build !unix

package fsx

import "os"

// oNoFollow is 0 where open has no O_NOFOLLOW: OpenNoFollow checks with
// Lstat instead, and Tree resolves every link before opening.
const oNoFollow = 0

// sameDevice cannot tell without Stat_t: temp files go beside their
// target, and `kb doctor` cleans those an interrupted write leaves.
func sameDevice(a, b string) bool { return false }

// DropMapped does nothing where files are read, not mapped.
func DropMapped(b []byte) {}

// MapFile reads the file at path (no memory map on this system); the
// returned function does nothing.
func MapFile(path string) ([]byte, func() error, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return b, func() error { return nil }, nil
}
