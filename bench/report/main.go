// Command report turns the raw results that bench/run.sh leaves in
// bench/out/ into the markdown tables of BENCHMARKS.md.
//
//	go run ./bench/report -out bench/out -sizes 1k,10k,100k
//
// Every kb figure is printed with the baseline measured in the same run
// and the ratio kb/baseline (below 1 means kb is faster or smaller).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

type hfResult struct {
	Command    string            `json:"command"`
	Median     float64           `json:"median"`
	Mean       float64           `json:"mean"`
	User       float64           `json:"user"`
	System     float64           `json:"system"`
	Min        float64           `json:"min"`
	Max        float64           `json:"max"`
	Parameters map[string]string `json:"parameters"`
}

// size holds the parsed results of one corpus size.
type size struct {
	label string
	notes int
	dir   string
	ok    bool
}

func (s size) path(name string) string { return filepath.Join(s.dir, name) }

func (s size) readHF(name string) []hfResult {
	b, err := os.ReadFile(s.path(name))
	if err != nil {
		return nil
	}
	var v struct {
		Results []hfResult `json:"results"`
	}
	if json.Unmarshal(b, &v) != nil {
		return nil
	}
	return v.Results
}

// stat is a median wall time and mean CPU time (user+sys) in seconds.
type stat struct {
	wall, cpu float64
	ok        bool
}

// hf returns the result of the command named prefix; with several
// parameter values (words), the median of their medians.
func (s size) hf(file, prefix string) stat {
	var walls, cpus []float64
	for _, r := range s.readHF(file) {
		if classify(r.Command) == prefix {
			walls = append(walls, r.Median)
			cpus = append(cpus, r.User+r.System)
		}
	}
	if len(walls) == 0 {
		return stat{}
	}
	return stat{wall: median(walls), cpu: median(cpus), ok: true}
}

// classify names a hyperfine command: a -n name is kept; a command line
// is named by its program (kb-search, rg, fts5, fts5-ranked).
func classify(cmd string) string {
	f := strings.Fields(cmd)
	if len(f) <= 1 {
		return cmd
	}
	switch filepath.Base(f[0]) {
	case "kb":
		return "kb-search"
	case "rg":
		return "rg"
	case "sqlite3":
		if strings.Contains(cmd, "ORDER BY rank") {
			return "fts5-ranked"
		}
		return "fts5"
	}
	return cmd
}

func median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func (s size) num(name string) (float64, bool) {
	b, err := os.ReadFile(s.path(name))
	if err != nil {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	return f, err == nil
}

// rss returns GNU time's maximum resident set size in bytes.
func (s size) rss(name string) (float64, bool) {
	f, err := os.Open(s.path(name))
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "Maximum resident set size (kbytes): "); ok {
			kb, err := strconv.ParseFloat(v, 64)
			return kb * 1024, err == nil
		}
	}
	return 0, false
}

type querylat struct {
	P50Ms, P99Ms, OpenMs, SyncMs float64
	Queries, ZeroHits            int
}

func (s size) querylat() (querylat, bool) {
	b, err := os.ReadFile(s.path("querylat.json"))
	if err != nil {
		return querylat{}, false
	}
	var q struct {
		P50   float64 `json:"p50_ms"`
		P99   float64 `json:"p99_ms"`
		Open  float64 `json:"open_ms"`
		Sync  float64 `json:"sync_ms"`
		N     int     `json:"queries"`
		Zeros int     `json:"zero_hits"`
	}
	if json.Unmarshal(b, &q) != nil {
		return querylat{}, false
	}
	return querylat{q.P50, q.P99, q.Open, q.Sync, q.N, q.Zeros}, true
}

func dur(sec float64) string {
	switch {
	case sec >= 10:
		return fmt.Sprintf("%.1f s", sec)
	case sec >= 1:
		return fmt.Sprintf("%.2f s", sec)
	case sec >= 0.01:
		return fmt.Sprintf("%.0f ms", sec*1000)
	default:
		return fmt.Sprintf("%.1f ms", sec*1000)
	}
}

func mb(b float64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.2f GB", b/(1<<30))
	}
	return fmt.Sprintf("%.0f MB", b/(1<<20))
}

func ratio(a, b float64) string {
	if b == 0 {
		return "n/a"
	}
	r := a / b
	if r >= 10 {
		return fmt.Sprintf("%.0fx", r)
	}
	return fmt.Sprintf("%.2fx", r)
}

func thousands(v float64) string {
	s := strconv.FormatInt(int64(math.Round(v)), 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func readMachine(out string) map[string]string {
	m := map[string]string{}
	b, err := os.ReadFile(filepath.Join(out, "machine.txt"))
	if err != nil {
		return m
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			m[k] = v
		}
	}
	return m
}

type row struct {
	name  string
	cells []string
}

func run() error {
	out := flag.String("out", "bench/out", "results directory of run.sh")
	sizesFlag := flag.String("sizes", "1k,10k,100k", "sizes to report")
	issue16Dir := flag.String("issue16", "", "print the issue-16 table of one size's results directory (bench/out/SIZE) and exit")
	flag.Parse()
	if *issue16Dir != "" {
		return issue16(os.Stdout, *issue16Dir)
	}
	var sizes []size
	for _, l := range strings.Split(*sizesFlag, ",") {
		s := size{label: l, dir: filepath.Join(*out, l)}
		if n, ok := s.num("notes"); ok {
			s.notes, s.ok = int(n), true
		}
		sizes = append(sizes, s)
	}
	m := readMachine(*out)
	w := os.Stdout
	fmt.Fprintf(w, "Measured %s on %s CPUs (%s), %s GiB RAM, %s; load average at start %s, at end %s.\n",
		m["date"], m["nproc"], m["cpu"], m["ram_gib"], m["go"], m["load_start"], m["load_end"])
	if b := m["kb_build"]; b != "" && b != "fresh" {
		fmt.Fprintf(w, "**kb binary: %s.**\n", b)
	}
	fmt.Fprintf(w, "kb %s, hyperfine %s, ripgrep %s, SQLite %s (FTS5, porter tokenizer). Command: `bench/run.sh --sizes %s` (seed %s).\n\n",
		m["kb_commit"], m["hyperfine"], orNA(m["rg"]), orNA(m["sqlite"]), m["sizes"], m["seed"])

	header := "| Measure |"
	sep := "|---|"
	for _, s := range sizes {
		header += fmt.Sprintf(" %s notes |", thousands(float64(s.notes)))
		sep += "---|"
	}
	var rows []row
	add := func(name string, f func(s size) string) {
		r := row{name: name}
		for _, s := range sizes {
			c := "n/a"
			if s.ok {
				c = f(s)
			}
			r.cells = append(r.cells, c)
		}
		rows = append(rows, r)
	}
	add("Full index: `kb index` on a fresh .index (wall, median)", func(s size) string {
		k := s.hf("index.json", "kb-index")
		f := s.hf("fts5-load.json", "fts5-load")
		if !k.ok {
			return "n/a"
		}
		c := fmt.Sprintf("%s = %s notes/s", dur(k.wall), thousands(float64(s.notes)/k.wall))
		if f.ok {
			c += fmt.Sprintf("; FTS5 load %s; **%s**", dur(f.wall), ratio(k.wall, f.wall))
		}
		return c
	})
	add("Full index, CPU time (user+sys)", func(s size) string {
		k := s.hf("index.json", "kb-index")
		f := s.hf("fts5-load.json", "fts5-load")
		if !k.ok {
			return "n/a"
		}
		c := dur(k.cpu)
		if f.ok {
			c += fmt.Sprintf("; FTS5 %s; **%s**", dur(f.cpu), ratio(k.cpu, f.cpu))
		}
		return c
	})
	add("One edited note searchable: append a word, `kb search WORD` process", func(s size) string {
		k := s.hf("edit.json", "kb-edit-search")
		r := s.hf("edit.json", "rg-edit")
		if !k.ok {
			return "n/a"
		}
		c := dur(k.wall)
		if b, err := os.ReadFile(s.path("edit-found")); err == nil && !strings.Contains(string(b), "library/") {
			c += " (NOT FOUND)"
		}
		if r.ok {
			c += fmt.Sprintf("; `rg -l` %s; **%s**", dur(r.wall), ratio(k.wall, r.wall))
		}
		return c
	})
	add("`kb search WORD` process, warm (median of 3 words x 10 runs)", func(s size) string {
		k := s.hf("search.json", "kb-search")
		r := s.hf("search.json", "rg")
		if !k.ok {
			return "n/a"
		}
		c := dur(k.wall)
		if r.ok {
			c += fmt.Sprintf("; `rg -l -i` %s; **%s**", dur(r.wall), ratio(k.wall, r.wall))
		}
		return c
	})
	add("... vs `sqlite3` FTS5 `MATCH ... LIMIT 10` process (unranked; ranked by bm25)", func(s size) string {
		k := s.hf("search.json", "kb-search")
		f := s.hf("search.json", "fts5")
		fr := s.hf("search.json", "fts5-ranked")
		if !k.ok || !f.ok {
			return "n/a"
		}
		c := fmt.Sprintf("%s, **%s**", dur(f.wall), ratio(k.wall, f.wall))
		if fr.ok {
			c += fmt.Sprintf("; %s, **%s**", dur(fr.wall), ratio(k.wall, fr.wall))
		}
		return c
	})
	add("In-process `Index.Search` p50 / p99 (1000 queries, querylat)", func(s size) string {
		q, ok := s.querylat()
		if !ok {
			return "n/a"
		}
		return fmt.Sprintf("%.2f / %.2f ms", q.P50Ms, q.P99Ms)
	})
	add("In-process no-op sync (file scan + stamp compare), median", func(s size) string {
		q, ok := s.querylat()
		if !ok {
			return "n/a"
		}
		return fmt.Sprintf("%.1f ms", q.SyncMs)
	})
	add("Peak RSS of the full index (= `kb index --rebuild`)", func(s size) string {
		k, ok := s.rss("rss-index.txt")
		if !ok {
			return "n/a"
		}
		return mb(k)
	})
	add("Peak RSS `kb search`; vs `sqlite3` FTS5 query; vs `rg -l`", func(s size) string {
		k, ok := s.rss("rss-search.txt")
		if !ok {
			return "n/a"
		}
		c := mb(k)
		if f, ok := s.rss("rss-fts5-search.txt"); ok {
			c += fmt.Sprintf("; %s, **%s**", mb(f), ratio(k, f))
		}
		if r, ok := s.rss("rss-rg.txt"); ok {
			c += fmt.Sprintf("; %s, **%s**", mb(r), ratio(k, r))
		}
		return c
	})
	add("Index on disk (`du -sb .index`) vs notes; vs FTS5 db", func(s size) string {
		ix, ok := s.num("index-bytes")
		if !ok {
			return "n/a"
		}
		c := mb(ix)
		if nb, ok := s.num("notes-bytes"); ok {
			c += fmt.Sprintf(" = **%s** the %s of notes", ratio(ix, nb), mb(nb))
		}
		if f, ok := s.num("fts5-bytes"); ok {
			c += fmt.Sprintf("; FTS5 %s, **%s**", mb(f), ratio(ix, f))
		}
		return c
	})
	fmt.Fprintln(w, header)
	fmt.Fprintln(w, sep)
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s |\n", r.name, strings.Join(r.cells, " | "))
	}

	// Targets.
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| Target | Measured | Met? |")
	fmt.Fprintln(w, "|---|---|---|")
	find := func(label string) (size, bool) {
		for _, s := range sizes {
			if s.label == label && s.ok {
				return s, true
			}
		}
		return size{}, false
	}
	verdict := func(met bool, gap string) string {
		if met {
			return "met"
		}
		return "**not met**: " + gap
	}
	// Full index >= 3000 notes/s at every size.
	{
		var parts []string
		met, worst := true, math.Inf(1)
		for _, s := range sizes {
			k := s.hf("index.json", "kb-index")
			if !s.ok || !k.ok {
				continue
			}
			r := float64(s.notes) / k.wall
			parts = append(parts, fmt.Sprintf("%s: %s notes/s", s.label, thousands(r)))
			if r < 3000 {
				met = false
			}
			worst = min(worst, r)
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "| Full index >= 3,000 notes/s | %s | %s |\n", strings.Join(parts, ", "),
				verdict(met, fmt.Sprintf("slowest is %s notes/s, %.1fx too slow", thousands(worst), 3000/worst)))
		}
	}
	{
		var parts []string
		met, worst := true, 0.0
		for _, s := range sizes {
			k := s.hf("edit.json", "kb-edit-search")
			if !s.ok || !k.ok {
				continue
			}
			parts = append(parts, fmt.Sprintf("%s: %s", s.label, dur(k.wall)))
			if k.wall > 0.1 {
				met = false
			}
			worst = max(worst, k.wall)
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "| One edited note searchable within 100 ms | %s | %s |\n", strings.Join(parts, ", "),
				verdict(met, fmt.Sprintf("worst %s, %.1fx the target", dur(worst), worst/0.1)))
		}
	}
	if s, ok := find("10k"); ok {
		if k := s.hf("search.json", "kb-search"); k.ok {
			fmt.Fprintf(w, "| `kb search` process < 50 ms at 10k notes | %s | %s |\n", dur(k.wall),
				verdict(k.wall < 0.05, fmt.Sprintf("%.1fx the target", k.wall/0.05)))
		}
	}
	if s, ok := find("100k"); ok {
		k, r := s.hf("search.json", "kb-search"), s.hf("search.json", "rg")
		if k.ok && r.ok {
			fmt.Fprintf(w, "| `kb search` faster than `rg -l` at 100k notes | %s vs %s (%s) | %s |\n", dur(k.wall), dur(r.wall),
				ratio(k.wall, r.wall), verdict(k.wall < r.wall, fmt.Sprintf("%s rg's time", ratio(k.wall, r.wall))))
		}
	}
	if s, ok := find("10k"); ok {
		if q, ok := s.querylat(); ok {
			fmt.Fprintf(w, "| In-process p50 < 5 ms at 10k notes | %.2f ms (p99 %.2f ms) | %s |\n", q.P50Ms, q.P99Ms,
				verdict(q.P50Ms < 5, fmt.Sprintf("%.1fx the target", q.P50Ms/5)))
		}
	}
	if s, ok := find("100k"); ok {
		a, ok1 := s.rss("rss-index.txt")
		b, ok2 := s.rss("rss-search.txt")
		if ok1 && ok2 {
			worst := max(a, b)
			fmt.Fprintf(w, "| Peak RSS < 300 MB at 100k notes | index %s, search %s | %s |\n", mb(a), mb(b),
				verdict(worst < 300<<20, fmt.Sprintf("%s, %.1fx the target", mb(worst), worst/(300<<20))))
		}
	}

	// Sanity: hit counts.
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Hit counts of the query words (kb total / files rg -l lists / FTS5 matches / notes containing the word):")
	fmt.Fprintln(w)
	for _, s := range sizes {
		if b, err := os.ReadFile(s.path("hits.txt")); err == nil {
			fmt.Fprintf(w, "- %s: %s\n", s.label, strings.Join(strings.Fields(strings.ReplaceAll(string(b), "\n", "; ")), " "))
		}
	}
	return nil
}

func orNA(s string) string {
	if s == "" {
		return "n/a"
	}
	return s
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}
