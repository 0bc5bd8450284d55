package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// issue16 prints the figures issue 16 asks of `kb search` for one size
// (run.sh's issue16 function): per word, CPU time (user+sys, mean) and
// median wall time of kb plain, kb with the freshness keeper (search16-watch.json), the --old binary, rg and
// ranked FTS5, each with its ratio to FTS5 and to rg; the hits each found;
// edit -> search; peak RSS.
func issue16(w io.Writer, dir string) error {
	s := size{label: filepath.Base(dir), dir: dir}
	n, _ := s.num("notes")
	wb, err := os.ReadFile(s.path("words16"))
	if err != nil {
		return err
	}
	kinds := map[string]string{} // word -> rare|mid|common
	var words []string
	for _, f := range strings.Fields(string(wb)) {
		k, v, _ := strings.Cut(f, "=")
		kinds[v] = k
		words = append(words, v)
	}
	oldDir := "/old-" + s.label + " "
	name16 := func(cmd string) string {
		switch c := classify(cmd); {
		case c == "kb-search" || strings.Contains(cmd, " search "):
			if strings.Contains(cmd, oldDir) {
				return "kb-old"
			}
			return "kb"
		default:
			return c
		}
	}
	type cell struct{ wall, cpu float64 }
	res := map[string]map[string]cell{} // word -> engine -> cell
	add := func(file, rename string) {
		for _, r := range s.readHF(file) {
			word := r.Parameters["word"]
			e := name16(r.Command)
			if rename != "" {
				e = rename
			}
			if res[word] == nil {
				res[word] = map[string]cell{}
			}
			res[word][e] = cell{wall: r.Median, cpu: r.User + r.System}
		}
	}
	add("search16.json", "")
	add("search16-watch.json", "kb-keeper")
	hits := map[string]string{}
	if b, err := os.ReadFile(s.path("hits16.txt")); err == nil {
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			word, rest, _ := strings.Cut(l, " ")
			hits[word] = rest
		}
	}
	fmt.Fprintf(w, "#### %s notes (%s)\n\n", thousands(n), s.label)
	fmt.Fprintln(w, "| word (kind) | engine | CPU (user+sys) | wall (median) | CPU vs FTS5 | CPU vs rg | wall vs rg |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|")
	for _, word := range words {
		cells := res[word]
		f, r := cells["fts5-ranked"], cells["rg"]
		for _, e := range []string{"kb-old", "kb", "kb-keeper", "rg", "fts5-ranked"} {
			c, ok := cells[e]
			if !ok {
				continue
			}
			fmt.Fprintf(w, "| %s (%s) | %s | %s | %s | %s | %s | %s |\n", word, kinds[word], e,
				dur(c.cpu), dur(c.wall), ratio(c.cpu, f.cpu), ratio(c.cpu, r.cpu), ratio(c.wall, r.wall))
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Hits (kb: total; rg: files of `rg -l -i`, which also matches inside longer words; rg_w: of `rg -l -i -w`, the word; FTS5: rows; rg_w_not_in_kb: files with the word that kb does not find):")
	fmt.Fprintln(w)
	for _, word := range words {
		fmt.Fprintf(w, "- %s (%s): %s\n", word, kinds[word], hits[word])
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| edit -> next `kb search` finds it | wall (median) | max | CPU |")
	fmt.Fprintln(w, "|---|---:|---:|---:|")
	for _, f := range []string{"edit16-plain.json", "edit16-watch.json"} {
		for _, r := range s.readHF(f) {
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", r.Command, dur(r.Median), dur(r.Max), dur(r.User+r.System))
		}
	}
	fmt.Fprintln(w)
	var rss []string
	for _, f := range []string{"rss16-plain.txt", "rss16-watch.txt"} {
		if v, ok := s.rss(f); ok {
			kind := strings.TrimSuffix(strings.TrimPrefix(f, "rss16-"), ".txt")
			if kind == "watch" {
				kind = "with the keeper"
			}
			rss = append(rss, kind+" "+mb(v))
		}
	}
	if len(rss) > 0 {
		fmt.Fprintf(w, "Peak RSS of `kb search %s`: %s.\n", words[len(words)-1], strings.Join(rss, ", "))
	}
	if split := s.rssSplit("rss16-watch-split.jsonl"); split != "" {
		fmt.Fprintf(w, "With the keeper, split (bench/procrss, 5 runs: total = own + mapped files): %s.\n", split)
	}
	if b, err := os.ReadFile(s.path("load16")); err == nil {
		fmt.Fprintf(w, "Load average (1, 5, 15 min) at the %s.\n", strings.ReplaceAll(strings.TrimSpace(string(b)), "\n", ", at the "))
	}
	return nil
}

// rssSplit is the runs of bench/procrss in file f, each as "total (own
// heap and stacks + mapped file pages)".
func (s size) rssSplit(f string) string {
	b, err := os.ReadFile(s.path(f))
	if err != nil {
		return ""
	}
	var runs []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r struct {
			VmRSS   float64 `json:"vmrss_kb"`
			RssAnon float64 `json:"rss_anon_kb"`
			RssFile float64 `json:"rss_file_kb"`
		}
		if json.Unmarshal([]byte(line), &r) == nil && r.VmRSS > 0 {
			runs = append(runs, fmt.Sprintf("%s (%s + %s)", mb(r.VmRSS*1024), mb(r.RssAnon*1024), mb(r.RssFile*1024)))
		}
	}
	return strings.Join(runs, ", ")
}
