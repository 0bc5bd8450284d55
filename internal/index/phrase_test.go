package index

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
)

// Phrases on the body: exactly the documents that hold the phrase (its
// analyzed words at consecutive positions), whatever the body field keeps
// in the index.
func TestBodyPhrase(t *testing.T) {
	ix, _ := openNew(t)
	mustApply(t, ix,
		file("library/a.md", note("a", "note", "A", "Never force push to main.")),
		file("library/b.md", note("b", "note", "B", "Force the deploy, then push the tag.")), // both words, apart
		file("library/c.md", note("c", "note", "C", "Push force is not a phrase here.")),     // reversed
		file("library/d.md", note("d", "note", "D", "They were forcing pushes all day.")),    // the stems, adjacent
		file("library/e.md", note("e", "note", "E", "Read renderer.py runs first, and pricing.py later.")),
		file("library/f.md", note("f", "note", "F", "force\n\npush, across a line break and a comma")),
		file("library/g.md", note("g", "note", "G", "The force of push.")), // a stop word between
	)
	cases := map[string][]string{
		`"force push"`:              {"a", "d", "f"},
		`body:"force push"`:         {"a", "d", "f"},
		`"push force"`:              {"c"},
		`body:"push force"`:         {"c"},
		`"force the push"`:          {"g"}, // the stop word's position is kept: any word fills it
		`"force of push"`:           {"g"}, // as bleve's phrases do
		`"renderer.py runs"`:        {"e"}, // a file name is one word
		`"renderer runs"`:           {"e"}, // its parts are at the name's position
		`"read py"`:                 {"e"}, //
		`"renderer py"`:             nil,   // not one after the other
		`"pricing.py later"`:        {"e"}, //
		`"never force push to"`:     {"a"}, // a trailing stop word adds nothing
		`"the"`:                     nil,   // only stop words: nothing
		`"push"`:                    {"a", "b", "c", "d", "f", "g"},
		`+push -"force push"`:       {"b", "c", "g"},
		`push -body:"force push"`:   {"b", "c", "g"},
		`"force push" "push force"`: {"a", "c", "d", "f"},
		`+"force push" +main`:       {"a"},
		`"deploy then push"`:        {"b"},
		`"force deploy"`:            nil,
	}
	for q, want := range cases {
		wantIDs(t, ix, Query{Text: q}, want...)
	}
}

// The phrase searched on the body agrees with bleve's own phrase search
// on a field that keeps term positions (title), on random texts: same
// documents, same total, across segments and after replacements.
func TestBodyPhraseAgreesWithPositions(t *testing.T) {
	ix, _ := openNew(t)
	words := strings.Fields("alpha beta gamma delta the of a renderer.py legacy_flag betas gammas running runs ran deploy deploys")
	r := rand.New(rand.NewSource(7))
	text := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString([]string{" ", " ", ", ", ". ", "\n"}[r.Intn(5)])
			}
			b.WriteString(words[r.Intn(len(words))])
		}
		return b.String()
	}
	var docs []Change
	for i := 0; i < 400; i++ {
		s := text(3 + r.Intn(12))
		docs = append(docs, file(fmt.Sprintf("library/n%03d.md", i), note(fmt.Sprintf("n%03d", i), "note", s, s)))
	}
	// Several Applies: several segments; then half the docs replaced.
	for i := 0; i < len(docs); i += 100 {
		mustApply(t, ix, docs[i:i+100]...)
	}
	for i := 0; i < len(docs); i += 2 {
		s := text(3 + r.Intn(12))
		docs[i].Docs[0].Title, docs[i].Docs[0].Body = s, s
	}
	mustApply(t, ix, docs[:200]...)
	mustApply(t, ix, docs[200:]...)
	matched := 0
	for k := 0; k < 300; k++ {
		p := text(2 + r.Intn(3))
		title, body := all(t, ix, `title:"`+p+`"`), all(t, ix, `body:"`+p+`"`)
		if !reflect.DeepEqual(title, body) {
			t.Fatalf("phrase %q: title (positions) %v, body %v", p, title, body)
		}
		matched += len(body)
	}
	if matched < 50 {
		t.Fatalf("only %d matches over all phrases: the test says little", matched)
	}
}

// all returns the sorted ids of every hit of text, checking that the total
// is their number.
func all(t *testing.T, ix *Index, text string) []string {
	t.Helper()
	res, err := ix.Search(Query{Text: text, Limit: MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, 0, len(res.Hits))
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	if res.Total != uint64(len(ids)) {
		t.Fatalf("%s: total %d, %d hits", text, res.Total, len(ids))
	}
	return sorted(ids)
}

// Totals and pages of a phrase on the body count only the documents with
// the phrase, not those that merely hold its words.
func TestBodyPhraseTotalsAndPaging(t *testing.T) {
	ix, _ := openNew(t)
	var chs []Change
	for i := 0; i < 60; i++ {
		body := fmt.Sprintf("note %d: the schema migration ran at night", i)
		if i%2 == 1 {
			body = fmt.Sprintf("note %d: the migration of the schema ran at night", i)
		}
		chs = append(chs, file("library/p"+strconv.Itoa(i)+".md", note("p"+strconv.Itoa(i), "note", "Note", body)))
	}
	mustApply(t, ix, chs...)
	seen := map[string]bool{}
	for off := 0; off < 40; off += 7 {
		res, err := ix.Search(Query{Text: `"schema migration"`, Limit: 7, Offset: off})
		if err != nil {
			t.Fatal(err)
		}
		if res.Total != 30 {
			t.Fatalf("offset %d: total %d, want 30", off, res.Total)
		}
		want := min(7, max(0, 30-off))
		if len(res.Hits) != want {
			t.Fatalf("offset %d: %d hits, want %d", off, len(res.Hits), want)
		}
		for _, h := range res.Hits {
			n, _ := strconv.Atoi(strings.TrimPrefix(h.ID, "p"))
			if n%2 != 0 || seen[h.ID] {
				t.Fatalf("offset %d: hit %s (odd or seen before)", off, h.ID)
			}
			seen[h.ID] = true
		}
	}
	if len(seen) != 30 {
		t.Fatalf("pages held %d distinct hits, want 30", len(seen))
	}
	res, err := ix.Search(Query{Text: `+migration -"schema migration"`, Limit: 100})
	if err != nil || res.Total != 30 {
		t.Fatalf("negated phrase: total %d, %v; want 30", res.Total, err)
	}
	for _, h := range res.Hits {
		if n, _ := strconv.Atoi(strings.TrimPrefix(h.ID, "p")); n%2 != 1 {
			t.Fatalf("negated phrase: hit %s has the phrase", h.ID)
		}
	}
}

// An index of the previous schema (whose body kept term positions) is
// rebuilt on open, not read with this schema's queries.
func TestOldSchemaIndexIsRebuilt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".index")
	ix, _, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	fixture(t, ix)
	ix.Close()
	if err := os.WriteFile(filepath.Join(dir, schemaFile), []byte(strconv.Itoa(SchemaVersion-1)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ix, info, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	want := fmt.Sprintf("schema %d -> %d", SchemaVersion-1, SchemaVersion)
	if !info.Rebuilt || info.Reason != want {
		t.Fatalf("OpenInfo = %+v, want rebuilt: %s", info, want)
	}
	if n, _ := ix.Count(); n != 0 || len(ix.Stamps()) != 0 {
		t.Fatalf("rebuilt index holds %d docs, %d stamps", n, len(ix.Stamps()))
	}
}

// words gives the words and token types of bleve's unicode tokenizer.
func TestWordsAsTheTokenizer(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	alphabet := []string{"a", "b", "Z", "q", "0", "7", "_", ":", ".", "'", ",", ";", "\"", " ", "\n", "\r", "\t", "-", "/", "#", "[", "\x0b",
		"é", "’", "日本", "ア", "\u0301", "\u200d", "ß", "𝒳", "\xff"}
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := r.Intn(24); n > 0; n-- {
			b.WriteString(alphabet[r.Intn(len(alphabet))])
		}
		checkWords(t, b.String())
	}
	for _, s := range []string{"", "a.b.c", "1.5a", "a1.5", "a.1", "1.a", "a_.b", "__", "_", "a'", "'a", "x:y:", "3,000;4", "renderer.py runs", "don’t stop"} {
		checkWords(t, s)
	}
}

func FuzzWords(f *testing.F) {
	for _, s := range []string{"a.b.c", "1.5a", "renderer.py runs, then 3,000 more", "don’t", "日本語 text"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkWords(t, s) })
}

func checkWords(t *testing.T, s string) {
	t.Helper()
	var want, got []string
	for _, tok := range unicodeTokenizer.Tokenize([]byte(s)) {
		want = append(want, fmt.Sprintf("%q/%d", tok.Term, tok.Type))
	}
	words([]byte(s), func(w []byte, typ analysis.TokenType) bool {
		got = append(got, fmt.Sprintf("%q/%d", w, typ))
		return true
	})
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: words %v, tokenizer %v", s, got, want)
	}
	// The index's tokenizer, through words: the same tokens at the same
	// offsets and positions.
	want, got = nil, nil
	for _, tok := range unicodeTokenizer.Tokenize([]byte(s)) {
		want = append(want, tok.String())
	}
	for _, tok := range (wordsTokenizer{}).Tokenize([]byte(s)) {
		got = append(got, tok.String())
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: wordsTokenizer %v, unicode tokenizer %v", s, got, want)
	}
	checkAnalyzer(t, s)
}

// checkAnalyzer checks the index's analyzer against the tokenizer and
// filters in a row, twice (the second time from its cache): the same
// terms, offsets, positions and types.
func checkAnalyzer(t *testing.T, s string) {
	t.Helper()
	kb, chain := testAnalyzers()
	var want []string
	for _, tok := range chain.Analyze([]byte(s)) {
		want = append(want, tok.String())
	}
	for range 2 {
		var got []string
		for _, tok := range kb.Analyze([]byte(s)) {
			got = append(got, tok.String())
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: analyzer %v, tokenizer and filters %v", s, got, want)
		}
	}
}

// testAnalyzers are the index's analyzer and the same tokenizer and
// filters as a bleve analyzer.
var testAnalyzers = sync.OnceValues(func() (analysis.Analyzer, analysis.Analyzer) {
	an, err := loadAnalyzers(newMapping())
	if err != nil {
		panic(err)
	}
	return an.en, &analysis.DefaultAnalyzer{Tokenizer: wordsTokenizer{}, TokenFilters: an.en.(*kbAnalyzer).filters}
})

// TestAnalyzerAsTheChain compares the analyzer with its tokenizer and
// filters in a row on notes' text, words that stem, possessives, stop
// words, file names and identifiers.
func TestAnalyzerAsTheChain(t *testing.T) {
	c := newCorpus()
	for i := 0; i < 200; i++ {
		checkAnalyzer(t, c.words(50))
	}
	for _, s := range []string{"The Renderer.py's runs, legacy_flag and v1.2.3 didn't stop: THE END", "Cats’ cat's CATS'S running Runs runner",
		"ΣΊΣΥΦΟΣ σίσυφος ȺȾ İstanbul", "a.b_c.d __init__.py x..y", strings.Repeat("verylongword", 6) + ".md and " + strings.Repeat("x", 45)} {
		checkAnalyzer(t, s)
	}
}

var unicodeTokenizer = unicode.NewUnicodeTokenizer()

// The analyzer changes no term's first byte but by lower-casing (what
// phraseMatcher.cannotFill relies on): every term made of an ASCII word
// starts with the lower-cased first byte of the word or of one of its
// parts.
func TestFirstBytesOfTerms(t *testing.T) {
	an, err := loadAnalyzers(newMapping())
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(5))
	stems := []string{"i", "y", "e", "s", "a", "o", "u", "at", "bl", "iz", "ie", "ss", "eed", "ing", "ed", "rel", "happ", "cr", "t", "sky", "Y", "E", "I"}
	suffixes := []string{"", "s", "es", "ies", "sses", "ed", "ing", "y", "'s", "ational", "tional", "enci", "anci", "izer", "bli", "alli", "entli", "eli", "ousli",
		"ization", "ation", "ator", "alism", "iveness", "fulness", "ousness", "aliti", "iviti", "biliti", "logi", "icate", "ative", "alize", "iciti", "ical", "ful",
		"ness", "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize", "e", "ll", "eed"}
	chars := "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._'"
	check := func(w string) {
		words([]byte(w), func(tok []byte, typ analysis.TokenType) bool {
			starts := map[byte]bool{lowerASCII(tok[0]): true}
			for i := 0; i+1 < len(tok); i++ {
				if tok[i] == '.' || tok[i] == '_' {
					starts[lowerASCII(tok[i+1])] = true
				}
			}
			for _, term := range an.en.Analyze(tok) {
				if !starts[term.Term[0]] {
					t.Fatalf("word %q: term %q starts with none of %v", w, term.Term, starts)
				}
			}
			return true
		})
	}
	for _, s := range stems {
		for _, x := range suffixes {
			for _, y := range []string{"", "s", "ing", "ed", "'s", "y"} {
				check(s + x + y)
			}
		}
	}
	for i := 0; i < 200000; i++ {
		b := make([]byte, 1+r.Intn(14))
		for j := range b {
			b[j] = chars[r.Intn(len(chars))]
		}
		if wordClass(b[0]) != 0 {
			check(string(b))
		}
	}
}

// wordsTokenizer is bleve's unicode tokenizer (Unicode word segmentation)
// through words, which segments a line of ASCII itself: the same tokens
// (checkWords compares them, offsets and positions too). With the
// analyzer's filters after it, it is what the analyzer is checked against.
type wordsTokenizer struct{}

func (wordsTokenizer) Tokenize(input []byte) analysis.TokenStream {
	rv := make(analysis.TokenStream, 0, len(input)/6+1)
	var block []analysis.Token // tokens are allocated a block at a time
	pos := 1
	words(input, func(w []byte, typ analysis.TokenType) bool {
		if len(block) == cap(block) {
			block = make([]analysis.Token, 0, min(1000, max(16, len(input)/6)))
		}
		// w is input's own bytes (a slice of it, to its end): its offset
		// is what its capacity lacks.
		start := cap(input) - cap(w)
		block = append(block, analysis.Token{Term: w, Start: start, End: start + len(w), Position: pos, Type: typ})
		rv = append(rv, &block[len(block)-1])
		pos++
		return true
	})
	return rv
}
