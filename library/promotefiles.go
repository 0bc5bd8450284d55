package library

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/observations"
)

// What a promotion writes: the files of its graduations, the observations
// they promote, and the routing block of AGENTS.md, computed against what
// the library already holds. kb runs the pipeline around it (the lock, the
// review branch, the commit).

// PromoteFile is one file a promotion adds or changes.
type PromoteFile struct {
	Path   string `json:"path"`   // slash path relative to the project root
	Action string `json:"action"` // add | modify
	Old    []byte `json:"-"`      // nil for a file that is added
	New    []byte `json:"-"`
}

// Holdings is what the library already holds, for a promotion.
type Holdings struct {
	IDs     []string        // note ids and file names (ADR numbering, unique paths)
	Paths   map[string]bool // KB-relative
	Entries []RoutingEntry  // routing lines of the notes kb promoted
	Derived map[string]bool // observation ids promoted notes derive from
	Notes   []Note          // every note, for coverage
	// NotesOf maps an observation id to the ids of the notes (kb's or a
	// person's) derived from it.
	NotesOf map[string][]string
}

// ReadHoldings scans the library directory dir of the KB at root for note
// ids and the routing lines of notes kb promoted earlier; prefix is the KB
// root relative to the project root ("" when they are the same), which the
// routing entries' paths start with. Symlinks are never entered.
func ReadHoldings(root, dir, prefix string) Holdings {
	s := Holdings{Paths: map[string]bool{}, Derived: map[string]bool{}, NotesOf: map[string][]string{}}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(d.Name()) != ".md" {
			return nil
		}
		rel := filepath.ToSlash(p)
		if r, err := filepath.Rel(root, p); err == nil {
			rel = filepath.ToSlash(r)
		}
		s.Paths[rel] = true
		s.IDs = append(s.IDs, strings.TrimSuffix(d.Name(), ".md"))
		b, err := fsx.ReadFileNoFollow(p) // the walk never enters a symlink
		if err != nil {
			return nil
		}
		dd, err := doc.ParseFrontmatter(rel, b)
		if err != nil {
			return nil
		}
		if dd.ID != "" {
			s.IDs = append(s.IDs, dd.ID)
		}
		s.Notes = append(s.Notes, NoteOf(rel, dd))
		for _, id := range dd.Relations["derived_from"] {
			s.NotesOf[id] = append(s.NotesOf[id], dd.IDOrName())
		}
		if by, _ := dd.Fields["promoted_by"].(string); by != "" {
			for _, id := range dd.Relations["derived_from"] {
				s.Derived[id] = true
			}
			if r, _ := dd.Fields["routing"].(string); r != "" {
				s.Entries = append(s.Entries, RoutingEntry{Text: r, Kind: dd.Type, Path: path.Join(prefix, rel)})
			}
		}
		return nil
	})
	return s
}

// FilesInput is what PromotionFiles computes a promotion against.
type FilesInput struct {
	Graduations []Graduation
	Holdings    Holdings
	// Observations by id, the ones the graduations promote among them.
	Observations map[string]*observations.File
	// Prefix is the KB root relative to the project root ("" when the same).
	Prefix string
	// WorkTree: the promotion is written into the work tree (--apply, or no
	// git repository), not committed against HEAD.
	WorkTree bool
	// Read returns the content of a project file at the base (the work
	// tree or HEAD), nil when there is none.
	Read func(p string) []byte
	// IsLinkTo reports whether the project file name is the same file as
	// other (a symlink to it), at the base.
	IsLinkTo func(name, other string) bool
}

// PromotionFiles lists the files a promotion adds or changes: the notes and
// skills of the graduations (never one a person may have edited), the
// promoted status of their observations, and the routing block of
// AGENTS.md (and of CLAUDE.md when it is a file of its own). It returns the
// promoted observation ids too, sorted.
func PromotionFiles(in FilesInput) ([]PromoteFile, []string, error) {
	projectPath := func(rel string) string { return path.Join(in.Prefix, rel) }
	out := []PromoteFile{}
	add := func(p string, old, content []byte) {
		act := "add"
		if old != nil {
			act = "modify"
		}
		out = append(out, PromoteFile{Path: p, Action: act, Old: old, New: content})
	}
	addFile := func(p string, content []byte, keep bool) {
		old := in.Read(p)
		if old != nil && (keep || bytes.Equal(old, content)) {
			return // never overwrite a note or skill a person may have edited
		}
		add(p, old, content)
	}
	promotedObs := map[string]bool{}
	entries := append([]RoutingEntry(nil), in.Holdings.Entries...)
	for _, g := range in.Graduations {
		addFile(projectPath(g.Path), g.Content, true)
		if g.Skill != nil {
			addFile(g.Skill.Path, g.Skill.Content, true)
		}
		for _, id := range g.Observations {
			promotedObs[id] = true
		}
		entries = append(entries, RoutingEntry{Text: g.Routing, Kind: g.Kind, Path: projectPath(g.Path)})
	}
	ids := make([]string, 0, len(promotedObs))
	for id := range promotedObs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		f := in.Observations[id]
		if f == nil {
			continue
		}
		content, err := doc.SetStatus(f.Raw, observations.StatusPromoted)
		if err != nil {
			return nil, nil, fmt.Errorf("promote: %s: %w", f.Path, err)
		}
		p := projectPath(f.Path)
		old := in.Read(p)
		if in.WorkTree {
			old = f.Raw
		} else if old == nil {
			// Not tracked at HEAD: committing it would make the merge
			// collide with the untracked file; kb promote sync records the
			// status once the branch lands.
			continue
		}
		if !bytes.Equal(old, content) {
			add(p, old, content)
		}
	}
	block := CompileBlock(entries)
	for _, name := range []string{"AGENTS.md", "CLAUDE.md"} {
		old := in.Read(name)
		if old == nil && name == "CLAUDE.md" {
			continue // only when the project has one
		}
		if name == "CLAUDE.md" && in.IsLinkTo(name, "AGENTS.md") {
			continue // CLAUDE.md -> AGENTS.md: one file, written once
		}
		content, err := ReplaceBlock(old, PromotedBlock, block)
		if err != nil {
			return nil, nil, fmt.Errorf("promote: %s: %w", name, err)
		}
		addFile(name, content, false)
	}
	return out, ids, nil
}
