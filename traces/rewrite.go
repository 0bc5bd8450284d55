package traces

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/kbmem/kb/internal/redact"
)

// Files lists every session file under Root/traces/, at any depth, as
// slash paths relative to Root, sorted. Unlike Sessions it reads no file:
// it is the list a purge must cover, session or not.
func (s *Store) Files() []string {
	var out []string
	filepath.WalkDir(filepath.Join(s.Root, tracesDir), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".jsonl") && !strings.HasPrefix(d.Name(), ".") {
			if r, err := filepath.Rel(s.Root, p); err == nil {
				out = append(out, filepath.ToSlash(r))
			}
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// Rewrite replaces the session file at rel (a SessionInfo.Path) with what
// fn makes of its content, atomically and keeping the file's mode, and
// reports whether it changed. It is one of the two exceptions to
// append-only session files (kb trace redact; the other is dropping a torn
// last line): the caller holds the KB write lock. The state the store
// keeps about the file (its record keys and its summary) is dropped before
// and after the write, so that neither a crash nor a reader in between
// leaves a description of the old content; both are rebuilt from the file
// when next needed. A content fn returns unchanged is not written.
func (s *Store) Rewrite(rel string, fn func([]byte) ([]byte, error)) (bool, error) {
	abs := filepath.Join(s.Root, filepath.FromSlash(rel))
	tree := s.files()
	data, err := tree.ReadFile(abs)
	if err != nil {
		return false, fmt.Errorf("rewrite %s: %w", rel, err)
	}
	out, err := fn(data)
	if err != nil || bytes.Equal(out, data) {
		return false, err
	}
	perm := os.FileMode(0o644)
	if fi, err := os.Stat(abs); err == nil {
		perm = fi.Mode().Perm()
	}
	if err := s.Rewritten(rel); err != nil {
		return false, err
	}
	if err := tree.WriteFile(abs, out, perm); err != nil {
		return false, fmt.Errorf("rewrite %s: %w", rel, err)
	}
	return true, s.Rewritten(rel)
}

// ReplaceInRecords replaces every match of re in the strings of each
// record line of a session file (member names included) with marker, and
// returns the new content with the number of records changed and of
// matches replaced. A line without a match is kept byte for byte, and so
// is every byte of a record but the strings that change. A line that is
// not JSON (torn, malformed) is replaced in as text.
func ReplaceInRecords(data []byte, re *regexp.Regexp, marker string) (out []byte, records, matches int) {
	replace := func(s string) (string, int) {
		if m := re.FindAllStringIndex(s, -1); len(m) > 0 {
			return re.ReplaceAllLiteralString(s, marker), len(m)
		}
		return s, 0
	}
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line = data[:i+1]
		}
		data = data[len(line):]
		body := bytes.TrimRight(line, "\r\n")
		// A line without the match, and without escapes that could hide
		// one, is kept as is; others are matched string by string.
		if !re.Match(body) && !bytes.Contains(body, []byte(`\`)) {
			out = append(out, line...)
			continue
		}
		nb, n := redact.MapStrings(body, replace)
		if n == 0 {
			out = append(out, line...)
			continue
		}
		records++
		matches += n
		out = append(append(out, nb...), line[len(body):]...)
	}
	return out, records, matches
}
