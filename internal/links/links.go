package links

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/kbmem/kb/internal/doc"
)

// Node is one document of the graph.
type Node struct {
	Path  string // slash path relative to the KB root
	ID    string
	Title string
	Type  string
	Tags  []string
	Links []doc.Link
}

// Edge is one link of a document. To is the resolved path, "" when the link
// is unresolved or a tag.
type Edge struct {
	From string
	To   string
	Link doc.Link
}

// Lookup errors; a *LookupError wraps one of them.
var (
	ErrNotFound  = errors.New("not found")
	ErrAmbiguous = errors.New("ambiguous")
)

// LookupError reports a failed Lookup. Err is ErrNotFound or ErrAmbiguous;
// Candidates lists the matching paths when ambiguous.
type LookupError struct {
	Query      string
	Candidates []string
	Err        error
}

func (e *LookupError) Error() string {
	if errors.Is(e.Err, ErrAmbiguous) {
		return fmt.Sprintf("%q is ambiguous: %s", e.Query, strings.Join(e.Candidates, ", "))
	}
	return fmt.Sprintf("%q: no document with that path, id, file name or title", e.Query)
}

func (e *LookupError) Unwrap() error { return e.Err }

// Graph is the resolved link graph of a set of documents.
type Graph struct {
	nodes []Node // sorted by Path, unique paths

	byPath   map[string]int32   // exact path
	byFold   map[string][]int32 // lowercased clean path
	bySuffix map[string][]int32 // lowercased path suffixes at '/' boundaries
	byID     map[string][]int32 // lowercased id
	byName   map[string][]int32 // lowercased file name without .md
	byTitle  map[string][]int32 // lowercased title
	tags     map[string][]int32 // lowercased tag

	// edges are grouped by source node (in node order) and sorted by line
	// within a node: node i's links are edges[outStart[i]:outStart[i+1]].
	edges    []Edge
	outStart []int32
	// Node i's backlinks are edges[inEdges[inStart[i]:inStart[i+1]]],
	// sorted by From, then line.
	inStart []int32
	inEdges []int32
}

// out returns node i's outgoing edges (a view, do not modify).
func (g *Graph) out(i int32) []Edge { return g.edges[g.outStart[i]:g.outStart[i+1]] }

// in returns the indices of node i's incoming edges.
func (g *Graph) in(i int32) []int32 { return g.inEdges[g.inStart[i]:g.inStart[i+1]] }

// arena hands out one-element []int32 slices from a shared block, so that
// index maps cost no allocation per key; append on a collision copies.
type arena struct{ buf []int32 }

func (a *arena) one(v int32) []int32 {
	if len(a.buf) == cap(a.buf) {
		a.buf = make([]int32, 0, 4096)
	}
	a.buf = append(a.buf, v)
	n := len(a.buf)
	return a.buf[n-1 : n : n]
}

func (a *arena) add(m map[string][]int32, k string, v int32) {
	if l, ok := m[k]; ok {
		m[k] = append(l, v)
		return
	}
	m[k] = a.one(v)
}

// Build indexes nodes and resolves all their links. Nodes with a path seen
// before are ignored; an empty path is ignored.
func Build(nodes []Node) *Graph {
	g := newIndex(nodes)
	n := 0
	for i := range g.nodes {
		n += len(g.nodes[i].Links)
	}
	g.edges = make([]Edge, 0, n)
	for i := range g.nodes {
		nd := &g.nodes[i]
		start := len(g.edges)
		for _, l := range nd.Links {
			e := Edge{From: nd.Path, Link: l}
			if l.Kind != doc.KindTag {
				if c := g.resolve(nd.Path, l.Target); len(c) > 0 {
					e.To = g.nodes[c[0]].Path
				}
			}
			g.edges = append(g.edges, e)
		}
		sortByLine(g.edges[start:])
	}
	g.wire()
	return g
}

func sortByLine(es []Edge) {
	for i := 1; i < len(es); i++ {
		if es[i].Link.Line < es[i-1].Link.Line {
			slices.SortStableFunc(es, func(a, b Edge) int { return a.Link.Line - b.Link.Line })
			return
		}
	}
}

// newIndex sorts and deduplicates nodes and builds the lookup maps.
func newIndex(in []Node) *Graph {
	// Sort a permutation, not the (large) nodes; first of equal paths wins.
	perm := make([]int32, 0, len(in))
	sorted := true
	for i := range in {
		if in[i].Path == "" {
			continue
		}
		if len(perm) > 0 && in[perm[len(perm)-1]].Path >= in[i].Path {
			sorted = false
		}
		perm = append(perm, int32(i))
	}
	if !sorted {
		slices.SortStableFunc(perm, func(a, b int32) int { return strings.Compare(in[a].Path, in[b].Path) })
	}
	nodes := make([]Node, 0, len(perm))
	for _, p := range perm {
		if len(nodes) > 0 && nodes[len(nodes)-1].Path == in[p].Path {
			continue
		}
		nodes = append(nodes, in[p])
	}
	size := len(nodes)
	g := &Graph{
		nodes:    nodes,
		byPath:   make(map[string]int32, size),
		byFold:   make(map[string][]int32, size),
		bySuffix: make(map[string][]int32, 2*size),
		byID:     make(map[string][]int32, size),
		byName:   make(map[string][]int32, size),
		byTitle:  make(map[string][]int32, size),
		tags:     make(map[string][]int32),
	}
	var ar arena
	for i := range nodes {
		idx := int32(i)
		n := &nodes[i]
		g.byPath[n.Path] = idx
		lp := strings.ToLower(path.Clean(n.Path))
		ar.add(g.byFold, lp, idx)
		for j := 0; j < len(lp); j++ {
			if lp[j] == '/' && j+1 < len(lp) {
				ar.add(g.bySuffix, lp[j+1:], idx)
			}
		}
		if id := strings.TrimSpace(n.ID); id != "" {
			ar.add(g.byID, strings.ToLower(id), idx)
		}
		ar.add(g.byName, trimMD(path.Base(lp)), idx)
		if t := strings.TrimSpace(n.Title); t != "" {
			ar.add(g.byTitle, strings.ToLower(t), idx)
		}
		for _, t := range n.Tags {
			g.addTag(t, idx)
		}
		for _, l := range n.Links {
			if l.Kind == doc.KindTag {
				g.addTag(l.Target, idx)
			}
		}
	}
	return g
}

func (g *Graph) addTag(t string, idx int32) {
	t = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(t), "#"))
	if t == "" {
		return
	}
	l := g.tags[t]
	if len(l) > 0 && l[len(l)-1] == idx {
		return
	}
	g.tags[t] = append(l, idx)
}

// wire computes the edge offsets of every node and the backlink index.
// g.edges must be grouped by source in node order.
func (g *Graph) wire() {
	n := len(g.nodes)
	g.outStart = make([]int32, n+1)
	g.inStart = make([]int32, n+2)
	to := make([]int32, len(g.edges))
	for i := range g.edges {
		e := &g.edges[i]
		if f, ok := g.byPath[e.From]; ok {
			g.outStart[f+1]++
		}
		to[i] = -1
		if e.To != "" {
			if t, ok := g.byPath[e.To]; ok {
				to[i] = t
				g.inStart[t+2]++
			}
		}
	}
	for i := 1; i <= n; i++ {
		g.outStart[i] += g.outStart[i-1]
	}
	for i := 2; i < len(g.inStart); i++ {
		g.inStart[i] += g.inStart[i-1]
	}
	// Edges come in From order, so filling in edge order keeps every
	// backlink list sorted by From, then line.
	g.inEdges = make([]int32, g.inStart[n+1])
	for i, t := range to {
		if t >= 0 {
			g.inEdges[g.inStart[t+1]] = int32(i)
			g.inStart[t+1]++
		}
	}
	g.inStart = g.inStart[:n+1]
}

func trimMD(s string) string {
	if len(s) >= 3 && strings.EqualFold(s[len(s)-3:], ".md") {
		return s[:len(s)-3]
	}
	return s
}

func hasMD(s string) bool { return len(s) >= 3 && strings.EqualFold(s[len(s)-3:], ".md") }

// contained reports whether a cleaned slash path stays inside the KB root.
func contained(p string) bool {
	return p != "" && p != "." && p != ".." && !strings.HasPrefix(p, "../") && !strings.HasPrefix(p, "/")
}

// Resolve returns the path a link target written in fromPath points to.
// When several documents match at the same stage, the choice is
// deterministic: exact case first, then the linking file's directory, then
// the shortest path, then the lexically first. ResolveAll lists them.
func (g *Graph) Resolve(fromPath, target string) (string, bool) {
	c := g.resolve(fromPath, target)
	if len(c) == 0 {
		return "", false
	}
	return g.nodes[c[0]].Path, true
}

// ResolveAll returns every document that matches target at the first
// resolution stage that matches any, best first. More than one result means
// the link is ambiguous.
func (g *Graph) ResolveAll(fromPath, target string) []string {
	c := g.resolve(fromPath, target)
	out := make([]string, len(c))
	for i, idx := range c {
		out[i] = g.nodes[idx].Path
	}
	return out
}

func (g *Graph) resolve(from, target string) []int32 {
	target = strings.TrimSpace(target)
	if target == "" {
		// [[#heading]] points into the linking document itself.
		if i, ok := g.byPath[from]; ok {
			return []int32{i}
		}
		return nil
	}
	if strings.Contains(target, "/") || hasMD(target) {
		rel := strings.TrimPrefix(target, "/")
		cands := []string{path.Join(path.Dir(from), target), path.Clean(rel)}
		for _, c := range cands {
			if !contained(c) {
				continue
			}
			if r := g.pathCandidates(c, target, from); len(r) > 0 {
				return r
			}
		}
		// Obsidian's partial paths: "sub/note" matches "library/sub/note.md".
		suffix := strings.ToLower(path.Clean(rel))
		if contained(suffix) && !strings.HasPrefix(target, "./") && !strings.HasPrefix(target, "../") {
			if !hasMD(suffix) {
				suffix += ".md"
			}
			if r := g.bySuffix[suffix]; len(r) > 0 {
				return g.rank(r, target, from)
			}
		}
	}
	low := strings.ToLower(target)
	if r := g.byID[low]; len(r) > 0 {
		return g.rank(r, target, from)
	}
	if !strings.Contains(low, "/") {
		if r := g.byName[trimMD(low)]; len(r) > 0 {
			return g.rank(r, target, from)
		}
	}
	if r := g.byTitle[low]; len(r) > 0 {
		return g.rank(r, target, from)
	}
	return nil
}

// pathCandidates matches a cleaned path, with or without ".md".
func (g *Graph) pathCandidates(p, target, from string) []int32 {
	tries := []string{p}
	if !hasMD(p) {
		tries = append(tries, p+".md")
	}
	for _, t := range tries {
		if i, ok := g.byPath[t]; ok {
			return []int32{i}
		}
		if r := g.byFold[strings.ToLower(t)]; len(r) > 0 {
			return g.rank(r, target, from)
		}
	}
	return nil
}

// rank orders candidates best first (see Resolve). It copies when it needs
// to reorder, so index slices are never modified.
func (g *Graph) rank(c []int32, target, from string) []int32 {
	if len(c) == 1 {
		return c
	}
	out := append([]int32(nil), c...)
	dir := path.Dir(from)
	exact := func(n *Node) bool {
		base := path.Base(n.Path)
		return n.ID == target || n.Title == target || base == target || trimMD(base) == target ||
			n.Path == target || strings.HasSuffix(n.Path, "/"+target) || strings.HasSuffix(n.Path, "/"+target+".md")
	}
	sort.SliceStable(out, func(a, b int) bool {
		na, nb := &g.nodes[out[a]], &g.nodes[out[b]]
		if ea, eb := exact(na), exact(nb); ea != eb {
			return ea
		}
		if da, db := path.Dir(na.Path) == dir, path.Dir(nb.Path) == dir; da != db {
			return da
		}
		if len(na.Path) != len(nb.Path) {
			return len(na.Path) < len(nb.Path)
		}
		return na.Path < nb.Path
	})
	return out
}

// Lookup finds one document by path (with or without ".md", any case), id,
// file name, title or path suffix. The error is a *LookupError wrapping
// ErrNotFound or ErrAmbiguous.
func (g *Graph) Lookup(q string) (Node, error) {
	s := strings.TrimSpace(q)
	if s == "" {
		return Node{}, &LookupError{Query: q, Err: ErrNotFound}
	}
	if i, ok := g.byPath[s]; ok {
		return g.nodes[i], nil
	}
	low := strings.ToLower(path.Clean(strings.TrimPrefix(s, "./")))
	stages := [][]int32{g.byFold[low]}
	if !hasMD(low) {
		stages = append(stages, g.byFold[low+".md"])
	}
	lowRaw := strings.ToLower(s)
	stages = append(stages, g.byID[lowRaw])
	if !strings.Contains(lowRaw, "/") {
		stages = append(stages, g.byName[trimMD(lowRaw)])
	}
	stages = append(stages, g.byTitle[lowRaw])
	if strings.Contains(low, "/") && contained(low) {
		suf := low
		if !hasMD(suf) {
			suf += ".md"
		}
		stages = append(stages, g.bySuffix[suf])
	}
	for _, c := range stages {
		switch len(c) {
		case 0:
			continue
		case 1:
			return g.nodes[c[0]], nil
		}
		cands := make([]string, len(c))
		for i, idx := range c {
			cands[i] = g.nodes[idx].Path
		}
		sort.Strings(cands)
		return Node{}, &LookupError{Query: q, Candidates: cands, Err: ErrAmbiguous}
	}
	return Node{}, &LookupError{Query: q, Err: ErrNotFound}
}

// Nodes returns all nodes sorted by path.
func (g *Graph) Nodes() []Node { return append([]Node(nil), g.nodes...) }

// Node returns the node with exactly this path.
func (g *Graph) Node(p string) (Node, bool) {
	i, ok := g.byPath[p]
	if !ok {
		return Node{}, false
	}
	return g.nodes[i], true
}

// Len is the number of nodes.
func (g *Graph) Len() int { return len(g.nodes) }

// index finds a node by exact path, else by unique Lookup.
func (g *Graph) index(p string) (int32, bool) {
	if i, ok := g.byPath[p]; ok {
		return i, true
	}
	n, err := g.Lookup(p)
	if err != nil {
		return 0, false
	}
	i, ok := g.byPath[n.Path]
	return i, ok
}

// Forward returns the links of the document at path (tags included, with To
// ""), sorted by line. path may also be anything Lookup finds uniquely.
func (g *Graph) Forward(p string) []Edge {
	i, ok := g.index(p)
	if !ok {
		return nil
	}
	return append([]Edge(nil), g.out(i)...)
}

// Backlinks returns the links that resolve to the document at path, sorted
// by From, then line.
func (g *Graph) Backlinks(p string) []Edge {
	i, ok := g.index(p)
	if !ok {
		return nil
	}
	idx := g.in(i)
	if len(idx) == 0 {
		return nil
	}
	out := make([]Edge, len(idx))
	for k, e := range idx {
		out[k] = g.edges[e]
	}
	return out
}

// Unresolved returns every broken link (tags excluded), sorted by From,
// then line.
func (g *Graph) Unresolved() []Edge {
	var out []Edge
	for _, ed := range g.edges {
		if ed.To == "" && ed.Link.Kind != doc.KindTag {
			out = append(out, ed)
		}
	}
	return out
}

// Tagged returns the sorted paths of documents carrying tag (any case,
// leading '#' optional), including nested tags: "project" matches
// "project/kb".
func (g *Graph) Tagged(tag string) []string {
	t := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(tag), "#"))
	t = strings.TrimSuffix(t, "/")
	if t == "" {
		return nil
	}
	seen := map[int32]bool{}
	for _, i := range g.tags[t] {
		seen[i] = true
	}
	prefix := t + "/"
	for k, list := range g.tags {
		if strings.HasPrefix(k, prefix) {
			for _, i := range list {
				seen[i] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for i := range seen {
		out = append(out, g.nodes[i].Path)
	}
	sort.Strings(out)
	return out
}

// TagCount is a tag and how many documents carry it.
type TagCount struct {
	Tag   string
	Count int
}

// Subgraph returns the documents within depth hops of from, following
// resolved links in both directions, with the edges among them plus their
// unresolved and tag links. depth < 0 or from == "" returns the whole
// graph; an unknown from returns an empty graph.
func (g *Graph) Subgraph(from string, depth int) *Graph {
	if depth < 0 || from == "" {
		return g
	}
	start, ok := g.index(from)
	if !ok {
		return Build(nil)
	}
	dist := map[int32]int{start: 0}
	queue := []int32{start}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if dist[cur] >= depth {
			continue
		}
		visit := func(p string) {
			if p == "" {
				return
			}
			j, ok := g.byPath[p]
			if !ok {
				return
			}
			if _, seen := dist[j]; !seen {
				dist[j] = dist[cur] + 1
				queue = append(queue, j)
			}
		}
		for _, e := range g.out(cur) {
			visit(e.To)
		}
		for _, e := range g.in(cur) {
			visit(g.edges[e].From)
		}
	}
	keep := make([]Node, 0, len(dist))
	keepPath := make(map[string]bool, len(dist))
	for i := range dist {
		keep = append(keep, g.nodes[i])
		keepPath[g.nodes[i].Path] = true
	}
	sub := newIndex(keep)
	for i := range sub.nodes {
		src := g.byPath[sub.nodes[i].Path]
		for _, ed := range g.out(src) {
			if ed.To == "" || keepPath[ed.To] {
				sub.edges = append(sub.edges, ed)
			}
		}
	}
	sub.wire()
	return sub
}
