package recall

import (
	"testing"

	"github.com/kbmem/kb/internal/textutil"
)

// pastedSeeds hold a match of each alternative of pastedStartRE.
var pastedSeeds = []string{
	"fix it Traceback (most recent call last):", "it says ValueError: bad", "E       assert 1 == 2",
	"panic: runtime error", "goroutine 12 [running]:", "npm ERR! code E404", "npm error! x",
	"see app/models.py:42 for it", "at Foo.bar (src/x.js:10:5)", `File "a.py", line 3`, `"""doc`,
	"error[E0382]: borrow", "error: linker failed", "  $ make test", "psycopg2.errors.UniqueViolation: dup",
	"HINT:  No function", "LINE 1: SELECT", `{"error": "nope"}`, "main.js?v=3:12",
	"keep the sessions table, not a new one", "use pnpm, never npm", "",
}

// TestMayBePasted checks that the prefilter lets every match through.
func TestMayBePasted(t *testing.T) {
	for _, s := range pastedSeeds {
		if pastedStartRE.RE().MatchString(s) && !mayBePasted(s) {
			t.Errorf("mayBePasted(%q) = false, but pastedStartRE matches", s)
		}
	}
	if mayBePasted("keep the sessions table, not a new one") {
		t.Error("plain prose passes the prefilter")
	}
}

// FuzzMayBePasted: mayBePasted is false only where pastedStartRE cannot
// match.
func FuzzMayBePasted(f *testing.F) {
	for _, s := range pastedSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if pastedStartRE.RE().MatchString(s) && !mayBePasted(s) {
			t.Errorf("mayBePasted(%q) = false, but pastedStartRE matches", s)
		}
	})
}

// hintSeeds hold matches of codeTokenRE, insteadOfRE, backtickRE and
// proseCommandRE, and prose that holds none.
var hintSeeds = []string{
	"time.Now() in handlers", "wrap with %w not %v", "rm -rf the dir", "no SELECT * please", "use FooBar here",
	"call snake_case_name", "then flush() it", "@Transactional on it", "println! and dbg!", "use `pnpm test`",
	"use X instead of Y", "nimm statt dessen", "au lieu de ça", "run gcloud run services update now",
	"ſtatt", "kubectl rollout restart deploy", "$gcloud sql instances patch", "plain prose with a comma, and more.",
}

// FuzzSignatureHints: each hint of the signature expressions is true
// wherever its expression matches.
func FuzzSignatureHints(f *testing.F) {
	for _, s := range hintSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, re := range map[string]*textutil.LazyRE{"codeTokenRE": codeTokenRE, "insteadOfRE": insteadOfRE,
			"backtickRE": backtickRE, "proseCommandRE": proseCommandRE} {
			if re.RE().MatchString(s) && !re.MatchString(s) {
				t.Errorf("%s matches %q, but its hint rules it out", name, s)
			}
		}
	})
}
