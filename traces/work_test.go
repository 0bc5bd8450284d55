package traces

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// prose returns about n bytes of text of words, with multi-byte runes and
// no byte JSON escapes (so that raw and decoded lengths agree).
func prose(n int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 7))
	words := []string{"index", "migration", "déjà", "vu", "日本語", "commit", "naïve", "test", "🙂", "retry.", "column"}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[r.IntN(len(words))])
		b.WriteByte(' ')
	}
	return b.String()
}

func TestWorkText(t *testing.T) {
	short := prose(WorkMax-10, 1)
	if WorkText(short) != short {
		t.Fatal("a string under WorkMax changed")
	}
	for _, n := range []int{WorkMax + 1, WorkMax + 5000, 3 << 20} {
		s := prose(n, uint64(n))
		w := WorkText(s)
		if len(w) > WorkMax || !utf8.ValidString(w) {
			t.Fatalf("n=%d: work form of %d bytes (valid UTF-8 %v)", n, len(w), utf8.ValidString(w))
		}
		if WorkText(w) != w {
			t.Fatalf("n=%d: WorkText is not idempotent", n)
		}
		head, tail, ok := strings.Cut(w, "\n\n[kb: ")
		if !ok || !strings.HasPrefix(s, head) || len(head) < WorkHead-4 {
			t.Fatalf("n=%d: head of %d bytes not a prefix", n, len(head))
		}
		_, tail, _ = strings.Cut(tail, " bytes not read here]\n\n")
		if !strings.HasSuffix(s, tail) || len(tail) < workTail-4 {
			t.Fatalf("n=%d: tail of %d bytes not a suffix", n, len(tail))
		}
		if want := CutNote(len(s) - len(head) - len(tail)); !strings.Contains(w, want) {
			t.Fatalf("n=%d: note does not count the bytes left out", n)
		}
	}
}

// TestWorkJSONAsWorkText: for a string without escapes, the rewriter
// cuts a record line where WorkText cuts the decoded text, and leaves
// every other field as it is.
func TestWorkJSONAsWorkText(t *testing.T) {
	text := prose(2<<20, 3)
	rec := Record{Session: "s", Seq: 4, Agent: AgentClaudeCode, Role: RoleUser, Kind: KindMessage, Text: text,
		Input: json.RawMessage(`{"command":"ls","n":[1,2,3],"ok":true,"x":null}`), Cwd: "/p", Marks: []string{"a"},
		Source: Source{File: "f.jsonl", Line: 9}, Extra: map[string]json.RawMessage{"uuid": json.RawMessage(`"u1"`)}}
	line, _ := json.Marshal(rec)
	out, err := workJSON(line)
	if err != nil {
		t.Fatal(err)
	}
	var got Record
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("work form does not decode: %v", err)
	}
	if got.Text != WorkText(text) {
		t.Fatalf("text cut differs from WorkText: %d vs %d bytes", len(got.Text), len(WorkText(text)))
	}
	got.Text, rec.Text = "", ""
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(rec)
	if !bytes.Equal(a, b) {
		t.Fatalf("other fields changed:\n%s\n%s", a, b)
	}
}

// TestWorkJSONEscapes: a long string of escapes is cut outside them, into
// valid JSON whose text starts and ends as the original does.
func TestWorkJSONEscapes(t *testing.T) {
	var b strings.Builder
	r := rand.New(rand.NewPCG(5, 5))
	parts := []string{"a", "\n", "\"", "\\", "é", "\u2028", "🙂", "\t", "x\\\\y", "\u0001"}
	for b.Len() < 1<<20 {
		b.WriteString(parts[r.IntN(len(parts))])
	}
	text := b.String()
	line, _ := json.Marshal(map[string]any{"text": text, "output": text + "end"})
	out, err := workJSON(line)
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Text, Output string }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("work form is not valid JSON: %v", err)
	}
	for _, c := range []struct{ got, orig string }{{got.Text, text}, {got.Output, text + "end"}} {
		head, rest, ok := strings.Cut(c.got, "\n\n[kb: ")
		if !ok {
			t.Fatal("no cut note")
		}
		_, tail, _ := strings.Cut(rest, " bytes not read here]\n\n")
		if !strings.HasPrefix(c.orig, head) || !strings.HasSuffix(c.orig, tail) || len(head) < WorkHead/7 || len(tail) < workTail/7 {
			t.Fatalf("head (%d bytes) or tail (%d bytes) is not the original's", len(head), len(tail))
		}
		if !utf8.ValidString(c.got) || strings.ContainsRune(c.got, utf8.RuneError) {
			t.Fatal("cut inside a rune or an escape")
		}
	}
}

// TestWorkJSONChunks: feeding the line in pieces of any size gives the
// same work form as feeding it whole, with small limits so that every
// cut lands on chunk boundaries somewhere.
func TestWorkJSONChunks(t *testing.T) {
	lim := limits{max: 64, head: 40, tail: 16, array: 3}
	line := []byte(`{"a":"` + strings.Repeat(`x\"é\u00e9\\🙂`, 30) + `","b":[1,[2,3,4,5],"` + strings.Repeat("y", 100) + `",{"k":[1,2]},5,6],"c":{"d":"` + strings.Repeat("\\n", 70) + `"}}`)
	whole := newWork(lim)
	whole.feed(line)
	want, err := whole.finish()
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(want) {
		t.Fatalf("not valid: %s", want)
	}
	var v struct {
		B []json.RawMessage
	}
	if err := json.Unmarshal(want, &v); err != nil || len(v.B) != 3 {
		t.Fatalf("array not cut to 3 elements: %s (%v)", want, err)
	}
	for size := 1; size <= 17; size++ {
		w := newWork(lim)
		for i := 0; i < len(line); i += size {
			w.feed(line[i:min(len(line), i+size)])
		}
		got, err := w.finish()
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("chunks of %d: %s (%v), want %s", size, got, err, want)
		}
	}
}

func TestWorkJSONInvalid(t *testing.T) {
	for _, in := range []string{`{"a":"x`, `{"a":"\q"}`, "{\"a\":\"\x01\"}", `{"a":[1,2}`, `{"a":1}}`, `{"a":"\u12G4"}`, `[`} {
		if _, err := workJSON([]byte(in)); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

// FuzzWorkJSON: on any input, with small limits, the rewriter accepts
// every valid input and its work form decodes; feeding the input in two
// pieces changes nothing.
func FuzzWorkJSON(f *testing.F) {
	for _, s := range []string{`{"text":"hello","n":[1,2,3,4,5]}`, `{"a":"\u00e9\\\"\n` + strings.Repeat("z", 80) + `"}`, `[[[[]]]]`, `"x"`, `{"a":{"b":["c\ud83d\ude00"]}}`, `{"a":"x`, `1`} {
		f.Add([]byte(s), 3)
	}
	lim := limits{max: 48, head: 24, tail: 12, array: 4}
	f.Fuzz(func(t *testing.T, in []byte, split int) {
		w := newWork(lim)
		w.feed(in)
		out, err := w.finish()
		if split > 0 && split < len(in) {
			w2 := newWork(lim)
			w2.feed(in[:split])
			w2.feed(in[split:])
			out2, err2 := w2.finish()
			if (err == nil) != (err2 == nil) || !bytes.Equal(out, out2) {
				t.Fatalf("split at %d changes the result", split)
			}
		}
		var v any
		if json.Unmarshal(in, &v) != nil {
			return
		}
		if err != nil {
			t.Fatalf("valid input %q refused: %v", in, err)
		}
		if json.Unmarshal(out, &v) != nil {
			t.Fatalf("valid input %q, invalid work form %q", in, out)
		}
	})
}

// TestReadWork: ReadWork reads records of normal size exactly as
// ReadFile does, cuts a huge one, reports a broken huge line as ReadFile
// does, and streams: the work form of a 20 MB line is all it holds.
func TestReadWork(t *testing.T) {
	root := t.TempDir()
	st := &Store{Root: root}
	big := prose(20<<20, 9)
	var lines []string
	for i, txt := range []string{"hello", big, "bye"} {
		b, _ := json.Marshal(Record{Session: "s1", Seq: i, Agent: AgentGeneric, Role: RoleUser, Kind: KindMessage, Text: txt})
		lines = append(lines, string(b))
	}
	lines = append(lines, `{"session":"s1","text":"`+strings.Repeat("q", WorkMax+10)+"\x01\"}")
	rel := "traces/generic/s1.jsonl"
	if err := os.MkdirAll(filepath.Join(root, "traces/generic"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, rel), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var full, work []Record
	n1, p1, err1 := st.ReadFile(rel, func(r Record) error { full = append(full, r); return nil })
	n2, p2, err2 := st.ReadWork(rel, func(r Record) error { work = append(work, r); return nil })
	if err1 != nil || err2 != nil || n1 != n2 || len(full) != 3 || len(work) != 3 {
		t.Fatalf("read: %v %v, sizes %d %d, records %d %d", err1, err2, n1, n2, len(full), len(work))
	}
	if len(p1) != 1 || len(p2) != 1 || p1[0].Line != 4 || p2[0].Line != 4 {
		t.Fatalf("the broken line is not a problem of both: %v / %v", p1, p2)
	}
	if full[1].Text != big || work[1].Text != WorkText(big) {
		t.Fatalf("ReadFile must give the whole text (%d bytes), ReadWork its work form (%d bytes)", len(full[1].Text), len(work[1].Text))
	}
	for _, i := range []int{0, 2} {
		a, _ := json.Marshal(full[i])
		b, _ := json.Marshal(work[i])
		if !bytes.Equal(a, b) {
			t.Fatalf("record %d of normal size differs:\n%s\n%s", i, a, b)
		}
	}
}

func ExampleCutNote() {
	fmt.Printf("%q\n", CutNote(52134567))
	// Output: "\n\n[kb: 52134567 bytes not read here]\n\n"
}

// TestWriteHuge: a record with a huge text or output is written byte for
// byte as json.Marshal writes it.
func TestWriteHuge(t *testing.T) {
	var all strings.Builder
	for c := 0; c < 256; c++ {
		all.WriteByte(byte(c))
	}
	all.WriteString("\u2028\u2029<a&b>\"\\é🙂")
	text := strings.Repeat(all.String(), (hugeLine/all.Len())+2)
	for _, rec := range []Record{
		{Session: "s", Seq: 1, Role: RoleUser, Kind: KindMessage, Text: text, Input: json.RawMessage(`{"a":"<b>"}`)},
		{Session: "s", Seq: 2, Role: RoleTool, Kind: KindToolResult, Output: text, Text: "short & sweet"},
		{Session: "s", Seq: 3, Text: text, Output: text + "x", Extra: map[string]json.RawMessage{"k": json.RawMessage(`"v"`)}},
		{Session: "s", Seq: 4, Text: text, Extra: map[string]json.RawMessage{"k": jsonString(textMark)}}, // the mark twice: plain path
	} {
		var buf bytes.Buffer
		if err := writeLine(&buf, &rec); err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(&rec)
		if !bytes.Equal(buf.Bytes(), append(want, '\n')) {
			t.Fatalf("record %d: writeLine differs from json.Marshal", rec.Seq)
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "a\"b\\c", "\x00\x1f\x7f", "<>&", "\u2028\u2029", "\xff\xfe", "é🙂\xe2\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: %s, json.Marshal %s", s, got, want)
		}
	})
}
