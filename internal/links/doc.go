// Package links owns kb's link graph: given the documents of a KB (their
// paths, ids, titles, tags and outgoing links as extracted by internal/doc),
// it resolves every link the way Obsidian users expect, and answers forward
// links, backlinks, broken links, tag membership and neighborhoods, and
// exports the graph as DOT, Mermaid or JSON.
//
// Resolution is case-insensitive. A target containing '/' or ending in
// ".md" is first tried as a path relative to the linking file's directory,
// then relative to the KB root, then as a path suffix (Obsidian's partial
// paths). Every target is then tried as an id, as a file name without
// extension, and as a title, in that order. Paths never resolve outside the
// KB: a target like "../../etc/passwd.md" is simply unresolved.
//
// A Graph is immutable after Build and safe for concurrent reads.
package links
