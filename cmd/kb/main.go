// Command kb is the CLI of kb, a durable memory for LLM coding agents made of
// plain files in git. This package only parses flags, calls package kb and
// prints; the logic lives in package kb and the layer packages.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], newEnv()))
}
