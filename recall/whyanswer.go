package recall

import (
	"sort"

	"github.com/kbmem/kb/internal/doc"
)

// AddWhyItems adds to a the items of the hits whose documents read
// returns (a hit whose file is gone or does not parse is left out), and
// orders the items newest first.
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
	sort.SliceStable(a.Items, func(i, j int) bool { return a.Items[i].When.After(a.Items[j].When) })
}
