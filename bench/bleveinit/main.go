// Command bleveinit does nothing, and links bleve: the start-up floor of any
// process that searches with bleve (ADR 0011). Compare it with a no-op Go
// binary and with `kb version`:
//
//	go build -o /tmp/bleveinit ./bench/bleveinit
//	hyperfine -N -w 3 -r 30 /tmp/bleveinit 'kb version'
//	GODEBUG=inittrace=1 /tmp/bleveinit
package main

import (
	_ "github.com/blevesearch/bleve/v2"
)

func main() {}
