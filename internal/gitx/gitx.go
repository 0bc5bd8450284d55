package gitx

import (
	"errors"
	"fmt"
	"github.com/kbmem/kb/internal/gitdir"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Errors callers branch on. They are wrapped with context; test with
// errors.Is.
var (
	// ErrNotRepo: the directory is not inside a git repository.
	ErrNotRepo = errors.New("not a git repository")
	// ErrBranchExists: CommitToBranch was asked to create a branch that
	// already exists.
	ErrBranchExists = errors.New("branch already exists")
	// ErrNotFound: a revision, or a path at a revision, does not exist.
	ErrNotFound = errors.New("not found")
	// ErrInvalidPath: a FileChange path is empty, absolute, or has ".",
	// "..", ".git" or empty components.
	ErrInvalidPath = errors.New("invalid path")
	// ErrPathConflict: a change needs a file where a directory is, or the
	// other way round.
	ErrPathConflict = errors.New("path conflict")
	// ErrInvalidBranch: the branch name is not a valid git ref name.
	ErrInvalidBranch = errors.New("invalid branch name")
)

// DefaultBranch is the initial branch Init gives a new repository when the
// user's git config has no init.defaultBranch.
const DefaultBranch = "main"

// Init creates a non-bare git repository in dir (creating dir if needed)
// unless dir already lies inside a work tree, in which case it does
// nothing. The initial branch follows init.defaultBranch from the global
// git config, else DefaultBranch.
func Init(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("git init %s: %w", dir, err)
	}
	if _, ok := gitdir.TopLevel(abs); ok {
		return nil
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return fmt.Errorf("git init %s: %w", abs, err)
	}
	branch := DefaultBranch
	if cfg, err := config.LoadConfig(config.GlobalScope); err == nil && cfg.Init.DefaultBranch != "" {
		if plumbing.NewBranchReferenceName(cfg.Init.DefaultBranch).Validate() == nil {
			branch = cfg.Init.DefaultBranch
		}
	}
	_, err = git.PlainInitWithOptions(abs, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName(branch)},
	})
	if err != nil {
		return fmt.Errorf("git init %s: %w", abs, err)
	}
	return nil
}

// Repo is an open repository. Its methods are safe for concurrent use.
type Repo struct {
	mu   sync.Mutex
	repo *git.Repository
	root string // work tree top; "" for a bare repository
}

// Open opens the repository containing dir, walking up to find .git and
// following the commondir of linked worktrees.
func Open(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open git repository %s: %w", dir, err)
	}
	repo, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{
		DetectDotGit:          true,
		EnableDotGitCommonDir: true,
	})
	if err != nil {
		if errors.Is(err, git.ErrRepositoryNotExists) {
			return nil, fmt.Errorf("open git repository %s: %w", abs, ErrNotRepo)
		}
		return nil, fmt.Errorf("open git repository %s: %w", abs, err)
	}
	r := &Repo{repo: repo}
	if wt, err := repo.Worktree(); err == nil {
		r.root = wt.Filesystem.Root()
	}
	return r, nil
}

// Root returns the top of the work tree, or "" for a bare repository.
func (r *Repo) Root() string { return r.root }

// Head returns the branch HEAD points at and the commit hash it resolves
// to. An unborn HEAD (a repository without commits) gives the branch and
// an empty hash; a detached HEAD gives an empty branch.
func (r *Repo) Head() (branch string, hash string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	branch, h, err := r.head()
	if err != nil {
		return "", "", err
	}
	if !h.IsZero() {
		hash = h.String()
	}
	return branch, hash, nil
}

// head reads HEAD without resolving it through the generic resolver so an
// unborn branch is not an error. Caller holds r.mu.
func (r *Repo) head() (string, plumbing.Hash, error) {
	ref, err := r.repo.Storer.Reference(plumbing.HEAD)
	if err != nil {
		return "", plumbing.ZeroHash, fmt.Errorf("read HEAD: %w", err)
	}
	if ref.Type() == plumbing.HashReference {
		return "", ref.Hash(), nil
	}
	branch := ref.Target().Short()
	resolved, err := r.repo.Reference(plumbing.HEAD, true)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return branch, plumbing.ZeroHash, nil
	}
	if err != nil {
		return "", plumbing.ZeroHash, fmt.Errorf("resolve HEAD: %w", err)
	}
	return branch, resolved.Hash(), nil
}

// BranchExists reports whether the local branch name exists.
func (r *Repo) BranchExists(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, err := r.repo.Storer.Reference(plumbing.NewBranchReferenceName(name))
	return err == nil
}

// Branches returns the sorted short names of local branches starting with
// prefix ("" for all).
func (r *Repo) Branches(prefix string) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	iter, err := r.repo.Branches()
	if err != nil {
		return nil, fmt.Errorf("list branches: %w", err)
	}
	var out []string
	err = iter.ForEach(func(ref *plumbing.Reference) error {
		if name := ref.Name().Short(); strings.HasPrefix(name, prefix) {
			out = append(out, name)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list branches: %w", err)
	}
	sort.Strings(out)
	return out, nil
}

// FileAt returns the content of path (slash-separated, relative to the
// work tree top) at rev, a branch name, tag, hash or any revision go-git
// understands. A missing revision or path gives ErrNotFound.
func (r *Repo) FileAt(rev, path string) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tree, err := r.treeAt(rev)
	if err != nil {
		return nil, err
	}
	if tree == nil {
		return nil, fmt.Errorf("%s at %s: %w", path, rev, ErrNotFound)
	}
	return r.fileIn(tree, path, path+" at "+rev)
}

// fileIn reads path in tree; where names it in errors. Caller holds r.mu.
func (r *Repo) fileIn(tree *object.Tree, path, where string) ([]byte, error) {
	e, err := tree.FindEntry(strings.Trim(path, "/"))
	if err != nil || !e.Mode.IsFile() {
		return nil, fmt.Errorf("%s: %w", where, ErrNotFound)
	}
	blob, err := object.GetBlob(r.repo.Storer, e.Hash)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return readBlob(blob)
}

func readBlob(b *object.Blob) ([]byte, error) {
	rd, err := b.Reader()
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", b.Hash, err)
	}
	defer rd.Close()
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", b.Hash, err)
	}
	return data, nil
}

// treeAt resolves rev to the tree of its commit. The empty revision means
// the empty tree and gives (nil, nil). Caller holds r.mu.
func (r *Repo) treeAt(rev string) (*object.Tree, error) {
	if rev == "" {
		return nil, nil
	}
	c, err := r.commitAt(rev)
	if err != nil {
		return nil, err
	}
	t, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("revision %q: tree: %w", rev, err)
	}
	return t, nil
}

// Signature names the author (and committer) of a commit.
type Signature struct {
	Name, Email string
	When        time.Time
}

// DefaultSignature returns user.name and user.email from the repository's
// config merged with the global and system git config, falling back to
// "kb <kb@localhost>" for missing parts. When is the current time. r may
// be nil to use only the global and system config.
func DefaultSignature(r *Repo) Signature {
	sig := Signature{Name: "kb", Email: "kb@localhost", When: time.Now()}
	name, email := User(r)
	if name != "" {
		sig.Name = name
	}
	if email != "" {
		sig.Email = email
	}
	return sig
}

// userConfig is the repository's config merged with the global and system
// config, or the global config alone when r is nil; nil when none reads.
func userConfig(r *Repo) *config.Config {
	if r != nil {
		r.mu.Lock()
		c, err := r.repo.ConfigScoped(config.SystemScope)
		if err != nil {
			// An unreadable global or system config must not hide the
			// repository's own identity.
			c, err = r.repo.Config()
		}
		r.mu.Unlock()
		if err == nil {
			return c
		}
	}
	if c, err := config.LoadConfig(config.GlobalScope); err == nil {
		return c
	}
	return nil
}

func (s Signature) object() object.Signature {
	when := s.When
	if when.IsZero() {
		when = time.Now()
	}
	return object.Signature{Name: s.Name, Email: s.Email, When: when}
}
