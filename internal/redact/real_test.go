package redact

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// item is one piece of transcript content as an importer hands it over:
// a text (message, tool output) or a tool input (JSON).
type item struct {
	json bool
	data string
}

// sharedDir locates /work/shared as ../shared from the directory holding
// go.mod, or returns "" when it is absent (a user's clone).
func sharedDir() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			s := filepath.Join(dir, "..", "shared")
			if _, err := os.Stat(s); err == nil {
				return s
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// realItems reads the transcripts under shared/data/transcripts/<agent>
// and returns their string values and tool inputs, in file order. limit
// caps the total size (0: no cap).
func realItems(tb testing.TB, agent string, limit int) []item {
	tb.Helper()
	s := sharedDir()
	if s == "" {
		tb.Skip("shared data not present (../shared from the repo root)")
	}
	root := filepath.Join(s, "data", "transcripts", agent)
	var files []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".json")) {
			files = append(files, p)
		}
		return nil
	})
	slices.Sort(files)
	var out []item
	total := 0
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			tb.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var v any
			if json.Unmarshal(sc.Bytes(), &v) != nil {
				continue
			}
			collect(v, "", &out, &total)
			if limit > 0 && total >= limit {
				fh.Close()
				return out
			}
		}
		fh.Close()
	}
	return out
}

func collect(v any, key string, out *[]item, total *int) {
	switch v := v.(type) {
	case string:
		if key == "arguments" && json.Valid([]byte(v)) && strings.HasPrefix(v, "{") {
			*out = append(*out, item{json: true, data: v})
		} else {
			*out = append(*out, item{data: v})
		}
		*total += len(v)
	case map[string]any:
		if key == "input" {
			if b, err := json.Marshal(v); err == nil {
				*out = append(*out, item{json: true, data: string(b)})
				*total += len(b)
				return
			}
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			collect(v[k], k, out, total)
		}
	case []any:
		for _, x := range v {
			collect(x, key, out, total)
		}
	}
}

func (r *Redactor) redactItem(it item) (string, []Finding) {
	if it.json {
		b, fs := r.JSON([]byte(it.data))
		return string(b), fs
	}
	return r.String(it.data)
}

// TestRealTranscriptFalsePositives runs the redactor over the real
// transcripts in shared/ and logs what it redacts. These transcripts hold
// no known credentials, so every finding is a false positive candidate;
// the count is reported, and kept under a ceiling so a rule change that
// floods normal text with markers fails.
func TestRealTranscriptFalsePositives(t *testing.T) {
	r := newRedactor(t)
	total, n := 0, 0
	byRule := map[string]int{}
	for _, agent := range []string{"claude-code", "codex", "aider", "gemini-cli"} {
		items := realItems(t, agent, 0)
		for _, it := range items {
			total += len(it.data)
			out, fs := r.redactItem(it)
			if len(fs) == 0 {
				if out != it.data {
					t.Errorf("%s: output changed without a finding", agent)
				}
				continue
			}
			n += len(fs)
			for _, f := range fs {
				byRule[f.Rule]++
			}
			if testing.Verbose() {
				for _, line := range strings.Split(out, "\n") {
					if strings.Contains(line, "[REDACTED:") {
						t.Logf("%s: %.300s", agent, line)
					}
				}
			}
		}
	}
	t.Logf("real transcripts: %.1f MB, %d findings %v", float64(total)/1e6, n, byRule)
	if n > 50 {
		t.Errorf("%d findings on real transcripts, want at most 50", n)
	}
}

// benchItems returns about 1 MB of realistic transcript content: real
// tool output and messages when shared/ is present, else generated text
// that mixes prose, code, shell output and a few secrets.
func benchItems(b *testing.B) []item {
	if sharedDir() != "" {
		if items := realItems(b, "claude-code", 1<<20); len(items) > 0 {
			return items
		}
	}
	return generatedItems(1 << 20)
}

func generatedItems(size int) []item {
	rnd := rand.New(rand.NewPCG(1, 2))
	fk := fakes()
	kinds := make([]string, 0, len(fk))
	for k := range fk {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	clean, _ := os.ReadDir(filepath.Join("..", "..", "testdata", "redact", "clean"))
	var texts []string
	for _, e := range clean {
		if b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "redact", "clean", e.Name())); err == nil {
			texts = append(texts, string(b))
		}
	}
	if len(texts) == 0 {
		texts = []string{"The build passed; next I will refactor the parser and run go test ./... again.\n"}
	}
	var out []item
	total := 0
	for i := 0; total < size; i++ {
		var s string
		switch {
		case i%50 == 49:
			s = fmt.Sprintf("export API_TOKEN=%s\n", fk[kinds[rnd.IntN(len(kinds))]].Text)
		case i%7 == 3:
			in, _ := json.Marshal(map[string]string{"file_path": "/src/app/main.go", "content": texts[rnd.IntN(len(texts))]})
			out = append(out, item{json: true, data: string(in)})
			total += len(in)
			continue
		default:
			s = texts[rnd.IntN(len(texts))]
		}
		out = append(out, item{data: s})
		total += len(s)
	}
	return out
}

// BenchmarkRedact redacts about 1 MB of transcript content per op, item by
// item as an importer would. Besides wall-clock MB/s it reports MB per
// CPU-second (MB/cpu-s), the figure that holds on a shared machine.
func BenchmarkRedact(b *testing.B) { benchRedact(b, benchItems(b)) }

// BenchmarkRedactGenerated uses generated text only: the clean fixtures
// (code, logs, prose, config templates dense with key/token/password
// names) with a secret now and then, a worst case for the keyword
// prefilter.
func BenchmarkRedactGenerated(b *testing.B) { benchRedact(b, generatedItems(1<<20)) }

func benchRedact(b *testing.B, items []item) {
	r := newRedactor(b)
	size := 0
	for _, it := range items {
		size += len(it.data)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	start := cpuTime()
	for b.Loop() {
		for _, it := range items {
			r.redactItem(it)
		}
	}
	if cpu := (cpuTime() - start).Seconds(); cpu > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/1e6/cpu, "MB/cpu-s")
	}
}
