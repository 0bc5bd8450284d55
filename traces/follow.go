package traces

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"os"
)

// Mark is how far a reader of a session file got: the offset after the
// last complete line it read, the number of lines before it, and a
// checksum of the bytes just before it. Session files only grow, except
// when a purge rewrites one (Store.Rewrite): the checksum tells the two
// apart, so that a reader can continue where it stopped and read only what
// was appended.
type Mark struct {
	Offset int64
	Lines  int64
	Tail   uint32
}

// tailBytes is how much of a session file before a Mark its checksum
// covers: a rewritten file differs there, an appended one does not.
const tailBytes = 256

// A Line is one complete line a Follower read: its record, or the problem
// that kept it from being one (Rec nil for both on a blank line), and the
// Mark after it.
type Line struct {
	Rec   *Record
	Prob  *Problem
	After Mark
}

// Follower reads a session file on from where an earlier reader stopped.
type Follower struct {
	r       *bufio.Reader
	rel     string
	start   Mark
	resumed bool
	tail    *tailBuf
}

// Follow positions the open session file f (at rel) after m, when the
// file still holds there what m saw (it only grew), else at its start.
func Follow(f *os.File, rel string, m Mark) (*Follower, error) {
	fo := &Follower{rel: rel, tail: newTailBuf()}
	if m.Offset > 0 {
		if before, ok := bytesBefore(f, m.Offset); ok && crc32.ChecksumIEEE(before) == m.Tail {
			fo.start, fo.resumed = m, true
			fo.tail.add(before, len(before))
		}
	}
	if _, err := f.Seek(fo.start.Offset, io.SeekStart); err != nil {
		return nil, err
	}
	fo.r = bufio.NewReaderSize(f, 1<<16)
	return fo, nil
}

// Start is the mark reading starts from; Resumed says it is the one
// Follow was given.
func (fo *Follower) Start() Mark { return fo.start }

// Resumed reports whether reading continues after the earlier reader.
func (fo *Follower) Resumed() bool { return fo.resumed }

// Lines reads the complete lines, calling fn for each, and stops early
// when fn returns false (stopped). A line longer than maxLine is skipped,
// with a problem (rule "skipped"); a malformed one is a problem too (rule
// "parse"); a last line without its newline is left for later (the agent
// may still be writing it). A read error is returned as a *Problem.
func (fo *Follower) Lines(maxLine int, fn func(Line) bool) (stopped bool, err error) {
	off, line := fo.start.Offset, fo.start.Lines
	for {
		b, n, complete, rerr := readRecordLine(fo.r, maxLine)
		if complete {
			line++
			off += int64(n)
			fo.tail.add(b, n)
			l := Line{After: Mark{Offset: off, Lines: line, Tail: fo.tail.sum()}}
			switch rb := bytes.TrimSpace(b); {
			case n > maxLine:
				l.Prob = &Problem{Path: fo.rel, Line: int(line), Rule: "skipped",
					Msg: fmt.Sprintf("trace record of %d bytes, over %d: not indexed (the file keeps it)", n, maxLine)}
			case len(rb) > 0:
				var rec Record
				if jerr := json.Unmarshal(rb, &rec); jerr != nil {
					l.Prob = &Problem{Path: fo.rel, Line: int(line), Msg: "malformed trace record: " + jerr.Error(), Rule: "parse"}
				} else {
					l.Rec = &rec
				}
			}
			if !fn(l) {
				return true, nil
			}
		}
		if rerr != nil {
			if rerr != io.EOF {
				return false, &Problem{Path: fo.rel, Line: int(line) + 1, Msg: rerr.Error(), Rule: "unreadable"}
			}
			return false, nil // a torn last line is the agent still writing: picked up next time
		}
	}
}

// readRecordLine reads one line. complete is false for a last line without
// its newline (still being written). A line longer than max is consumed
// but not kept: n is its length, b is empty.
func readRecordLine(r *bufio.Reader, max int) (b []byte, n int, complete bool, err error) {
	var buf []byte
	for {
		frag, err := r.ReadSlice('\n')
		n += len(frag)
		if n <= max {
			buf = append(buf, frag...)
		} else {
			buf = nil
		}
		switch err {
		case nil:
			return buf, n, true, nil
		case bufio.ErrBufferFull:
			continue
		default:
			return nil, n, false, err
		}
	}
}

type tailBuf struct{ b []byte }

func newTailBuf() *tailBuf { return &tailBuf{b: make([]byte, 0, 2*tailBytes)} }

// add records a consumed line (b holds it unless it was too long to keep;
// n is its length).
func (t *tailBuf) add(b []byte, n int) {
	if len(b) != n { // a skipped over-long line: its bytes are gone
		t.b = t.b[:0]
		return
	}
	if len(b) >= tailBytes {
		t.b = append(t.b[:0], b[len(b)-tailBytes:]...)
		return
	}
	t.b = append(t.b, b...)
	if len(t.b) > tailBytes {
		t.b = append(t.b[:0], t.b[len(t.b)-tailBytes:]...)
	}
}

// sum is the checksum of the bytes before the current offset, as
// bytesBefore reads them back (after an over-long line they are not known:
// the sum of nothing never matches, and the file is read again whole).
func (t *tailBuf) sum() uint32 { return crc32.ChecksumIEEE(t.b) }

// bytesBefore reads the tailBytes (or fewer, at the start of the file)
// before off; ok is false when they cannot be read or do not end a line.
func bytesBefore(f *os.File, off int64) ([]byte, bool) {
	n := min(off, tailBytes)
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, off-n); err != nil || n == 0 || buf[n-1] != '\n' {
		return nil, false
	}
	return buf, true
}
