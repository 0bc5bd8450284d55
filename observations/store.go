package observations

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/kbmem/kb/internal/diag"
	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/fsx"
)

// LoadFiles reads every observation file under dir (root/observations),
// parsing on all cores; paths are reported relative to root. Files that
// fail to parse are reported and skipped. The files come sorted by path.
func LoadFiles(ctx context.Context, root, dir string) ([]*File, []diag.Problem, error) {
	paths := doc.MarkdownFiles(dir)
	files := make([]*File, len(paths))
	probs := make([]*diag.Problem, len(paths))
	workers := max(1, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(paths); i += workers {
				if ctx.Err() != nil {
					return
				}
				rel, err := filepath.Rel(root, paths[i])
				if err != nil {
					rel = paths[i]
				}
				files[i], probs[i] = ReadFile(paths[i], filepath.ToSlash(rel))
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	var out []*File
	var problems []diag.Problem
	for i := range paths {
		if probs[i] != nil {
			problems = append(problems, *probs[i])
		} else if files[i] != nil {
			out = append(out, files[i])
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, problems, nil
}

// ReadFile reads and parses the observation file at abs, named rel in its
// problem. A symlink is not followed (the walks that find these files
// never enter one).
func ReadFile(abs, rel string) (*File, *diag.Problem) {
	b, err := fsx.ReadFileNoFollow(abs)
	if err != nil {
		return nil, &diag.Problem{Path: rel, Msg: err.Error(), Rule: "unreadable"}
	}
	return ParseFile(rel, b)
}

// ReadTombstones reads the tombstone file at p in tree; a missing file
// holds none. Malformed lines are skipped and reported.
func ReadTombstones(tree fsx.Tree, p string) ([]Tombstone, []diag.Problem, error) {
	b, err := tree.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	ts, probs := ParseTombstones(b)
	return ts, probs, nil
}

// Bury forgets the observation file f (its path relative to root): a
// tombstone appended to the file at tombs, then the file deleted. A crash
// in between leaves a tombstoned file, which the next extract or forget
// cleans up; never a lost tombstone. The caller holds the write lock.
func Bury(tree fsx.Tree, root, tombs string, f *File, why string, at time.Time) (*Tombstone, error) {
	t := TombstoneOf(f.Obs, why, at)
	old, err := tree.ReadFile(tombs)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err := tree.WriteFile(tombs, AppendTombstone(old, t), 0o644); err != nil {
		return nil, err
	}
	abs, err := fsx.Within(root, filepath.FromSlash(f.Path))
	if err != nil {
		return nil, err
	}
	if err := tree.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return &t, fsx.SyncDir(filepath.Dir(abs))
}
