package doc

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"

	"gopkg.in/yaml.v3"
)

// Document is a parsed kb markdown file.
type Document struct {
	Path        string // slash path relative to the KB root (as given to Parse)
	ID          string
	Type        string
	Title       string
	Description string
	// Tags holds the frontmatter `tags` plus inline #tags from the body,
	// deduplicated case-insensitively, without '#', first spelling kept.
	Tags      []string
	Lifecycle string // knowledge | self | operational
	Status    string
	// Created and Updated are as written; see CreatedTime and UpdatedTime.
	Created, Updated string
	// Sources point to trace records, e.g. "claude-code-abc123#12-40".
	Sources []string
	// Relations maps a relation name (see RelationKeys) to ids or paths.
	Relations map[string][]string
	// Fields holds every frontmatter key decoded generically. Timestamps
	// stay strings as written.
	Fields         map[string]any
	Body           string
	BodyLine       int // 1-based file line where Body starts
	HasFrontmatter bool
	// Links are the body's wiki and markdown links, the relations, and the
	// tags (frontmatter and inline), sorted by line.
	Links []Link
	// Fallback lists the body lines the markdown parser did not read
	// because they were past its size or nesting limits (a huge note, a
	// line of thousands of link openers); their links and tags were found
	// by a linear scan, which takes a link's text as written. Empty for
	// ordinary notes.
	Fallback []LineRange

	keyLines map[string]int
}

// LineRange is a range of file lines, both ends included.
type LineRange struct {
	From int `json:"from"`
	To   int `json:"to"`
}

// Link is one outgoing reference of a document.
type Link struct {
	Kind    string // "wiki", "markdown", "relation", "tag"
	Target  string // wiki: text before | and #; markdown: the URL path (unescaped); relation: the id/path; tag: the tag without '#'
	Alias   string // [[t|alias]] or the markdown link text
	Heading string // [[t#heading]] or md link #fragment
	Rel     string // relation name for Kind=="relation"
	Line    int    // 1-based line in the file
	Embed   bool   // ![[embed]]
}

// Link kinds.
const (
	KindWiki     = "wiki"
	KindMarkdown = "markdown"
	KindRelation = "relation"
	KindTag      = "tag"
)

// RelationKeys are the frontmatter keys whose values are links to other
// documents. They may appear at the top level or under a `relations:` map.
var RelationKeys = []string{"supersedes", "derived_from", "contradicts", "related"}

// Well-known frontmatter keys.
const (
	KeyID          = "id"
	KeyType        = "type"
	KeyTitle       = "title"
	KeyDescription = "description"
	KeyTags        = "tags"
	KeyLifecycle   = "lifecycle"
	KeyStatus      = "status"
	KeyCreated     = "created"
	KeyUpdated     = "updated"
	KeySources     = "sources"
	KeyRelations   = "relations"
)

// KeyLine returns the 1-based file line of a top-level frontmatter key, 0 if
// the key is absent.
func (d *Document) KeyLine(key string) int {
	if d == nil {
		return 0
	}
	return d.keyLines[key]
}

// CreatedTime parses Created (YYYY-MM-DD or RFC 3339).
func (d *Document) CreatedTime() (time.Time, error) { return ParseTime(d.Created) }

// UpdatedTime parses Updated (YYYY-MM-DD or RFC 3339).
func (d *Document) UpdatedTime() (time.Time, error) { return ParseTime(d.Updated) }

// ParseTime parses a frontmatter date: YYYY-MM-DD, RFC 3339, or the
// "YYYY-MM-DD HH:MM:SS" form YAML allows.
func ParseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, fmt.Errorf("empty date")
	}
	for _, layout := range []string{"2006-01-02", time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("date %q is neither YYYY-MM-DD nor RFC 3339", s)
}

// ParseFrontmatter parses a markdown document with optional YAML
// frontmatter: its fields, relations and body text. The body's markdown
// (its links and #tags) is internal/markdown's to read (markdown.Parse):
// goldmark, which that needs, is no package a hook links. path is only
// recorded (and used in errors); src is not modified. The error is always
// a *ParseError.
func ParseFrontmatter(path string, src []byte) (*Document, error) {
	return parse(path, src)
}

func parse(path string, src []byte) (d *Document, err error) {
	defer func() {
		if r := recover(); r != nil {
			d, err = nil, &ParseError{Path: path, Msg: fmt.Sprintf("internal error: %v", r)}
		}
	}()
	l, err := locate(src)
	if err != nil {
		return nil, withPath(err, path)
	}
	d = &Document{
		Path:           path,
		HasFrontmatter: l.hasFM,
		Body:           string(src[l.bodyStart:]),
		BodyLine:       1 + bytes.Count(src[:l.bodyStart], []byte("\n")),
		Fields:         map[string]any{},
		keyLines:       map[string]int{},
	}
	if l.root != nil {
		if err := d.fill(l); err != nil {
			return nil, withPath(err, path)
		}
	}
	return d, nil
}

// fill decodes the frontmatter mapping into d.
func (d *Document) fill(l *layout) error {
	root := l.root
	budget := maxDecodeNodes
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		d.keyLines[k.Value] = l.fileLine(k.Line)
		val, err := decodeGeneric(v, &budget, 0)
		if err != nil {
			return &ParseError{Line: l.fileLine(v.Line), Msg: fmt.Sprintf("frontmatter key %q: %v", k.Value, err)}
		}
		d.Fields[k.Value] = val
	}
	str := func(key string, dst *string) error {
		i := l.pair(key)
		if i < 0 {
			return nil
		}
		v := deref(root.Content[i+1])
		s, err := scalarString(v)
		if err != nil {
			return &ParseError{Line: l.fileLine(root.Content[i].Line), Msg: fmt.Sprintf("frontmatter key %q %v", key, err)}
		}
		*dst = s
		return nil
	}
	for _, f := range []struct {
		key string
		dst *string
	}{
		{KeyID, &d.ID}, {KeyType, &d.Type}, {KeyTitle, &d.Title}, {KeyDescription, &d.Description},
		{KeyLifecycle, &d.Lifecycle}, {KeyStatus, &d.Status}, {KeyCreated, &d.Created}, {KeyUpdated, &d.Updated},
	} {
		if err := str(f.key, f.dst); err != nil {
			return err
		}
	}

	if i := l.pair(KeyTags); i >= 0 {
		items, err := stringList(l, KeyTags, root.Content[i], root.Content[i+1], true)
		if err != nil {
			return err
		}
		for _, it := range items {
			for _, t := range splitTags(it.value) {
				d.Tags = append(d.Tags, t)
				d.Links = append(d.Links, Link{Kind: KindTag, Target: t, Line: it.line})
			}
		}
	}
	if i := l.pair(KeySources); i >= 0 {
		items, err := stringList(l, KeySources, root.Content[i], root.Content[i+1], false)
		if err != nil {
			return err
		}
		for _, it := range items {
			d.Sources = append(d.Sources, it.value)
		}
	}

	// Relations: top-level keys first, then a nested `relations:` map.
	addRel := func(rel string, k, v *yaml.Node) error {
		items, err := stringList(l, rel, k, v, false)
		if err != nil {
			return err
		}
		for _, it := range items {
			// Obsidian properties hold links as "[[Note|alias]]".
			if v := it.value; strings.HasPrefix(v, "[[") && strings.HasSuffix(v, "]]") && len(v) > 4 {
				if target, _, _, ok := SplitWiki(v[2 : len(v)-2]); ok && target != "" {
					it.value = target
				}
			}
			if it.value == "" {
				continue
			}
			if d.Relations == nil {
				d.Relations = map[string][]string{}
			}
			d.Relations[rel] = append(d.Relations[rel], it.value)
			d.Links = append(d.Links, Link{Kind: KindRelation, Target: it.value, Rel: rel, Line: it.line})
		}
		return nil
	}
	for _, rel := range RelationKeys {
		if i := l.pair(rel); i >= 0 {
			if err := addRel(rel, root.Content[i], root.Content[i+1]); err != nil {
				return err
			}
		}
	}
	if i := l.pair(KeyRelations); i >= 0 {
		m := deref(root.Content[i+1])
		switch {
		case m.Kind == yaml.ScalarNode && m.ShortTag() == "!!null":
		case m.Kind != yaml.MappingNode:
			return &ParseError{Line: l.fileLine(root.Content[i].Line), Msg: fmt.Sprintf("frontmatter key %q must be a mapping of relation names to lists", KeyRelations)}
		default:
			for _, rel := range RelationKeys {
				for j := 0; j+1 < len(m.Content); j += 2 {
					if m.Content[j].Kind == yaml.ScalarNode && m.Content[j].Value == rel {
						if err := addRel(rel, m.Content[j], m.Content[j+1]); err != nil {
							return err
						}
					}
				}
			}
		}
	}
	return nil
}

// deref follows alias nodes.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias"
	}
	return "a " + strings.TrimPrefix(n.ShortTag(), "!!")
}

// scalarString returns a scalar's text as written ("" for null).
func scalarString(n *yaml.Node) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("must be a string, not %s", kindName(n))
	}
	if n.ShortTag() == "!!null" {
		return "", nil
	}
	return n.Value, nil
}

type lineValue struct {
	value string
	line  int
}

// stringList reads a list of scalars; a single scalar is a one-item list.
// With tagRules, items must be strings (numbers are not tags) and a single
// string may hold several tags separated by commas or spaces.
// Errors about the whole value point at the key's line, errors about an
// item at the item's line.
func stringList(l *layout, key string, keyNode, n *yaml.Node, tagRules bool) ([]lineValue, error) {
	n = deref(n)
	bad := func(at *yaml.Node, what string) error {
		return &ParseError{Line: l.fileLine(at.Line), Msg: fmt.Sprintf("frontmatter key %q must be a list of strings, %s", key, what)}
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if n.ShortTag() == "!!null" {
			return nil, nil
		}
		if tagRules {
			if n.ShortTag() != "!!str" {
				return nil, bad(keyNode, "not "+kindName(n))
			}
			return []lineValue{{n.Value, l.fileLine(n.Line)}}, nil
		}
		return []lineValue{{n.Value, l.fileLine(n.Line)}}, nil
	case yaml.SequenceNode:
		out := make([]lineValue, 0, len(n.Content))
		for _, it := range n.Content {
			it = deref(it)
			// Unquoted [[note]] is YAML for nested one-item lists: read it
			// as the link it was meant to be.
			for depth := 0; !tagRules && depth < 2 && it.Kind == yaml.SequenceNode && len(it.Content) == 1; depth++ {
				it = deref(it.Content[0])
			}
			if it.Kind != yaml.ScalarNode {
				return nil, bad(it, "but an item is "+kindName(it))
			}
			if it.ShortTag() == "!!null" {
				continue
			}
			if tagRules && (it.ShortTag() == "!!int" || it.ShortTag() == "!!float") {
				return nil, bad(it, fmt.Sprintf("but item %q is a number", it.Value))
			}
			out = append(out, lineValue{it.Value, l.fileLine(it.Line)})
		}
		return out, nil
	}
	return nil, bad(keyNode, "not "+kindName(n))
}

// maxDecodeNodes bounds alias expansion ("billion laughs") in Fields.
const maxDecodeNodes = 1 << 16

// decodeGeneric decodes a node into plain Go values: map[string]any, []any,
// string, int, float64, bool, nil. Timestamps stay strings as written.
func decodeGeneric(n *yaml.Node, budget *int, depth int) (any, error) {
	*budget--
	if *budget < 0 {
		return nil, fmt.Errorf("too many values (alias expansion?)")
	}
	if depth > 200 {
		return nil, fmt.Errorf("nested too deeply")
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, fmt.Errorf("unknown alias %q", n.Value)
		}
		return decodeGeneric(n.Alias, budget, depth+1)
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str", "!!timestamp":
			return n.Value, nil
		case "!!null":
			return nil, nil
		}
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, err
		}
		return v, nil
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := decodeGeneric(c, budget, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, err := decodeGeneric(n.Content[i], budget, depth+1)
			if err != nil {
				return nil, err
			}
			v, err := decodeGeneric(n.Content[i+1], budget, depth+1)
			if err != nil {
				return nil, err
			}
			out[fmt.Sprint(k)] = v
		}
		return out, nil
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return decodeGeneric(n.Content[0], budget, depth+1)
	}
	return nil, nil
}

// splitTags reads one frontmatter tag value: tags cannot hold spaces, so
// "a, b c" is three tags; a leading '#' is dropped.
func splitTags(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
		if f = strings.TrimLeft(f, "#"); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// dedupeFold removes case-insensitive duplicates, keeping the first spelling.
func dedupeFold(in []string) []string {
	if len(in) == 0 {
		return nil
	}
	seen := make(map[string]bool, len(in))
	out := in[:0:0]
	for _, s := range in {
		k := strings.ToLower(s)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, s)
	}
	return out
}

// SplitWiki splits the inside of a wiki link, "target#heading|alias";
// false when it names neither a target nor a heading.
func SplitWiki(s string) (target, heading, alias string, ok bool) {
	if i := strings.IndexByte(s, '|'); i >= 0 {
		alias = strings.TrimSpace(s[i+1:])
		s = s[:i]
		// In tables the pipe is escaped: [[target\|alias]].
		s = strings.TrimSuffix(s, `\`)
	}
	if i := strings.IndexByte(s, '#'); i >= 0 {
		heading = strings.TrimSpace(s[i+1:])
		s = s[:i]
	}
	target = strings.TrimSpace(s)
	return target, heading, alias, target != "" || heading != ""
}

// AddBody adds what a reader of the body's markdown found
// (internal/markdown): its links, its #tags (once each, whatever their
// case) and the line ranges it read without a markdown parser. Links end
// in line order.
func (d *Document) AddBody(links []Link, tags []string, fallback []LineRange) {
	d.Links = append(d.Links, links...)
	d.Tags = dedupeFold(append(d.Tags, tags...))
	d.Fallback = append(d.Fallback, fallback...)
	sort.SliceStable(d.Links, func(i, j int) bool { return d.Links[i].Line < d.Links[j].Line })
}
