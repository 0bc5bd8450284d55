package learn

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/kbmem/kb/internal/fsx"
)

// Derivability: is the fact just the content of a file of the project?

type derivability struct {
	root, kbRoot string
	layers       []string // the KB's layer directories
	skip         map[string]bool
	loaded       bool
	files        []projFile
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

func (d *derivability) load() {
	if d.loaded {
		return
	}
	d.loaded = true
	total := 0
	filepath.WalkDir(d.root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if e != nil && e.IsDir() && p != d.root {
				return fs.SkipDir
			}
			return nil
		}
		if e.IsDir() {
			name := e.Name()
			if p != d.root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor" || p == d.kbRoot ||
				(filepath.Dir(p) == d.kbRoot && slices.Contains(d.layers, name))) { // the KB's own layers
				return fs.SkipDir
			}
			return nil
		}
		if len(d.files) >= derivMaxFiles || total >= derivMaxTotal {
			return fs.SkipAll
		}
		if !e.Type().IsRegular() || d.skip[p] || strings.HasPrefix(e.Name(), fsx.TempPrefix) {
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
		rel, _ := filepath.Rel(d.root, p)
		pf := projFile{rel: filepath.ToSlash(rel), data: string(b), lines: map[string]bool{}}
		for _, l := range strings.Split(pf.data, "\n") {
			if t := strings.TrimSpace(l); len(t) >= 6 {
				pf.lines[t] = true
			}
		}
		d.files = append(d.files, pf)
		return nil
	})
}

var (
	quotedRE = regexp.MustCompile("`([^`]{6,})`|\"([^\"]{6,})\"")
	pathRE   = regexp.MustCompile(`(?:^|[\s(])((?:[\w.-]+/)+[\w.-]+\.\w+|[\w-]+\.(?:go|py|js|ts|tsx|json|ya?ml|toml|md|sh|mk|cfg|ini|lock))\b`)
)

// check returns the project file that makes the fact derivable, or "". A
// fact is derivable when its sentence appears verbatim in a file, when it
// is little more than a quoted line of a file (or, for project knowledge,
// quotes any line of a file), or when it is little more than the path of a
// file that exists.
func (d *derivability) check(fact, category string) string {
	body := strings.TrimRight(fact, ".")
	quotes := quotedRE.FindAllStringSubmatch(fact, -1)
	paths := pathRE.FindAllStringSubmatch(fact, -1)
	if len(quotes) == 0 && len(paths) == 0 && len(body) < 24 {
		return ""
	}
	// What the fact says besides its quotes and paths.
	rest := body
	for _, q := range quotes {
		rest = strings.Replace(rest, q[0], " ", 1)
	}
	for _, p := range paths {
		rest = strings.Replace(rest, p[1], " ", 1)
	}
	little := len(normalizeFact(rest).all) <= 3
	d.load()
	for _, f := range d.files {
		if len(body) >= 24 && strings.Contains(f.data, body) {
			return f.rel
		}
		for _, q := range quotes {
			s := strings.TrimSpace(q[1] + q[2])
			if (little || category == CategoryProjectKnowledge) && f.lines[s] {
				return f.rel
			}
		}
	}
	if little {
		for _, p := range paths {
			if abs, err := fsx.Within(d.root, filepath.FromSlash(p[1])); err == nil {
				if fi, err := os.Stat(abs); err == nil && fi.Mode().IsRegular() {
					return p[1]
				}
			}
		}
	}
	return ""
}
