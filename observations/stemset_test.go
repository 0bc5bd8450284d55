package observations

import (
	"math/rand"
	"testing"
)

// stemSet.any is "some stem is stemIn the alternatives", on stems and
// alternatives that equal, extend and nearly extend each other around
// stemIn's six letters.
func TestStemSetIsStemIn(t *testing.T) {
	pool := []string{"defin", "definit", "definition", "paramet", "parameter", "parameteriz", "deploy", "deployment",
		"migrat", "migration", "cach", "cache", "abcdef", "abcdefg", "abcdeg", "abcde", "x", "schema", "schemas", "reject", "rejectunauthoriz"}
	r := rand.New(rand.NewSource(1))
	pick := func() []string {
		out := make([]string, 1+r.Intn(4))
		for i := range out {
			out[i] = pool[r.Intn(len(pool))]
		}
		return out
	}
	for range 20000 {
		st, alts := pick(), pick()
		want := false
		for _, s := range st {
			want = want || stemIn(s, alts)
		}
		if got := stemsIndex(st).any(alts); got != want {
			t.Fatalf("stems %q, alternatives %q: any %v, stemIn %v", st, alts, got, want)
		}
	}
}
