package episodes

import (
	"errors"
	"path"

	"github.com/kbmem/kb/internal/diag"
	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/markdown"
)

// Dir is the layer's directory in a KB root: one markdown file per
// episode, at Dir/<id>.md.
const Dir = "episodes"

// FilePath is where the episode with this id lives, relative to the root.
func FilePath(id string) string { return path.Join(Dir, doc.Slug(id)+".md") }

// File is an episode as stored in its file.
type File struct {
	Episode *Episode `json:"episode"`
	Path    string   `json:"path"`
	Edited  bool     `json:"edited"` // a person changed what kb wrote: kb leaves it alone
	Body    string   `json:"-"`
}

// ParseFile reads the episode file at rel. A file that is no episode is a
// problem with its line (rule "episode").
func ParseFile(rel string, b []byte) (*File, *diag.Problem) {
	e, err := Parse(rel, b)
	if err != nil {
		p := &diag.Problem{Path: rel, Msg: err.Error(), Rule: "episode"}
		var pe *ParseError
		if errors.As(err, &pe) {
			p.Line = pe.Line
		}
		return nil, p
	}
	body := ""
	if d, err := markdown.Parse(rel, b); err == nil {
		body = d.Body
	}
	return &File{Episode: e, Path: rel, Edited: Edited(b), Body: body}, nil
}

// Build is what building the episodes changes in their directory.
type Build struct {
	Write  []Rendered // the files of the episodes, kb's to write
	Kept   []string   // episodes a person edited: left alone
	Remove []string   // kb-written episodes whose sessions regrouped
}

// Rendered is an episode file's path and content.
type Rendered struct {
	Path    string
	Content []byte
}

// PlanBuild decides, for freshly grouped episodes and the files there are,
// what a build writes and removes. It never overwrites or removes an
// episode a person edited, and skips a new episode that shares sessions
// with an edited one; the files of the others are rendered, and kb-written
// episodes no grouping produced any more are removed.
func PlanBuild(eps []Episode, existing []*File) (*Build, error) {
	b := &Build{}
	edited := map[string]bool{} // sessions covered by a person's episode
	byPath := map[string]*File{}
	for _, f := range existing {
		byPath[f.Path] = f
		if f.Edited {
			b.Kept = append(b.Kept, f.Path)
			for _, s := range f.Episode.Scope.Sessions {
				edited[s] = true
			}
		}
	}
	live := map[string]bool{}
	for i := range eps {
		e := &eps[i]
		rel := FilePath(e.ID)
		if f := byPath[rel]; f != nil && f.Edited {
			live[rel] = true
			continue
		}
		clash := false
		for _, s := range e.Scope.Sessions {
			clash = clash || edited[s]
		}
		if clash {
			continue
		}
		live[rel] = true
		out, err := Render(e)
		if err != nil {
			return nil, err
		}
		b.Write = append(b.Write, Rendered{Path: rel, Content: out})
	}
	for _, f := range existing {
		if !live[f.Path] && !f.Edited {
			b.Remove = append(b.Remove, f.Path)
		}
	}
	return b, nil
}
