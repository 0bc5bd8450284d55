// Command hooklat measures the latency of hook processes: each command is
// run N times with stdin from a file, the commands interleaved run by run
// so that they share the machine's load, and the wall time of each run is
// taken from just before the start to just after the exit (no shell in
// between, nothing subtracted).
//
//	hooklat -n 200 -in event.json -env KB_HOOK_NO_INDEX=1 'noop' 'kb-hook --kb K claude-code' ...
//
// It prints one JSON object per command: {"cmd","runs","p50_ms","p90_ms","p99_ms","mean_ms","min_ms","max_ms"}.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"
)

func main() {
	n := flag.Int("n", 100, "runs of each command")
	warm := flag.Int("warmup", 5, "unmeasured runs of each command first")
	in := flag.String("in", "", "file given on stdin")
	var env multi
	flag.Var(&env, "env", "KEY=VALUE added to the environment (repeatable)")
	flag.Parse()
	cmds := flag.Args()
	if len(cmds) == 0 {
		fmt.Fprintln(os.Stderr, "usage: hooklat [-n N] [-in FILE] [-env K=V] 'CMD ARGS' ...")
		os.Exit(2)
	}
	times := make([][]float64, len(cmds))
	for r := -*warm; r < *n; r++ {
		for i, c := range cmds {
			d, err := once(c, *in, env)
			if err != nil {
				fmt.Fprintf(os.Stderr, "hooklat: %s: %v\n", c, err)
				os.Exit(1)
			}
			if r >= 0 {
				times[i] = append(times[i], d)
			}
		}
	}
	enc := json.NewEncoder(os.Stdout)
	for i, c := range cmds {
		t := times[i]
		sort.Float64s(t)
		sum := 0.0
		for _, v := range t {
			sum += v
		}
		enc.Encode(map[string]any{"cmd": c, "runs": len(t), "p50_ms": q(t, 50), "p90_ms": q(t, 90), "p99_ms": q(t, 99),
			"mean_ms": round(sum / float64(len(t))), "min_ms": round(t[0]), "max_ms": round(t[len(t)-1])})
	}
}

func once(c, in string, env []string) (float64, error) {
	f := strings.Fields(c)
	cmd := exec.Command(f[0], f[1:]...)
	cmd.Env = append(os.Environ(), env...)
	if in != "" {
		fh, err := os.Open(in)
		if err != nil {
			return 0, err
		}
		defer fh.Close()
		cmd.Stdin = fh
	}
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, err
	}
	return float64(time.Since(start).Microseconds()) / 1000, nil
}

// q is the p-th percentile of sorted t (nearest rank).
func q(t []float64, p float64) float64 {
	i := int(math.Ceil(p/100*float64(len(t)))) - 1
	return round(t[max(0, min(i, len(t)-1))])
}

func round(v float64) float64 { return math.Round(v*100) / 100 }

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }
