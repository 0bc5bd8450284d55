package library

import (
	"os"
	"path/filepath"

	"github.com/kbmem/kb/internal/links"
)

// NewIn is the NewNote of typ and title in the KB at root whose documents
// g holds: the next ADR number over g's ids, and an id taken when g
// resolves it or a file of that name is in typ's directory already.
func NewIn(g *links.Graph, root, typ, title, template string) NewNote {
	return NewNote{
		Type: typ, Title: title, NextADR: NextADRNumber(g.IDs()), Template: template,
		Taken: func(id string) bool {
			if _, err := g.Lookup(id); err == nil {
				return true
			}
			_, err := os.Stat(filepath.Join(root, filepath.FromSlash(Dir(typ)), id+".md"))
			return err == nil
		},
	}
}
