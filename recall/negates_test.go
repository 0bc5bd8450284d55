package recall

import (
	"math/rand"
	"strings"
	"testing"
)

// negates answers as negRE does, on the words of every alternative in
// every case, at the edges of words, across apostrophes and spaces, and
// on random text of those pieces (non-ASCII text goes to negRE itself).
func TestNegatesIsNegRE(t *testing.T) {
	pieces := []string{"not", "No", "NEVER", "drop", "remove", "take", "get", "rid", "get rid", "get  rid", "Get Rid",
		"don't", "dont", "don", "t", "T", "'", "doesn't", "won't", "shouldn't", "shouldn", "avoid", "stop", "without",
		"nothing", "kein", "keinen", "nicht", "nie", "jamais", "pas", "ne", "non", "mai", "evitar", "ban", "bans",
		"banned", "bez", "yok", "niet", "geen", "senza", "note", "nope", "knot", "token", "x", "run", "the", "tests",
		"dropped", "removed", "deprecated", "jangan", "tidak", "bukan", "Dropped", "removedx", "can't", "cant", "cannot", "can",
		"mustn't", "isn't", "aren't", "wasn't", "rip", "ripe", "ditch", "strip", "stripe", "scrap", "scrape", "koyma", "kullanma", "yapma", "ekleme", "silme", "dokunma", "canteen",
		" ", "  ", ".", ",", "_", "-", "1", "9", "`", "\n", "\t", "(", ")", "/", "é", "ne’", "не", "别", "不要", "मत", "नहीं", "मति"}
	check := func(s string) {
		t.Helper()
		if got, want := negates(s), negRE.MatchString(s); got != want {
			t.Fatalf("negates(%q) = %v, negRE %v", s, got, want)
		}
	}
	for _, p := range pieces {
		for _, s := range []string{p, " " + p, p + " ", "a" + p, p + "a", "1" + p + "_", "x " + p + " y"} {
			check(s)
		}
	}
	r := rand.New(rand.NewSource(1))
	for range 20000 {
		var b strings.Builder
		for range 1 + r.Intn(8) {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		check(b.String())
	}
	for _, s := range []string{"", "Do not force-push main.", "Run the tests before you push.", "Never commit secrets",
		"I don't want that", "get rid of the cache", "Use make clean instead of rm -rf build.", "a_no_b", "no1"} {
		check(s)
	}
}

func FuzzNegates(f *testing.F) {
	for _, s := range []string{"Do not force-push main.", "don't", "get rid", "x_never", "Nope", "не надо", "jamás"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := negates(s), negRE.MatchString(s); got != want {
			t.Fatalf("negates(%q) = %v, negRE %v", s, got, want)
		}
	})
}

// A removal asked for in other words ("rip out the X", "ditch the X")
// prohibits X as "remove the X" does.
func TestRemovalWordsProhibit(t *testing.T) {
	for _, said := range []string{
		"now rip out the System.out.println, we log through SLF4J",
		"ditch the console.log calls, use the logger",
		"strip the fmt.Println debugging before you commit",
	} {
		sigs := signatures(said)
		if len(sigs) == 0 || !sigs[0].prohibited {
			t.Errorf("%q: %+v", said, sigs)
		}
	}
}
