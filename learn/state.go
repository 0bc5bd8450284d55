package learn

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Prior states, tick records, fingerprints.

// snapshotMeta describes a captured prior state.
type snapshotMeta struct {
	Time         time.Time   `json:"time"`
	Target       string      `json:"target"` // relative to the project root
	TargetExists bool        `json:"target_exists"`
	TargetPerm   os.FileMode `json:"target_perm"`
	Index        string      `json:"index"`
	IndexExists  bool        `json:"index_exists"`
	IndexPerm    os.FileMode `json:"index_perm"`
	IndexDirNew  bool        `json:"index_dir_new,omitempty"` // remove .continual-learning on rollback when empty
	Applied      []string    `json:"applied,omitempty"`       // factHash of the facts the tick wrote
}

const (
	snapMeta   = "meta.json"
	snapTarget = "target"
	snapIndex  = "index.json"
)

// captureState writes the prior state of both files into a new snapshot
// directory of f.State and prunes old ones, keeping keep (0 = 10). It
// returns the directory.
func (f Files) captureState(b *baseline, targetRel string, applied []string, now time.Time, keep int) (string, error) {
	base := f.State
	now = now.UTC()
	name := now.Format("20060102T150405.000000000Z")
	dir := filepath.Join(base, name)
	for i := 1; ; i++ {
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			break
		}
		dir = filepath.Join(base, fmt.Sprintf("%s-%d", name, i))
	}
	meta := snapshotMeta{Time: now, Target: targetRel, TargetExists: b.targetExists, TargetPerm: b.targetPerm,
		Index: IndexFile, IndexExists: b.index.exists, IndexPerm: b.indexPerm, IndexDirNew: b.indexDirNew, Applied: applied}
	tree := f.KB
	if b.targetExists {
		if err := tree.WriteFile(filepath.Join(dir, snapTarget), b.target, 0o644); err != nil {
			return "", err
		}
	}
	if b.index.exists {
		if err := tree.WriteFile(filepath.Join(dir, snapIndex), b.index.raw, 0o644); err != nil {
			return "", err
		}
	}
	mb, _ := json.MarshalIndent(meta, "", "  ")
	// The meta file last: a snapshot without one is incomplete and ignored.
	if err := tree.WriteFile(filepath.Join(dir, snapMeta), append(mb, '\n'), 0o644); err != nil {
		return "", err
	}
	if keep <= 0 {
		keep = 10
	}
	snaps := f.Snapshots()
	for len(snaps) > keep {
		tree.RemoveAll(filepath.Join(base, snaps[0]))
		snaps = snaps[1:]
	}
	return dir, nil
}

// Snapshots lists the complete captured prior states in f.State, oldest
// first: the directory names, the last one being what Rollback restores.
func (f Files) Snapshots() []string {
	tree := f.KB
	ents, err := tree.ReadDir(f.State)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if _, err := tree.Stat(filepath.Join(f.State, e.Name(), snapMeta)); err == nil {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// tickRecord records, per target, the fingerprint of the observations the
// last completed tick saw, so that a tick with nothing new says so.
type tickRecord struct {
	Targets map[string]string `json:"targets"`
	// Applied holds a hash of every fact kb wrote (factHash), so that a
	// fact a person removed is not written again.
	Applied []string `json:"applied,omitempty"`
}

func (t *tickRecord) applied() map[string]bool {
	m := map[string]bool{}
	for _, h := range t.Applied {
		m[h] = true
	}
	return m
}

// factHash identifies a fact by its text, case and spacing aside.
func factHash(fact string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(strings.Join(strings.Fields(fact), " "))))
	return hex.EncodeToString(sum[:8])
}

func (f Files) loadTicks() *tickRecord {
	t := &tickRecord{}
	if b, err := f.KB.ReadFile(filepath.Join(f.State, TicksFile)); err == nil {
		_ = json.Unmarshal(b, t) // a cache: unreadable means "not seen"
	}
	if t.Targets == nil {
		t.Targets = map[string]string{}
	}
	return t
}

func (f Files) saveTicks(t *tickRecord) error {
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	if err := f.KB.WriteFile(filepath.Join(f.State, TicksFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("learn: record tick: %w", err)
	}
	return nil
}

// fingerprint hashes the observation files (paths and bytes) and the
// target name.
func fingerprint(files []File, target string) string {
	h := sha256.New()
	fmt.Fprintf(h, "target=%s\n", target)
	for _, f := range files {
		fmt.Fprintf(h, "%s %d\n", f.Path, len(f.Raw))
		h.Write(f.Raw)
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}
