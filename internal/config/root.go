package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kbmem/kb/internal/fsx"
)

// Where a KB keeps things, relative to its root.
const (
	// File names the file that marks a KB root.
	File = "kb.yaml"
	// DefaultDir is where `kb init` puts a KB inside a git work tree.
	DefaultDir = ".kb"
	// IndexDir holds the derived search index and the activation index.
	IndexDir = ".index"
	// StateDir holds local state (git-ignored): locks, logs, queues.
	StateDir = ".state"
)

// ErrNoConfig is returned by Load for a directory without kb.yaml.
var ErrNoConfig = errors.New("no " + File)

// RootAt is the KB root at dir: dir itself when it holds kb.yaml, else
// dir/.kb when that does.
func RootAt(dir string) (string, bool) {
	if IsRoot(dir) {
		return dir, true
	}
	if sub := filepath.Join(dir, DefaultDir); IsRoot(sub) {
		return sub, true
	}
	return "", false
}

// IsRoot reports whether dir holds kb.yaml.
func IsRoot(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, File))
	return err == nil && st.Mode().IsRegular()
}

// Load reads and parses the kb.yaml of the KB at root (ParseConfig), read
// through the KB's tree (a kb.yaml that is a symlink out of it is refused).
// A parse error is an *Error with the file's path.
func Load(root string) (Config, error) {
	path := filepath.Join(root, File)
	b, err := (fsx.Tree{Root: root}).ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Config{}, ErrNoConfig
	}
	if err != nil {
		return Config{}, err
	}
	c, err := ParseConfig(b)
	var ce *Error
	if errors.As(err, &ce) {
		ce.Path = path
	}
	return c, err
}
