package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kbmem/kb/internal/diag"
	"github.com/kbmem/kb/internal/fsx"
)

// Scanned is what Scan found.
type Scanned struct {
	Files   []File
	Skipped []diag.Problem
	Dirs    map[string]int64
}

// OpenScanned opens the index at dir (Open) while Scan walks the layers:
// every read command pays both, and they are independent, so they overlap.
func OpenScanned(dir string, so ScanOptions) (*Index, OpenInfo, Scanned, error) {
	ch := make(chan Scanned, 1)
	go func() {
		f, skipped, dirs := Scan(so)
		ch <- Scanned{f, skipped, dirs}
	}()
	ix, info, err := Open(dir)
	sc := <-ch
	return ix, info, sc, err
}

// Dir is the index directory name under root, refused when it is a
// symlink: kb creates it as a directory of its own, so a link there
// (committed by a cloned repository, say) would make bleve write wherever
// it points.
func Dir(tree fsx.Tree, root, name string) (string, error) {
	dir := filepath.Join(root, name)
	if _, err := tree.Resolve(dir); err != nil {
		return "", err // names the link out of the KB
	}
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(dir)
		return "", fmt.Errorf("%s is a symlink to %s: kb keeps its index in a directory of its own and does not follow it (remove the link; kb doctor --fix does)", name, target)
	}
	return dir, nil
}

// SymlinkSkipMsg is a ScanOptions.SymlinkMsg over tree: why a symlink in
// the layers is not read, and where it leads.
func SymlinkSkipMsg(tree fsx.Tree) func(abs string) string {
	return func(abs string) string {
		target, _ := os.Readlink(abs)
		if _, err := tree.Resolve(abs); errors.Is(err, fsx.ErrOutsideRoot) {
			return fmt.Sprintf("a symlink to %s, outside the KB: not followed (kb never reads through a link out of the KB)", target)
		}
		return fmt.Sprintf("a symlink (to %s): not followed (kb reads the layers' own files only; put the file itself here)", target)
	}
}
