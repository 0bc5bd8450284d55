package recall

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

func TestStem(t *testing.T) {
	for in, want := range map[string]string{"rates": "rate", "rate": "rate", "matches": "match", "generated": "generat",
		"generate": "generat", "migrations": "migrat", "dependencies": "dependency", "running": "runn", "class": "class", "status": "status"} {
		if got := stem(in); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}

// The function words of French, Spanish, Portuguese, Italian and German
// are no cue words: two French texts share "de", "la" and "est" whatever
// they are about (on the replay of a Codex session, a request about one
// document came back on an edit of another by "de, est, et, la, le, ou").
func TestForeignFunctionWordsAreNoCueWords(t *testing.T) {
	for text, want := range map[string]string{
		"la feature en cours est prête et le plan de la spec aussi": "feature cours prête plan spec aussi",
		"el despliegue de la base y los datos del cliente":          "despliegue base datos cliente",
		"der Export und die Daten für den Kunden":                   "export daten kunden",
	} {
		if got := strings.Join(Words(text), " "); got != want {
			t.Errorf("Words(%q) = %q, want %q", text, got, want)
		}
	}
}

// FuzzWordsOnePass: Words's one-pass scan keeps the words the field split
// it replaced kept, in the same order.
func FuzzWordsOnePass(f *testing.F) {
	f.Add("Drop the unused coupon_code column, 12 rows; déjà vu — 日本語 ok")
	f.Add("a\xffb  cc\tdd")
	f.Fuzz(func(t *testing.T, s string) {
		var want []string
		for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !(unicode.IsLetter(r) || unicode.IsDigit(r)) }) {
			if len(w) < 2 || len(w) > 40 || stopWords.Has(w) || allDigits(w) && len(w) < 3 {
				continue
			}
			want = append(want, w)
		}
		if len(s) > 20000 {
			t.Skip() // Words reads the first 20,000 bytes
		}
		if got := Words(s); !slices.Equal(got, want) {
			t.Errorf("Words(%q) = %q, want %q", s, got, want)
		}
	})
}
