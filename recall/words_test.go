package recall

import (
	"strings"
	"testing"
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
