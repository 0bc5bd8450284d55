package index

import (
	"bytes"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	bleveregistry "github.com/blevesearch/bleve/v2/registry"

	"github.com/kbmem/kb/internal/textutil"
)

// The analyzer of kb's text fields: bleve's English analyzer (Unicode
// word segmentation, possessives, lower case, English stop words, Porter
// stemming) with one filter before it that also gives the parts of a
// file name or identifier. Unicode segmentation keeps "timeline.html",
// "pricing.py" and "legacy_flag" as one word each, so a note that names
// `renderer.py` was found by "renderer.py" but not by "renderer"; with
// the parts at the same position, both find it, and so does "py".
//
// Queries are analyzed with bleve's plain English analyzer
// (queryAnalyzer): a query word is looked up as it is, so "renderer" meets
// the part of "renderer.py" while "renderer.py" asks for the whole name,
// not for every note that says "py".
const (
	queryAnalyzer   = en.AnalyzerName
	analyzerName    = "kb_en"
	partsFilterName = "kb_parts"
)

func init() {
	if err := bleveregistry.RegisterTokenFilter(partsFilterName, func(map[string]any, *bleveregistry.Cache) (analysis.TokenFilter, error) {
		return partsFilter{}, nil
	}); err != nil {
		panic(err)
	}
	if err := bleveregistry.RegisterAnalyzer(analyzerName, func(_ map[string]any, c *bleveregistry.Cache) (analysis.Analyzer, error) {
		var filters []analysis.TokenFilter
		for _, name := range []string{partsFilterName, en.PossessiveName, lowercase.Name, en.StopName, porter.Name} {
			f, err := c.TokenFilterNamed(name)
			if err != nil {
				return nil, err
			}
			filters = append(filters, f)
		}
		return &kbAnalyzer{filters: filters, cache: textutil.NewSlotCache[[]wordTerm](termSlots)}, nil
	}); err != nil {
		panic(err)
	}
}

// kbAnalyzer is the words tokenizer followed by the filters, which turn
// each word into its terms on its own: a word's terms depend on nothing
// but its bytes (no filter reads the token's type, position or
// neighbours), so they are computed once per distinct word and cached,
// and a token's terms are the cached ones at its position and offsets.
// The filters (Porter above all) and the terms they allocate were a third
// of bleve's analysis and a tenth of indexing; the tokens are the ones
// the tokenizer and filters in a row make (TestAnalyzerAsTheChain).
type kbAnalyzer struct {
	filters []analysis.TokenFilter
	// cache maps words to their terms (textutil.SlotCache): the analysis
	// of a batch runs on every core.
	cache *textutil.SlotCache[[]wordTerm]
}

// A word's terms are what the filters make of it: none for a stop word;
// parts of a file name or identifier after the whole word, each with its
// offsets inside the word. They are shared by every token of the word and
// never written to.

type wordTerm struct {
	term       []byte
	start, end int
}

// termSlots is the size of the cache (512 KB of pointers): the distinct
// words of 10,000 notes fit with few collisions. maxCachedWord bounds the
// words cached (longer ones are rare, and often one-off).
const (
	termSlots     = 1 << 16
	maxCachedWord = 40
)

func (a *kbAnalyzer) Analyze(input []byte) analysis.TokenStream {
	rv := make(analysis.TokenStream, 0, len(input)/6+1)
	var block []analysis.Token // tokens are allocated a block at a time
	pos := 1
	words(input, func(w []byte, typ analysis.TokenType) bool {
		// w is input's own bytes (a slice of it, to its end): its offset
		// is what its capacity lacks.
		start := cap(input) - cap(w)
		for _, t := range a.terms(w) {
			if len(block) == cap(block) {
				block = make([]analysis.Token, 0, min(1000, max(16, len(input)/6)))
			}
			block = append(block, analysis.Token{Term: t.term, Start: start + t.start, End: start + t.end, Position: pos, Type: typ})
			rv = append(rv, &block[len(block)-1])
		}
		pos++
		return true
	})
	return rv
}

// terms returns the terms of one word, from the cache when it holds them.
func (a *kbAnalyzer) terms(w []byte) []wordTerm {
	if len(w) > maxCachedWord {
		return a.filter(w)
	}
	if ts, ok := a.cache.GetBytes(w); ok {
		return ts
	}
	ts := a.filter(w)
	a.cache.Put(string(w), ts)
	return ts
}

// filter runs the filters over one word.
func (a *kbAnalyzer) filter(w []byte) []wordTerm {
	ts := analysis.TokenStream{{Term: append([]byte(nil), w...), Start: 0, End: len(w), Position: 1, Type: analysis.AlphaNumeric}}
	for _, f := range a.filters {
		ts = f.Filter(ts)
	}
	out := make([]wordTerm, len(ts))
	for i, t := range ts {
		out[i] = wordTerm{term: t.Term, start: t.Start, end: t.End}
	}
	return out
}

// partsFilter keeps every token and, after a token with inner '.' or '_'
// ("pricing.py", "legacy_flag", "v1.2.3"), adds each part at the same
// position and with its own offsets.
type partsFilter struct{}

func (partsFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	var out analysis.TokenStream
	for _, t := range in {
		out = append(out, t)
		term := t.Term
		if bytes.IndexAny(term, "._") <= 0 {
			continue
		}
		start := 0
		for i := 0; i <= len(term); i++ {
			if i < len(term) && term[i] != '.' && term[i] != '_' {
				continue
			}
			if i > start && i-start < len(term) {
				out = append(out, &analysis.Token{
					Term:     append([]byte(nil), term[start:i]...),
					Start:    t.Start + start,
					End:      t.Start + i,
					Position: t.Position,
					Type:     t.Type,
				})
			}
			start = i + 1
		}
	}
	return out
}
