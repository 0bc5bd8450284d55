// Command procrss runs a command and reports the peak of its resident
// memory split as /proc/PID/status splits it: RssAnon (its own heap and
// stacks) and RssFile (pages of files it maps: its binary's code and,
// for kb search, the index's segment files, which the kernel maps in
// windows around each page read and which the page cache shares with
// every other process). GNU time's "Maximum resident set size" is their
// sum. The status file is sampled every 200 microseconds until the
// process exits, so a peak shorter than that can be missed.
//
//	procrss [-n RUNS] CMD ARGS...
//
// It prints one JSON object per run: {"vmrss_kb","rss_anon_kb","rss_file_kb"}.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

func main() {
	n := flag.Int("n", 1, "runs")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: procrss [-n RUNS] CMD ARGS...")
		os.Exit(2)
	}
	for range *n {
		peak, err := run(flag.Args())
		if err != nil {
			fmt.Fprintln(os.Stderr, "procrss:", err)
			os.Exit(1)
		}
		b, _ := json.Marshal(peak)
		fmt.Println(string(b))
	}
}

type peak struct {
	VmRSS   int `json:"vmrss_kb"`
	RssAnon int `json:"rss_anon_kb"`
	RssFile int `json:"rss_file_kb"`
}

func run(args []string) (peak, error) {
	var p peak
	cmd := exec.Command(args[0], args[1:]...)
	if err := cmd.Start(); err != nil {
		return p, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	for {
		select {
		case err := <-done:
			return p, err
		default:
		}
		sample(status, &p)
		time.Sleep(200 * time.Microsecond)
	}
}

// sample raises p's fields to the values in the status file, if larger.
func sample(path string, p *peak) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		if err != nil {
			continue
		}
		switch k {
		case "VmRSS":
			p.VmRSS = max(p.VmRSS, kb)
		case "RssAnon":
			p.RssAnon = max(p.RssAnon, kb)
		case "RssFile":
			p.RssFile = max(p.RssFile, kb)
		}
	}
}
