package gitx

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// MaxHistory bounds how many commits IntroducedBy walks back from HEAD.
const MaxHistory = 2000

// IntroducedBy returns, for each file path (slash-separated, relative to
// the work tree top) and each of its needles, the author of the commit
// that first brought the needle into the file: the oldest commit whose
// version of the file holds the needle while none of its parents'
// versions do. A needle counts where it stands as a whole token (not
// followed or preceded by a letter, digit, '-' or '#'), so "s#2-4" is not
// found in "s#2-40". It walks at most max commits back from HEAD (max <= 0
// means MaxHistory); a needle no walked commit brought in (not committed
// yet, or older than the bound) is absent from the result. An unborn HEAD
// gives an empty result.
func (r *Repo) IntroducedBy(want map[string][]string, max int) (map[string]map[string]Signature, error) {
	if max <= 0 {
		max = MaxHistory
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]map[string]Signature{}
	_, head, err := r.head()
	if err != nil || head.IsZero() || len(want) == 0 {
		return out, err
	}
	iter, err := r.repo.Log(&git.LogOptions{From: head, Order: git.LogOrderCommitterTime})
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer iter.Close()
	blobs := map[plumbing.Hash]string{}
	read := func(h plumbing.Hash) string {
		if s, ok := blobs[h]; ok {
			return s
		}
		s := ""
		if b, err := object.GetBlob(r.repo.Storer, h); err == nil {
			if data, err := readBlob(b); err == nil {
				s = string(data)
			}
		}
		blobs[h] = s
		return s
	}
	n := 0
	err = iter.ForEach(func(c *object.Commit) error {
		if n++; n > max {
			return storer.ErrStop
		}
		tree, err := c.Tree()
		if err != nil {
			return nil
		}
		var parents []*object.Tree
		for _, ph := range c.ParentHashes {
			if pc, err := object.GetCommit(r.repo.Storer, ph); err == nil {
				if pt, err := pc.Tree(); err == nil {
					parents = append(parents, pt)
				}
			}
		}
		for p, needles := range want {
			e, err := tree.FindEntry(strings.Trim(p, "/"))
			if err != nil || !e.Mode.IsFile() {
				continue
			}
			var before []plumbing.Hash
			same := false
			for _, pt := range parents {
				if pe, err := pt.FindEntry(strings.Trim(p, "/")); err == nil && pe.Mode.IsFile() {
					same = same || pe.Hash == e.Hash
					before = append(before, pe.Hash)
				}
			}
			if same {
				continue
			}
			text := read(e.Hash)
			for _, nd := range needles {
				if nd == "" || !HasToken(text, nd) {
					continue
				}
				inParent := false
				for _, h := range before {
					if HasToken(read(h), nd) {
						inParent = true
						break
					}
				}
				if inParent {
					continue
				}
				m := out[p]
				if m == nil {
					m = map[string]Signature{}
					out[p] = m
				}
				if old, ok := m[nd]; !ok || c.Author.When.Before(old.When) {
					m[nd] = Signature{Name: c.Author.Name, Email: c.Author.Email, When: c.Author.When}
				}
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, storer.ErrStop) {
		return nil, fmt.Errorf("history: %w", err)
	}
	return out, nil
}

// HasToken reports whether needle stands in text as a whole token: not
// preceded or followed by a letter, digit, '-' or '#'.
func HasToken(text, needle string) bool {
	if needle == "" {
		return false
	}
	for i := 0; ; {
		j := strings.Index(text[i:], needle)
		if j < 0 {
			return false
		}
		at := i + j
		end := at + len(needle)
		if (at == 0 || !tokenByte(text[at-1])) && (end == len(text) || !tokenByte(text[end])) {
			return true
		}
		i = at + 1
	}
}

func tokenByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '-' || b == '#' || b == '_'
}

// Change is one file that differs between two commits.
type Change struct {
	Path   string `json:"path"`
	Action string `json:"action"` // added, modified, deleted
}

// Changes lists the files that differ from fromRev to toRev, sorted by
// path, limited to the given paths (a file, or a directory and all below
// it; none means everything). An empty revision stands for the empty
// tree. A rename shows as a delete plus an add.
func (r *Repo) Changes(fromRev, toRev string, paths ...string) ([]Change, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	from, err := r.treeAt(fromRev)
	if err != nil {
		return nil, fmt.Errorf("changes: %w", err)
	}
	to, err := r.treeAt(toRev)
	if err != nil {
		return nil, fmt.Errorf("changes: %w", err)
	}
	changes, err := object.DiffTree(from, to)
	if err != nil {
		return nil, fmt.Errorf("changes %s..%s: %w", fromRev, toRev, err)
	}
	var out []Change
	for _, c := range changes {
		ch := Change{Path: c.To.Name, Action: "modified"}
		switch {
		case c.From.Name == "":
			ch.Action = "added"
		case c.To.Name == "":
			ch = Change{Path: c.From.Name, Action: "deleted"}
		}
		if underAny(ch.Path, paths) {
			out = append(out, ch)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// User returns user.name and user.email from the repository's config
// merged with the global and system git config ("" for what is unset). r
// may be nil to read only the global and system config.
func User(r *Repo) (name, email string) {
	if cfg := userConfig(r); cfg != nil {
		return strings.TrimSpace(cfg.User.Name), strings.TrimSpace(cfg.User.Email)
	}
	return "", ""
}
