package recall

import (
	"testing"
	"time"
)

// The programs a lesson prohibits and advises, in the languages the
// signature rules read (negRE, clauseRE): the instead-part's program is
// what a following agent runs.
func TestLessonPrograms(t *testing.T) {
	for _, tc := range []struct {
		lesson          string
		programs        []string
		banned, advised string
	}{
		{"Do not use npm in this repo; use pnpm instead.", []string{"npm"}, "npm", ""},
		{"Do not use npm in this repo; use pnpm instead.", []string{"pnpm"}, "", "pnpm"},
		{"Use uv instead of pip.", []string{"pip"}, "pip", ""},
		{"Use uv instead of pip.", []string{"uv"}, "", "uv"},
		{"Nicht npm verwenden, sondern pnpm.", []string{"npm"}, "npm", ""},
		{"No uses npm, usa pnpm.", []string{"pnpm"}, "", "pnpm"},
		// An everyday word names a program only in code.
		{"Do not make changes to the generated files.", []string{"make"}, "", ""},
		{"Never run `make deploy` from a laptop.", []string{"make"}, "make", ""},
		// Named on both sides: neither.
		{"Don't run go test ./... here; run go test ./pkg/x.", []string{"go"}, "", ""},
	} {
		b, a := lessonPrograms(tc.lesson, tc.programs)
		if b != tc.banned || a != tc.advised {
			t.Errorf("%q %v: banned %q advised %q, want %q %q", tc.lesson, tc.programs, b, a, tc.banned, tc.advised)
		}
	}
}

// Tally: a lesson ignored in two sessions or more, more often than
// followed, is flagged for rewording; the most ignored come first.
func TestTally(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	got := Tally(map[string][]Verdict{
		"s1": {{ID: "a", Outcome: Ignored, At: t0, Call: "run `npm i`"}, {ID: "b", Outcome: Followed}},
		"s2": {{ID: "a", Outcome: Ignored, At: t0.Add(time.Hour), Call: "run `npm ci`"}, {ID: "b", Outcome: Ignored}},
		"s3": {{ID: "a", Outcome: Followed}, {ID: "b", Outcome: Untested}},
	})
	if len(got) != 2 || got[0].ID != "a" || got[1].ID != "b" {
		t.Fatalf("order: %+v", got)
	}
	if a := got[0]; a.Sessions != 3 || a.Ignored != 2 || a.Followed != 1 || !a.Reword || a.LastIgnored != "run `npm ci`" {
		t.Errorf("a: %+v", a)
	}
	if b := got[1]; b.Ignored != 1 || b.Followed != 1 || b.Untested != 1 || b.Reword {
		t.Errorf("b: %+v", b)
	}
}
