package gitx

import (
	"fmt"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	fdiff "github.com/go-git/go-git/v5/plumbing/format/diff"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"
)

// contextLines is the number of unchanged lines around each hunk, as in
// git diff.
const contextLines = 3

// Diff returns a git-style unified diff (with a/ and b/ prefixes, readable
// by git apply) from fromRev to toRev. An empty revision stands for the
// empty tree. Renames are shown as a delete plus an add. Identical trees
// give "".
func (r *Repo) Diff(fromRev, toRev string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	from, err := r.treeAt(fromRev)
	if err != nil {
		return "", fmt.Errorf("diff: %w", err)
	}
	to, err := r.treeAt(toRev)
	if err != nil {
		return "", fmt.Errorf("diff: %w", err)
	}
	out, err := encodeTreeDiff(from, to)
	if err != nil {
		return "", fmt.Errorf("diff %s..%s: %w", fromRev, toRev, err)
	}
	return out, nil
}

func encodeTreeDiff(from, to *object.Tree) (string, error) {
	changes, err := object.DiffTree(from, to)
	if err != nil {
		return "", err
	}
	if len(changes) == 0 {
		return "", nil
	}
	patch, err := changes.Patch()
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	if err := fdiff.NewUnifiedEncoder(&sb, contextLines).Encode(patch); err != nil {
		return "", err
	}
	return sb.String(), nil
}

// ChangedSince returns the sorted paths of files that differ between rev
// and HEAD, limited to the given paths (a file, or a directory and all
// below it; none means everything). An empty rev stands for the empty
// tree; an unborn HEAD for the empty tree too.
func (r *Repo) ChangedSince(rev string, paths ...string) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	from, err := r.treeAt(rev)
	if err != nil {
		return nil, fmt.Errorf("changed since: %w", err)
	}
	_, head, err := r.head()
	if err != nil {
		return nil, fmt.Errorf("changed since %s: %w", rev, err)
	}
	var to *object.Tree
	if !head.IsZero() {
		if to, err = r.treeAt(head.String()); err != nil {
			return nil, fmt.Errorf("changed since %s: %w", rev, err)
		}
	}
	changes, err := object.DiffTree(from, to)
	if err != nil {
		return nil, fmt.Errorf("changed since %s: %w", rev, err)
	}
	seen := map[string]bool{}
	var out []string
	for _, c := range changes {
		for _, p := range []string{c.From.Name, c.To.Name} {
			if p == "" || seen[p] || !underAny(p, paths) {
				continue
			}
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}

func underAny(p string, prefixes []string) bool {
	if len(prefixes) == 0 {
		return true
	}
	for _, pre := range prefixes {
		pre = strings.Trim(pre, "/")
		if pre == "" || pre == "." || p == pre || strings.HasPrefix(p, pre+"/") {
			return true
		}
	}
	return false
}

// UnifiedDiff renders the change of one file from old to new as a git-style
// unified diff, for dry runs. A nil old means the file is created, a nil
// new that it is deleted; equal contents give "". path is used verbatim in
// the headers.
func UnifiedDiff(path string, old, new []byte) string {
	if old != nil && new != nil && string(old) == string(new) {
		return ""
	}
	if old == nil && new == nil {
		return ""
	}
	// Build two one-file trees in memory under a fixed name, so any path
	// string works, then let go-git compute the patch.
	const name = "f"
	s := memory.NewStorage()
	tree := func(content []byte) (*object.Tree, error) {
		if content == nil {
			return nil, nil
		}
		h, err := buildTree(s, plumbing.ZeroHash, []FileChange{{Path: name, Content: content}})
		if err != nil {
			return nil, err
		}
		return object.GetTree(s, h)
	}
	from, err := tree(old)
	if err != nil {
		return ""
	}
	to, err := tree(new)
	if err != nil {
		return ""
	}
	changes, err := object.DiffTree(from, to)
	if err != nil || len(changes) == 0 {
		return ""
	}
	patch, err := changes.Patch()
	if err != nil {
		return ""
	}
	var sb strings.Builder
	if err := fdiff.NewUnifiedEncoder(&sb, contextLines).Encode(renamedPatch{patch, path}); err != nil {
		return ""
	}
	return sb.String()
}

// renamedPatch presents a patch with every file path replaced by path.
type renamedPatch struct {
	fdiff.Patch
	path string
}

func (p renamedPatch) FilePatches() []fdiff.FilePatch {
	fps := p.Patch.FilePatches()
	out := make([]fdiff.FilePatch, len(fps))
	for i, fp := range fps {
		out[i] = renamedFilePatch{fp, p.path}
	}
	return out
}

type renamedFilePatch struct {
	fdiff.FilePatch
	path string
}

func (fp renamedFilePatch) Files() (fdiff.File, fdiff.File) {
	from, to := fp.FilePatch.Files()
	var f, t fdiff.File
	if from != nil {
		f = renamedFile{from, fp.path}
	}
	if to != nil {
		t = renamedFile{to, fp.path}
	}
	return f, t
}

type renamedFile struct {
	fdiff.File
	path string
}

func (f renamedFile) Path() string { return f.path }
