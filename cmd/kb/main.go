// Command kb is the CLI of kb, a durable memory for LLM coding agents made of
// plain files in git. This package only parses flags, calls package kb and
// prints; the logic lives in package kb and the layer packages.
package main

import (
	"io"
	"log"
	"os"
)

func main() {
	// bleve reports damaged segments on the standard logger before kb
	// rebuilds the index and says so itself, once; kb never logs there.
	log.SetOutput(io.Discard)
	os.Exit(run(os.Args[1:], newEnv()))
}
