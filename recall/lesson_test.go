package recall

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kbmem/kb/observations"
)

func TestCompleteLessonKeepsInsteadPart(t *testing.T) {
	o := &observations.Observation{Type: observations.TypeCorrection, Lesson: "Do not use rm -rf.",
		Excerpt: "Agent: `rm -rf build/` (refused)\nUser: ugh, no rm -rf. `make clean` removes exactly what the build produces."}
	got := completeLesson(o)
	if !strings.Contains(got, "make clean") {
		t.Fatalf("instead-part lost: %q", got)
	}
	// Extraction spells the person's contraction out; the person's words
	// are still found, with the instead-part in the next sentence.
	o.Lesson = "Do not put keys in code, not even test keys."
	o.Excerpt = "Agent: Edit `billing/client.go` (refused)\nUser: don’t put keys in code, not even test keys. Everything secret comes in through the environment: put the value in .env.local."
	if got := completeLesson(o); !strings.Contains(got, ".env.local") {
		t.Fatalf("instead-part lost after a contraction: %q", got)
	}
	o.Excerpt = "User: something else entirely"
	if got := completeLesson(o); got != o.Lesson {
		t.Fatalf("unrelated words replaced the lesson: %q", got)
	}
}

func TestSignaturesPolarity(t *testing.T) {
	sigs := signatures("Nein, bitte kein time.Now() direkt. Der Store hat schon ein clock-Feld – nimm s.clock.Now(), das liefert immer UTC.")
	pol := map[string]bool{}
	for _, s := range sigs {
		pol[s.text] = s.prohibited
	}
	if p, ok := pol["time.Now()"]; !ok || !p {
		t.Fatalf("time.Now() not prohibited: %+v", sigs)
	}
	if p, ok := pol["s.clock.Now()"]; !ok || p {
		t.Fatalf("s.clock.Now() not advised: %+v", sigs)
	}
	sigs = signatures("Use `%w` instead of `%v` when wrapping errors.")
	for _, s := range sigs {
		if s.text == "%v" && !s.prohibited || s.text == "%w" && s.prohibited {
			t.Fatalf("instead of: %+v", sigs)
		}
	}
}

func TestContainsSpan(t *testing.T) {
	for _, c := range []struct {
		code, span string
		want       bool
	}{
		{"t := time.Now().UTC()", "time.Now()", true},
		{"x := s.clock.Now()", "clock.Now()", false}, // inside a selector
		{"x := s.clock.Now()", "time.Now()", false},
		{"rows, _ := db.Query(\"select * from t\")", "SELECT *", true},
		{"console.log('x')", "console.log", true},
		{"myconsole.log('x')", "console.log", false},
		{"let a: any = 1", "any", true},
		{"let company = 1", "any", false},
	} {
		if got := containsSpan(c.code, c.span); got != c.want {
			t.Errorf("containsSpan(%q, %q) = %v", c.code, c.span, got)
		}
	}
}

func TestStripCommentsByLanguage(t *testing.T) {
	if got := stripComments("// refetch when any filter changes\nconst url = \"http://x\" // any\n", "a.ts"); strings.Contains(got, "any") || !strings.Contains(got, "http://x") {
		t.Fatalf("ts: %q", got)
	}
	if got := stripComments("x = 1  # except: pass\n", "a.py"); strings.Contains(got, "except") {
		t.Fatalf("py: %q", got)
	}
	if got := stripComments("# not a comment in markdown", "a.md"); !strings.Contains(got, "not a comment") {
		t.Fatalf("md: %q", got)
	}
}

func TestContentSignatureFiresOnWrittenCode(t *testing.T) {
	c := &candidate{typ: observations.TypeCorrection, said: "No console.log in web/; log through @fleet/logger instead."}
	in, _ := json.Marshal(map[string]string{"file_path": "/p/web/a.tsx", "old_string": "x", "new_string": "x\nconsole.log('d', v)"})
	cu := buildCue(observations.Default(), Query{Tool: "Edit", Input: in, Cwd: "/p"})
	cu.matchSignatures(c)
	if c.sigHit != "console.log" || c.typeScore < sigScore {
		t.Fatalf("no signature hit: %+v", c)
	}
	c = &candidate{typ: observations.TypeCorrection, said: "No console.log in web/."}
	in, _ = json.Marshal(map[string]string{"file_path": "/p/web/a.tsx", "old_string": "x", "new_string": "x // console.log was here"})
	cu = buildCue(observations.Default(), Query{Tool: "Edit", Input: in, Cwd: "/p"})
	cu.matchSignatures(c)
	if c.sigHit != "" {
		t.Fatalf("fired on a comment: %+v", c)
	}
}

func TestLexiconEquivalents(t *testing.T) {
	tax := observations.Default()
	for prompt, want := range map[string]string{
		"get rid of the stale caches in the repo": "fs:delete-recursive",
		"ship it to prod":                         "deploy:production",
		"fold this fix into my last commit":       "git:commit-amend",
	} {
		cu := buildCue(tax, Query{Task: prompt})
		found := false
		for _, ty := range cu.types {
			found = found || ty == want
		}
		if !found {
			t.Errorf("%q: types %v, want %s", prompt, cu.types, want)
		}
	}
	if _, err := ParseLexicon("no arrow here"); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("bad line: %v", err)
	}
}

func TestInspectionIsNoDeploy(t *testing.T) {
	for cmd, want := range map[string]bool{
		"kubectl --context prod -n fleet-prod get pods": true,
		"helm list -n fleet-prod":                       true,
		"terraform -chdir=infra/prod plan":              true,
		"helm upgrade dispatch ./chart -n fleet-prod":   false,
		"kubectl apply -f prod.yaml":                    false,
		"make deploy ENV=prod":                          false,
	} {
		if got := inspection(cmd); got != want {
			t.Errorf("inspection(%q) = %v", cmd, got)
		}
	}
}

func FuzzParseLexicon(f *testing.F) {
	f.Add(builtinEquivalents)
	f.Add("a | b * c => d\n# x\n")
	f.Add("=>")
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLexicon(s)
		if err == nil {
			_ = l.Canonical(s)
		}
	})
}

func FuzzSignatures(f *testing.F) {
	f.Add("Nein, kein time.Now(); nimm `clock.Now()` instead of `time.Now()`.")
	f.Fuzz(func(t *testing.T, s string) {
		for _, sg := range signatures(s) {
			_ = containsSpan(s, sg.text)
		}
		_ = stripComments(s, "x.go")
	})
}

// A long message keeps its first sentence and the sentences that say what
// to do instead; reasons and asides go first, marked "…".
func TestFitLessonKeepsInsteadSentences(t *testing.T) {
	said := "Don't hand-edit the lockfile. " + strings.Repeat("It broke the build for everyone last week and took the whole afternoon to find. ", 4) +
		"Run `uv lock` instead and commit what it writes."
	got := fitLesson(said, 200)
	if !strings.HasPrefix(got, "Don't hand-edit the lockfile.") || !strings.Contains(got, "uv lock") || len(got) > 200 || !strings.Contains(got, "…") {
		t.Errorf("%q (%d bytes)", got, len(got))
	}
	de := "Bitte nicht die Lockdatei von Hand ändern. " + strings.Repeat("Das hat letzte Woche den Build kaputt gemacht. ", 4) + "Verwende stattdessen `uv lock`."
	if got := fitLesson(de, 160); !strings.Contains(got, "uv lock") || len(got) > 160 {
		t.Errorf("de: %q", got)
	}
	// A code span is one piece: "a.b. c" inside backticks does not split.
	if s := sentences("Use `x.y. z` here. Then go."); len(s) != 2 {
		t.Errorf("sentences: %q", s)
	}
	// A question asked of the agent, and the page pasted after it, are no
	// part of the lesson; an instruction after the question still is.
	pasted := "We need to find a cleaner way to reinstall without hunting for cached files. Does this doc page help? " +
		"Tools are Python packages that provide command-line interfaces. The tool interface includes a dedicated " +
		"interface for interacting with tools. " + strings.Repeat("Tools can be upgraded in place. ", 3)
	for _, max := range []int{300, 1000} { // also when the whole would fit
		if got := fitLesson(pasted, max); got != "We need to find a cleaner way to reinstall without hunting for cached files. …" {
			t.Errorf("pasted page, max %d: %q", max, got)
		}
	}
	if got := fitLesson("No npm here. "+strings.Repeat("It wrecks the lockfile. ", 6)+"Why npm? Use `pnpm add` instead.", 120); !strings.Contains(got, "pnpm add") || strings.Contains(got, "Why npm") {
		t.Errorf("instead after a question: %q", got)
	}
	long := strings.Repeat("word ", 100)
	if got := fitLesson(long, 50); len(got) > 50 || !strings.HasSuffix(got, "…") {
		t.Errorf("one long sentence: %q", got)
	}
}

// Within a clause the last polarity word before a span decides it.
func TestSignaturePolarityWithinClause(t *testing.T) {
	for _, tc := range []struct {
		text, span string
		prohibited bool
	}{
		{"In the database it's always an integer `amount_cents` column, never a `FloatField`.", "amount_cents", false},
		{"In the database it's always an integer `amount_cents` column, never a `FloatField`.", "FloatField", true},
		{"Don't use `rm -rf` here.", "rm -rf", true},
		{"Never use `git push --force`.", "git push --force", true},
		{"`rm -rf` is never ok.", "rm -rf", true},
		{"Nicht `%v`, sondern `%w` verwenden.", "%w", false},
		{"Nicht `%v`, sondern `%w` verwenden.", "%v", true},
	} {
		found := false
		for _, sg := range signatures(tc.text) {
			if sg.text == tc.span {
				found = true
				if sg.prohibited != tc.prohibited {
					t.Errorf("%q: %s prohibited=%v", tc.text, tc.span, sg.prohibited)
				}
			}
		}
		if !found {
			t.Errorf("%q: no signature %s in %v", tc.text, tc.span, signatures(tc.text))
		}
	}
}
