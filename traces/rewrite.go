package traces

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/kbmem/kb/internal/secrets"
)

// ManualMarker replaces what a purge (kb trace redact) removes.
const ManualMarker = "[REDACTED:manual]"

// HoldsRedaction reports whether text from a trace holds a secret that
// was redacted: a rule's marker ([REDACTED:<rule>]), a purge's, or a
// value replaced whole ([REDACTED]). Where a tool call wrote it, a
// credential was written there.
func HoldsRedaction(text string) bool { return strings.Contains(text, "[REDACTED") }

// purgedFile keeps the patterns of the purges, so that later imports of the
// same transcripts (which still hold the text) redact it too. It lives in
// the state directory (git-ignored, local) because it holds the values.
const purgedFile = "manual-redactions.json"

// PurgedPatterns are the patterns purged before. Patterns that no longer
// compile, or match the empty string, are left out; a file that is not a
// JSON list of patterns is an error, and no pattern.
func (s *Store) PurgedPatterns() ([]*regexp.Regexp, error) {
	data, err := s.files().ReadFile(filepath.Join(s.Root, stateDir, purgedFile))
	if err != nil {
		return nil, nil
	}
	var pats []string
	if json.Unmarshal(data, &pats) != nil {
		return nil, fmt.Errorf("%s/%s: not a JSON list of patterns", stateDir, purgedFile)
	}
	var out []*regexp.Regexp
	for _, p := range pats {
		if re, err := regexp.Compile(p); err == nil && !re.MatchString("") {
			out = append(out, re)
		}
	}
	return out, nil
}

// AddPurgedPattern remembers a purge's pattern, once.
func (s *Store) AddPurgedPattern(re *regexp.Regexp) error {
	p := filepath.Join(s.Root, stateDir, purgedFile)
	var pats []string
	if data, err := s.files().ReadFile(p); err == nil {
		json.Unmarshal(data, &pats)
	}
	if slices.Contains(pats, re.String()) {
		return nil
	}
	b, err := json.Marshal(append(pats, re.String()))
	if err != nil {
		return err
	}
	return s.files().WriteFile(p, b, 0o600)
}

// Detector finds and replaces secrets in text and in JSON documents
// (internal/redact's Redactor): the replaced text, what it replaced, and
// the secret values found, for the session memory to learn.
type Detector interface {
	Redact(s string) (string, []secrets.Finding, []secrets.Secret)
	RedactJSON(raw []byte) ([]byte, []secrets.Finding, []secrets.Secret)
}

// NewRedactor is the Redactor of an import: the purged patterns first
// (each match becomes ManualMarker), then the rules of rd. count, if set,
// is increased by the number of secrets the rules replaced. A nil rd
// replaces the purged patterns only.
func NewRedactor(rd Detector, purged []*regexp.Regexp, count *atomic.Int64) Redactor {
	return &ruleRedactor{rd: rd, purged: purged, count: count}
}

type ruleRedactor struct {
	rd     Detector
	purged []*regexp.Regexp
	count  *atomic.Int64
}

func (r *ruleRedactor) counted(fs []secrets.Finding) {
	if r.count != nil && len(fs) > 0 {
		r.count.Add(int64(len(fs)))
	}
}

func (r *ruleRedactor) Text(s string) (string, []secrets.Secret) {
	for _, re := range r.purged {
		s = re.ReplaceAllLiteralString(s, ManualMarker)
	}
	if r.rd == nil {
		return s, nil // the purged patterns only
	}
	out, fs, found := r.rd.Redact(s)
	r.counted(fs)
	return out, found
}

func (r *ruleRedactor) JSON(b []byte) ([]byte, []secrets.Secret) {
	for _, re := range r.purged {
		b, _ = secrets.MapStrings(b, replacer(re, ManualMarker))
	}
	if r.rd == nil {
		return b, nil
	}
	out, fs, found := r.rd.RedactJSON(b)
	r.counted(fs)
	return out, found
}

// replacer replaces every match of re with marker, counting them, for
// secrets.MapStrings.
func replacer(re *regexp.Regexp, marker string) func(string) (string, int) {
	return func(s string) (string, int) {
		if m := re.FindAllStringIndex(s, -1); len(m) > 0 {
			return re.ReplaceAllLiteralString(s, marker), len(m)
		}
		return s, 0
	}
}

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
	replace := replacer(re, marker)
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
		nb, n := secrets.MapStrings(body, replace)
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
