package traces

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/kbmem/kb/internal/failpoint"
	"github.com/kbmem/kb/internal/fsx"
)

// Torn lines.
//
// A session file holds whole records, one per line. A write cut short (a
// full disk, a process killed in the middle of write(2)) leaves the start of
// a record without its end: a torn fragment. At the end of the file it is
// harmless (readers ignore an unterminated last line), but an append after
// it would leave it between whole records for good, so the store never
// appends after one: appendRecords takes a failed write back at once, and
// cuts a fragment a killed process left before it appends. RepairTorn (kb
// doctor --fix) removes fragments that older versions left inside a file.

// FailAppend is the failpoint (internal/failpoint) of the session-file
// append: armed as "traces.append=N:short", the Nth append writes half its
// bytes and fails with ENOSPC, as a full disk does.
const FailAppend = "traces.append"

// TornFragment reports whether line (without its newline) is the start of
// a JSON object cut off before its end, as a short write leaves it.
func TornFragment(line []byte) bool {
	t := bytes.TrimSpace(line)
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	var v json.RawMessage
	err := json.NewDecoder(bytes.NewReader(t)).Decode(&v)
	return errors.Is(err, io.ErrUnexpectedEOF)
}

// appendRecords appends data (whole lines) to the session file at abs. A
// torn fragment at the end of the file is cut off first; an append that
// fails is truncated back to where it began (or the file it created is
// removed), so no part of a line is left behind.
func appendRecords(t fsx.Tree, abs string, data []byte) error {
	if _, err := t.Resolve(abs); err != nil {
		return err // a link out of the KB: nothing is cut or written
	}
	before, err := cutTornTail(abs)
	if err != nil {
		return err
	}
	werr := writeAppend(t, abs, data)
	if werr == nil {
		return nil
	}
	var uerr error
	if before < 0 {
		uerr = os.Remove(abs)
	} else {
		uerr = truncateFile(abs, before)
	}
	if uerr != nil && !errors.Is(uerr, os.ErrNotExist) {
		return fmt.Errorf("%w (and the partial write could not be taken back: %v; kb doctor --fix repairs the file)", werr, uerr)
	}
	return werr
}

func writeAppend(t fsx.Tree, abs string, data []byte) error {
	if n, ok := failpoint.ShortWrite(FailAppend, len(data)); ok {
		if err := t.Append(abs, data[:n]); err != nil {
			return err
		}
		return fmt.Errorf("write %s: %w (failpoint %s)", abs, syscall.ENOSPC, FailAppend)
	}
	return t.Append(abs, data)
}

// cutTornTail truncates a torn fragment off the end of the file at abs
// (bytes after its last newline that start a record and do not end it) and
// returns the size of the file after, or -1 when there is no file. A last
// line that is whole, or that is not the start of a record, is left alone.
func cutTornTail(abs string) (int64, error) {
	f, err := os.Open(abs)
	if errors.Is(err, os.ErrNotExist) {
		return -1, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := fi.Size()
	if size == 0 {
		return 0, nil
	}
	last := []byte{0}
	if _, err := f.ReadAt(last, size-1); err != nil {
		return 0, err
	}
	if last[0] == '\n' {
		return size, nil
	}
	start, err := lastLineStart(f, size)
	if err != nil {
		return 0, err
	}
	frag := make([]byte, size-start)
	if _, err := f.ReadAt(frag, start); err != nil && !errors.Is(err, io.EOF) {
		return 0, err
	}
	if !TornFragment(frag) {
		return size, nil
	}
	if err := truncateFile(abs, start); err != nil {
		return 0, fmt.Errorf("cut the torn last line of %s: %w", abs, err)
	}
	return start, nil
}

// lastLineStart returns the offset after the last newline before size, or
// 0; it reads backwards in growing windows.
func lastLineStart(f *os.File, size int64) (int64, error) {
	end := size
	for window := int64(64 << 10); end > 0; window *= 2 {
		from := max(end-window, 0)
		buf := make([]byte, end-from)
		if _, err := f.ReadAt(buf, from); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			return from + int64(i) + 1, nil
		}
		end = from
	}
	return 0, nil
}

// truncateFile cuts the file at abs to size bytes and syncs it.
func truncateFile(abs string, size int64) error {
	f, err := os.OpenFile(abs, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if err := f.Truncate(size); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// TornLine is a torn fragment found in a session file.
type TornLine struct {
	Line  int   // 1-based
	Bytes int   // length of the fragment
	Last  bool  // the fragment is the file's last line, without a newline
	Off   int64 // offset of its first byte
}

// Repair is what RepairTorn did to a session file.
type Repair struct {
	Path    string     // slash-separated, relative to Root
	Dropped []TornLine // fragments removed
	Sources []string   // the transcripts its records came from, in order of first appearance
}

// RepairTorn rewrites the session file rel (relative to Root) without its
// torn fragments, keeping every other line byte for byte, atomically (the
// one rewrite of a session file besides kb trace redact). It returns what
// it dropped and the source transcripts of the file's records, which the
// caller re-imports (ImportAgain) to restore the records the fragments were
// part of; nothing is written when the file has no fragment. The caller
// holds the KB write lock.
func (s *Store) RepairTorn(rel string) (Repair, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rep := Repair{Path: rel}
	abs, err := fsx.Within(s.Root, filepath.FromSlash(rel))
	if err != nil {
		return rep, err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return rep, err
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return rep, err
	}
	out := make([]byte, 0, len(data))
	seen := map[string]bool{}
	var off int64
	for num := 1; len(data) > 0; num++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line = data[:i+1]
		}
		data = data[len(line):]
		body := bytes.TrimRight(line, "\r\n")
		if TornFragment(body) {
			rep.Dropped = append(rep.Dropped, TornLine{Line: num, Bytes: len(body), Last: len(data) == 0 && line[len(line)-1] != '\n', Off: off})
		} else {
			out = append(out, line...)
			var h struct {
				Source Source `json:"source"`
			}
			if json.Unmarshal(body, &h) == nil && h.Source.File != "" && !seen[h.Source.File] {
				seen[h.Source.File] = true
				rep.Sources = append(rep.Sources, h.Source.File)
			}
		}
		off += int64(len(line))
	}
	if len(rep.Dropped) == 0 {
		return rep, nil
	}
	if err := fsx.WriteFile(abs, out, fi.Mode().Perm()); err != nil {
		return rep, fmt.Errorf("rewrite %s: %w", rel, err)
	}
	return rep, s.rewritten(rel)
}

// Rewritten drops the derived state of session files that were rewritten
// in place (kb trace redact): their record keys and their summaries, both
// rebuilt from the files when next needed.
func (s *Store) Rewritten(rels ...string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rel := range rels {
		if err := s.rewritten(rel); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) rewritten(rel string) error {
	if err := s.forgetKeys(rel); err != nil {
		return fmt.Errorf("forget the keys of %s: %w", rel, err)
	}
	return s.forgetSummary(rel)
}
