package index

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/vellum/regexp"
)

// Query is a search request.
//
// Text uses bleve's query-string syntax: plain words (OR, ranked), "a
// phrase", +must, -mustnot, field:value, field:"a phrase", field:>3,
// created:>"2024-01-01", word~1 (fuzzy), prefix* and /regexp/. Plain words
// search title (boost 3), description (2), id and tags (2, exact), body and
// all Doc.Text fields. Keyword values containing query syntax characters
// (':', '+', '-' at the start, spaces, ...) are written either quoted,
// action_type:"git:push-force", or escaped, action_type:git\:push-force.
// Text fields are English-stemmed (migrations finds migration); keyword
// fields (id, path, layer, type, tags, lifecycle, status, session, links
// and Doc.Keywords keys) match whole values, case-sensitively (links are
// lower-cased at indexing, so query them lower-cased).
type Query struct {
	Text                          string // empty matches every doc
	Layers, Types, Tags, Statuses []string
	// ExcludeLayers drops docs of these layers. Cheaper than listing every
	// other layer in Layers: a must-not clause on one term.
	ExcludeLayers []string
	Limit, Offset int // Limit 0 means 10
	Highlight     bool
	Fields        []string // extra stored fields for Hit.Fields
}

// Hit is one search result.
type Hit struct {
	ID, Path, Layer, Type, Title, Description, Session string
	Seq                                                int
	Score                                              float64
	Snippet                                            string         // with Highlight: body excerpt, matches wrapped in SnippetMark
	Fields                                             map[string]any // Query.Fields values: string, float64, RFC 3339 string for dates, []string for tags, links and Keywords fields
}

// Result is a page of hits.
type Result struct {
	Total uint64 // all matching docs, not just this page
	Hits  []Hit
	Took  time.Duration
}

// QueryError reports query text that cannot be parsed or executed.
type QueryError struct {
	Query string
	Err   error
}

func (e *QueryError) Error() string {
	return fmt.Sprintf("invalid query %q: %v", e.Query, e.Err)
}

func (e *QueryError) Unwrap() error { return e.Err }

// SnippetMark wraps the matched words in Hit.Snippet (markdown bold).
const SnippetMark = "**"

// MaxLimit caps Query.Limit.
const MaxLimit = 10000

// plainFields are the targets of a term without a field, with boosts.
var plainFields = []struct {
	name  string
	boost float64
	text  bool // English-analyzed (wildcards lower-cased)
}{
	{fTitle, 3, true},
	{fDescription, 2, true},
	{fID, 2, false},
	{fTags, 2, false},
	{fBody, 1, true},
	{fAllText, 1, true},
}

// Search runs q. Syntax errors yield a *QueryError.
func (ix *Index) Search(q Query) (*Result, error) {
	start := time.Now()
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.bi == nil {
		return nil, ErrClosed
	}
	bq, terms, err := ix.buildQuery(q)
	if err != nil {
		return nil, err
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 10
	}
	limit = min(limit, MaxLimit)
	req := bleve.NewSearchRequestOptions(bq, limit, max(q.Offset, 0), false)
	req.Fields = []string{fPath, fLayer, fType, fTitle, fDescription, fSession, fSeq}
	req.Fields = append(req.Fields, q.Fields...)
	if q.Highlight {
		req.Fields = append(req.Fields, fBody)
	}
	var res *bleve.SearchResult
	err = guard(func() error {
		var err error
		res, err = ix.bi.SearchInContext(context.Background(), req)
		return err
	})
	switch {
	case errors.Is(err, ErrCorrupt):
		return nil, fmt.Errorf("index: search: %w", err)
	case err != nil:
		// Syntax is checked before; what bleve still rejects is the query's
		// content (an unknown analyzer, a pattern it cannot compile, ...).
		return nil, &QueryError{Query: q.Text, Err: err}
	}
	out := &Result{Total: res.Total, Hits: make([]Hit, 0, len(res.Hits))}
	wantBody := false
	for _, f := range q.Fields {
		wantBody = wantBody || f == fBody
	}
	for _, h := range res.Hits {
		hit := Hit{ID: h.ID, Score: h.Score}
		str := func(name string) string { s, _ := h.Fields[name].(string); return s }
		hit.Path, hit.Layer, hit.Type = str(fPath), str(fLayer), str(fType)
		hit.Title, hit.Description, hit.Session = str(fTitle), str(fDescription), str(fSession)
		if v, ok := h.Fields[fSeq].(float64); ok {
			hit.Seq = int(v)
		}
		if q.Highlight {
			body := str(fBody)
			if body == "" {
				body = hit.Description
			}
			hit.Snippet = snippet(ix.an.en, body, terms)
		}
		if len(q.Fields) > 0 {
			hit.Fields = make(map[string]any, len(q.Fields))
			for _, f := range q.Fields {
				if v, ok := h.Fields[f]; ok {
					hit.Fields[f] = ix.normalize(f, v)
				}
			}
			if !wantBody {
				delete(hit.Fields, fBody)
			}
		}
		out.Hits = append(out.Hits, hit)
	}
	out.Took = time.Since(start)
	return out, nil
}

// buildQuery parses and rewrites q.Text and adds the filters. It returns the
// stemmed terms used for snippets.
func (ix *Index) buildQuery(q Query) (query.Query, map[string]bool, error) {
	terms := map[string]bool{}
	var main query.Query
	if strings.TrimSpace(q.Text) == "" {
		main = bleve.NewMatchAllQuery()
	} else {
		var parsed query.Query
		err := guard(func() error {
			var err error
			parsed, err = query.NewQueryStringQuery(q.Text).Parse()
			return err
		})
		if err != nil {
			return nil, nil, &QueryError{Query: q.Text, Err: errors.New(cleanParseErr(err))}
		}
		rw := rewriter{ix: ix, terms: terms}
		main = rw.rewrite(parsed, false)
		if rw.err != nil {
			return nil, nil, &QueryError{Query: q.Text, Err: rw.err}
		}
	}
	var filters []query.Query
	for _, f := range []struct {
		field  string
		values []string
	}{{fLayer, q.Layers}, {fType, q.Types}, {fTags, q.Tags}, {fStatus, q.Statuses}} {
		if len(f.values) == 0 {
			continue
		}
		var any []query.Query
		for _, v := range f.values {
			tq := bleve.NewTermQuery(v)
			tq.SetField(f.field)
			any = append(any, tq)
		}
		filters = append(filters, bleve.NewDisjunctionQuery(any...))
	}
	var not []query.Query
	for _, v := range q.ExcludeLayers {
		tq := bleve.NewTermQuery(v)
		tq.SetField(fLayer)
		not = append(not, tq)
	}
	if len(filters) == 0 && len(not) == 0 {
		return main, terms, nil
	}
	bq := bleve.NewBooleanQuery()
	bq.AddMust(main)
	if len(filters) > 0 {
		bq.AddFilter(bleve.NewConjunctionQuery(filters...))
	}
	if len(not) > 0 {
		bq.AddMustNot(not...)
	}
	return bq, terms, nil
}

func cleanParseErr(err error) string {
	s := strings.ReplaceAll(err.Error(), "\n", "; ")
	return strings.TrimPrefix(s, "syntax error: ")
}

type rewriter struct {
	ix    *Index
	terms map[string]bool
	err   error
}

// rewrite expands field-less leaves over plainFields, makes queries on
// dynamic keyword fields use the keyword analyzer, validates regexps and
// fuzziness, and collects snippet terms. Container nodes are changed in
// place, keeping bleve's query-string semantics (a clause that analyzes to
// nothing, like a stop word, is skipped rather than matching nothing).
func (rw *rewriter) rewrite(q query.Query, negated bool) query.Query {
	switch q := q.(type) {
	case *query.BooleanQuery:
		if q.Must != nil {
			q.Must = rw.rewrite(q.Must, negated)
		}
		if q.Should != nil {
			q.Should = rw.rewrite(q.Should, negated)
		}
		if q.MustNot != nil {
			q.MustNot = rw.rewrite(q.MustNot, !negated)
		}
	case *query.ConjunctionQuery:
		for i, c := range q.Conjuncts {
			q.Conjuncts[i] = rw.rewrite(c, negated)
		}
	case *query.DisjunctionQuery:
		for i, c := range q.Disjuncts {
			q.Disjuncts[i] = rw.rewrite(c, negated)
		}
	case *query.MatchQuery:
		if q.Fuzziness > 2 || q.Fuzziness < 0 {
			rw.fail(fmt.Errorf("fuzziness %d out of range 0..2", q.Fuzziness))
		}
		if !negated && rw.isText(q.FieldVal) {
			rw.collect(q.Match)
		}
		if q.FieldVal == "" {
			if len(rw.ix.an.en.Analyze([]byte(q.Match))) == 0 {
				// Only stop words: skipped by the enclosing clause, as
				// bleve does for a single field.
				return query.NewMatchNoneQuery()
			}
			return rw.expand(func(field string, boost float64, text bool) query.Query {
				c := *q
				c.SetField(field)
				c.SetBoost(q.Boost() * boost)
				if text {
					c.Analyzer = queryAnalyzer
				}
				return &c
			})
		}
		if rw.ix.reg[q.FieldVal] == kindKeyword {
			q.Analyzer = keyword.Name
		} else if rw.isText(q.FieldVal) {
			q.Analyzer = queryAnalyzer
		}
	case *query.MatchPhraseQuery:
		if rw.isKeyword(q.FieldVal) {
			// A keyword value is one token: "quoted" is just a way to
			// write a value with spaces or colons. Phrase search would
			// need term vectors, which keyword fields do not have.
			m := query.NewMatchQuery(q.MatchPhrase)
			m.SetField(q.FieldVal)
			m.SetBoost(q.Boost())
			m.Analyzer = keyword.Name
			return m
		}
		if q.Fuzziness > 2 || q.Fuzziness < 0 {
			rw.fail(fmt.Errorf("fuzziness %d out of range 0..2", q.Fuzziness))
		}
		if !negated && rw.isText(q.FieldVal) {
			rw.collect(q.MatchPhrase)
		}
		if q.FieldVal == "" {
			return rw.expand(func(field string, boost float64, text bool) query.Query {
				if rw.withoutPositions(field) {
					return &storedPhraseQuery{phrase: q.MatchPhrase, field: field, boost: q.Boost() * boost, ix: rw.ix}
				}
				c := *q
				c.SetField(field)
				c.SetBoost(q.Boost() * boost)
				if text {
					c.Analyzer = queryAnalyzer
				}
				return &c
			})
		}
		if rw.withoutPositions(q.FieldVal) {
			return &storedPhraseQuery{phrase: q.MatchPhrase, field: q.FieldVal, boost: q.Boost(), ix: rw.ix}
		}
		if rw.isText(q.FieldVal) {
			q.Analyzer = queryAnalyzer
		}
	case *query.WildcardQuery:
		rw.checkRegexp(wildcardToRegexp(q.Wildcard))
		if q.FieldVal == "" {
			return rw.expand(func(field string, boost float64, text bool) query.Query {
				c := *q
				if text {
					c.Wildcard = strings.ToLower(c.Wildcard)
				}
				c.SetField(field)
				c.SetBoost(q.Boost() * boost)
				return &c
			})
		}
	case *query.RegexpQuery:
		rw.checkRegexp(q.Regexp)
		if q.FieldVal == "" {
			return rw.expand(func(field string, boost float64, _ bool) query.Query {
				c := *q
				c.SetField(field)
				c.SetBoost(q.Boost() * boost)
				return &c
			})
		}
	}
	return q
}

// expand builds a disjunction over plainFields in query-string mode (so
// fields where the text analyzes to nothing are skipped).
func (rw *rewriter) expand(leaf func(field string, boost float64, text bool) query.Query) query.Query {
	qs := make([]query.Query, 0, len(plainFields))
	for _, f := range plainFields {
		qs = append(qs, leaf(f.name, f.boost, f.text))
	}
	// NewBooleanQueryForQueryString is the only exported way to get a
	// disjunction with query-string semantics.
	holder := query.NewBooleanQueryForQueryString(nil, qs, nil)
	return holder.Should
}

func (rw *rewriter) isKeyword(field string) bool {
	if rw.ix.reg[field] == kindKeyword {
		return true
	}
	def, ok := staticFields[field]
	return ok && def.kind == kindKeyword
}

// withoutPositions reports whether field is a static text field indexed
// without term positions, whose phrases storedPhraseQuery answers.
func (rw *rewriter) withoutPositions(field string) bool {
	def, ok := staticFields[field]
	return ok && def.kind == kindText && !def.positions
}

func (rw *rewriter) isText(field string) bool {
	if field == "" || rw.ix.reg[field] == kindText {
		return true
	}
	def, ok := staticFields[field]
	return ok && def.kind == kindText
}

func (rw *rewriter) collect(text string) {
	for _, t := range rw.ix.an.en.Analyze([]byte(text)) {
		rw.terms[string(t.Term)] = true
	}
}

func (rw *rewriter) fail(err error) {
	if rw.err == nil {
		rw.err = err
	}
}

func (rw *rewriter) checkRegexp(re string) {
	if _, err := regexp.New(re); err != nil {
		rw.fail(fmt.Errorf("bad pattern %q: %v", re, err))
	}
}

// wildcardToRegexp mirrors bleve's conversion (* -> .*, ? -> .).
func wildcardToRegexp(w string) string {
	var b strings.Builder
	for _, r := range w {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexpQuoteRune(r))
		}
	}
	return b.String()
}

func regexpQuoteRune(r rune) string {
	if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
		return `\` + string(r)
	}
	return string(r)
}

// Snippet sizing.
const (
	snippetWindow  = 160     // bytes of body around the best match
	snippetMaxBody = 1 << 16 // longer bodies are only searched in their head
)

// snippet picks the window of body with the most distinct query terms and
// wraps the matching words in SnippetMark. Without matches it returns the
// start of body.
func snippet(an analysis.Analyzer, body string, terms map[string]bool) string {
	if body == "" {
		return ""
	}
	src := body
	if len(src) > snippetMaxBody {
		src = src[:snippetMaxBody]
		for !utf8.ValidString(src) && len(src) > 0 { // do not cut a rune
			src = src[:len(src)-1]
		}
	}
	type match struct {
		start, end int
		term       string
	}
	var ms []match
	if len(terms) > 0 {
		// Analyzing the whole body was most of a query's CPU. Stems share
		// their first bytes with the words they come from, so only words
		// whose lower-cased head matches a query term's head are analyzed,
		// one at a time.
		heads := map[string]bool{}
		for t := range terms {
			heads[head(t)] = true
		}
		forEachWord(src, func(start, end int) {
			w := strings.ToLower(src[start:end])
			if !heads[head(w)] {
				return
			}
			for _, t := range an.Analyze([]byte(w)) {
				if terms[string(t.Term)] {
					ms = append(ms, match{start, end, string(t.Term)})
					return
				}
			}
		})
	}
	if len(ms) == 0 {
		return excerpt(body, 0, snippetWindow, nil)
	}
	// Slide over matches: the window starting at match i covers matches
	// whose end is within snippetWindow bytes; score by distinct terms,
	// then by count.
	best, bestDistinct, bestCount := 0, 0, 0
	for i := range ms {
		seen := map[string]bool{}
		n := 0
		for j := i; j < len(ms) && ms[j].end-ms[i].start <= snippetWindow; j++ {
			seen[ms[j].term] = true
			n++
		}
		if len(seen) > bestDistinct || len(seen) == bestDistinct && n > bestCount {
			best, bestDistinct, bestCount = i, len(seen), n
		}
	}
	// Start a little before the first match, at a word boundary.
	start := max(ms[best].start-snippetWindow/4, 0)
	var marks [][2]int
	for _, m := range ms[best:] {
		if m.end > start+snippetWindow {
			break
		}
		marks = append(marks, [2]int{m.start, m.end})
	}
	return excerpt(body, start, snippetWindow, marks)
}

// excerpt returns about n bytes of s from start, snapped to word boundaries,
// whitespace collapsed, with "…" where text was cut and marks wrapped.
func excerpt(s string, start, n int, marks [][2]int) string {
	if start > 0 {
		// Move to the start of the next word (or keep start if inside the first mark).
		for start < len(s) && !isSpace(s[start-1]) && (len(marks) == 0 || start < marks[0][0]) {
			start++
		}
	}
	end := min(start+n, len(s))
	if len(marks) > 0 {
		end = max(end, marks[len(marks)-1][1])
	}
	for end < len(s) && end > start && !isSpace(s[end]) && end-start < n+32 {
		end++
	}
	for end < len(s) && !utf8.RuneStart(s[end]) {
		end++
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	pos, space := start, false
	write := func(t string) {
		for _, r := range t {
			if r == ' ' || r == '\n' || r == '\t' || r == '\r' {
				space = true
				continue
			}
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		}
	}
	for _, m := range marks {
		if m[0] < pos || m[1] > end {
			continue
		}
		write(s[pos:m[0]])
		if space && b.Len() > 0 {
			b.WriteByte(' ')
			space = false
		}
		b.WriteString(SnippetMark)
		write(s[m[0]:m[1]])
		b.WriteString(SnippetMark)
		pos = m[1]
	}
	write(s[pos:end])
	out := strings.TrimSpace(b.String())
	if end < len(s) {
		out += "…"
	}
	return out
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// normalize makes list fields (tags, links, Doc.Keywords keys) always
// []string; bleve returns a single value as a plain string.
func (ix *Index) normalize(field string, v any) any {
	if field != fTags && field != fLinks && ix.reg[field] != kindKeyword {
		return v
	}
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return v
}

// head is the first three bytes of a word, its bucket for snippet matching.
func head(w string) string {
	if len(w) > 3 {
		return w[:3]
	}
	return w
}

// forEachWord calls fn with the byte range of every run of letters, digits
// and apostrophes in s.
func forEachWord(s string, fn func(start, end int)) {
	start := -1
	for i, r := range s {
		word := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\''
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			fn(start, i)
			start = -1
		}
	}
	if start >= 0 {
		fn(start, len(s))
	}
}
