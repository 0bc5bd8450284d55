package recall

import (
	"slices"
	"sort"

	"github.com/kbmem/kb/internal/doc"
)

// AddWhyItems adds to a the items of the hits whose documents read
// returns (a hit whose file is gone or does not parse is left out), and
// orders the items newest first; items of the same moment go in the
// order of WhyTypes (a decision or ADR, then the failed attempt, then a
// correction), so the record of a reason comes before the correction the
// same message also gave.
func (a *WhyAnswer) AddWhyItems(hits []WhyHit, read func(path string) (*doc.Document, error)) {
	for _, h := range hits {
		d, err := read(h.Path)
		if err != nil {
			continue
		}
		if it, ok := WhyItemOf(h, d); ok {
			a.Items = append(a.Items, it)
		}
	}
	rank := func(typ string) int {
		if i := slices.Index(WhyTypes, typ); i >= 0 {
			return i
		}
		return len(WhyTypes)
	}
	sort.SliceStable(a.Items, func(i, j int) bool {
		x, y := a.Items[i], a.Items[j]
		if !x.When.Equal(y.When) {
			return x.When.After(y.When)
		}
		return rank(x.Type) < rank(y.Type)
	})
}
