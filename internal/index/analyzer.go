package index

import (
	"bytes"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	bleveregistry "github.com/blevesearch/bleve/v2/registry"
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
		var tok analysis.Tokenizer = wordsTokenizer{}
		var filters []analysis.TokenFilter
		for _, name := range []string{partsFilterName, en.PossessiveName, lowercase.Name, en.StopName, porter.Name} {
			f, err := c.TokenFilterNamed(name)
			if err != nil {
				return nil, err
			}
			filters = append(filters, f)
		}
		return &analysis.DefaultAnalyzer{Tokenizer: tok, TokenFilters: filters}, nil
	}); err != nil {
		panic(err)
	}
}

// wordsTokenizer is bleve's unicode tokenizer (Unicode word segmentation)
// through words, which segments a line of ASCII itself: the same tokens
// (TestWordsAsTheTokenizer compares them, offsets and positions too, and
// FuzzWords), for about a third of the tokenizer's CPU, which was a tenth
// of kb index's.
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
