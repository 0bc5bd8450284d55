package index

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/links"
	"github.com/kbmem/kb/internal/markdown"
)

// Show reads the document ref names (links.Graph.Lookup, whose errors it
// returns) through tree, under root, with its links and backlinks from the
// graph of every layer but skip; its layer is the first of layers its
// path starts with.
func (ix *Index) Show(tree fsx.Tree, root, ref, skip string, layers []string) (*links.Note, error) {
	g, err := ix.Graph(skip)
	if err != nil {
		return nil, err
	}
	n, err := g.Lookup(ref)
	if err != nil {
		return nil, err
	}
	abs, err := fsx.Within(root, filepath.FromSlash(n.Path))
	if err != nil {
		return nil, err
	}
	b, err := tree.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("show %s: %w", n.Path, err)
	}
	d, err := markdown.Parse(n.Path, b)
	if err != nil {
		return nil, err
	}
	first, _, _ := strings.Cut(n.Path, "/")
	layer := ""
	for _, l := range layers {
		if l == first {
			layer = l
			break
		}
	}
	return g.NoteOf(n.Path, layer, d), nil
}
