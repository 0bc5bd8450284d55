package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/kbmem/kb/internal/lexicon"
	"github.com/kbmem/kb/kb"
	"github.com/kbmem/kb/traces"
)

// LoCoMo (Maharana et al., ACL 2024) is a long-term conversational memory
// benchmark: ten two-person conversations of 19-32 sessions each, with
// question-answer items whose evidence is a list of dialogue-turn ids. The
// data is CC BY-NC 4.0 and is never stored in this repository; Locomo
// reads the user's copy of locomo10.json.

// LocomoOptions configure Locomo.
type LocomoOptions struct {
	// Ks are the cut-offs of recall@k and nDCG@k; default 5 and 10.
	Ks []int
	// Conversations keeps only these sample ids (e.g. "conv-26"); empty = all.
	Conversations []string
	// Progress, if set, is called with (done, total) questions.
	Progress func(done, total int)
	// NoSpeaker leaves the speaker's name out of each turn's text (by
	// default a turn is "<speaker>: <text>").
	NoSpeaker bool
	// DateInText adds the session date on a second line of each turn's
	// text, so that questions naming a month or year can match it.
	DateInText bool
	// NoRecall skips extraction and the kb recall system.
	NoRecall bool
	// RecallBudget is the token budget of each recall; 0 = 2000.
	RecallBudget int
	// Details keeps the per-question results in the report.
	Details bool
	// Parallel is how many conversations are evaluated at once; 0 = GOMAXPROCS.
	Parallel int
}

// LocomoAtK is the mean of a metric pair at one cut-off.
type LocomoAtK struct {
	K      int     `json:"k"`
	Recall float64 `json:"recall"`
	NDCG   float64 `json:"ndcg"`
}

// LocomoScore is the mean of the metrics over a group of questions.
type LocomoScore struct {
	Category  int         `json:"category,omitempty"` // 0 = overall
	Name      string      `json:"name"`
	Questions int         `json:"questions"`
	At        []LocomoAtK `json:"at"`
}

// LocomoSystem is the score of one retrieval system.
type LocomoSystem struct {
	Name       string        `json:"name"` // "search" or "recall"
	Overall    LocomoScore   `json:"overall"`
	Categories []LocomoScore `json:"categories"`
	// Empty counts questions for which the system returned nothing.
	Empty int `json:"empty"`
}

// LocomoQuestion is the outcome of one question (with Details).
type LocomoQuestion struct {
	Conversation string              `json:"conversation"`
	Question     string              `json:"question"`
	Category     int                 `json:"category"`
	Evidence     []string            `json:"evidence"`
	Retrieved    map[string][]string `json:"retrieved"` // system -> dia ids, best first
}

// LocomoReport is the result of Locomo.
type LocomoReport struct {
	File          string   `json:"file"`
	Conversations []string `json:"conversations"`
	Sessions      int      `json:"sessions"`
	Turns         int      `json:"turns"`
	Ks            []int    `json:"ks"`
	// Questions counts the questions scored; SkippedNoEvidence those
	// without any valid evidence id, which are not scored.
	Questions         int `json:"questions"`
	SkippedNoEvidence int `json:"skipped_no_evidence"`
	// DroppedEvidence counts evidence strings that are malformed or name
	// no turn of their conversation.
	DroppedEvidence int `json:"dropped_evidence"`
	// Observations counts the observations extraction produced.
	Observations int            `json:"observations"`
	Systems      []LocomoSystem `json:"systems"`
	// Problems are oddities of the input that were worked around
	// (unparsable dates, turns without an id).
	Problems  []string         `json:"problems,omitempty"`
	Seconds   float64          `json:"seconds"`
	Details   []LocomoQuestion `json:"details,omitempty"`
	TextStyle string           `json:"text_style"`
}

// LocomoCategories names the question categories of locomo10.json (the
// mapping is confirmed by the paper's appendix question counts).
var LocomoCategories = map[int]string{
	1: "multi-hop",
	2: "temporal",
	3: "open-domain",
	4: "single-hop",
	5: "adversarial",
}

// Systems evaluated.
const (
	LocomoSearch = "search"
	LocomoRecall = "recall"
)

// ---------------------------------------------------------------------------
// Query text

// stopwords are dropped by PlainQuery: English function words and the
// auxiliaries of questions. Month names and numbers are kept ("may" is not
// here on purpose).
var stopwords = lexicon.StopQuery

// PlainQuery turns natural-language text (a question, a task) into a safe
// search query: words only, lower-cased, English stop words and
// duplicates dropped, joined by spaces. Query syntax characters (? : ( " +
// - * ~ / ! ^ ' and the rest) never survive, so the result always parses
// and ranks documents by how many of the words they hold (OR semantics).
// Possessives lose their 's. It returns "" when no word is left.
func PlainQuery(s string) string {
	var words []string
	seen := map[string]bool{}
	add := func(w string) {
		if w == "" || stopwords.Has(w) || seen[w] {
			return
		}
		seen[w] = true
		words = append(words, w)
	}
	var cur []rune
	flush := func() {
		w := string(cur)
		cur = cur[:0]
		if strings.HasSuffix(w, "'s") {
			w = strings.TrimSuffix(w, "'s")
		}
		w = strings.ReplaceAll(w, "'", "")
		add(w)
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r) || r >= '0' && r <= '9' || unicode.Is(unicode.Mn, r):
			// Other scripts' digits are separators: the query parser
			// reads an all-digit word as a number and rejects them.
			cur = append(cur, unicode.ToLower(r))
		case (r == '\'' || r == '’') && len(cur) > 0 && i+1 < len(rs) && unicode.IsLetter(rs[i+1]):
			cur = append(cur, '\'') // inner apostrophe: don't, Caroline's
		default:
			flush()
		}
	}
	flush()
	return strings.Join(words, " ")
}

// ---------------------------------------------------------------------------
// Metrics

// recallAt is |top-k of retrieved ∩ relevant| / |relevant|.
func recallAt(retrieved, relevant []string, k int) float64 {
	if len(relevant) == 0 {
		return 0
	}
	rel := map[string]bool{}
	for _, r := range relevant {
		rel[r] = true
	}
	hit := 0
	seen := map[string]bool{}
	for i, r := range retrieved {
		if i >= k {
			break
		}
		if rel[r] && !seen[r] {
			seen[r] = true
			hit++
		}
	}
	return float64(hit) / float64(len(rel))
}

// ndcgAt is nDCG@k with binary relevance: DCG = sum over the top k of
// rel_i/log2(i+1) (i from 1), divided by the DCG of the ideal ranking,
// which puts min(k, |relevant|) relevant items first.
func ndcgAt(retrieved, relevant []string, k int) float64 {
	rel := map[string]bool{}
	for _, r := range relevant {
		rel[r] = true
	}
	if len(rel) == 0 {
		return 0
	}
	dcg := 0.0
	seen := map[string]bool{}
	for i, r := range retrieved {
		if i >= k {
			break
		}
		if rel[r] && !seen[r] {
			seen[r] = true
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	idcg := 0.0
	for i := 0; i < min(k, len(rel)); i++ {
		idcg += 1 / math.Log2(float64(i+2))
	}
	return dcg / idcg
}

// ---------------------------------------------------------------------------
// Evaluation

type locomoOutcome struct {
	conv      string
	q         locomoQuestion
	retrieved map[string][]string
}

type locomoConvResult struct {
	outcomes     []locomoOutcome
	turns        int
	observations int
	err          error
}

// Locomo scores kb's retrieval on LoCoMo (file is locomo10.json). For
// each conversation it builds a fresh KB in a temporary directory, appends
// every session as one trace session (one record per turn, the turn's
// dia_id in Extra), indexes it, and runs heuristic extraction. Each
// question, made safe by PlainQuery, is then asked of `kb search` over the
// traces layer and, unless NoRecall, of `kb recall` (the dia ids of the
// turns its items cite, in item order). Reported: recall@k and nDCG@k of
// the evidence turns, per category and overall.
func Locomo(ctx context.Context, file string, o LocomoOptions) (*LocomoReport, error) {
	start := time.Now()
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("eval locomo: %w", err)
	}
	convs, err := parseLocomo(file, b)
	if err != nil {
		return nil, err
	}
	if len(o.Conversations) > 0 {
		want := map[string]bool{}
		for _, c := range o.Conversations {
			want[c] = true
		}
		var keep []*locomoConv
		for _, c := range convs {
			if want[c.ID] {
				keep = append(keep, c)
				delete(want, c.ID)
			}
		}
		if len(want) > 0 {
			var missing []string
			for c := range want {
				missing = append(missing, c)
			}
			sort.Strings(missing)
			return nil, fmt.Errorf("eval locomo: %s: no conversation %s: %w", file, strings.Join(missing, ", "), kb.ErrNotFound)
		}
		convs = keep
	}
	ks := normalizeKs(o.Ks)
	rep := &LocomoReport{File: file, Ks: ks, Systems: []LocomoSystem{}, TextStyle: locomoStyle(o)}
	total := 0
	for _, c := range convs {
		rep.Conversations = append(rep.Conversations, c.ID)
		rep.Sessions += len(c.Sessions)
		rep.Questions += len(c.Questions)
		rep.SkippedNoEvidence += c.Skipped
		rep.DroppedEvidence += c.Dropped
		rep.Problems = append(rep.Problems, c.Problems...)
		total += len(c.Questions)
	}
	var mu sync.Mutex
	done := 0
	tick := func() {
		if o.Progress == nil {
			return
		}
		mu.Lock()
		done++
		d := done
		mu.Unlock()
		o.Progress(d, total)
	}
	results := make([]locomoConvResult, len(convs))
	par := o.Parallel
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	for i, c := range convs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = evalLocomoConv(ctx, c, ks[len(ks)-1], o, tick)
		}()
	}
	wg.Wait()
	var outcomes []locomoOutcome
	for i, r := range results {
		if r.err != nil {
			return nil, fmt.Errorf("eval locomo %s: %w", convs[i].ID, r.err)
		}
		rep.Turns += r.turns
		rep.Observations += r.observations
		outcomes = append(outcomes, r.outcomes...)
	}
	systems := []string{LocomoSearch}
	if !o.NoRecall {
		systems = append(systems, LocomoRecall)
	}
	for _, name := range systems {
		rep.Systems = append(rep.Systems, scoreLocomo(name, outcomes, ks))
	}
	if o.Details {
		for _, oc := range outcomes {
			rep.Details = append(rep.Details, LocomoQuestion{Conversation: oc.conv, Question: oc.q.Question,
				Category: oc.q.Category, Evidence: oc.q.Evidence, Retrieved: oc.retrieved})
		}
	}
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

func locomoStyle(o LocomoOptions) string {
	s := "speaker: text"
	if o.NoSpeaker {
		s = "text"
	}
	if o.DateInText {
		s += " + session date"
	}
	return s
}

func normalizeKs(in []int) []int {
	seen := map[int]bool{}
	var ks []int
	for _, k := range in {
		if k > 0 && !seen[k] {
			seen[k] = true
			ks = append(ks, k)
		}
	}
	if len(ks) == 0 {
		ks = []int{5, 10}
	}
	sort.Ints(ks)
	return ks
}

// scoreLocomo averages the metrics of one system per category and overall.
func scoreLocomo(name string, outcomes []locomoOutcome, ks []int) LocomoSystem {
	type acc struct {
		n         int
		rec, ndcg []float64
	}
	newAcc := func() *acc { return &acc{rec: make([]float64, len(ks)), ndcg: make([]float64, len(ks))} }
	all := newAcc()
	byCat := map[int]*acc{}
	sys := LocomoSystem{Name: name, Categories: []LocomoScore{}}
	for _, oc := range outcomes {
		got := oc.retrieved[name]
		if len(got) == 0 {
			sys.Empty++
		}
		a := byCat[oc.q.Category]
		if a == nil {
			a = newAcc()
			byCat[oc.q.Category] = a
		}
		for _, x := range []*acc{a, all} {
			x.n++
			for i, k := range ks {
				x.rec[i] += recallAt(got, oc.q.Evidence, k)
				x.ndcg[i] += ndcgAt(got, oc.q.Evidence, k)
			}
		}
	}
	score := func(cat int, a *acc) LocomoScore {
		s := LocomoScore{Category: cat, Name: LocomoCategories[cat], Questions: a.n, At: []LocomoAtK{}}
		if cat == 0 {
			s.Name = "overall"
		} else if s.Name == "" {
			s.Name = fmt.Sprintf("category %d", cat)
		}
		for i, k := range ks {
			at := LocomoAtK{K: k}
			if a.n > 0 {
				at.Recall, at.NDCG = a.rec[i]/float64(a.n), a.ndcg[i]/float64(a.n)
			}
			s.At = append(s.At, at)
		}
		return s
	}
	cats := make([]int, 0, len(byCat))
	for c := range byCat {
		cats = append(cats, c)
	}
	sort.Ints(cats)
	for _, c := range cats {
		sys.Categories = append(sys.Categories, score(c, byCat[c]))
	}
	sys.Overall = score(0, all)
	return sys
}

// locomoSessionID is the trace session id of a LoCoMo session.
func locomoSessionID(conv string, n int) string { return fmt.Sprintf("locomo-%s-s%d", conv, n) }

// locomoTurnText is the text a turn is stored with.
func locomoTurnText(tu locomoTurn, date time.Time, o LocomoOptions) string {
	var b strings.Builder
	if !o.NoSpeaker && strings.TrimSpace(tu.Speaker) != "" {
		b.WriteString(strings.TrimSpace(tu.Speaker))
		b.WriteString(": ")
	}
	b.WriteString(strings.TrimSpace(tu.Text))
	if c := strings.TrimSpace(tu.BlipCaption); c != "" {
		b.WriteString(" [shares a photo: ")
		b.WriteString(c)
		b.WriteString("]")
	}
	if o.DateInText {
		// On a line of its own: the first line stays the title.
		b.WriteString("\n(")
		b.WriteString(locomoDateText(date))
		b.WriteString(")")
	}
	return b.String()
}

// locomoRecords turns a conversation into trace records, one session per
// LoCoMo session, turns one second apart.
func locomoRecords(c *locomoConv, o LocomoOptions) []traces.Record {
	var recs []traces.Record
	for _, ss := range c.Sessions {
		sid := locomoSessionID(c.ID, ss.N)
		for j, tu := range ss.Turns {
			extra := map[string]json.RawMessage{}
			for k, v := range map[string]string{"dia_id": tu.DiaID, "speaker": tu.Speaker, "locomo_date": ss.DateText} {
				if v != "" {
					raw, _ := json.Marshal(v)
					extra[k] = raw
				}
			}
			recs = append(recs, traces.Record{Session: sid, Time: ss.Time.Add(time.Duration(j) * time.Second),
				Agent: traces.AgentGeneric, Role: traces.RoleUser, Kind: traces.KindMessage,
				Text: locomoTurnText(tu, ss.Time, o), Extra: extra})
		}
	}
	return recs
}

type turnKey struct {
	session string
	seq     int
}

func evalLocomoConv(ctx context.Context, c *locomoConv, maxK int, o LocomoOptions, tick func()) (res locomoConvResult) {
	tmp, err := os.MkdirTemp("", "kb-eval-locomo-")
	if err != nil {
		res.err = err
		return res
	}
	defer os.RemoveAll(tmp)
	root := filepath.Join(tmp, "kb")
	if _, err := kb.Init(root); err != nil {
		res.err = err
		return res
	}
	k, err := kb.OpenRoot(root)
	if err != nil {
		res.err = err
		return res
	}
	k.Logf = func(string, ...any) {}
	k.Config.Extract.LLM = false // offline: heuristics only
	recs := locomoRecords(c, o)
	res.turns = len(recs)
	written, err := k.AppendTraces(ctx, recs, true)
	if err != nil {
		res.err = err
		return res
	}
	dia := make(map[turnKey]string, len(written))
	for _, r := range written {
		var id string
		if raw, ok := r.Extra["dia_id"]; ok && json.Unmarshal(raw, &id) == nil {
			dia[turnKey{r.Session, r.Seq}] = id
		}
	}
	// Observations: which turns each one cites.
	obsTurns := map[string][]string{}
	if !o.NoRecall {
		if _, err := k.Extract(ctx, kb.ExtractOptions{}); err != nil {
			res.err = fmt.Errorf("extract: %w", err)
			return res
		}
		files, _, err := k.LoadObservations(ctx)
		if err != nil {
			res.err = err
			return res
		}
		res.observations = len(files)
		for _, f := range files {
			var ids []string
			for _, s := range f.Obs.Sources {
				for seq := s.From; seq <= s.To && seq-s.From < 1000; seq++ {
					if id, ok := dia[turnKey{s.Session, seq}]; ok {
						ids = append(ids, id)
					}
				}
			}
			obsTurns[f.Path] = ids
		}
	}
	x, _, err := k.OpenIndex(ctx, nil)
	if err != nil {
		res.err = err
		return res
	}
	defer x.Close()
	budget := o.RecallBudget
	if budget <= 0 {
		budget = 2000
	}
	for _, q := range c.Questions {
		if err := ctx.Err(); err != nil {
			res.err = err
			return res
		}
		oc := locomoOutcome{conv: c.ID, q: q, retrieved: map[string][]string{}}
		query := PlainQuery(q.Question)
		var got []string
		if query != "" {
			sr, err := x.Search(kb.SearchOptions{Query: query, Layers: []string{kb.LayerTraces}, Limit: maxK})
			if err != nil {
				res.err = fmt.Errorf("search %q: %w", query, err)
				return res
			}
			for _, h := range sr.Hits {
				if id, ok := dia[turnKey{h.Session, h.Seq}]; ok {
					got = append(got, id)
				}
			}
		}
		oc.retrieved[LocomoSearch] = got
		if !o.NoRecall {
			rr, err := x.Recall(ctx, kb.RecallQuery{Task: q.Question, Budget: budget})
			if err != nil {
				res.err = fmt.Errorf("recall %q: %w", q.Question, err)
				return res
			}
			var ids []string
			seen := map[string]bool{}
			for _, it := range rr.Items {
				for _, id := range obsTurns[it.Path] {
					if !seen[id] {
						seen[id] = true
						ids = append(ids, id)
					}
				}
			}
			oc.retrieved[LocomoRecall] = ids
		}
		res.outcomes = append(res.outcomes, oc)
		tick()
	}
	return res
}
