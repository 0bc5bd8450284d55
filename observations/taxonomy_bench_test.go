package observations

import "testing"

// BenchmarkNewTaxonomy: building the built-in taxonomy, which every hook
// process does once.
func BenchmarkNewTaxonomy(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewTaxonomy(nil); err != nil {
			b.Fatal(err)
		}
	}
}
