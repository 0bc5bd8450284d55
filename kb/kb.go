package kb

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/kbmem/kb/agents"
	"github.com/kbmem/kb/internal/config"
	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/gitdir"
	"github.com/kbmem/kb/internal/gitx"
	"github.com/kbmem/kb/internal/lock"
	"github.com/kbmem/kb/team"
)

// Layer directories of a KB root, bottom-up.
const (
	LayerTraces       = "traces"
	LayerObservations = "observations"
	LayerEpisodes     = "episodes"
	LayerLibrary      = "library"
)

// Layers lists the four layers bottom-up.
var Layers = []string{LayerTraces, LayerObservations, LayerEpisodes, LayerLibrary}

const (
	// ConfigFile names the file that marks a KB root.
	ConfigFile = config.File
	// IndexDir holds the derived search index and the activation index.
	IndexDir = config.IndexDir
	// StateDir holds derived state: checkpoints, snapshots, logs, the lock.
	StateDir = config.StateDir
	// DefaultDirName is where `kb init` puts a KB inside a git work tree.
	DefaultDirName = config.DefaultDir
	// TmpDir holds the temp files of kb's atomic writes, inside StateDir:
	// ignored by git, on the KB's filesystem (so the final rename stays
	// atomic), and cleaned by `kb doctor --fix` after a crash.
	TmpDir = StateDir + "/tmp"
)

// Errors callers branch on.
var (
	ErrNoKB         = errors.New("no KB found")
	ErrNotFound     = errors.New("not found")
	ErrAmbiguousID  = errors.New("ambiguous id")
	ErrExists       = errors.New("already exists")
	ErrLocked       = lock.ErrLocked
	ErrInvalidInput = agents.ErrInvalidInput // one error for bad input, from a user, a file or an agent
)

// KB is an opened knowledge base.
type KB struct {
	Root        string // absolute KB root (holds kb.yaml)
	ProjectRoot string // top of the git work tree holding the KB, or Root for a standalone KB
	Config      Config
	// Logf receives one-line notices (index rebuilt, lock waits). Defaults to stderr.
	Logf func(format string, args ...any)

	// StartKeeper, when set, starts a freshness keeper for this KB in the
	// background, exiting after idle without a query (cmd/kb: a detached
	// `kb watch --keeper --idle`): a read that stat'ed watch.keeper_files
	// files or more to find what changed calls it (startKeeper).
	StartKeeper func(idle time.Duration) error

	everyItem     bool // LoadEveryItem
	keeperStarted bool
}

// FindOptions says where to look for a KB.
type FindOptions struct {
	Dir string // --kb flag
	Env string // $KB_DIR
	Cwd string // working directory; "" = os.Getwd
}

// Find locates the KB root: --kb, then $KB_DIR, then walking up from the
// working directory to the first directory holding kb.yaml or .kb/kb.yaml.
func Find(o FindOptions) (string, error) {
	for _, d := range []string{o.Dir, o.Env} {
		if d == "" {
			continue
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			return "", err
		}
		if r, ok := rootAt(abs); ok {
			return r, nil
		}
		return "", fmt.Errorf("%w at %s (no %s there; run 'kb init %s')", ErrNoKB, abs, ConfigFile, d)
	}
	cwd := o.Cwd
	if cwd == "" {
		var err error
		if cwd, err = os.Getwd(); err != nil {
			return "", err
		}
	}
	cwd, _ = filepath.Abs(cwd)
	if r, ok := fsx.FindUp(cwd, rootAt); ok {
		return r, nil
	}
	return "", fmt.Errorf("%w in %s or any parent (run 'kb init', or pass --kb DIR or set KB_DIR)", ErrNoKB, cwd)
}

// rootAt is the KB at dir: dir itself, or its .kb.
func rootAt(dir string) (string, bool) { return config.RootAt(dir) }

// Open finds and opens a KB.
func Open(o FindOptions) (*KB, error) {
	root, err := Find(o)
	if err != nil {
		return nil, err
	}
	return OpenRoot(root)
}

// OpenRoot opens the KB whose root is dir.
func OpenRoot(dir string) (*KB, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(root, ConfigFile)
	b, err := (fsx.Tree{Root: root}).ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w at %s", ErrNoKB, root)
		}
		return nil, fmt.Errorf("open KB: %w", err)
	}
	cfg, err := ParseConfig(b)
	if err != nil {
		var ce *ConfigError
		if errors.As(err, &ce) {
			ce.Path = path
			return nil, ce
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	k := &KB{Root: root, Config: cfg, ProjectRoot: root}
	if top, ok := gitdir.TopLevel(root); ok {
		k.ProjectRoot = top
	}
	k.Logf = func(format string, args ...any) { fmt.Fprintf(os.Stderr, "kb: "+format+"\n", args...) }
	return k, nil
}

// InitResult reports what `kb init` did.
type InitResult struct {
	Root        string   `json:"root"`
	ProjectRoot string   `json:"project_root"`
	Created     []string `json:"created"`
	GitInit     bool     `json:"git_init"`
	Existed     bool     `json:"existed"`
}

// Init creates a KB. With dir == "", inside a git work tree the KB goes to
// <top>/.kb; outside one, into the working directory. With dir given, dir
// becomes the root of a standalone memory repo, git-initialized if it is not
// inside a work tree. Init is idempotent: existing files are kept.
func Init(dir string) (*InitResult, error) {
	var root string
	if dir == "" {
		cwd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		if top, ok := gitdir.TopLevel(cwd); ok {
			root = filepath.Join(top, DefaultDirName)
		} else {
			root = cwd
		}
	} else {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		root = abs
	}
	res := &InitResult{Root: root, ProjectRoot: root}
	if st, err := os.Stat(root); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("init: %s is a file, not a directory", root)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	if top, ok := gitdir.TopLevel(root); ok {
		res.ProjectRoot = top
	} else if dir != "" {
		if err := gitx.Init(root); err != nil {
			return nil, fmt.Errorf("init: git init %s: %w", root, err)
		}
		res.GitInit = true
	}
	res.Existed = config.IsRoot(root)
	created, err := (fsx.Tree{Root: root}).Seed([]fsx.SeedFile{
		{Name: ConfigFile, Content: DefaultConfigYAML},
		{Name: ".gitignore", Content: "# Derived data: rebuilt by kb, never committed.\n" + IndexDir + "/\n" + StateDir + "/\n" + team.TracesIgnore(root, res.ProjectRoot)},
	}, Layers) // the layer directories, kept in git while empty
	res.Created = created
	if err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	setup, err := RegisterMergeDriver(root, res.ProjectRoot)
	if err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	for _, p := range setup.Attributes {
		if r, err := filepath.Rel(root, p); err == nil {
			res.Created = append(res.Created, filepath.ToSlash(r))
		}
	}
	return res, nil
}

// Lock takes the KB write lock, waiting up to lock.timeout. The error names
// the holder when it times out. Waits longer than a second are logged.
func (k *KB) Lock(ctx context.Context) (*lock.Lock, error) {
	timeout := k.lockTimeout()
	// The lock sits in .state/: if that (or the lock file) leads out of
	// the KB, no writing command runs, and the error names the link.
	if _, err := k.files().Resolve(k.LockPath()); err != nil {
		return nil, err
	}
	l, err := lock.Acquire(ctx, k.LockPath(), timeout)
	if err != nil {
		return nil, err
	}
	if l.Waited > time.Second {
		k.logf("waited %s for the KB lock", l.Waited.Round(time.Millisecond))
	}
	return l, nil
}

// LockPath is the lock file.
func (k *KB) LockPath() string { return filepath.Join(k.Root, StateDir, "lock") }

// files is the KB's own tree: every read, write and append of a file kb
// manages inside the KB goes through it, so that no symlink a cloned KB
// committed (.state/hook.log -> ~/.bashrc, library/ -> $HOME) is followed
// out of the KB.
func (k *KB) files() fsx.Tree {
	return fsx.Tree{Root: k.Root, Tmp: filepath.Join(k.Root, filepath.FromSlash(TmpDir))}
}

// projectFiles is the tree of the files kb keeps in the project root
// (AGENTS.md, .continual-learning/, .claude/skills/): confined to the
// project, with temp files in the KB's TmpDir, which lies inside the
// project and normally on its filesystem (see fsx.Tree), so that an
// interrupted write leaves no temp file where `git add -A` would take it.
func (k *KB) projectFiles() fsx.Tree {
	root := k.ProjectRoot
	if root == "" {
		root = k.Root
	}
	return fsx.Tree{Root: root, Tmp: filepath.Join(k.Root, filepath.FromSlash(TmpDir))}
}

// projectRel returns the slash path of abs relative to the project root.
func (k *KB) projectRel(abs string) string {
	root := k.ProjectRoot
	if root == "" {
		root = k.Root
	}
	if r, err := filepath.Rel(root, abs); err == nil {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(abs)
}

// Path joins a KB-relative slash path onto the root, refusing paths that
// escape it.
func (k *KB) Path(rel string) (string, error) { return fsx.Within(k.Root, filepath.FromSlash(rel)) }

// Rel returns the slash path of abs relative to the root.
func (k *KB) Rel(abs string) string {
	r, err := filepath.Rel(k.Root, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(r)
}

func (k *KB) logf(format string, args ...any) {
	if k.Logf != nil {
		k.Logf(format, args...)
	}
}

// lockTimeout is how long a command waits for another that holds the KB
// lock or writes the search index (lock.timeout in kb.yaml, 5 s unset).
func (k *KB) lockTimeout() time.Duration {
	if t := k.Config.Lock.Timeout.D(); t > 0 {
		return t
	}
	return 5 * time.Second
}
