package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Snapshot is kb.yaml as Load parsed it, with the stamp of the file it
// was parsed from: a derived file (the activation index) keeps one, so
// that a process that starts on every tool call (the hook) reads the
// settings without parsing YAML while the file is unchanged, and parses
// it again, at once, when it is not.
type Snapshot struct {
	Stamp  string          `json:"stamp"`  // FileStamp of kb.yaml
	Config json.RawMessage `json:"config"` // the Config, as JSON
}

// FileStamp is kb.yaml's stamp: its size and modification time (Unix ns),
// of the file itself, not of what a symlink names (Load refuses one that
// leaves the KB); "" when there is no such file.
func FileStamp(root string) string {
	st, err := os.Lstat(filepath.Join(root, File))
	if err != nil || !st.Mode().IsRegular() {
		return ""
	}
	return fmt.Sprintf("%d:%d", st.Size(), st.ModTime().UnixNano())
}

// TakeSnapshot loads the KB's kb.yaml (Load) and returns it with its
// stamp; false when there is none to take: no kb.yaml, one that does not
// parse (a process reading the snapshot then parses it and reports the
// error), or one that changed while it was read.
func TakeSnapshot(root string) (Snapshot, bool) {
	before := FileStamp(root)
	if before == "" {
		return Snapshot{}, false
	}
	c, err := Load(root)
	if err != nil || FileStamp(root) != before {
		return Snapshot{}, false
	}
	b, err := json.Marshal(c)
	if err != nil {
		return Snapshot{}, false
	}
	return Snapshot{Stamp: before, Config: b}, true
}

// LoadSnapshot is Load(root), read from s while kb.yaml's stamp is still
// s.Stamp, and parsed from the file otherwise (s empty, a hand edit, a
// snapshot that does not decode).
func LoadSnapshot(root string, s Snapshot) (Config, error) {
	if s.Stamp != "" && len(s.Config) > 0 && FileStamp(root) == s.Stamp {
		var c Config
		if json.Unmarshal(s.Config, &c) == nil {
			return c, nil
		}
	}
	return Load(root)
}
