package examples

import (
	"context"
	"strings"
	"testing"
)

// TestDemo runs the Quickstart's first command on the bundled examples and
// checks each layer shows up: search, navigation, lint, import, extraction,
// recall, the hook and promotion.
func TestDemo(t *testing.T) {
	ex, err := FindExamples(".")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Demo(context.Background(), ex, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, s := range rep.Steps {
		all.WriteString(s.Command + "\n" + strings.Join(s.Output, "\n") + "\n")
	}
	out := all.String()
	for _, want := range []string{
		"adr-0001-postgres-migrations",     // search with stemming ("removing a column")
		"linked from library/procedures",   // backlinks
		"rates-service.md:21: broken link", // lint with path:line
		"20 records in 3 sessions",         // import
		"correction  2 session(s)",         // recurrence merged
		"You are about to run `git add -A", // recall, imperative
		`"hookEventName":"PreToolUse"`,     // hook answer
		"already says it: no second note",  // promotion, against the library
	} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "CONVENTION Stage files by name") {
		t.Errorf("recall spends a second line on what the correction already says:\n%s", out)
	}
}
