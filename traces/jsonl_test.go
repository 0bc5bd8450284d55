package traces

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/kbmem/kb/internal/testenv"
)

// sharedTranscripts returns /work/shared/data/transcripts located relative
// to the repository (../shared beside the directory holding go.mod), or
// skips the test when it is absent (a user's clone does not have it).
func sharedTranscripts(t testing.TB) string {
	return testenv.Shared(t, "data", "transcripts")
}

// jsonlFiles lists the .jsonl files under dir, sorted.
func jsonlFiles(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// parseAll parses path from start with p and returns the records.
func parseAll(t testing.TB, p Parser, path string, start Pos) ([]Record, Pos, []Problem) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(start.Offset, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	return parseReader(t, p, f, path, start)
}

func parseReader(t testing.TB, p Parser, r io.Reader, name string, start Pos) ([]Record, Pos, []Problem) {
	t.Helper()
	var recs []Record
	end, probs, err := p.Parse(r, name, start, func(r Record) error {
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	return recs, end, probs
}

func parseBytes(t testing.TB, p Parser, data []byte, name string) ([]Record, Pos, []Problem) {
	t.Helper()
	return parseReader(t, p, bytes.NewReader(data), name, Pos{})
}

// nonEmptyLines returns the 1-based numbers of the complete non-blank lines.
func nonEmptyLines(t testing.TB, path string) map[int]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]bool{}
	br := bufio.NewReader(bytes.NewReader(data))
	n := 0
	for {
		ln, err := br.ReadBytes('\n')
		if err != nil { // trailing partial line is not consumed
			break
		}
		n++
		if len(bytes.TrimSpace(ln)) > 0 {
			out[n] = true
		}
	}
	return out
}

// accountLines checks that every non-empty line produced a record or was
// merged into one (Extra["merged_lines"]) and that no record points at a
// line that does not exist.
func accountLines(t *testing.T, path string, recs []Record) {
	t.Helper()
	want := nonEmptyLines(t, path)
	got := map[int]bool{}
	for _, r := range recs {
		if r.Source.File != path {
			t.Errorf("%s: record source file %q", path, r.Source.File)
		}
		if r.Source.Line != 0 {
			got[r.Source.Line] = true
		}
		if m, ok := r.Extra["merged_lines"]; ok {
			var lines []int
			if err := json.Unmarshal(m, &lines); err != nil {
				t.Errorf("%s:%d: bad merged_lines %s", path, r.Source.Line, m)
			}
			for _, l := range lines {
				if got[l] {
					t.Errorf("%s:%d: merged line %d also emitted", path, r.Source.Line, l)
				}
				got[l] = true
			}
		}
	}
	for l := range want {
		if !got[l] {
			t.Errorf("%s:%d: line silently dropped", path, l)
		}
	}
	for l := range got {
		if !want[l] {
			t.Errorf("%s: record for line %d which is not a non-empty line", path, l)
		}
	}
}

// checkResume parses path in two parts, split at the line boundaries in
// cuts, and compares with a single pass.
func checkResume(t *testing.T, p Parser, path string, cuts []int64) {
	t.Helper()
	whole, wholeEnd, _ := parseAll(t, p, path, Pos{})
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range cuts {
		first, mid, _ := parseReader(t, p, bytes.NewReader(data[:cut]), path, Pos{})
		if mid.Offset > cut {
			t.Fatalf("%s: cut %d: end offset %d past input", path, cut, mid.Offset)
		}
		// Round-trip the position through JSON as the store does.
		b, _ := json.Marshal(mid)
		var resumed Pos
		if err := json.Unmarshal(b, &resumed); err != nil {
			t.Fatal(err)
		}
		second, end, _ := parseAll(t, p, path, resumed)
		got := append(first, second...)
		if !sameRecords(got, whole) {
			t.Errorf("%s: resume at byte %d (pos %+v): %d records, one pass %d", path, cut, mid, len(got), len(whole))
			diffRecords(t, got, whole)
		}
		if end.Offset != wholeEnd.Offset || end.Line != wholeEnd.Line {
			t.Errorf("%s: resume end %+v, one pass %+v", path, end, wholeEnd)
		}
	}
}

func sameRecords(a, b []Record) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

func diffRecords(t *testing.T, a, b []Record) {
	t.Helper()
	for i := 0; i < len(a) && i < len(b); i++ {
		ja, _ := json.Marshal(a[i])
		jb, _ := json.Marshal(b[i])
		if !bytes.Equal(ja, jb) {
			t.Logf("first difference at record %d:\n got  %.400s\n want %.400s", i, ja, jb)
			return
		}
	}
}

// lineCuts returns the offsets just after each newline of the file, thinned
// to at most max evenly spread cuts.
func lineCuts(t testing.TB, path string, max int) []int64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var all []int64
	for i, c := range data {
		if c == '\n' && i+1 < len(data) {
			all = append(all, int64(i+1))
		}
	}
	if len(all) <= max {
		return all
	}
	out := make([]int64, 0, max)
	for i := 0; i < max; i++ {
		out = append(out, all[(i*len(all))/max])
	}
	return out
}

func findRecords(recs []Record, pred func(Record) bool) []Record {
	var out []Record
	for _, r := range recs {
		if pred(r) {
			out = append(out, r)
		}
	}
	return out
}

func TestLineScanLongAndPartial(t *testing.T) {
	long := strings.Repeat("x", 11<<20)
	data := []byte("a\n\n" + long + "\r\nlast-without-newline")
	lr := newLineScan(bytes.NewReader(data), Pos{})
	var lines []string
	for {
		ln, num, ok, err := lr.next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		if num != len(lines)+1 {
			t.Fatalf("line number %d, want %d", num, len(lines)+1)
		}
		lines = append(lines, string(ln))
	}
	if len(lines) != 3 || lines[0] != "a" || lines[1] != "" || lines[2] != long {
		t.Fatalf("got %d lines", len(lines))
	}
	if want := int64(len(data) - len("last-without-newline")); lr.off != want {
		t.Fatalf("offset %d, want %d", lr.off, want)
	}
}

func TestSplitObject(t *testing.T) {
	o, err := splitObject([]byte(` { "a" : "x\"y" , "b":[1,{"c":"]}"}], "d":null,"e":true, "f": -1.5e3 } `))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range o {
		got[f.key] = string(f.val)
	}
	want := map[string]string{"a": `"x\"y"`, "b": `[1,{"c":"]}"}]`, "d": "null", "e": "true", "f": "-1.5e3"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v", got)
	}
	if o.str("a") != `x"y` || !o.boolean("e") {
		t.Fatal("accessors")
	}
	for _, bad := range []string{``, `[]`, `{"a":}`, `{"a"`, `"s"`, `{"a":1}}`} {
		if _, err := splitObject([]byte(bad)); err == nil {
			t.Errorf("%q: want error", bad)
		}
	}
	if w := o.without("b", "d", "e", "f"); string(w) != `{"a":"x\"y"}` {
		t.Fatalf("without: %s", w)
	}
}

func TestUnquoteMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{
		`"plain"`, `"a\nb\tc\\d\"e\/f\b\f\r"`, `"\u00e9\u65e5"`, `"\ud83d\ude00 smile"`,
		`"lone \ud83d surrogate"`, `"lone \ude00 low"`, `"\ud83d\u0041"`, `"bad \x"`, `"\u12"`, `"end\\"`,
	} {
		var want string
		werr := json.Unmarshal([]byte(s), &want)
		got := rawString(json.RawMessage(s))
		if werr == nil && got != want {
			t.Errorf("%s: got %q, encoding/json %q", s, got, want)
		}
		if werr != nil && got != "" {
			t.Errorf("%s: invalid string decoded to %q", s, got)
		}
	}
}
