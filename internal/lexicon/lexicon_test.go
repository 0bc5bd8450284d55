package lexicon

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// The stop lists each caller measured with before they met here, word for
// word: the core plus an extension must give back exactly these sets, or
// extraction, learn, search and recall results change. (The extractors'
// list gained coreOther, the function words of five more languages, at
// stop 41, measured on every key; recall's cue list gained it at stop 50,
// measured on every activation set and replay.)
var measured = map[string]string{
	"extract": `a an the and or but if then else of to in on at by for with from into onto
		is are was were be been being am it its this that these those there here i we you he she they me us my our your
		do did doe not no so as than too very just also please can could would should will shall may might must
		have has had what which who whom when where why how all any each some such only own same up down out over
		again further once about above below after before between through during other more most s t don now
		let lets let's ok okay yes yeah thanks thank ` + coreOther,
	"facts": `a an the and or but if then else of to in on at by for with from into onto as
		is are was were be been being am it its this that these those there here i we you he she they me us my our your
		do does did done so than too very just also please can could would should will shall may might must
		have has had what which who whom when where why how all any each some such only own same up down out over
		again further once about above below after before between through during other more most s t now
		let lets ok okay yes yeah thanks thank always instead rather`,
	"query": `a about above after again against all am an and any are aren as at be because been
		before being below between both but by can cannot could couldn did didn do does doesn doing don down during each
		else ever few for from further had hadn has hasn have haven having he her here hers herself him himself his how
		i if in into is isn it its itself just let me more most much must mustn my myself no nor not of off on once only
		or other ought our ours ourselves out over own same shall shan she should shouldn so some such than that the
		their theirs them themselves then there these they this those through to too under until up upon very was wasn
		we were weren what whatever when whenever where whether which while who whom whose why will with won would
		wouldn you your yours yourself yourselves also s t d ll m o re ve y
		dont doesnt didnt isnt arent wasnt werent cant couldnt wouldnt shouldnt wont hasnt havent hadnt
		im ive youre youve youll hes shes its were theyre theyve weve lets thats whats wheres whos`,
	"cue": `a an the and or but if then else of to in on at by for with from into onto as is are was were be been being
		it its this that these those there here we you your our us i me my he she they them their do does did done doing not no nor
		so than too very can could should would will shall may might must just also only about after before again all any both
		each few more most other some such own same what which who whom when where why how up down out over under off
		go md go's let lets use used using make made get got run ran need needs want wants please thanks ok okay
		new add adds added file files code thing things way like instead never always don doesn didn won isn aren wasn
		s t d ll re ve m www http https com org net home tmp usr etc ` + coreOther,
}

func TestStopListsAreTheMeasuredOnes(t *testing.T) {
	for name, got := range map[string]*Set{"extract": StopExtract, "facts": StopFacts, "query": StopQuery, "cue": StopCue} {
		want := NewSet(measured[name])
		if name == "extract" {
			want = want.WithStems(Stem)
		}
		if !maps.Equal(got.Words(), want.Words()) {
			var extra, missing []string
			for w := range got.Words() {
				if !want.Has(w) {
					extra = append(extra, w)
				}
			}
			for w := range want.Words() {
				if !got.Has(w) {
					missing = append(missing, w)
				}
			}
			slices.Sort(extra)
			slices.Sort(missing)
			t.Errorf("%s: extra %v, missing %v", name, extra, missing)
		}
	}
	if StopQuery.Has("may") {
		t.Error(`"may" is a month for search queries, not a stop word`)
	}
	if StopFacts.Has("not") || StopFacts.Has("no") {
		t.Error("learn reads negations: they are not stop words of facts")
	}
}

func TestStem(t *testing.T) {
	for in, want := range map[string]string{
		"removes": "remov", "removal": "remov", "removing": "remov", "pushes": "push", "dropped": "drop",
		"using": "use", "dependencies": "depend", "tests": "test", "class": "class", "libraries": "librar",
		"run": "run", "deployment": "deploy",
	} {
		if got := Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLightStem(t *testing.T) {
	for in, want := range map[string]string{
		"migrations": "migrat", "migration": "migrat", "running": "runn", "libraries": "library", "pushes": "push",
		"added": "add", "tests": "test", "class": "class", "status": "status", "analysis": "analysis", "database": "databas",
		"deployment": "deployment",
	} {
		if got := LightStem(in); got != want {
			t.Errorf("LightStem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCasing(t *testing.T) {
	for in, want := range map[string]string{"run tests": "Run tests", "éclair": "Éclair", "": "", "1x": "1x", "\xffab": "\xffab",
		"src/main/generated is generated": "src/main/generated is generated", "package.json lists it": "package.json lists it",
		"go_test runs": "go_test runs", "fmt.Errorf(x) wraps": "fmt.Errorf(x) wraps", "done. next": "Done. next"} {
		if got := Capitalize(in); got != want {
			t.Errorf("Capitalize(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"Run the tests": "run the tests", "A test fails": "a test fails", "CI is red": "CI is red",
		"GitHub Actions": "GitHub Actions", "S3 buckets": "S3 buckets", "I think so": "I think so",
		"I'd rather not": "I'd rather not", "Écris": "écris", "already lower": "already lower", "": "", "X": "x",
	} {
		if got := LowerFirst(in); got != want {
			t.Errorf("LowerFirst(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestContractions(t *testing.T) {
	r := strings.NewReplacer(ContractionPairs()...)
	for in, want := range map[string]string{"don't": "do not", "won't": "will not", "hasn't": "has not", "mustn't": "must not"} {
		if got := r.Replace(in); got != want {
			t.Errorf("%q -> %q, want %q", in, got, want)
		}
	}
	if got := r.Replace(Straighten("don’t")); got != "do not" {
		t.Errorf("curly: %q", got)
	}
}

// FuzzCasing: the casing helpers change at most the first letter and keep
// every other byte.
func FuzzCasing(f *testing.F) {
	for _, s := range []string{"Run it", "éa", "I x", "\xff", "GitHub", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, got := range []string{Capitalize(s), LowerFirst(s)} {
			_, n := utf8.DecodeRuneInString(s)
			_, m := utf8.DecodeRuneInString(got)
			if got[m:] != s[n:] {
				t.Fatalf("%q -> %q changed more than the first letter", s, got)
			}
		}
	})
}

// FoldHant folds Traditional characters to Simplified and keeps the byte
// length, so a cue list written in Simplified matches Traditional text;
// text without them is returned as it is.
func TestFoldHant(t *testing.T) {
	for in, want := range map[string]string{
		"還是沒有顯示，錯誤一樣":  "还是没有显示，错误一样",
		"不對，這個檔案不應該刪除": "不对，这个档案不应该删除",
		"plain ASCII":  "plain ASCII",
		"已经是简体":        "已经是简体",
		"日本語のテキスト":     "日本語のテキスト",
		"":             "",
	} {
		got := FoldHant(in)
		if got != want || len(got) != len(in) {
			t.Errorf("FoldHant(%q) = %q, want %q", in, got, want)
		}
	}
	if !CueFailure.In(FoldHant("還是不行")) || !CueErrorWord.In(FoldHant("又出現錯誤")) {
		t.Error("a Traditional failure report does not match the cue lists once folded")
	}
}

func TestAbbreviation(t *testing.T) {
	for text, want := range map[string]bool{
		"workflow.Sleep bzw.": true, "e.g.": true, "(z.B.": true, "например т.е.": true,
		"the tests pass.": false, "etc.": false, "": false, "x" + strings.Repeat("a", 40) + ".": false,
	} {
		if got := Abbreviation(text, len(text)); got != want {
			t.Errorf("Abbreviation(%q) = %v, want %v", text, got, want)
		}
	}
}

// The Nordic languages, Greek, Hungarian, Ukrainian, Finnish, Romanian,
// Slovak, Catalan and Hebrew say no, instead and wait too.
func TestCuesOfMoreLanguages(t *testing.T) {
	for _, tc := range []struct {
		cues *Cues
		text string
	}{
		{CueNegation, "nej, brug ikke npm her"},
		{CueNegation, "använd aldrig force push"},
		{CueNegation, "όχι, μην το κάνεις αυτό"},
		{CueNegation, "nem, ne használd a npm-et"},
		{CueNegation, "ні, ніколи не роби цього"},
		{CueNegation, "älä käytä npm:ää"},
		{CueNegation, "niciodată npm aici"}, // not "nu": Danish and Swedish "now"
		{CueNegation, "לא, אל תריץ את זה"},
		{CueInstead, "brug pnpm i stedet"},
		{CueInstead, "pnpm-et használd helyett"},
		{CueInstead, "χρησιμοποίησε pnpm αντί για npm"},
		{CueStop, "vent, det er prod"},
		{CueStop, "várj, ez a prod"},
		{CueContrast, "fint, men tabellen er stor"},
		{CueWhyYou, "γιατί το έκανες αυτό;"},
	} {
		if !tc.cues.In(strings.ToLower(tc.text)) {
			t.Errorf("%q: no cue", tc.text)
		}
	}
	for _, text := range []string{"nej, ikke sådan", "όχι έτσι", "ні, не так"} {
		if !CueNo.AtStart(strings.ToLower(text)) {
			t.Errorf("%q: no CueNo at its start", text)
		}
	}
	// "de" is Hungarian "but" and everybody's "of": no contrast.
	if CueContrast.In("la tabla de pedidos") {
		t.Error(`"de" read as a contrast`)
	}
}

func TestIdentParts(t *testing.T) {
	for id, want := range map[string]string{
		"unit_price": "unit price", "fuelSurchargeMinor": "fuel Surcharge Minor", "BASE_FEE": "BASE FEE",
		"amount2": "amount 2", "declaredValueEur": "declared Value Eur", "_private": "private", "HTTPServer": "HTTPServer",
	} {
		if got := strings.Join(IdentParts(id), " "); got != want {
			t.Errorf("IdentParts(%q) = %q, want %q", id, got, want)
		}
	}
}
