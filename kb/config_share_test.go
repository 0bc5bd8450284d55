package kb

import (
	"slices"
	"testing"

	"github.com/kbmem/kb/episodes"
	"github.com/kbmem/kb/observations"
)

// TestShareLocalNamesTheLayerDirectories: internal/config names the local
// layers by kb.yaml's share keys, which are the layers' directory names;
// the .gitignore lines kb writes from them must name the real directories.
func TestShareLocalNamesTheLayerDirectories(t *testing.T) {
	s := ShareConfig{Traces: ShareLocal, Observations: ShareLocal, Episodes: ShareLocal}
	got := s.Local("/r", "/r")
	want := []string{"traces", observations.Dir, episodes.Dir}
	if !slices.Equal(got, want) {
		t.Fatalf("Local = %v, want %v", got, want)
	}
}
