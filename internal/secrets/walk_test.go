package secrets

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
)

// TestWalkLower: walking a text a chunk at a time finds exactly the
// matches of one walk over its lowercased copy, across chunk boundaries
// and with patterns that overlap each other.
func TestWalkLower(t *testing.T) {
	pats := []string{"key", "token", "ghp_", "secret_key", "ey", "aaaa", strings.Repeat("ab", 40)}
	tr := ahocorasick.NewTrieBuilder().AddStrings(pats).Build()
	maxLen := 80
	r := rand.New(rand.NewPCG(1, 2))
	parts := []string{"KEY", "Token", "ghp_", "SECRET_key", "eY", "aAaA", "x", " ", "é", strings.Repeat("AB", 40), strings.Repeat("z", 1000)}
	var b strings.Builder
	for b.Len() < 5*walkChunk+123 {
		b.WriteString(parts[r.IntN(len(parts))])
	}
	s := b.String()
	type m struct{ end, n, p int64 }
	var want, got []m
	tr.Walk(ASCIILower(s), func(end, n, p int64) bool { want = append(want, m{end, n, p}); return true })
	WalkLower(tr, s, maxLen, func(end, n, p int64) bool { got = append(got, m{end, n, p}); return true })
	if len(want) < 1000 || !slices.Equal(got, want) {
		t.Fatalf("chunked walk: %d matches, one walk: %d", len(got), len(want))
	}
	// Stopping early stops.
	k := 0
	WalkLower(tr, s, maxLen, func(end, n, p int64) bool { k++; return k < 10 })
	if k != 10 {
		t.Fatalf("walk went on after false: %d calls", k)
	}
}
