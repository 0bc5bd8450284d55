// Command kb is the CLI of kb, a durable memory for LLM coding agents made of
// plain files in git. This package only parses flags, calls package kb and
// prints; the logic lives in package kb and the layer packages.
package main

import (
	"fmt"
	"io"
	"log"
	"os"
	"runtime/pprof"
)

func main() {
	// bleve reports damaged segments on the standard logger before kb
	// rebuilds the index and says so itself, once; kb never logs there.
	log.SetOutput(io.Discard)
	os.Exit(profiled(func() int { return run(os.Args[1:], newEnv()) }))
}

// profiled runs f under a CPU profile written to $KB_CPUPROFILE, when it
// is set: for measuring a command (kb index above all) as users run it.
func profiled(f func() int) int {
	p := os.Getenv("KB_CPUPROFILE")
	if p == "" {
		return f()
	}
	out, err := os.Create(p)
	if err == nil {
		err = pprof.StartCPUProfile(out)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kb: KB_CPUPROFILE:", err)
		return f()
	}
	defer out.Close()
	defer pprof.StopCPUProfile()
	return f()
}
