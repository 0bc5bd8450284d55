package observations

import (
	"bytes"
	"encoding/json"
	"github.com/kbmem/kb/internal/textutil"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/kbmem/kb/internal/fsx"
)

// Repo is a project's files, as the gate's derivability check reads them:
// is a rule just the content of a file, a path that exists, or a command
// the project's Makefile or package.json already declares? It is read
// lazily, once, bounded in size.
type Repo struct {
	Root   string          // the project root
	KBRoot string          // the KB root; its layers are not project files
	Layers []string        // the KB's layer directories, skipped
	Skip   map[string]bool // absolute paths not to read (the files kb itself writes)

	once     sync.Once
	files    []projFile
	commands map[string]string // declared command ("make test", "npm run lint") -> the file declaring it
}

type projFile struct {
	rel   string
	data  string
	lines map[string]bool
}

const (
	derivMaxFile  = 512 << 10
	derivMaxTotal = 64 << 20
	derivMaxFiles = 20000
)

func (d *Repo) load() {
	d.once.Do(func() {
		d.commands = map[string]string{}
		total := 0
		filepath.WalkDir(d.Root, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				if e != nil && e.IsDir() && p != d.Root {
					return fs.SkipDir
				}
				return nil
			}
			if e.IsDir() {
				name := e.Name()
				if p != d.Root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor" || p == d.KBRoot ||
					(filepath.Dir(p) == d.KBRoot && slices.Contains(d.Layers, name))) { // the KB's own layers
					return fs.SkipDir
				}
				return nil
			}
			if len(d.files) >= derivMaxFiles || total >= derivMaxTotal {
				return fs.SkipAll
			}
			if !e.Type().IsRegular() || d.Skip[p] || strings.HasPrefix(e.Name(), fsx.TempPrefix) {
				return nil
			}
			fi, err := e.Info()
			if err != nil || fi.Size() > derivMaxFile {
				return nil
			}
			b, err := fsx.ReadFileNoFollow(p) // the walk never enters a symlink
			if err != nil || bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0 {
				return nil
			}
			total += len(b)
			rel, _ := filepath.Rel(d.Root, p)
			// What kb wrote into a file (its AGENTS.md blocks) is not the
			// project saying it: a learned fact would gate itself.
			pf := projFile{rel: filepath.ToSlash(rel), data: kbBlockRE.ReplaceAllString(string(b), ""), lines: map[string]bool{}}
			for _, l := range strings.Split(pf.data, "\n") {
				if t := strings.TrimSpace(l); len(t) >= 6 {
					pf.lines[t] = true
				}
			}
			d.files = append(d.files, pf)
			d.declare(pf)
			return nil
		})
	})
}

var kbBlockRE = textutil.Lazy(`(?s)<!-- kb:begin [^>]*-->.*?<!-- kb:end [^>]*-->`)

var makeTargetRE = textutil.Lazy(`(?m)^([A-Za-z0-9][A-Za-z0-9_.-]*)\s*:([^=]|$)`)

// declare records the commands a build file declares: Makefile and
// justfile targets, package.json scripts.
func (d *Repo) declare(f projFile) {
	base := filepath.Base(f.rel)
	switch {
	case base == "Makefile" || base == "GNUmakefile" || base == "makefile" || strings.HasSuffix(base, ".mk"):
		for _, m := range makeTargetRE.FindAllStringSubmatch(f.data, -1) {
			d.add("make "+m[1], f.rel)
		}
	case base == "justfile" || base == "Justfile":
		for _, m := range makeTargetRE.FindAllStringSubmatch(f.data, -1) {
			d.add("just "+m[1], f.rel)
		}
	case base == "package.json":
		var pkg struct {
			Scripts map[string]json.RawMessage `json:"scripts"`
		}
		if json.Unmarshal([]byte(f.data), &pkg) != nil {
			return
		}
		for s := range pkg.Scripts {
			for _, pm := range []string{"npm", "pnpm", "yarn", "bun"} {
				d.add(pm+" run "+s, f.rel)
				if pm != "npm" || s == "test" || s == "start" {
					d.add(pm+" "+s, f.rel)
				}
			}
		}
	}
}

func (d *Repo) add(cmd, rel string) {
	if _, ok := d.commands[cmd]; !ok {
		d.commands[cmd] = rel
	}
}

var (
	quotedRE    = textutil.Lazy("`([^`]{6,})`|\"([^\"]{6,})\"")
	derivPathRE = textutil.Lazy(`(?:^|[\s(])((?:[\w.-]+/)+[\w.-]+\.\w+|[\w-]+\.(?:go|py|js|ts|tsx|json|ya?ml|toml|md|sh|mk|cfg|ini|lock))\b`)
	commandRE   = textutil.Lazy(`\b((?:make|just|npm|pnpm|yarn|bun)(?: run)? [A-Za-z0-9][\w:.-]*)`)
	bashStepRE  = textutil.Lazy(`^Bash: (.+)$`)
)

// Derivable returns the project file (or the file declaring the command)
// that already says what o says, or "".
func (d *Repo) Derivable(o *Observation) string {
	if d == nil || d.Root == "" {
		return ""
	}
	if o.Type == TypeProcedure && len(o.Steps) > 0 {
		// Every step a command the project declares: the build file is the
		// procedure.
		d.load()
		from := ""
		for _, s := range o.Steps {
			m := bashStepRE.FindStringSubmatch(s)
			if m == nil || d.commands[m[1]] == "" {
				from = ""
				break
			}
			from = d.commands[m[1]]
		}
		if from != "" {
			return from
		}
	}
	return d.DerivableText(standingText(o), o.Type == TypeDiscovery)
}

// DerivableText returns the project file that makes text derivable, or "".
// Text is derivable when its sentence appears verbatim in a file; when it
// is little more than a quoted line of a file (or, for project knowledge,
// quotes any line of a file); when it is little more than the path of a
// file that exists; or little more than a command the project declares.
func (d *Repo) DerivableText(text string, knowledge bool) string {
	if d == nil || d.Root == "" {
		return ""
	}
	body := strings.TrimRight(strings.TrimSpace(text), ".")
	quotes := quotedRE.FindAllStringSubmatch(body, -1)
	paths := derivPathRE.FindAllStringSubmatch(body, -1)
	cmds := commandRE.FindAllStringSubmatch(body, -1)
	if len(quotes) == 0 && len(paths) == 0 && len(cmds) == 0 && len(body) < 24 {
		return ""
	}
	// What the text says besides its quotes, paths and commands.
	rest := body
	for _, q := range quotes {
		rest = strings.Replace(rest, q[0], " ", 1)
	}
	for _, p := range paths {
		rest = strings.Replace(rest, p[1], " ", 1)
	}
	for _, c := range cmds {
		rest = strings.Replace(rest, c[1], " ", 1)
	}
	restStems, _ := factStems(rest)
	little := len(restStems) <= 3
	d.load()
	if little {
		for _, c := range cmds {
			if f := d.commands[c[1]]; f != "" {
				return f
			}
		}
	}
	for _, f := range d.files {
		if len(body) >= 24 && strings.Contains(f.data, body) {
			return f.rel
		}
		for _, q := range quotes {
			s := strings.TrimSpace(q[1] + q[2])
			if (little || knowledge) && f.lines[s] {
				return f.rel
			}
		}
	}
	if little {
		for _, p := range paths {
			if abs, err := fsx.Within(d.Root, filepath.FromSlash(p[1])); err == nil {
				if fi, err := os.Stat(abs); err == nil && fi.Mode().IsRegular() {
					return p[1]
				}
			}
		}
	}
	return ""
}
