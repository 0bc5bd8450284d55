package gitx

import (
	"bytes"
	"errors"
	"os"
	"strings"

	"github.com/kbmem/kb/internal/fsx"
)

// Line files: .gitattributes and .gitignore, read as lines.

// HasLine reports whether b has line as one of its lines (surrounding
// spaces ignored).
func HasLine(b []byte, line string) bool {
	for _, l := range bytes.Split(b, []byte("\n")) {
		if string(bytes.TrimSpace(l)) == line {
			return true
		}
	}
	return false
}

// MissingLines are the lines of want that the file p lacks (all of them
// when it cannot be read).
func MissingLines(p string, want []string) []string {
	b, _ := os.ReadFile(p)
	var out []string
	for _, l := range want {
		if !HasLine(b, l) {
			out = append(out, l)
		}
	}
	return out
}

// AddLines appends to the line file p the lines it lacks, under header
// (written once, before the first lines it adds), atomically through tree.
// It reports whether it wrote; a file that does not exist is created.
func AddLines(tree fsx.Tree, p, header string, lines []string) (bool, error) {
	old, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	var add []string
	for _, l := range lines {
		if !HasLine(old, l) {
			add = append(add, l)
		}
	}
	if len(add) == 0 {
		return false, nil
	}
	b := bytes.Clone(old)
	if len(b) > 0 && !bytes.HasSuffix(b, []byte("\n")) {
		b = append(b, '\n')
	}
	if !HasLine(old, header) {
		b = append(b, header+"\n"...)
	}
	b = append(b, strings.Join(add, "\n")+"\n"...)
	return true, tree.WriteFile(p, b, 0o644)
}
