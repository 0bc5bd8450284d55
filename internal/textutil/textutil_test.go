package textutil

import "testing"

func TestShorten(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"  many\n  spaces  here ", 40, "many spaces here"},
		{"Never force-push to main, open a pull request", 20, "Never force-push to…"},
		{"één twee drie vier", 9, "één twee…"},
		{"abcdefghij", 4, "abcd…"},
	} {
		if got := Shorten(c.in, c.n); got != c.want {
			t.Errorf("Shorten(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
	if got := FirstRunes("héllo", 2); got != "hé" {
		t.Errorf("FirstRunes = %q", got)
	}
}

func TestTruncate(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdef", 3, "abc…"},
		{"één", 1, "…"}, // 'é' is two bytes: cut before it
		{"aé", 2, "a…"},
		{"", 0, ""},
	} {
		if got := Truncate(c.in, c.n); got != c.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
