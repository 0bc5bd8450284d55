// Package templates holds the embedded markdown templates `kb new` fills in
// for each library note type. A KB may override one by putting a file of the
// same name in <root>/templates/.
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
