package team

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kbmem/kb/episodes"
	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/gitx"
	"github.com/kbmem/kb/observations"
)

// libraryDir is the KB's library layer.
const libraryDir = "library"

// Count is how many files of a kind a pull brought in new, and how many
// it changed.
type Count struct {
	New     int `json:"new"`
	Changed int `json:"changed"`
}

// Arrived is what came into the KB's files since the commit `kb status`
// last reported, and the files that hold conflicts to resolve.
type Arrived struct {
	// Since is the commit last reported, "" when HEAD did not move (or
	// this is the first report: then only Head is recorded).
	Since string `json:"since"`
	Head  string `json:"head"`
	// Lessons are the observations by type (the directory under
	// observations/).
	Lessons  map[string]Count `json:"lessons"`
	Notes    Count            `json:"notes"` // library notes
	Episodes Count            `json:"episodes"`
	// Conflicts are the KB files (KB-relative) whose frontmatter holds
	// kb_conflicts: fields the merge driver left for the person. They are
	// listed with or without a pull.
	Conflicts []string `json:"conflicts"`
}

// Any reports whether there is something to say.
func (a *Arrived) Any() bool {
	return a.Notes != (Count{}) || a.Episodes != (Count{}) || len(a.Lessons) > 0 || len(a.Conflicts) > 0
}

// statusState is the .state file `kb status` keeps: the commit it last
// reported.
type statusState struct {
	Head string `json:"head"`
}

// WhatArrived compares HEAD with the commit recorded in stateFile: the
// KB's files (under root, a directory of the work tree at projectRoot)
// that changed between them, classified by layer (gitx.Changes), then
// records HEAD there. It lists the files holding kb_conflicts in any case.
// Outside git, or with an unborn HEAD, only the conflicts are reported.
// A recorded commit that no longer resolves (history rewritten) reports
// nothing and is replaced.
func WhatArrived(files fsx.Tree, root, projectRoot, stateFile string) (*Arrived, error) {
	a := &Arrived{Lessons: map[string]Count{}, Conflicts: ConflictFiles(root)}
	repo, err := gitx.Open(projectRoot)
	if err != nil || repo.Root() == "" {
		return a, nil
	}
	_, head, err := repo.Head()
	if err != nil || head == "" {
		return a, nil
	}
	a.Head = head
	var st statusState
	if b, err := files.ReadFile(stateFile); err == nil {
		_ = json.Unmarshal(b, &st) // a damaged file is a first report
	}
	if st.Head == head {
		return a, nil
	}
	if st.Head != "" {
		prefix, err := filepath.Rel(projectRoot, root)
		if err != nil || strings.HasPrefix(prefix, "..") {
			prefix = "."
		}
		prefix = filepath.ToSlash(prefix)
		if changes, err := repo.Changes(st.Head, head, prefix); err == nil {
			a.Since = st.Head
			for _, c := range changes {
				a.add(strings.TrimPrefix(c.Path, strings.TrimPrefix(prefix+"/", "./")), c.Action)
			}
		}
	}
	b, _ := json.Marshal(statusState{Head: head})
	if err := files.WriteFile(stateFile, append(b, '\n'), 0o644); err != nil {
		return a, fmt.Errorf("record the reported commit: %w", err)
	}
	return a, nil
}

// add counts one changed KB-relative path.
func (a *Arrived) add(rel, action string) {
	if action == "deleted" || !strings.HasSuffix(rel, ".md") || path.Base(rel) == "README.md" {
		return
	}
	bump := func(c *Count) {
		if action == "added" {
			c.New++
		} else {
			c.Changed++
		}
	}
	parts := strings.Split(rel, "/")
	switch {
	case parts[0] == observations.Dir && len(parts) >= 3:
		c := a.Lessons[parts[1]]
		bump(&c)
		a.Lessons[parts[1]] = c
	case parts[0] == libraryDir:
		bump(&a.Notes)
	case parts[0] == episodes.Dir:
		bump(&a.Episodes)
	}
}

// ConflictFiles lists the markdown files under root (KB-relative, sorted)
// whose frontmatter holds kb_conflicts. kb's own derived directories and
// the traces are not looked at.
func ConflictFiles(root string) []string {
	out := []string{}
	key := []byte("\n" + doc.ConflictsKey + ":")
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".state", ".index", "traces", "node_modules":
				if p != root {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !d.Type().IsRegular() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		b, err := fsx.Tree{Root: root}.ReadFile(p)
		if err != nil || !bytes.HasPrefix(b, []byte("---\n")) {
			return nil
		}
		end := bytes.Index(b[3:], []byte("\n---"))
		if end < 0 {
			return nil
		}
		if bytes.Contains(b[3:3+end+1], key) {
			if rel, err := filepath.Rel(root, p); err == nil {
				out = append(out, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// Summary renders what arrived as one line for `kb status`: "Since
// <short sha>: 2 new corrections, 1 library note; 1 file with conflicts
// to resolve: <paths>". "" when there is nothing to say.
func (a *Arrived) Summary() string {
	var parts []string
	types := make([]string, 0, len(a.Lessons))
	for t := range a.Lessons {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		parts = append(parts, counted(a.Lessons[t], strings.ReplaceAll(t, "_", " "))...)
	}
	parts = append(parts, counted(a.Notes, "library note")...)
	parts = append(parts, counted(a.Episodes, "episode")...)
	var out string
	if a.Since != "" && len(parts) > 0 {
		out = "Since " + short(a.Since) + ": " + strings.Join(parts, ", ")
	}
	if n := len(a.Conflicts); n > 0 {
		if out != "" {
			out += "; "
		}
		out += plural(n, "file") + " with conflicts to resolve: " + strings.Join(a.Conflicts, ", ")
	}
	return out
}

func counted(c Count, noun string) []string {
	var out []string
	if c.New > 0 {
		out = append(out, fmt.Sprintf("%d new %s", c.New, pluralNoun(c.New, noun)))
	}
	if c.Changed > 0 {
		out = append(out, fmt.Sprintf("%d changed %s", c.Changed, pluralNoun(c.Changed, noun)))
	}
	return out
}

func plural(n int, noun string) string { return fmt.Sprintf("%d %s", n, pluralNoun(n, noun)) }

func pluralNoun(n int, noun string) string {
	switch {
	case n == 1:
		return noun
	case strings.HasSuffix(noun, "y") && !strings.HasSuffix(noun, "ey"):
		return noun[:len(noun)-1] + "ies"
	case strings.HasSuffix(noun, "s"):
		return noun + "es"
	}
	return noun + "s"
}

func short(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}
