package lexicon

import "strings"

// irregular maps words the suffix rules would get wrong, and a few
// abbreviations, to their stem.
var irregular = map[string]string{
	"using": "use", "used": "use", "uses": "use", "ran": "run", "running": "run", "runs": "run",
	"wrote": "write", "written": "write", "writing": "write", "writes": "write",
	"made": "make", "making": "make", "did": "do", "does": "do", "done": "do",
	"deps": "depend", "dependencies": "depend", "dependency": "depend", "dependent": "depend",
	"tests": "test", "testing": "test", "tested": "test",
	"children": "child", "better": "good", "best": "good",
	"prod": "production", "production": "production",
	"db": "database", "databases": "database",
	"repo": "repository", "repos": "repository",
	"env": "env", "envs": "env",
	"this": "this", "its": "its", "is": "is", "was": "was", "has": "has",
	"always": "always", "does not": "do",
}

// Stem reduces a lower-case word to a crude stem: inflections, then one
// derivational suffix, so that "removes", "removal" and "removing" all
// become "remov". It is deliberately simple and only needs to be
// consistent with itself; the observation extractors, their similarity and
// `kb learn` compare with it.
func Stem(w string) string {
	if s, ok := irregular[w]; ok {
		return s
	}
	if len(w) <= 3 {
		return w
	}
	// Inflections.
	for _, suf := range []string{"ies", "ied", "ings", "ing", "edly", "ed", "es", "s"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 {
			base := w[:len(w)-len(suf)]
			if suf == "ies" || suf == "ied" {
				base += "y"
			}
			if suf == "s" && strings.HasSuffix(w, "ss") {
				break
			}
			if suf == "es" && !strings.HasSuffix(base, "sh") && !strings.HasSuffix(base, "ch") &&
				!strings.HasSuffix(base, "x") && !strings.HasSuffix(base, "ss") && !strings.HasSuffix(base, "z") {
				base = w[:len(w)-1] // "removes" -> "remove"; "pushes" keeps "push"
			}
			w = base
			break
		}
	}
	// Doubled final consonant after stripping: "dropp" -> "drop".
	if n := len(w); n >= 4 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		w = w[:n-1]
	}
	// Derivations.
	for _, suf := range []string{"ational", "ation", "ator", "ition", "ion", "ment", "ate", "al", "at", "er", "ly", "y", "e"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 {
			if suf == "al" && strings.HasSuffix(w, "all") {
				continue
			}
			if suf == "y" && strings.HasSuffix(w, "ey") {
				continue
			}
			w = w[:len(w)-len(suf)]
			break
		}
	}
	return w
}

// LightStem is a lighter stemmer than Stem: plural and verb endings
// ("-ations", "-ings", "-ing", "-ies", "-ed", "-es", "-s") and a final
// "e", no derivations and no irregular words. Recall's cue words are
// stemmed with it.
func LightStem(w string) string {
	n := len(w)
	switch {
	case n > 6 && strings.HasSuffix(w, "ations"):
		w = w[:n-6] + "ate"
	case n > 5 && strings.HasSuffix(w, "ation"):
		w = w[:n-5] + "ate"
	case n > 6 && strings.HasSuffix(w, "ings"):
		w = w[:n-4]
	case n > 5 && strings.HasSuffix(w, "ing"):
		w = w[:n-3]
	case n > 4 && (strings.HasSuffix(w, "ies") || strings.HasSuffix(w, "ied")):
		w = w[:n-3] + "y"
	case n > 4 && strings.HasSuffix(w, "ed"):
		w = w[:n-2]
	case n > 4 && (strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "xes") ||
		strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "zes")):
		w = w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:n-1]
	}
	if len(w) > 4 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}
