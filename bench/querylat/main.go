// Command querylat measures kb's in-process search latency on a KB made by
// bench/gencorpus: it opens the KB and its index through the kb facade (as
// every kb command does), then runs -n searches and prints the p50/p99
// latency, plus the cost of opening the index and of a no-op sync (the file
// scan every kb command does before it reads the index).
//
//	go run ./bench/querylat -kb DIR [-meta DIR/bench-meta.json] [-n 1000] [-json] [-cpuprofile FILE]
//
// Queries are built deterministically from the meta file: single words over
// the whole frequency range, English inflected forms (stemming), and two-
// and three-word queries mixing both.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/kbmem/kb/kb"
)

type meta struct {
	Notes      int      `json:"notes"`
	MidWords   []string `json:"mid_words"`
	QueryWords []string `json:"query_words"`
	Stemming   []string `json:"stemming_words"`
}

// Result is what -json prints.
type Result struct {
	Notes       int     `json:"notes"`
	Queries     int     `json:"queries"`
	OpenMs      float64 `json:"open_ms"`       // kb.OpenRoot + OpenIndex (with its sync) on an up-to-date index
	SyncMs      float64 `json:"sync_ms"`       // median no-op Sync: scan + stamp compare
	P50Ms       float64 `json:"p50_ms"`        // Search latency
	P90Ms       float64 `json:"p90_ms"`        //
	P99Ms       float64 `json:"p99_ms"`        //
	MaxMs       float64 `json:"max_ms"`        //
	QPS         float64 `json:"qps"`           // sequential queries per second
	ZeroHits    int     `json:"zero_hits"`     // queries that found nothing (rare words are absent from small corpora)
	HeapAllocMB float64 `json:"heap_alloc_mb"` // after the queries
}

func queries(m meta, n int) []string {
	var qs []string
	words := append(slices.Clone(m.QueryWords), m.MidWords...)
	for i := 0; len(qs) < n; i++ {
		a := words[i%len(words)]
		b := words[(i*7+3)%len(words)]
		s := m.Stemming[i%len(m.Stemming)]
		switch i % 4 {
		case 0:
			qs = append(qs, a)
		case 1:
			qs = append(qs, s)
		case 2:
			qs = append(qs, a+" "+s)
		case 3:
			qs = append(qs, a+" "+b+" "+s)
		}
	}
	return qs
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func pct(ds []time.Duration, p int) time.Duration {
	i := len(ds) * p / 100
	if i >= len(ds) {
		i = len(ds) - 1
	}
	return ds[i]
}

func run() error {
	dir := flag.String("kb", "", "KB root made by gencorpus (its index should be built)")
	metaPath := flag.String("meta", "", "gencorpus metadata (default KB/bench-meta.json)")
	n := flag.Int("n", 1000, "number of queries")
	asJSON := flag.Bool("json", false, "print JSON")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the queries and syncs to this file")
	layers := flag.String("layers", "", "comma-separated --layer value for every query (default: kb's default, all but traces)")
	rebuildProfile := flag.String("rebuild-cpuprofile", "", "first rebuild the index in-process and write a CPU profile of that to this file")
	flag.Parse()
	if *dir == "" || *n < 1 {
		return fmt.Errorf("usage: querylat -kb DIR [-meta FILE] [-n N] [-json] [-cpuprofile FILE]")
	}
	if *metaPath == "" {
		*metaPath = filepath.Join(*dir, "bench-meta.json")
	}
	b, err := os.ReadFile(*metaPath)
	if err != nil {
		return err
	}
	var m meta
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("%s: %w", *metaPath, err)
	}
	if len(m.QueryWords) == 0 || len(m.Stemming) == 0 {
		return fmt.Errorf("%s: no query words", *metaPath)
	}
	ctx := context.Background()
	t0 := time.Now()
	k, err := kb.OpenRoot(*dir)
	if err != nil {
		return err
	}
	x, st, err := k.OpenIndex(ctx, nil)
	if err != nil {
		return err
	}
	defer x.Close()
	open := time.Since(t0)
	if *rebuildProfile != "" {
		if err := profileRebuild(ctx, x, *rebuildProfile); err != nil {
			return err
		}
	}
	if st.Added+st.Updated+st.Removed > 0 {
		fmt.Fprintf(os.Stderr, "querylat: note: the index was not up to date (%d added, %d updated, %d removed); open_ms includes indexing\n", st.Added, st.Updated, st.Removed)
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var syncs []time.Duration
	for range 7 {
		t := time.Now()
		if _, err := x.Sync(ctx, nil); err != nil {
			return err
		}
		syncs = append(syncs, time.Since(t))
	}
	slices.Sort(syncs)

	var layerList []string
	if *layers != "" {
		layerList = strings.Split(*layers, ",")
	}
	qs := queries(m, *n)
	for _, q := range qs[:min(20, len(qs))] { // warm up
		if _, err := x.Search(kb.SearchOptions{Query: q, Layers: layerList, Limit: 10}); err != nil {
			return err
		}
	}
	ds := make([]time.Duration, 0, len(qs))
	zero := 0
	all := time.Now()
	for _, q := range qs {
		t := time.Now()
		res, err := x.Search(kb.SearchOptions{Query: q, Layers: layerList, Limit: 10})
		if err != nil {
			return fmt.Errorf("search %q: %w", q, err)
		}
		ds = append(ds, time.Since(t))
		if len(res.Hits) == 0 {
			zero++
		}
	}
	total := time.Since(all)
	slices.Sort(ds)
	var ms0 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	r := Result{Notes: m.Notes, Queries: len(qs), OpenMs: ms(open), SyncMs: ms(syncs[len(syncs)/2]),
		P50Ms: ms(pct(ds, 50)), P90Ms: ms(pct(ds, 90)), P99Ms: ms(pct(ds, 99)), MaxMs: ms(ds[len(ds)-1]),
		QPS: float64(len(qs)) / total.Seconds(), ZeroHits: zero, HeapAllocMB: float64(ms0.HeapAlloc) / (1 << 20)}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	fmt.Printf("notes %d, %d queries: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms, %.0f q/s; open %.1f ms, no-op sync %.1f ms, %d zero-hit queries\n",
		r.Notes, r.Queries, r.P50Ms, r.P90Ms, r.P99Ms, r.MaxMs, r.QPS, r.OpenMs, r.SyncMs, r.ZeroHits)
	return nil
}

// profileRebuild rebuilds the index under the CPU profiler and prints the
// throughput to stderr.
func profileRebuild(ctx context.Context, x *kb.Searcher, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	t := time.Now()
	st, err := x.Rebuild(ctx, nil)
	pprof.StopCPUProfile()
	if err != nil {
		return err
	}
	d := time.Since(t)
	fmt.Fprintf(os.Stderr, "querylat: rebuilt %d files in %s (%.0f files/s)\n", st.Scanned, d.Round(time.Millisecond), float64(st.Scanned)/d.Seconds())
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "querylat:", err)
		os.Exit(1)
	}
}
