package index

import (
	"bytes"
	"context"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/searcher"
	bindex "github.com/blevesearch/bleve_index_api"
	"github.com/blevesearch/segment"
)

// storedPhraseQuery is a phrase on a field indexed without term positions
// (body: positions were a third of the CPU of indexing and two fifths of
// the index). Its searcher is the conjunction of the phrase's terms, as
// bleve's phrase searcher has, filtered on the field's stored text: a
// document is kept when its text, analyzed as it was indexed, holds the
// phrase's terms at consecutive positions. So it matches exactly the
// documents bleve's phrase search matches on positions, with the same
// scores, and totals and pages count only those.
type storedPhraseQuery struct {
	phrase string
	field  string
	boost  float64
	ix     *Index
}

func (q *storedPhraseQuery) SetBoost(b float64) { q.boost = b }
func (q *storedPhraseQuery) Boost() float64     { return q.boost }
func (q *storedPhraseQuery) SetField(f string)  { q.field = f }
func (q *storedPhraseQuery) Field() string      { return q.field }

func (q *storedPhraseQuery) Searcher(ctx context.Context, r bindex.IndexReader, m mapping.IndexMapping, options bsearch.SearcherOptions) (bsearch.Searcher, error) {
	qa := m.AnalyzerNamed(queryAnalyzer)
	phrase := tokensToPhrase(qa.Analyze([]byte(q.phrase)))
	if len(phrase) == 0 {
		return searcher.NewMatchNoneSearcher(r)
	}
	options.IncludeTermVectors = false // the field has none
	var parts []bsearch.Searcher
	closeAll := func() {
		for _, s := range parts {
			_ = s.Close()
		}
	}
	for _, terms := range phrase {
		var ts []bsearch.Searcher
		for _, t := range terms {
			s, err := searcher.NewTermSearcher(ctx, r, t, q.field, q.boost, options)
			if err != nil {
				closeAll()
				for _, s := range ts {
					_ = s.Close()
				}
				return nil, err
			}
			ts = append(ts, s)
		}
		switch len(ts) {
		case 0: // a stop word's place: any word
		case 1:
			parts = append(parts, ts[0])
		default:
			d, err := searcher.NewDisjunctionSearcher(ctx, r, ts, 1, options)
			if err != nil {
				closeAll()
				return nil, err
			}
			parts = append(parts, d)
		}
	}
	conj, err := searcher.NewConjunctionSearcher(ctx, r, parts, options)
	if err != nil {
		closeAll()
		return nil, err
	}
	if len(phrase) == 1 {
		return conj, nil // one word: every document holding it
	}
	m2 := newPhraseMatcher(q.ix.an.en, phrase)
	st := newStoredText(r, q.field)
	return searcher.NewFilteringSearcher(ctx, conj, func(_ *bsearch.SearchContext, d *bsearch.DocumentMatch) bool {
		return st.test(d.IndexInternalID, m2.match)
	}), nil
}

// tokensToPhrase is bleve's tokenStreamToPhrase (search/query): the terms
// at each position from the first token's to the last's, none where a
// stop word was.
func tokensToPhrase(tokens analysis.TokenStream) [][]string {
	if len(tokens) == 0 {
		return nil
	}
	first, last := tokens[0].Position, tokens[0].Position
	for _, t := range tokens {
		first, last = min(first, t.Position), max(last, t.Position)
	}
	out := make([][]string, last-first+1)
	for _, t := range tokens {
		out[t.Position-first] = append(out[t.Position-first], string(t.Term))
	}
	return out
}

// storedText reads one stored field of the documents a searcher visits.
type storedText struct {
	r       bindex.IndexReader
	field   string
	snap    *scorch.IndexSnapshot
	segs    []*scorch.SegmentSnapshot
	offsets []uint64 // first global doc number of each segment
}

func newStoredText(r bindex.IndexReader, field string) *storedText {
	st := &storedText{r: r, field: field}
	if snap, ok := r.(*scorch.IndexSnapshot); ok {
		st.snap, st.segs = snap, snap.Segments()
		var n uint64
		for _, s := range st.segs {
			st.offsets = append(st.offsets, n)
			n += s.Segment().Count()
		}
	}
	return st
}

// test reports whether the document id has the field and its text
// passes ok. The text is tested inside the visit: it is the decoding
// buffer of bleve's stored-field reader, which goes back to a pool shared
// by every reader of the process (bleve's merger too) when the visit ends.
func (st *storedText) test(id bindex.IndexInternalID, ok func(text []byte) bool) bool {
	passed, found := false, false
	visit := func(name string, typ byte, val []byte, _ []uint64) bool {
		if name == st.field && typ == 't' {
			passed, found = ok(val), true
			return false
		}
		return true
	}
	if st.snap != nil {
		num := id.Value()
		i := len(st.offsets) - 1
		for i > 0 && st.offsets[i] > num {
			i--
		}
		if i >= 0 && st.segs[i].VisitDocument(num-st.offsets[i], visit) == nil {
			return passed
		}
		return false
	}
	ext, err := st.r.ExternalID(id)
	if err != nil {
		return false
	}
	doc, err := st.r.Document(ext)
	if err != nil || doc == nil {
		return false
	}
	doc.VisitFields(func(f bindex.Field) {
		if !found && f.Name() == st.field {
			passed, found = ok(f.Value()), true
		}
	})
	return passed
}

// phraseMatcher tells whether a text, analyzed by the index's analyzer,
// holds a phrase: at some position p, for each k, a term of phrase[k] at
// position p+k (any term, or none, where phrase[k] is empty). Positions
// are the tokenizer's (filters keep them), so the text is tokenized as the
// analyzer does and each distinct word is run through the filters once.
type phraseMatcher struct {
	an      analysis.Analyzer
	filters []analysis.TokenFilter // set when the analyzer is a unicode tokenizer and filters
	phrase  [][]string
	words   int      // len(phrase), the bits of a mask
	free    []uint64 // bit k: phrase[k] is empty
	masks   map[analysis.TokenType]map[string][]uint64
	first   [256]bool // the first bytes of the phrase's terms
	scratch [2][]uint64
}

func newPhraseMatcher(an analysis.Analyzer, phrase [][]string) *phraseMatcher {
	n := (len(phrase) + 63) / 64
	pm := &phraseMatcher{an: an, phrase: phrase, words: len(phrase), free: make([]uint64, n), masks: map[analysis.TokenType]map[string][]uint64{}}
	switch a := an.(type) {
	case *kbAnalyzer:
		pm.filters = a.filters
	case *analysis.DefaultAnalyzer:
		if _, ok := a.Tokenizer.(*unicode.UnicodeTokenizer); ok && len(a.CharFilters) == 0 {
			pm.filters = a.TokenFilters
		}
	}
	for k, terms := range phrase {
		if len(terms) == 0 {
			pm.free[k/64] |= 1 << (k % 64)
		}
		for _, t := range terms {
			if t != "" {
				pm.first[t[0]] = true
			}
		}
	}
	pm.scratch = [2][]uint64{make([]uint64, n), make([]uint64, n)}
	return pm
}

// maskOf is the bits k of the phrase positions one of terms fills.
func (pm *phraseMatcher) maskOf(terms analysis.TokenStream, into []uint64) {
	for _, t := range terms {
		for k, want := range pm.phrase {
			for _, w := range want {
				if w == string(t.Term) {
					into[k/64] |= 1 << (k % 64)
				}
			}
		}
	}
}

// wordMask is maskOf the terms the filters make of one word (cached per
// token type: the lookup allocates nothing).
func (pm *phraseMatcher) wordMask(word []byte, typ analysis.TokenType) []uint64 {
	byType := pm.masks[typ]
	if byType == nil {
		byType = map[string][]uint64{}
		pm.masks[typ] = byType
	}
	if m, ok := byType[string(word)]; ok {
		return m
	}
	ts := analysis.TokenStream{{Term: append([]byte(nil), word...), Start: 0, End: len(word), Position: 1, Type: typ}}
	for _, f := range pm.filters {
		ts = f.Filter(ts)
	}
	m := make([]uint64, len(pm.free))
	pm.maskOf(ts, m)
	if len(byType) > 1<<16 {
		clear(byType)
	}
	byType[string(word)] = m
	return m
}

// match runs the shift-and automaton over the text's positions: bit k of
// state says the phrase's first k+1 positions end at the current one.
func (pm *phraseMatcher) match(text []byte) bool {
	state := pm.scratch[0]
	clear(state)
	last := uint(pm.words - 1)
	step := func(m []uint64) bool {
		carry := uint64(1) // a phrase may start here
		for i := range state {
			next := state[i] >> 63
			state[i] = (state[i]<<1 | carry) & (m[i] | pm.free[i])
			carry = next
		}
		return state[last/64]&(1<<(last%64)) != 0
	}
	if pm.filters == nil {
		// Any other analyzer: the whole text analyzed, position by position.
		tokens := pm.an.Analyze(text)
		if len(tokens) == 0 {
			return false
		}
		first, last := tokens[0].Position, tokens[0].Position
		for _, t := range tokens {
			first, last = min(first, t.Position), max(last, t.Position)
		}
		at := make([]analysis.TokenStream, last-first+1)
		for _, t := range tokens {
			at[t.Position-first] = append(at[t.Position-first], t)
		}
		m := pm.scratch[1]
		for _, ts := range at {
			clear(m)
			pm.maskOf(ts, m)
			if step(m) {
				return true
			}
		}
		return false
	}
	// As the unicode tokenizer does: a position per segment that is a word.
	found := false
	zero := pm.scratch[1]
	clear(zero)
	words(text, func(w []byte, typ analysis.TokenType) bool {
		if pm.cannotFill(w) {
			found = step(zero)
		} else {
			found = step(pm.wordMask(w, typ))
		}
		return !found
	})
	return found
}

// cannotFill reports whether an ASCII word surely makes none of the
// phrase's terms: the filters lower-case a word, give its parts after
// '.' and '_', drop a possessive and stem, and none of them changes a
// term's first letter but lower-casing; so a term made of w starts with
// the lower-cased first byte of w or of one of its parts. (Checked by
// TestFirstBytesOfTerms.) Most words are decided here, without hashing.
func (pm *phraseMatcher) cannotFill(w []byte) bool {
	if len(w) == 0 || w[0] >= utf8.RuneSelf {
		return false
	}
	if pm.first[lowerASCII(w[0])] {
		return false
	}
	for i, c := range w[:len(w)-1] {
		if c >= utf8.RuneSelf {
			return false
		}
		if (c == '.' || c == '_') && pm.first[lowerASCII(w[i+1])] {
			return false
		}
	}
	return w[len(w)-1] < utf8.RuneSelf
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// words calls fn with each word the unicode tokenizer (Unicode word
// segmentation, blevesearch/segment) makes of text, with its token type,
// until fn returns false. No word spans a line feed, so a line of ASCII
// is segmented here (the rules of UAX #29 that ASCII characters meet, as
// segment implements them: letters, digits and '_' join; ':' '.' '\”
// join two letters, ',' ';' '.' '\” two digits), and any other line by
// segment; a test checks both against the tokenizer.
func words(text []byte, fn func(w []byte, typ analysis.TokenType) bool) {
	if !utf8.Valid(text) {
		// Segmentation stops early at some invalid bytes, so does the
		// tokenizer, and where depends on what came before.
		segmentWords(text, fn)
		return
	}
	for len(text) > 0 {
		n := bytes.IndexByte(text, '\n')
		line := text
		if n >= 0 {
			line, text = text[:n], text[n+1:]
		} else {
			text = nil
		}
		if !asciiWords(line, fn) {
			return
		}
	}
}

// segmentWords is words by segment; false when fn stopped it.
func segmentWords(text []byte, fn func(w []byte, typ analysis.TokenType) bool) bool {
	seg := segment.NewWordSegmenterDirect(text)
	for seg.Segment() {
		if seg.Type() != segment.None && !fn(seg.Bytes(), tokenType(seg.Type())) {
			return false
		}
	}
	return true
}

// asciiWords is words of one line; false when fn stopped it.
func asciiWords(line []byte, fn func(w []byte, typ analysis.TokenType) bool) bool {
	for _, c := range line {
		if c >= utf8.RuneSelf {
			return segmentWords(line, fn)
		}
	}
	for i := 0; i < len(line); {
		if wordClass(line[i]) == 0 {
			i++
			continue
		}
		start, letters := i, false
		for i < len(line) {
			c := wordClass(line[i])
			if c == 0 && i+1 < len(line) && i > start {
				// A middle character between two letters or two digits.
				prev, next := wordClass(line[i-1]), wordClass(line[i+1])
				m := line[i]
				if prev == next && (prev == 'a' && (m == ':' || m == '.' || m == '\'') ||
					prev == '0' && (m == ',' || m == ';' || m == '.' || m == '\'')) {
					i += 2
					letters = letters || prev == 'a'
					continue
				}
			}
			if c == 0 {
				break
			}
			letters = letters || c == 'a'
			i++
		}
		typ := analysis.AlphaNumeric
		if !letters && bytes.ContainsAny(line[start:i], "0123456789") {
			typ = analysis.Numeric
		}
		if !fn(line[start:i], typ) {
			return false
		}
	}
	return true
}

// wordClass is 'a' for an ASCII letter, '0' for a digit, '_' for '_'
// (which joins anything), 0 for a character outside words.
func wordClass(c byte) byte { return wordClasses[c] }

var wordClasses = func() (t [256]byte) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = 'a', 'a'
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = '0'
	}
	t['_'] = '_'
	return t
}()

// tokenType is the unicode tokenizer's token type of a segment.
func tokenType(t int) analysis.TokenType {
	switch t {
	case segment.Ideo, segment.Kana:
		return analysis.Ideographic
	case segment.Number:
		return analysis.Numeric
	}
	return analysis.AlphaNumeric
}
