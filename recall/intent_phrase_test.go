package recall

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kbmem/kb/internal/lexicon"
	"github.com/kbmem/kb/observations"
)

// phraseRE is the regexp a phrase stands for (what the lexicon compiled
// before it matched by hand): its words separated by white space, with no
// letter or digit right before or after.
func phraseRE(p phrase) *regexp.Regexp {
	f := make([]string, len(p))
	for i, w := range p {
		if w == "*" {
			f[i] = `\S+`
		} else {
			f[i] = regexp.QuoteMeta(w)
		}
	}
	// A phrase that starts or ends in a script written without spaces
	// (Han, kana) needs no boundary on that side.
	before, after := `(?:^|[^\pL\pN])`, `(?:[^\pL\pN]|$)`
	if r, _ := utf8.DecodeRuneInString(p[0]); lexicon.IsCJK(r) {
		before = ""
	}
	if r, _ := utf8.DecodeLastRuneInString(p[len(p)-1]); lexicon.IsCJK(r) {
		after = ""
	}
	return regexp.MustCompile(before + strings.Join(f, `\s+`) + after)
}

var phraseTexts = []string{
	"", "force push", "please force  push the branch", "force-push", "forcepush", "force\tpush now", "x force push",
	"reforce push", "force pushed", "force push.", "(force push)", "git push --force origin main", "drop the table users",
	"drop table", "rm -rf build", "deploy to prod now", "deploy it to prod", "tag a release v1.2", "bump the version",
}

// Every phrase of the built-in lexicon matches exactly where its regexp
// does, on texts with and without the phrase.
func TestPhraseMatchesItsRegexp(t *testing.T) {
	lex := DefaultLexicon()
	for _, eq := range lex.eqs {
		for _, p := range eq.phrases {
			re := phraseRE(p)
			texts := append([]string{strings.Join(p, " "), "a " + strings.Join(p, "  ") + ".", "x" + strings.Join(p, " "),
				strings.Join(p, " ") + "x", strings.Join(p, "\n")}, phraseTexts...)
			for _, s := range texts {
				s = strings.ToLower(strings.ReplaceAll(s, "*", "thing"))
				if got, want := p.in(s), re.MatchString(s); got != want {
					t.Errorf("phrase %q in %q: %v, its regexp says %v", strings.Join(p, " "), s, got, want)
				}
			}
		}
	}
}

// FuzzPhrase: on ASCII text (where \s and unicode.IsSpace agree), a phrase
// matches exactly where its regexp does.
func FuzzPhrase(f *testing.F) {
	f.Add("force push", "please force push it")
	f.Add("* to prod", "deploy it to prod")
	f.Add("rm -rf", "x rm  -rf y")
	f.Fuzz(func(t *testing.T, ph, text string) {
		for _, s := range []string{ph, text} {
			for i := 0; i < len(s); i++ {
				if s[i] >= 0x80 || s[i] == '\v' {
					return
				}
			}
		}
		p := phrase(strings.Fields(strings.ToLower(ph)))
		if len(p) == 0 {
			return
		}
		low := strings.ToLower(text)
		got, want := p.in(low), phraseRE(p).MatchString(low)
		if got != want {
			t.Fatalf("phrase %q in %q: %v, its regexp says %v", ph, low, got, want)
		}
		// find is where it first stands: there, and nowhere before.
		start, end, ok := p.find(low)
		if ok != got || ok && (start >= end || end > len(low) || !p.at(low, start) || !boundaryBefore(low, start)) {
			t.Fatalf("phrase %q in %q: find %d %d %v", ph, low, start, end, ok)
		}
		for i := 0; ok && i < start; i++ {
			if boundaryBefore(low, i) && p.at(low, i) {
				t.Fatalf("phrase %q in %q: find %d, but it stands at %d", ph, low, start, i)
			}
		}
	})
}

// A phrase inside a longer phrase of another line says less than that
// line: "clean up the history" rewrites history and deletes nothing.
func TestLexiconLongerPhraseWins(t *testing.T) {
	lex, err := ParseLexicon("clean up | wipe => delete recursive directory\nclean up the history => rewrite history\n")
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]string{
		"please clean up the history before the PR":       "rewrite history",
		"clean up the build dir":                          "delete recursive directory",
		"clean up the history, then clean up the tmp dir": "delete recursive directory. rewrite history",
		"clean up the history and wipe the cache":         "delete recursive directory. rewrite history",
		"nothing here": "",
	} {
		if got, _ := lex.Rewrite(text, 16); got != want {
			t.Errorf("Rewrite(%q) = %q, want %q", text, got, want)
		}
	}
}

// "**" stands for one to four words.
func TestLexiconGap(t *testing.T) {
	wantCanonical(t, "get ** live => deploy production", map[string]bool{
		"can you get the coupon fix live today?": true,
		"get it live":                            true,
		"get live":                               false,
		"get the one two three four five live":   false,
	})
}

// Chinese and Japanese run words together: a phrase in those scripts is
// found inside a sentence; one in a spaced script still needs its word
// boundaries.
func TestLexiconUnspacedScripts(t *testing.T) {
	wantCanonical(t, "本番で | na prodzie => production data", map[string]bool{
		"本番で注文 #55120 のステータスを変えといて":  true,
		"昨日本番でエラーが出た":                true,
		"zmień to na prodzie":        true,
		"zmień to na prodziekanacie": false,
	})
}

// wantCanonical checks, for each text, whether the lexicon of line finds
// an equivalent in it.
func wantCanonical(t *testing.T, line string, want map[string]bool) {
	t.Helper()
	l, err := ParseLexicon(line)
	if err != nil {
		t.Fatal(err)
	}
	for text, w := range want {
		if canon, _ := l.Rewrite(text, 0); (canon != "") != w {
			t.Errorf("%q: %v, want %v", text, !w, w)
		}
	}
}

// A verb of an equivalent stands for the other one-word verbs of its
// line: the taxonomy's words name "wipe" and "clear" with a cache, the
// lexicon "nuke" and "zap" with them; the variants classify as the act.
func TestVariantsReachTheTaxonomyWords(t *testing.T) {
	l := DefaultLexicon()
	tax := observations.Default()
	typesOf := func(task string) []string {
		var out []string
		_, variants := l.Rewrite(task, 16)
		for _, v := range variants {
			out = append(out, tax.ClassifyText(v)...)
		}
		return out
	}
	for _, task := range []string{"nuke the redis cache", "zap the cache on the api box"} {
		if got := typesOf(task); !slices.Contains(got, "db:flush-cache") {
			t.Errorf("%q: variants classify as %v, want db:flush-cache among them", task, got)
		}
	}
	if got := typesOf("nuke the build folder"); slices.Contains(got, "db:flush-cache") {
		t.Errorf("a folder is no cache: %v", got)
	}
	if _, got := l.Rewrite("unnuked", 16); len(got) != 0 {
		t.Errorf("a word inside another is no phrasing: %v", got)
	}
}
