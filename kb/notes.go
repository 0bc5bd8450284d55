package kb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/kbmem/kb/internal/index"
	"github.com/kbmem/kb/internal/links"
	"github.com/kbmem/kb/internal/textutil"
	"github.com/kbmem/kb/library"
)

// SearchOptions are the filters of `kb search` (empty Layers: every
// layer but traces).
type SearchOptions index.NoteQuery

// SearchHit is one ranked result.
type SearchHit = index.NoteHit

// SearchResult is the answer of Search.
type SearchResult = index.NoteResult

// ReadLayers are the layers a search with these options reads (nil: all),
// the ones to bring up to date before it: traces only when asked for.
func (o SearchOptions) ReadLayers() []string {
	switch {
	case len(o.Layers) == 0:
		return slices.Clone(recallLayers)
	case slices.Contains(o.Layers, "all"):
		return nil
	}
	return o.Layers
}

// Search runs a query against the index. Bleve query syntax applies:
// field:value, "phrases", +must, -mustnot.
func (x *Searcher) Search(o SearchOptions) (*SearchResult, error) {
	res, err := x.ix.SearchNotes(index.NoteQuery(o), LayerTraces) // traces only on request (ADR 0003)
	if index.IsQueryError(err) {
		return nil, fmt.Errorf("%w: %v", ErrInvalidInput, err)
	}
	return res, err
}

// Graph builds the link graph of every markdown document from the index's
// stored fields, without re-reading the files.
func (x *Searcher) Graph() (*links.Graph, error) { return x.ix.Graph(LayerTraces) }

// Note is a document with its place in the graph, for `kb show`.
type Note = links.Note

// LinkRef is one edge as shown to users.
type LinkRef = links.Ref

// Resolve finds a document by id, path, file name or title.
func (x *Searcher) Resolve(g *links.Graph, ref string) (links.Node, error) {
	n, err := g.Lookup(ref)
	return n, refErr(ref, err)
}

// refErr is kb's error for a failed lookup of ref (links.LookupError) or
// an unknown graph format; any other error as it is.
func refErr(ref string, err error) error {
	var le *links.LookupError
	switch {
	case errors.Is(err, links.ErrAmbiguous):
		return fmt.Errorf("%w: %v", ErrAmbiguousID, err)
	case errors.As(err, &le):
		return fmt.Errorf("%q: %w (try 'kb search %s')", ref, ErrNotFound, ref)
	case errors.Is(err, links.ErrFormat):
		return fmt.Errorf("%w: %v", ErrInvalidInput, err)
	}
	return err
}

// Show reads a document with its links and backlinks.
func (x *Searcher) Show(ref string) (*Note, error) {
	n, err := x.ix.Show(x.k.files(), x.k.Root, ref, LayerTraces, Layers)
	return n, refErr(ref, err)
}

// NewResult reports a created note.
type NewResult struct {
	ID   string `json:"id"`
	Path string `json:"path"`
	Type string `json:"type"`
}

// New creates a library note from its template under the write lock.
func (k *KB) New(ctx context.Context, typ, title string) (*NewResult, error) {
	defer k.refreshActivation(ctx) // the next hook answers with what this changed
	l, err := k.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	x, _, err := k.OpenIndex(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	g, err := x.Graph()
	if err != nil {
		return nil, err
	}
	c, err := library.Render(library.NewIn(g, k.Root, typ, title, k.noteTemplate(typ)))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidInput, err)
	}
	abs, err := k.Path(c.RelPath)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); err == nil {
		return nil, fmt.Errorf("%s: %w", c.RelPath, ErrExists)
	}
	if err := k.files().WriteFile(abs, c.Content, 0o644); err != nil {
		return nil, fmt.Errorf("new %s: %w", typ, err)
	}
	return &NewResult{ID: c.ID, Path: c.RelPath, Type: typ}, nil
}

// truncate shortens s to at most n bytes on a rune boundary, adding "…".
func truncate(s string, n int) string { return textutil.Truncate(s, n) }

// Links returns a document's forward links, or its backlinks.
func (x *Searcher) Links(ref string, back bool) ([]LinkRef, error) {
	g, err := x.Graph()
	if err != nil {
		return nil, err
	}
	refs, err := g.LinksOf(ref, back)
	return refs, refErr(ref, err)
}

// WriteGraph writes the link graph (or the part within depth hops of from)
// as dot, mermaid or json.
func (x *Searcher) WriteGraph(w io.Writer, format, from string, depth int) error {
	g, err := x.Graph()
	if err != nil {
		return err
	}
	return refErr(from, g.WriteFrom(w, format, from, depth))
}

// IDs lists document ids starting with prefix, for shell completion.
func (x *Searcher) IDs(prefix string, limit int) ([]string, error) {
	g, err := x.Graph()
	if err != nil {
		return nil, err
	}
	return g.IDsWithPrefix(prefix, limit), nil
}

// SnippetMark wraps matched words in SearchHit.Snippet (markdown bold).
const SnippetMark = index.SnippetMark

// noteTemplate returns the KB-local template override templates/<typ>.md,
// if present. It is read through the KB's tree: a cloned KB whose template
// is a symlink to a private file out of the KB would otherwise have that
// file copied into a new note the person commits.
func (k *KB) noteTemplate(typ string) string {
	b, err := k.files().ReadFile(filepath.Join(k.Root, "templates", typ+".md"))
	if err != nil {
		return ""
	}
	return string(b)
}
