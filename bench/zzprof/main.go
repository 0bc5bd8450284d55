package main

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"github.com/kbmem/kb/kb"
)

func main() {
	k, err := kb.OpenRoot(os.Args[1])
	if err != nil {
		panic(err)
	}
	os.RemoveAll(os.Args[1] + "/.index")
	f, _ := os.Create(os.Args[2])
	pprof.StartCPUProfile(f)
	t := time.Now()
	x, st, err := k.OpenIndex(context.Background(), nil)
	if err != nil {
		panic(err)
	}
	x.Close()
	pprof.StopCPUProfile()
	fmt.Println(time.Since(t), st)
}
