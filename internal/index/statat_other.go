//go:build !unix

package index

import "os"

// statAt stats the file abs (name in the open directory dir) without
// following a link.
func statAt(dir *os.File, name, abs string) (Stamp, bool) {
	info, err := os.Lstat(abs)
	if err != nil || !info.Mode().IsRegular() {
		return Stamp{}, false
	}
	return Stamp{Mtime: info.ModTime().UnixNano(), Size: info.Size()}, true
}

// oNoFollow is 0 where open has no O_NOFOLLOW.
const oNoFollow = 0
