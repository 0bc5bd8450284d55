package episodes

import (
	"context"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kbmem/kb/internal/diag"
	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/traces"
)

// Load reads every episode file under root's episodes/, newest first;
// files that fail to parse are reported and skipped. Hidden directories
// and symlinks are not read.
func Load(ctx context.Context, root string) ([]*File, []diag.Problem, error) {
	dir := filepath.Join(root, Dir)
	var out []*File
	var probs []diag.Problem
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || path.Ext(d.Name()) != ".md" || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel := relTo(root, p)
		b, err := fsx.ReadFileNoFollow(p) // the walk never enters a symlink
		if err != nil {
			probs = append(probs, diag.Problem{Path: rel, Msg: err.Error(), Rule: "unreadable"})
			return nil
		}
		f, prob := ParseFile(rel, b)
		if prob != nil {
			probs = append(probs, *prob)
			return nil
		}
		out = append(out, f)
		return nil
	})
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Episode.Scope.From, out[j].Episode.Scope.From
		if !a.Equal(b) {
			return a.After(b)
		}
		return out[i].Path < out[j].Path
	})
	return out, probs, err
}

func relTo(root, abs string) string {
	r, err := filepath.Rel(root, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(r)
}

// SummarizeStore summarizes every session of the trace store; a session
// that cannot be read is reported and left out.
func SummarizeStore(ctx context.Context, st *traces.Store) ([]SessionSummary, []diag.Problem, error) {
	infos, err := st.Sessions()
	if err != nil {
		return nil, nil, err
	}
	var probs []diag.Problem
	sums := make([]SessionSummary, 0, len(infos))
	for _, info := range infos {
		if err := ctx.Err(); err != nil {
			return nil, probs, err
		}
		var recs []traces.Record
		_, ps, err := st.ReadFile(info.Path, func(r traces.Record) error { recs = append(recs, r); return nil })
		probs = append(probs, ps...)
		if err != nil {
			probs = append(probs, diag.Problem{Path: info.Path, Msg: err.Error(), Rule: "trace"})
			continue
		}
		sums = append(sums, Summarize(info.ID, recs))
	}
	return sums, probs, nil
}
