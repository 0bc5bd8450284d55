package observations

import "testing"

func TestGateObviousAndOneOff(t *testing.T) {
	cor := func(lesson string, imp float64, sessions ...string) *Observation {
		o := &Observation{Type: TypeCorrection, Lesson: lesson, Importance: imp}
		for _, s := range sessions {
			o.Sources = append(o.Sources, SourceRef{Session: s})
		}
		o.Sessions = len(sessions)
		return o
	}
	for _, c := range []struct {
		o    *Observation
		want string
	}{
		{cor("Run the tests.", 0.9, "a", "b"), GateObvious},
		{cor("Be careful.", 0.9, "a", "b"), GateObvious},
		{cor("Make sure to check the code first.", 0.9, "a", "b"), GateObvious},
		{cor("Why did you do that?", 0.9, "a", "b"), GateObvious},
		{cor("Do not edit the tests.", 0.9, "a", "b"), ""},                 // a prohibition is no routine
		{cor("Run `go test ./...` before committing.", 0.9, "a", "b"), ""}, // names a command
		{cor("Rename the helper to parseHeaderLine.", 0.5, "a"), GateOneOff},
		{cor("Rename the helper to parseHeaderLine.", 0.5, "a", "b"), ""}, // recurrence lifts one-off
		{cor("Use pnpm.", 0.9, "a"), ""},
		// One content word is no statement, but for a path said not to
		// be: a fact of the person's machine.
		{cor("I don't have ~/vim.", 0.9, "a", "b"), ""},
		{cor("I don't have it.", 0.9, "a", "b"), GateObvious},
		// CJK counts by character, not by space-separated word: a long
		// Chinese sentence seen once is a fix of the code at hand.
		{cor("把这个函数的返回值改成错误类型然后在调用的地方全部处理好", 0.9, "a"), GateOneOff},
		{cor("始终使用pnpm", 0.9, "a"), ""},
		{cor("常にpnpmを使う", 0.9, "a"), ""},
	} {
		if got := (*Gate)(nil).Judge(c.o).Reason; got != c.want {
			t.Errorf("%q: %q, want %q", c.o.Lesson, got, c.want)
		}
	}
	if v := (Verdict{Reason: GateOneOff}); v.Final() || !(Verdict{Reason: GateDerivable}).Final() {
		t.Error("only obvious and derivable are final")
	}
}

func TestGuesses(t *testing.T) {
	for text, want := range map[string]bool{
		"I think the library is setting it, it's an inline style (and there's no data-groupid": true,
		"maybe the cache isn't cleared between runs":                                           true,
		"我觉得是缓存没有清掉":                                                                           true,
		"たぶんキャッシュが残っていない":                                                                      true,
		"I think we should never call the API from the view":                                   false,
		"I think you shouldn't touch the lockfile":                                             false,
		"Don't edit the generated client":                                                      false,
		"no, use pnpm":                                                                         false,
	} {
		if got := Guesses(text); got != want {
			t.Errorf("Guesses(%q) = %v, want %v", text, got, want)
		}
	}
}
