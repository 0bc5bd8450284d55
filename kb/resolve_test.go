package kb

import (
	"errors"
	"strings"
	"testing"
)

func TestResolveID(t *testing.T) {
	items := []string{"cor-1a2b", "cor-1a9c", "pref-77"}
	names := func(s string) []string { return []string{s} }
	if got, err := resolveID(items, "pref", "observation", names); err != nil || got != "pref-77" {
		t.Errorf("unique prefix: %q %v", got, err)
	}
	if got, err := resolveID(items, "cor-1a2b", "observation", names); err != nil || got != "cor-1a2b" {
		t.Errorf("exact: %q %v", got, err)
	}
	_, err := resolveID(items, "cor-1a", "observation", names)
	if !errors.Is(err, ErrAmbiguousID) || !strings.Contains(err.Error(), "cor-1a2b, cor-1a9c") {
		t.Errorf("ambiguous: %v", err)
	}
	if _, err := resolveID(items, "nope", "observation", names); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing: %v", err)
	}
}
