package recall

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// BenchmarkPrecompute is the loaders' share of kb index per note (see
// bench/gencorpus): a 40-word description and a 600-word body of 300
// notes, drawn from 3,000 words.
func BenchmarkPrecompute(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 3000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%sx%d", strings.Repeat("ab", i%5), i)
	}
	text := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = vocab[int(r.ExpFloat64()*300)%len(vocab)]
		}
		return strings.Join(ws, " ") + "."
	}
	docs := make([]CompileDoc, 300)
	for i := range docs {
		docs[i] = CompileDoc{Hit: Hit{Path: fmt.Sprintf("library/n%d.md", i), ID: fmt.Sprintf("n%d", i), Layer: "library",
			Type: "adr", Title: text(6), Description: text(40), Fields: map[string]any{"status": "active"}}, Tags: []string{"api"}, Body: text(600)}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for i := range docs {
			d := docs[i]
			if err := Precompute(&d, nil, false, nil, nil, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
}
