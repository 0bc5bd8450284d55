package llm

import (
	"regexp"
	"strings"
	"testing"
)

// schemaName is the expression it replaced.
func TestSchemaNameAgreesWithItsRegexp(t *testing.T) {
	re := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	for _, s := range []string{"", "correction", "a b", "A-Z_0-9", "é", "a\n", "x.y",
		strings.Repeat("a", 64), strings.Repeat("a", 65), "-", "_", "Zz9"} {
		if got, want := schemaName(s), re.MatchString(s); got != want {
			t.Errorf("schemaName(%q) = %v, want %v", s, got, want)
		}
	}
}
