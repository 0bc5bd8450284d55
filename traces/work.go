package traces

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Bounded work on huge records.
//
// Traces keep every byte an agent logged: a 50 MB prompt or tool result is
// stored whole (and redacted whole, before it is stored). What reads the
// traces to judge them (extraction and its LLM requests, authorship by
// shape and recurrence, session summaries) reads each record in its work
// form instead: a line of at most WorkMax bytes as it is; in a longer line
// every string longer than WorkMax bytes is cut to its first WorkHead
// bytes and its last ones, up to WorkMax, around a line saying how many
// bytes were left out (CutNote), and every array keeps its first workArray
// elements. The long line is streamed through a one-pass rewriter (work):
// reading it costs one pass over its bytes and O(WorkMax) memory, whatever
// its length; nothing of the middle of a 50 MB string is decoded or held.
// A person's words around a paste (the question before it, the request
// after it) are in the part kept; the middle of a 50 MB log is not read.
// Records of normal size are read as they are: no string of the real
// transcripts comes near WorkMax (the longest prompt is 37 KB, the longest
// tool output 58 KB).
const (
	WorkMax   = 256 << 10 // longest line (and string) read as it is
	WorkHead  = 192 << 10 // bytes kept from the start of a longer string
	workTail  = WorkMax - WorkHead - 128
	workArray = 10000 // elements kept of an array, in a line longer than WorkMax
	workDepth = 10000 // deepest nesting read (encoding/json's limit too)
)

// CutNote is the line that stands for the bytes left out of a cut string.
func CutNote(n int) string { return "\n\n[kb: " + strconv.Itoa(n) + " bytes not read here]\n\n" }

// WorkText returns s when it is at most WorkMax bytes long, else its work
// form: the first WorkHead bytes and the last ones, cut at rune
// boundaries, around CutNote. The result is at most WorkMax bytes, so that
// WorkText of it is itself.
func WorkText(s string) string {
	if len(s) <= WorkMax {
		return s
	}
	h := WorkHead
	for h > 0 && !utf8.RuneStart(s[h]) {
		h--
	}
	t := len(s) - workTail
	for t < len(s) && !utf8.RuneStart(s[t]) {
		t++
	}
	return s[:h] + CutNote(t-h) + s[t:]
}

// workJSON returns the work form of the JSON value b (a record line
// longer than WorkMax), or an error when b is not valid JSON as far as
// the rewriter checks (structure, string escapes, control characters;
// literals are checked by the decoder of the result).
func workJSON(b []byte) ([]byte, error) {
	w := newWork(workLimits)
	w.feed(b)
	return w.finish()
}

// work rewrites one JSON value into its work form as its bytes arrive
// (feed), in one pass, holding at most the output (O(WorkMax) per string
// kept) and the tail of the string being read.
type work struct {
	lim   limits
	out   []byte
	err   error
	stack []container
	mute  int // depth from which nothing is written (an array past workArray); 0: writing
	pos   int // bytes fed, for errors

	inStr   bool
	esc     int  // 0: none; 1: after a backslash; 2-5: hex digits of \u read so far + 1
	strMute bool // the string being read is not written (muted region)
	strOut  int  // offset in out where the string's body starts
	strLen  int  // raw bytes of the body so far
	ring    []byte
	ringEsc []bool // ring[i] lies inside an escape, after its backslash
	done    bool   // the top-level value is complete
}

type container struct {
	array bool
	n     int // commas met: elements begun after the first
}

// limits are the bounds of a work form: the constants, smaller in tests.
type limits struct{ max, head, tail, array int }

var workLimits = limits{max: WorkMax, head: WorkHead, tail: workTail, array: workArray}

func newWork(lim limits) *work { return &work{lim: lim, out: make([]byte, 0, 64<<10)} }

func (w *work) ringSize() int { return w.lim.tail + 16 }

var errWorkDepth = errors.New("exceeds the maximum nesting depth")

func (w *work) fail(format string, a ...any) {
	if w.err == nil {
		w.err = fmt.Errorf("at byte %d: "+format, append([]any{w.pos}, a...)...)
	}
}

func (w *work) writing() bool { return w.mute == 0 }

// plain marks the bytes a JSON string holds as they are.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// feed takes the next bytes of the value.
func (w *work) feed(b []byte) {
	for i := 0; i < len(b) && w.err == nil; {
		if w.inStr {
			if w.esc == 0 {
				j := i
				for j < len(b) && plain[b[j]] {
					j++
				}
				if j > i {
					w.body(b[i:j], false)
					w.pos += j - i
					i = j
					continue
				}
			}
			w.strByte(b[i])
			w.pos++
			i++
			continue
		}
		w.structByte(b[i])
		w.pos++
		i++
	}
}

// body adds raw bytes of the current string's body.
func (w *work) body(p []byte, escaped bool) {
	if !w.strMute && w.strLen < w.lim.max {
		n := min(len(p), w.lim.max-w.strLen)
		w.out = append(w.out, p[:n]...)
	}
	w.strLen += len(p)
	if w.strMute {
		return
	}
	ringSize := w.ringSize()
	if w.ring == nil {
		w.ring, w.ringEsc = make([]byte, ringSize), make([]bool, ringSize)
	}
	if len(p) > ringSize {
		p = p[len(p)-ringSize:]
	}
	// ring holds the last ringSize body bytes: body byte k at k % ringSize.
	start := (w.strLen - len(p)) % ringSize
	for len(p) > 0 {
		n := copy(w.ring[start:], p)
		for k := start; k < start+n; k++ {
			w.ringEsc[k] = escaped
		}
		p, start = p[n:], 0
	}
}

func (w *work) strByte(c byte) {
	switch {
	case w.esc == 1:
		switch c {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			w.esc = 0
		case 'u':
			w.esc = 2
		default:
			w.fail("invalid escape \\%c in a string", c)
			return
		}
		w.body([]byte{c}, true)
	case w.esc >= 2:
		if !isHex(c) {
			w.fail("invalid \\u escape in a string")
			return
		}
		w.esc++
		if w.esc == 6 {
			w.esc = 0
		}
		w.body([]byte{c}, true)
	case c == '\\':
		w.esc = 1
		w.body([]byte{c}, false)
	case c == '"':
		w.endString()
	default:
		w.fail("control character %#x in a string", c)
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func (w *work) endString() {
	w.inStr = false
	if w.strMute {
		return
	}
	if w.strLen > w.lim.max {
		// out holds the body's first max bytes, the ring its last
		// ringSize: keep a head and a tail, cut outside escapes.
		ringSize := w.ringSize()
		h := w.strOut + w.lim.head
		for h > w.strOut && (!utf8.RuneStart(w.out[h]) || inEscape(w.out[w.strOut:], h-w.strOut)) {
			h--
		}
		t := w.strLen - w.lim.tail // body offset of the tail
		for t < w.strLen && (!utf8.RuneStart(w.ring[t%ringSize]) || w.ringEsc[t%ringSize]) {
			t++
		}
		cut := (t - (h - w.strOut))
		w.out = w.out[:h]
		note, _ := json.Marshal(CutNote(cut))
		w.out = append(w.out, note[1:len(note)-1]...)
		for k := t; k < w.strLen; k++ {
			w.out = append(w.out, w.ring[k%ringSize])
		}
	}
	w.out = append(w.out, '"')
	w.valueDone()
}

// inEscape reports whether body[p] lies inside an escape sequence, after
// its backslash.
func inEscape(body []byte, p int) bool {
	for k := 1; k <= 5 && p-k >= 0; k++ {
		j := p - k
		if body[j] != '\\' {
			continue
		}
		r := j
		for r > 0 && body[r-1] == '\\' {
			r--
		}
		if (j-r)%2 != 0 {
			return false // an escaped backslash: its escape ends at j
		}
		n := 2
		if j+1 < len(body) && body[j+1] == 'u' {
			n = 6
		}
		return p < j+n
	}
	return false
}

// valueDone notes that a value ended; the top-level one completes the line.
func (w *work) valueDone() {
	if len(w.stack) == 0 {
		w.done = true
	}
}

func (w *work) structByte(c byte) {
	switch c {
	case ' ', '\t', '\n', '\r':
		return
	}
	if w.done {
		w.fail("data after the end of the record")
		return
	}
	top := len(w.stack) - 1
	switch c {
	case '"':
		w.inStr, w.esc, w.strLen = true, 0, 0
		w.strMute = !w.writing()
		if !w.strMute {
			w.out = append(w.out, '"')
			w.strOut = len(w.out)
		}
	case '{', '[':
		if len(w.stack) >= workDepth {
			w.fail("%v", errWorkDepth)
			return
		}
		if w.writing() {
			w.out = append(w.out, c)
		}
		w.stack = append(w.stack, container{array: c == '['})
	case '}', ']':
		if top < 0 || w.stack[top].array != (c == ']') {
			w.fail("unexpected %q", c)
			return
		}
		w.stack = w.stack[:top]
		if w.mute > len(w.stack) {
			w.mute = 0 // the array cut after workArray elements closes
		}
		if w.writing() {
			w.out = append(w.out, c)
		}
		w.valueDone()
	case ',':
		if top < 0 {
			w.fail("unexpected ','")
			return
		}
		ct := &w.stack[top]
		ct.n++
		if ct.array && ct.n >= w.lim.array && w.writing() {
			w.mute = len(w.stack) // mute the rest of this array
			return
		}
		if w.writing() {
			w.out = append(w.out, ',')
		}
	default:
		// ':' and the bytes of numbers, true, false, null: the decoder of
		// the result checks them where they are written.
		if w.writing() {
			w.out = append(w.out, c)
		}
	}
}

// finish returns the work form once every byte was fed.
func (w *work) finish() ([]byte, error) {
	switch {
	case w.err != nil:
		return nil, w.err
	case w.inStr:
		return nil, fmt.Errorf("at byte %d: unterminated string", w.pos)
	case len(w.stack) > 0:
		return nil, fmt.Errorf("at byte %d: unexpected end of JSON input", w.pos)
	}
	return w.out, nil
}

// nextWork is next for readers of the work form: a line of at most
// WorkMax bytes comes as it is; a longer one is streamed through work and
// comes in its work form, never held whole. bad is set (and the line nil)
// when the long line is not valid JSON.
func (s *lineScan) nextWork() (line []byte, num int, ok bool, bad error, err error) {
	return s.nextLine(true)
}
