package observations

import (
	"bytes"
	"errors"
	"path"
	"strings"

	"github.com/kbmem/kb/internal/diag"
	"github.com/kbmem/kb/internal/doc"
)

// Dir is the layer's directory in a KB root: one markdown file per
// observation, at Dir/<type>/<id>.md.
const Dir = "observations"

// FilePath is where an observation of this type and id lives, relative to
// the KB root.
func FilePath(typ, id string) string {
	return path.Join(Dir, doc.Slug(typ), doc.Slug(id)+".md")
}

// File is an observation as stored in its file.
type File struct {
	Obs  *Observation
	Path string // slash path relative to the KB root
	// Edited is true when a person changed the text kb generated: kb then
	// updates only its bookkeeping fields (sources, counts, dates) and never
	// the text.
	Edited bool
	// Raw is the file's content as read, for surgical updates.
	Raw []byte
}

// Bookkeeping are the fields re-extraction may always update, even on an
// observation a person edited.
var Bookkeeping = []string{"sources", "sessions", "reviewed", "first_seen", "last_seen", "signals", "projects",
	"importance", "confidence", "accepts", "rejects", "consistency", "references"}

// digestSkip are the fields the edit digest leaves out: the bookkeeping,
// the status, which review and promotion set without editing, and the
// supersession links, which extraction sets (supersede.go).
var digestSkip = append([]string{"status", "supersedes", "superseded_by"}, Bookkeeping...)

// digest hashes what a person might edit in an observation file: every
// field but the bookkeeping and the status, and the body but its sources
// line (which changes with the bookkeeping).
func digest(m map[string]any, body string) string {
	return doc.Digest(m, body, digestSkip, func(l string) bool { return strings.HasPrefix(l, "Sources: ") })
}

// ParseFile reads an observation from the bytes of its file at rel. A file
// that is no observation is a problem with its line: rule "parse" (the
// frontmatter) or "observation" (a field of the wrong shape).
func ParseFile(rel string, b []byte) (*File, *diag.Problem) {
	d, err := doc.ParseFrontmatter(rel, b)
	if err != nil {
		var pe *doc.ParseError
		if errors.As(err, &pe) {
			return nil, &diag.Problem{Path: rel, Line: pe.Line, Msg: pe.Msg, Rule: "parse"}
		}
		return nil, &diag.Problem{Path: rel, Msg: err.Error(), Rule: "parse"}
	}
	o, err := FromMap(d.Fields)
	if err != nil {
		return nil, &diag.Problem{Path: rel, Line: 1, Msg: err.Error(), Rule: "observation"}
	}
	if o.ID == "" {
		o.ID = d.IDOrName()
	}
	want, _ := d.Fields[doc.DigestKey].(string)
	edited := want != "" && want != digest(o.ToMap(), d.Body)
	return &File{Obs: o, Path: rel, Edited: edited, Raw: b}, nil
}

// Render returns the file content of a new observation: its fields in
// file order, the digest of its text, and its body.
func Render(o *Observation) ([]byte, error) {
	body := o.Body()
	return doc.Render(append(o.Fields(), doc.Field{Key: doc.DigestKey, Value: digest(o.ToMap(), body)}), body)
}

// RenderFile returns the path and the bytes of o's file, and whether they
// differ from existing (nil for a new file). An existing file a person
// edited keeps its text: only the bookkeeping fields change, surgically.
// An unedited one is rendered again, keeping the keys a person added.
func RenderFile(o *Observation, existing *File) (rel string, out []byte, changed bool, err error) {
	if o.ID == "" {
		o.ID = o.MakeID()
	}
	rel = FilePath(o.Type, o.ID)
	if existing != nil {
		rel = existing.Path
	}
	switch {
	case existing == nil:
		out, err = Render(o)
	case !existing.Edited:
		out, err = rerender(o, existing)
	default:
		m := o.ToMap()
		set := map[string]any{}
		for _, key := range Bookkeeping {
			set[key] = m[key] // nil deletes: a field that became empty
		}
		out, err = doc.Update(existing.Raw, set, nil)
	}
	if err != nil {
		return rel, nil, false, err
	}
	if existing != nil && bytes.Equal(out, existing.Raw) {
		return rel, out, false, nil
	}
	return rel, out, true, nil
}

// rerender renders o anew and carries over, surgically, the keys of the
// existing file kb does not know (a person's additions).
func rerender(o *Observation, existing *File) ([]byte, error) {
	out, err := Render(o)
	if err != nil {
		return nil, err
	}
	old, err := doc.ParseFrontmatter(existing.Path, existing.Raw)
	if err != nil {
		return out, nil
	}
	extra := map[string]any{}
	for key, v := range old.Fields {
		if key != doc.DigestKey && !knownField[key] {
			extra[key] = v
		}
	}
	if len(extra) == 0 {
		return out, nil
	}
	return doc.Update(out, extra, nil)
}
