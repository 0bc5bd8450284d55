package gitx

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkCommitToBranch commits 10 changed files onto a repository of
// 500 files in 25 directories.
func BenchmarkCommitToBranch(b *testing.B) {
	dir := b.TempDir()
	if err := Init(dir); err != nil {
		b.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	var base []FileChange
	for i := 0; i < 500; i++ {
		base = append(base, FileChange{Path: fmt.Sprintf("d%02d/f%03d.md", i%25, i), Content: []byte(strings.Repeat("line\n", 50))})
	}
	if _, err := r.CommitToBranch("base", "base", testSig, base); err != nil {
		b.Fatal(err)
	}
	// Point HEAD's branch at the base commit through the public API.
	branch, _, _ := r.Head()
	if _, err := r.CommitToBranch(branch, "seed", testSig, base); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var ch []FileChange
		for j := 0; j < 10; j++ {
			ch = append(ch, FileChange{Path: fmt.Sprintf("d%02d/f%03d.md", j, j*7), Content: []byte(fmt.Sprintf("v%d-%d\n", i, j))})
		}
		if _, err := r.CommitToBranch(fmt.Sprintf("kb/b%d", i), "bench", testSig, ch); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnifiedDiff(b *testing.B) {
	var old, new strings.Builder
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&old, "line %d\n", i)
		if i%100 == 0 {
			fmt.Fprintf(&new, "changed %d\n", i)
		} else {
			fmt.Fprintf(&new, "line %d\n", i)
		}
	}
	o, n := []byte(old.String()), []byte(new.String())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if UnifiedDiff("x.md", o, n) == "" {
			b.Fatal("empty diff")
		}
	}
}
