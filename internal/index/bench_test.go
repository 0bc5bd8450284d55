package index

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// corpus generates deterministic notes from a Zipf-distributed vocabulary.
type corpus struct {
	vocab []string
	zipf  *rand.Zipf
	rng   *rand.Rand
}

func newCorpus() *corpus {
	rng := rand.New(rand.NewPCG(1, 2))
	syll := []string{"ka", "mi", "to", "ra", "ne", "so", "lu", "pe", "di", "go", "ba", "chi", "vo", "re", "an", "ex", "ion", "ter"}
	seen := map[string]bool{}
	var vocab []string
	for len(vocab) < 5000 {
		var b strings.Builder
		for n := 2 + rng.IntN(3); n > 0; n-- {
			b.WriteString(syll[rng.IntN(len(syll))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			vocab = append(vocab, w)
		}
	}
	return &corpus{vocab: vocab, rng: rng, zipf: rand.NewZipf(rng, 1.1, 1, uint64(len(vocab)-1))}
}

func (c *corpus) words(n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = c.vocab[c.zipf.Uint64()]
	}
	return strings.Join(ws, " ")
}

// notes returns n single-doc files of about bodyWords words each.
func (c *corpus) notes(n, bodyWords int) []Change {
	types := []string{"adr", "howto", "concept", "reference"}
	out := make([]Change, n)
	for i := range out {
		path := fmt.Sprintf("library/note-%06d.md", i)
		d := Doc{
			ID: fmt.Sprintf("note-%06d", i), Layer: "library", Type: types[i%len(types)],
			Title: c.words(5), Description: c.words(15), Body: c.words(bodyWords),
			Tags: []string{c.vocab[i%50], c.vocab[50+i%30]}, Status: "active",
			Created: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour),
			Links:   []string{fmt.Sprintf("note-%06d", (i*7)%n), fmt.Sprintf("note-%06d", (i*13)%n)},
		}
		if i%10 == 0 {
			d.Text = map[string]string{"trigger": c.words(10), "lesson": c.words(10)}
			d.Keywords = map[string][]string{"action_type": {"git:push-force"}}
			d.Num = map[string]float64{"importance": float64(i%10) / 10}
		}
		out[i] = Change{Path: path, Stamp: Stamp{Mtime: int64(i), Size: int64(len(d.Body))}, Docs: []Doc{d}}
	}
	return out
}

func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

func build(b *testing.B, changes []Change) string {
	b.Helper()
	dir := filepath.Join(b.TempDir(), ".index")
	ix, _, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	for chunk := range slices.Chunk(changes, 5000) {
		if err := ix.Apply(chunk); err != nil {
			b.Fatal(err)
		}
	}
	if err := ix.Close(); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkApply10k indexes 10k notes of ~300 words into a fresh index
// (one Apply call, as `kb index` does after a rebuild).
func BenchmarkApply10k(b *testing.B) {
	changes := newCorpus().notes(10000, 300)
	var raw int64
	for _, c := range changes {
		d := c.Docs[0]
		raw += int64(len(d.Title) + len(d.Description) + len(d.Body))
	}
	b.ResetTimer()
	cpu0 := cpuTime()
	var size int64
	for i := 0; i < b.N; i++ {
		dir := filepath.Join(b.TempDir(), ".index")
		ix, _, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		if err := ix.Apply(changes); err != nil {
			b.Fatal(err)
		}
		if err := ix.Close(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		size = dirSize(dir)
		b.StartTimer()
	}
	b.ReportMetric(float64(len(changes)*b.N)/b.Elapsed().Seconds(), "notes/s")
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(size)/(1<<20), "index-MB")
	b.ReportMetric(float64(raw)/(1<<20), "text-MB")
}

var benchQueries = []string{"", "", "", "type:adr", "", "+%s -%s", `"%s %s"`, "%s~1", "trigger:%s"}

func queriesFor(c *corpus) []string {
	var qs []string
	for i := 0; i < 200; i++ {
		a, bb := c.vocab[c.zipf.Uint64()%500], c.vocab[c.zipf.Uint64()%500]
		tmpl := benchQueries[i%len(benchQueries)]
		switch {
		case tmpl == "":
			qs = append(qs, c.words(3))
		case strings.Count(tmpl, "%s") == 2:
			qs = append(qs, fmt.Sprintf(tmpl, a, bb))
		case strings.Contains(tmpl, "%s"):
			qs = append(qs, fmt.Sprintf(tmpl, a))
		default:
			qs = append(qs, tmpl)
		}
	}
	return qs
}

// reportCPU reports CPU time per op since cpu0 (all goroutines, including
// bleve's background work).
func reportCPU(b *testing.B, cpu0 time.Duration) {
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
}

func reportPercentiles(b *testing.B, ds []time.Duration) {
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(ds[len(ds)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkSearch runs mixed queries (plain words, field, must/not,
// phrase, fuzzy) with highlighting against an open 10k-note index.
func BenchmarkSearch(b *testing.B) {
	c := newCorpus()
	dir := build(b, c.notes(10000, 300))
	qs := queriesFor(c)
	ix, _, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := ix.Search(Query{Text: qs[i%len(qs)], Limit: 10, Highlight: true}); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t0))
	}
	reportCPU(b, cpu0)
	reportPercentiles(b, ds)
}

// BenchmarkOpenSearchClose is the cost of one `kb search` against a 10k
// index: open, one query, close.
func BenchmarkOpenSearchClose(b *testing.B) {
	c := newCorpus()
	dir := build(b, c.notes(10000, 300))
	qs := queriesFor(c)
	for _, mode := range []string{"rw", "ro"} {
		b.Run(mode, func(b *testing.B) {
			ds := make([]time.Duration, 0, b.N)
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				var ix *Index
				var err error
				if mode == "ro" {
					ix, err = OpenReadOnly(dir)
				} else {
					var info OpenInfo
					ix, info, err = Open(dir)
					if info.Rebuilt {
						b.Fatalf("rebuilt: %s", info.Reason)
					}
				}
				if err != nil {
					b.Fatal(err)
				}
				if _, err := ix.Search(Query{Text: qs[i%len(qs)], Highlight: true}); err != nil {
					b.Fatal(err)
				}
				if err := ix.Close(); err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(t0))
			}
			reportCPU(b, cpu0)
			reportPercentiles(b, ds)
		})
	}
}

// BenchmarkApplyOne re-indexes one changed note in a 10k index (with the
// stamps rewrite), as `kb` does after an edit.
func BenchmarkApplyOne(b *testing.B) {
	c := newCorpus()
	changes := c.notes(10000, 300)
	dir := build(b, changes)
	ix, _, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	b.ResetTimer()
	cpu0 := cpuTime()
	defer func() { reportCPU(b, cpu0) }()
	for i := 0; i < b.N; i++ {
		ch := changes[i%len(changes)]
		ch.Docs = []Doc{ch.Docs[0]}
		ch.Docs[0].Body = c.words(300)
		ch.Stamp.Mtime++
		if err := ix.Apply([]Change{ch}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAll100k lists the link-graph fields of 100k short docs (trace
// turns and notes).
func BenchmarkAll100k(b *testing.B) {
	c := newCorpus()
	dir := build(b, c.notes(100000, 40))
	ix, _, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	b.ResetTimer()
	cpu0 := cpuTime()
	defer func() { reportCPU(b, cpu0) }()
	for i := 0; i < b.N; i++ {
		all, err := ix.All()
		if err != nil || len(all) != 100000 {
			b.Fatalf("All: %d %v", len(all), err)
		}
	}
}

// BenchmarkStamps100k loads and writes a stamps file of 100k files.
func BenchmarkStamps100k(b *testing.B) {
	m := make(map[string]Stamp, 100000)
	for i := range 100000 {
		m[fmt.Sprintf("traces/2025/%02d/session-%08d.jsonl", i%12, i)] = Stamp{Mtime: time.Now().UnixNano(), Size: int64(i * 100)}
	}
	path := filepath.Join(b.TempDir(), "stamps")
	if err := writeStamps(path, 1, m, nil); err != nil {
		b.Fatal(err)
	}
	b.Run("load", func(b *testing.B) {
		cpu0 := cpuTime()
		defer func() { reportCPU(b, cpu0) }()
		for i := 0; i < b.N; i++ {
			if _, got, _, err := readStamps(path); err != nil || len(got) != len(m) {
				b.Fatal(err)
			}
		}
	})
	b.Run("write", func(b *testing.B) {
		cpu0 := cpuTime()
		defer func() { reportCPU(b, cpu0) }()
		for i := 0; i < b.N; i++ {
			if err := writeStamps(path, 1, m, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	// What an Apply of one file and an open that looks up one file cost
	// with the log: one record appended (fsync), the stamps file checked
	// and scanned for one path.
	dir := b.TempDir()
	if err := writeStamps(filepath.Join(dir, stampsFile), 1, m, nil); err != nil {
		b.Fatal(err)
	}
	st, err := readStampSet(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("append-one", func(b *testing.B) {
		defer func(n int) { stampLogMin = n }(stampLogMin)
		stampLogMin = 1 << 62
		cpu0 := cpuTime()
		defer func() { reportCPU(b, cpu0) }()
		for i := 0; i < b.N; i++ {
			e := stampEntry{Path: "traces/2025/01/session-00000001.jsonl", Stamp: Stamp{Mtime: int64(i), Size: 1}}
			if err := st.appendRecord(dir, stampRecord{Gen: st.gen + 1, Entries: []stampEntry{e}}); err != nil {
				b.Fatal(err)
			}
			st.gen++
		}
	})
	b.Run("open-find-one", func(b *testing.B) {
		cpu0 := cpuTime()
		defer func() { reportCPU(b, cpu0) }()
		for i := 0; i < b.N; i++ {
			s, err := readStampSet(dir)
			if err != nil {
				b.Fatal(err)
			}
			if _, _, ok := s.lookup("traces/2025/11/session-00050003.jsonl"); !ok {
				b.Fatal("not found")
			}
		}
	})
}

// BenchmarkEditOne100k is what an edit seen by kb watch costs the index
// at 100,000 files: a writable Open, the sync of the one changed path
// (SyncPaths: its stamp looked up, its doc replaced, the stamps recorded),
// and Close. The files have no docs but the edited one's (bleve's share is
// BenchmarkApplyOne's).
func BenchmarkEditOne100k(b *testing.B) {
	dir := filepath.Join(b.TempDir(), ".index")
	ix, _, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	var cs []Change
	for i := range 100000 {
		cs = append(cs, Change{Path: fmt.Sprintf("library/notes/%03d/note-%06d.md", i/1000, i), Stamp: Stamp{Mtime: time.Now().UnixNano(), Size: int64(i * 100)}})
	}
	if err := ix.Apply(cs); err != nil {
		b.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		b.Fatal(err)
	}
	c := newCorpus()
	edited := cs[50000]
	b.ResetTimer()
	cpu0 := cpuTime()
	defer func() { reportCPU(b, cpu0) }()
	for i := 0; i < b.N; i++ {
		ix, info, err := Open(dir)
		if err != nil || info.Rebuilt {
			b.Fatalf("open: %+v %v", info, err)
		}
		f := File{Rel: edited.Path, Layer: "library", Stamp: Stamp{Mtime: int64(i), Size: 1}}
		load := func(f File, emit func(Part) bool) bool {
			return emit(Part{Change: Change{Path: f.Rel, Stamp: f.Stamp, Docs: []Doc{note("edited", "note", "Edited", c.words(300))}}})
		}
		if st, err := ix.SyncPaths(context.Background(), []File{f}, []string{f.Rel}, load, nil); err != nil || st.Updated != 1 {
			b.Fatalf("sync: %+v %v", st, err)
		}
		if err := ix.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuTime is the process's user+system CPU time: on a shared machine it is
// a steadier measure than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSearchPhrase runs phrases of two words of the vocabulary (the
// common ones often) against a 10k-note index: the body's phrases are
// checked on the stored text of every document holding both words.
func BenchmarkSearchPhrase(b *testing.B) {
	c := newCorpus()
	dir := build(b, c.notes(10000, 300))
	var qs []string
	for i := 0; i < 200; i++ {
		qs = append(qs, fmt.Sprintf(`"%s %s"`, c.vocab[c.zipf.Uint64()%500], c.vocab[c.zipf.Uint64()%500]))
	}
	ix, _, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	ds := make([]time.Duration, 0, b.N)
	var hits uint64
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		res, err := ix.Search(Query{Text: qs[i%len(qs)], Limit: 10, Highlight: true})
		if err != nil {
			b.Fatal(err)
		}
		hits += res.Total
		ds = append(ds, time.Since(t0))
	}
	reportCPU(b, cpu0)
	reportPercentiles(b, ds)
	b.ReportMetric(float64(hits)/float64(b.N), "hits/op")
}
