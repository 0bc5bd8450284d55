package learn

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/gitx"
)

// Rollback restores both files from the latest captured prior state
// (removing a file that did not exist then) and drops that state; the
// facts of the undone tick may be learned again. target is the configured
// target, reported when there is nothing to roll back. With dryRun it only
// computes the diff. The caller holds the KB write lock.
func Rollback(f Files, target string, dryRun bool) (*Result, error) {
	res := newResult(target)
	res.DryRun = dryRun
	snaps := f.Snapshots()
	if len(snaps) == 0 {
		res.Result, res.Reason = NoUpdate, "nothing to roll back: no captured prior state"
		return res, nil
	}
	dir := filepath.Join(f.State, snaps[len(snaps)-1])
	res.Snapshot = f.kbRel(dir)
	tree, project := f.KB, f.Project
	mb, err := tree.ReadFile(filepath.Join(dir, snapMeta))
	if err != nil {
		return nil, fmt.Errorf("rollback: %w", err)
	}
	var meta snapshotMeta
	if err := json.Unmarshal(mb, &meta); err != nil {
		return nil, fmt.Errorf("rollback: %s: %w", f.kbRel(filepath.Join(dir, snapMeta)), err)
	}
	targetAbs, err := fsx.Within(project.Root, filepath.FromSlash(meta.Target))
	if err != nil {
		return nil, fmt.Errorf("rollback: %s: target %q: %w", f.kbRel(dir), meta.Target, err)
	}
	indexAbs := filepath.Join(project.Root, filepath.FromSlash(IndexFile))
	res.Target = meta.Target
	var writes []fsx.Write
	for _, sf := range []struct {
		abs, rel, snap string
		exists         bool
		perm           os.FileMode
	}{
		{targetAbs, meta.Target, snapTarget, meta.TargetExists, meta.TargetPerm},
		{indexAbs, IndexFile, snapIndex, meta.IndexExists, meta.IndexPerm},
	} {
		cur, cerr := project.ReadFile(sf.abs)
		curExists := cerr == nil
		if cerr != nil && !errors.Is(cerr, fs.ErrNotExist) {
			return nil, fmt.Errorf("rollback: read %s: %w", sf.rel, cerr)
		}
		w := fsx.Write{Path: sf.abs, Old: cur, Existed: curExists, Perm: sf.perm, Remove: !sf.exists}
		if w.Perm == 0 {
			w.Perm = 0o644
		}
		if sf.exists {
			data, err := tree.ReadFile(filepath.Join(dir, sf.snap))
			if err != nil {
				return nil, fmt.Errorf("rollback: %w", err)
			}
			w.Data = data
			res.Diff += gitx.UnifiedDiff(sf.rel, nilIfAbsent(cur, curExists), data)
		} else {
			res.Diff += gitx.UnifiedDiff(sf.rel, nilIfAbsent(cur, curExists), nil)
		}
		writes = append(writes, w)
	}
	res.Result = RolledBack
	if dryRun {
		return res, nil
	}
	if err := project.CommitAll(writes); err != nil {
		return nil, fmt.Errorf("rollback: %w", err)
	}
	if meta.IndexDirNew {
		project.Remove(filepath.Dir(indexAbs)) // only when empty
	}
	if err := tree.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("rollback: drop %s: %w", f.kbRel(dir), err)
	}
	// The facts of the undone tick may be learned again.
	if len(meta.Applied) > 0 {
		ticks := f.loadTicks()
		undone := map[string]bool{}
		for _, h := range meta.Applied {
			undone[h] = true
		}
		keep := ticks.Applied[:0]
		for _, h := range ticks.Applied {
			if !undone[h] {
				keep = append(keep, h)
			}
		}
		ticks.Applied = keep
		if err := f.saveTicks(ticks); err != nil {
			return nil, err
		}
	}
	return res, nil
}
