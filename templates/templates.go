// Package templates holds the text kb writes out from templates: the
// markdown templates `kb new` fills in for each library note type (a KB
// may override one by putting a file of the same name in
// <root>/templates/), and the kb.yaml `kb init` writes.
package templates

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.md
var files embed.FS

// KBConfig is the kb.yaml `kb init` writes: every setting with its
// default, commented.
//
//go:embed kb.yaml
var KBConfig string

// FS exposes the embedded templates.
var FS fs.FS = files

// Names lists the template names (note types) without extension.
func Names() []string {
	ents, _ := fs.ReadDir(files, ".")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".md"))
	}
	sort.Strings(out)
	return out
}

// Get returns the template text for a note type.
func Get(name string) (string, error) {
	b, err := fs.ReadFile(files, name+".md")
	if err != nil {
		return "", fmt.Errorf("no template %q (have %s)", name, strings.Join(Names(), ", "))
	}
	return string(b), nil
}
