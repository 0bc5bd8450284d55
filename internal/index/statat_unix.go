//go:build unix

package index

import (
	"os"

	"golang.org/x/sys/unix"
)

// statAt stats name in the open directory dir without following a link:
// fstatat on the directory's descriptor resolves one path component,
// where an lstat of the absolute path walks every component of it again
// (the path lookup was a fifth of Scan's kernel time at 10k files).
func statAt(dir *os.File, name, abs string) (Stamp, bool) {
	var st unix.Stat_t
	if err := unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return Stamp{}, false
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return Stamp{}, false // replaced by something else since ReadDir
	}
	sec, nsec := st.Mtim.Unix()
	return Stamp{Mtime: sec*1e9 + nsec, Size: st.Size}, true
}

// oNoFollow makes open fail on a symlink as the last path component: the
// stamps log is appended to only where kb created it.
const oNoFollow = unix.O_NOFOLLOW
