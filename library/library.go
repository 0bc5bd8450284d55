// Package library owns layer 4: curated notes, conventions, procedures,
// preferences and ADRs. It knows the note types, where each lives under
// library/, how a new note is made from its template, and which frontmatter
// keys each type requires.
package library

import (
	"bytes"
	"fmt"
	"github.com/kbmem/kb/internal/textutil"
	"path"
	"sort"
	"strings"
	"text/template"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/templates"
)

// Note types of the library layer.
const (
	TypeNote       = "note"
	TypeADR        = "adr"
	TypeProcedure  = "procedure"
	TypeConvention = "convention"
	TypePreference = "preference"
	TypePattern    = "pattern"
)

// Types lists the library note types `kb new` accepts.
var Types = []string{TypeNote, TypeADR, TypeProcedure, TypeConvention, TypePreference}

// Dir returns the directory (relative to the KB root, slash-separated) that
// holds notes of type t.
func Dir(t string) string { return "library/" + t + "s" }

// Lifecycles are the allowed values of the lifecycle key.
var Lifecycles = []string{"knowledge", "self", "operational"}

// Required lists the frontmatter keys every document of any layer must have.
var Required = []string{"id", "type", "title"}

// NewNote is what `kb new` needs to create a note.
type NewNote struct {
	Type  string
	Title string
	Now   time.Time
	// Taken reports whether an id is already used in the KB.
	Taken func(id string) bool
	// NextADR is the number the next ADR gets (see NextADRNumber); 0 means 1.
	NextADR int
	// Template overrides the embedded template text (a KB's own templates/).
	Template string
}

// Created is a rendered new note.
type Created struct {
	ID      string
	RelPath string // slash path relative to the KB root
	Content []byte
}

var adrNum = textutil.Lazy(`^adr-(\d{4})-`)

// Render makes a new note of the given type from its template, with a
// unique id derived from the title (ADRs are numbered: adr-0007-slug).
func Render(n NewNote) (*Created, error) {
	if !valid(n.Type) {
		return nil, fmt.Errorf("unknown note type %q (one of %s)", n.Type, strings.Join(Types, ", "))
	}
	title := strings.TrimSpace(n.Title)
	if title == "" {
		return nil, fmt.Errorf("a note needs a title")
	}
	taken := n.Taken
	if taken == nil {
		taken = func(string) bool { return false }
	}
	slug := doc.Slug(title)
	base := slug
	if n.Type == TypeADR {
		num := max(n.NextADR, 1)
		base = fmt.Sprintf("adr-%04d-%s", num, slug)
		for taken(base) {
			num++
			base = fmt.Sprintf("adr-%04d-%s", num, slug)
		}
	}
	id := base
	for i := 2; taken(id); i++ {
		id = fmt.Sprintf("%s-%d", base, i)
	}
	text := n.Template
	if text == "" {
		var err error
		if text, err = templates.Get(n.Type); err != nil {
			return nil, err
		}
	}
	tpl, err := template.New(n.Type).Funcs(template.FuncMap{"yaml": yamlScalar}).Parse(text)
	if err != nil {
		return nil, fmt.Errorf("template %s: %w", n.Type, err)
	}
	now := n.Now
	if now.IsZero() {
		now = time.Now()
	}
	var buf bytes.Buffer
	err = tpl.Execute(&buf, map[string]any{"ID": id, "Title": title, "Type": n.Type, "Date": now.Format("2006-01-02")})
	if err != nil {
		return nil, fmt.Errorf("template %s: %w", n.Type, err)
	}
	return &Created{ID: id, RelPath: path.Join(Dir(n.Type), id+".md"), Content: buf.Bytes()}, nil
}

// NextADRNumber returns the number the next ADR gets: one more than the
// highest adr-NNNN- id in use.
func NextADRNumber(ids []string) int {
	hi := 0
	for _, id := range ids {
		if m := adrNum.FindStringSubmatch(id); m != nil {
			var n int
			fmt.Sscan(m[1], &n)
			hi = max(hi, n)
		}
	}
	return hi + 1
}

func valid(t string) bool {
	for _, x := range Types {
		if x == t {
			return true
		}
	}
	return false
}

func yamlScalar(s string) string {
	b, err := yaml.Marshal(s)
	if err != nil {
		return fmt.Sprintf("%q", s)
	}
	return strings.TrimSpace(string(b))
}

// SortedTypes returns Types sorted, for completion.
func SortedTypes() []string {
	t := append([]string(nil), Types...)
	sort.Strings(t)
	return t
}
