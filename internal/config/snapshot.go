package config

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"sync"
)

// Snapshot is kb.yaml as Load parsed it, with the stamp of the file it
// was parsed from: a derived file (the activation index) keeps one, so
// that a process that starts on every tool call (the hook) reads the
// settings without parsing YAML while the file is unchanged, and parses
// it again, at once, when it is not.
type Snapshot struct {
	Stamp string `json:"stamp"` // FileStamp of kb.yaml
	// Key is the snapshotKey of the program that took it: a program with
	// other settings or other defaults parses kb.yaml itself.
	Key    string `json:"key"`
	Config []byte `json:"config"` // the Config, in its binary form (snapcodec.go)
}

// snapshotKey identifies what a Config means to this program: the shape
// of the type (every field's name, type and yaml key, recursively) and
// the defaults it is parsed on top of. A snapshot taken by a kb of
// another version may lack a setting, or hold another default for one
// kb.yaml leaves out; its key differs.
var snapshotKey = sync.OnceValue(shapeKey)

func shapeKey() string {
	h := fnv.New64a() // no table to build: a hook computes it once a call
	put := func(s ...string) {
		for _, x := range s {
			h.Write([]byte(x))
			h.Write([]byte{0})
		}
	}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		put(t.Kind().String(), "(")
		switch t.Kind() {
		case reflect.Struct:
			for i := range t.NumField() {
				f := t.Field(i)
				put(f.Name, f.Tag.Get("yaml"))
				walk(f.Type)
			}
		case reflect.Slice, reflect.Pointer:
			walk(t.Elem())
		case reflect.Map:
			walk(t.Key())
			walk(t.Elem())
		default:
			put(t.String())
		}
		put(")")
	}
	put("binary 1") // the form the Config is written in (snapcodec.go)
	walk(reflect.TypeFor[Config]())
	h.Write([]byte(DefaultConfigYAML))
	return strconv.FormatUint(h.Sum64(), 36)
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
	b, err := encodeConfig(&c)
	if err != nil {
		return Snapshot{}, false
	}
	return Snapshot{Stamp: before, Key: snapshotKey(), Config: b}, true
}

// LoadSnapshot is Load(root), read from s while kb.yaml's stamp is still
// s.Stamp, and parsed from the file otherwise (s empty, a hand edit, a
// snapshot of another kb version, one that does not decode).
func LoadSnapshot(root string, s Snapshot) (Config, error) {
	if s.Current(root) {
		var c Config
		if decodeConfig(s.Config, &c) == nil {
			return c, nil
		}
	}
	return Load(root)
}

// Current says whether s is of the KB at root's kb.yaml as it is, taken
// by a program like this one (its key): what LoadSnapshot reads.
func (s Snapshot) Current(root string) bool {
	return s.Stamp != "" && len(s.Config) > 0 && s.Key == snapshotKey() && FileStamp(root) == s.Stamp
}
