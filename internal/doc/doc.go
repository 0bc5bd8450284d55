// Package doc owns kb's document model: every kb layer (observations,
// episodes, library notes) is a markdown file with YAML frontmatter, and this
// package turns the bytes of such a file into a Document (frontmatter fields,
// body, links, tags, with file line numbers for lint messages) and rewrites
// files surgically.
//
// It is a pure leaf: no file system access, no imports from the rest of kb.
//
//   - Parse splits frontmatter from body (its delimiter lines found as
//     github.com/adrg/frontmatter found them, the YAML decoded by
//     gopkg.in/yaml.v3 into nodes, so keys keep their line numbers), decodes the
//     known keys with type checks, and extracts links and inline #tags from
//     the body in one goldmark pass that skips code.
//   - Update changes only the frontmatter keys it is given (and optionally
//     the body) and leaves every other byte of the file identical: comments,
//     key order, quoting, unknown keys, blank lines, CRLF, a BOM.
//   - Render writes a new document deterministically.
//   - Slug makes a safe file name stem from a title.
package doc
