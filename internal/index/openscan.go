package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

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

// OpenScannedToRead is OpenScanned for a command that only reads: when the
// index is healthy and its stamps are exactly the files' (of the given
// layers; every layer when none), there is nothing to apply, and it opens
// the index read-only (OpenReadOnly), which starts none of bleve's
// background persister and merger (a writable open starts a merge of the
// segments the last writer left, which a short read-only command paid for
// and then abandoned at Close). Otherwise it opens the index as
// OpenScanned does, to be brought up to date. ReadOnly on the result says
// which; Apply and Reset of a read-only Index fail with ErrReadOnly.
func OpenScannedToRead(dir string, so ScanOptions, layers []string) (*Index, OpenInfo, Scanned, error) {
	ch := make(chan Scanned, 1)
	go func() {
		f, skipped, dirs := Scan(so)
		ch <- Scanned{f, skipped, dirs}
	}()
	pre, ok := cleanStamps(dir)
	sc := <-ch
	if ok && upToDateLayers(sc.Files, pre.stamps, layers) {
		// The index is opened with the stamps just compared: a writer
		// that committed since makes bleve's generation disagree with
		// them, a reason to open it to write instead.
		ix, reason, err := openExistingWith(dir, true, BusyTimeout, pre)
		if err != nil {
			return nil, OpenInfo{}, sc, err
		}
		if reason == "" {
			return ix, OpenInfo{}, sc, nil
		}
	}
	ix, info, err := Open(dir)
	return ix, info, sc, err
}

// ReadOnly reports whether the index was opened read-only.
func (ix *Index) ReadOnly() bool { return ix.readOnly }

// Gen is the index's generation: it grows with every Apply that commits,
// and a rebuild starts it over.
func (ix *Index) Gen() uint64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.gen
}

// cleanStamps reads the stamps of the index in dir when it looks healthy
// without opening bleve: the current schema and no interrupted update.
func cleanStamps(dir string) (*stampSet, bool) {
	b, err := os.ReadFile(filepath.Join(dir, schemaFile))
	if err != nil || strings.TrimSpace(string(b)) != strconv.Itoa(SchemaVersion) {
		return nil, false
	}
	if _, err := os.Lstat(filepath.Join(dir, journalFile)); err == nil {
		return nil, false
	}
	s, err := readStampSet(dir)
	if err != nil {
		return nil, false
	}
	s.decode()
	return s, true
}
