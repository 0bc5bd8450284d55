package recall

import "testing"

func TestStem(t *testing.T) {
	for in, want := range map[string]string{"rates": "rate", "rate": "rate", "matches": "match", "generated": "generat",
		"generate": "generat", "migrations": "migrat", "dependencies": "dependency", "running": "runn", "class": "class", "status": "status"} {
		if got := stem(in); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}
