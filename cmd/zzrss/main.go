package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/kbmem/kb/kb"
)

func status(tag string) {
	b, _ := os.ReadFile("/proc/self/status")
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		for _, k := range []string{"VmHWM", "VmRSS", "RssAnon", "RssFile"} {
			if strings.HasPrefix(l, k+":") {
				out = append(out, strings.Join(strings.Fields(l), " "))
			}
		}
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	fmt.Fprintf(os.Stderr, "%-8s %s | heap inuse %d MB sys %d MB total alloc %d MB\n", tag, strings.Join(out, ", "), m.HeapInuse>>20, m.Sys>>20, m.TotalAlloc>>20)
}

func main() {
	status("start")
	k, err := kb.OpenRoot(os.Args[1])
	if err != nil {
		panic(err)
	}
	status("opened")
	o := kb.SearchOptions{Query: os.Args[2], Limit: 10}
	x, _, err := k.OpenIndexToRead(context.Background(), o.ReadLayers(), nil)
	if err != nil {
		panic(err)
	}
	status("index")
	res, err := x.Search(o)
	if err != nil {
		panic(err)
	}
	status("search")
	fmt.Println(res.Total)
	x.Close()
	status("closed")
}
