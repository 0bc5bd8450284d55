package doc

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
)

// DigestKey is the frontmatter key where kb keeps the Digest of a
// document it generated, to tell later whether a person edited it.
const DigestKey = "kb_digest"

// Digest hashes the text of a generated document: its fields in key
// order, each JSON-encoded, then its body, trimmed and without trailing
// blanks on any line. DigestKey itself and the keys in skip (what kb
// updates on its own, even in a file a person edited) are left out, and so
// are the body lines drop reports (nil: none). Two documents that read the
// same have the same digest however their YAML is quoted or ordered.
func Digest(fields map[string]any, body string, skip []string, drop func(line string) bool) string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		if k != DigestKey && !slices.Contains(skip, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	h := sha256.New()
	for _, k := range keys {
		v, _ := json.Marshal(fields[k])
		fmt.Fprintf(h, "%s=%s\n", k, v)
	}
	var keep []string
	for _, l := range strings.Split(strings.TrimSpace(body), "\n") {
		if drop == nil || !drop(l) {
			keep = append(keep, strings.TrimRight(l, " \t\r"))
		}
	}
	h.Write([]byte(strings.Join(keep, "\n")))
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// IDOrName is the document's id, or, without one, its file name without
// the extension: how every layer names a document.
func (d *Document) IDOrName() string {
	if d.ID != "" {
		return d.ID
	}
	return strings.TrimSuffix(path.Base(d.Path), path.Ext(d.Path))
}
