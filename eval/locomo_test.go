package eval

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/kbmem/kb/internal/testenv"
	"github.com/kbmem/kb/kb"
)

const eps = 1e-4

func near(a, b float64) bool { return math.Abs(a-b) < eps }

func TestLocomoMetricsHandWorked(t *testing.T) {
	retrieved := []string{"a", "x", "b", "y", "c"}
	relevant := []string{"a", "b", "c", "d"}
	cases := []struct {
		k         int
		rec, ndcg float64
		retrieved []string
		relevant  []string
		name      string
	}{
		// top 3 = a x b: 2 of 4 relevant; DCG = 1 + 1/log2(4) = 1.5,
		// IDCG(3) = 1 + 1/log2(3) + 1/2 = 2.1309.
		{3, 0.5, 0.70392, retrieved, relevant, "k3"},
		// top 5 adds c at rank 5: DCG = 1.5 + 1/log2(6) = 1.88685,
		// IDCG(4 relevant) = 2.1309 + 1/log2(5) = 2.56161.
		{5, 0.75, 0.73659, retrieved, relevant, "k5"},
		{1, 0.25, 1, retrieved, relevant, "k1"},
		// The only relevant item at rank 2: nDCG = 1/log2(3).
		{5, 1, 0.63093, []string{"x", "a"}, []string{"a"}, "rank2"},
		// Duplicates count once.
		{5, 0.5, 0.61315, []string{"a", "a", "a"}, []string{"a", "b"}, "dup"},
		{5, 0, 0, nil, []string{"a"}, "none"},
		{5, 0, 0, []string{"a"}, nil, "no-relevant"},
	}
	for _, c := range cases {
		if got := recallAt(c.retrieved, c.relevant, c.k); !near(got, c.rec) {
			t.Errorf("%s: recall@%d = %.5f, want %.5f", c.name, c.k, got, c.rec)
		}
		if got := ndcgAt(c.retrieved, c.relevant, c.k); !near(got, c.ndcg) {
			t.Errorf("%s: nDCG@%d = %.5f, want %.5f", c.name, c.k, got, c.ndcg)
		}
	}
}

func TestLocomoSynthetic(t *testing.T) {
	rep, err := Locomo(context.Background(), filepath.Join("testdata", "locomo-synthetic.json"),
		LocomoOptions{Ks: []int{5, 1, 5}, Details: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Questions != 5 || rep.SkippedNoEvidence != 1 || rep.DroppedEvidence != 2 {
		t.Errorf("questions %d skipped %d dropped %d, want 5 1 2", rep.Questions, rep.SkippedNoEvidence, rep.DroppedEvidence)
	}
	if rep.Sessions != 3 || rep.Turns != 6 {
		t.Errorf("sessions %d turns %d, want 3 and 6", rep.Sessions, rep.Turns)
	}
	if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0], "session_3") {
		t.Errorf("problems %q, want the unparsable date of session_3", rep.Problems)
	}
	if len(rep.Ks) != 2 || rep.Ks[0] != 1 || rep.Ks[1] != 5 {
		t.Fatalf("ks %v, want [1 5]", rep.Ks)
	}
	if len(rep.Systems) != 2 || rep.Systems[0].Name != LocomoSearch || rep.Systems[1].Name != LocomoRecall {
		t.Fatalf("systems %+v", rep.Systems)
	}
	s := rep.Systems[0]
	// Hand-worked ranks: Q1 D1:2 at 1; Q2 D1:2 and D2:2 at 1-2 (either
	// order); Q3 evidence D2:1 at 2 behind D1:1; Q4 D1:3 at 1; Q6 D2:2 at 1.
	// recall@1 = (1 + .5 + 0 + 1 + 1)/5, nDCG@1 = 4/5, recall@5 = 1,
	// nDCG@5 = (4 + 1/log2(3))/5.
	want := []LocomoAtK{{K: 1, Recall: 0.7, NDCG: 0.8}, {K: 5, Recall: 1, NDCG: 0.92619}}
	for i, w := range want {
		g := s.Overall.At[i]
		if g.K != w.K || !near(g.Recall, w.Recall) || !near(g.NDCG, w.NDCG) {
			t.Errorf("overall %+v, want %+v", g, w)
		}
	}
	if s.Overall.Questions != 5 || len(s.Categories) != 5 {
		t.Fatalf("overall %+v, categories %+v", s.Overall, s.Categories)
	}
	byName := map[string]LocomoScore{}
	for _, c := range s.Categories {
		byName[c.Name] = c
	}
	for name, w := range map[string][2]float64{ // recall@1, nDCG@5
		"multi-hop": {0.5, 1}, "temporal": {0, 0.63093}, "open-domain": {1, 1}, "single-hop": {1, 1}, "adversarial": {1, 1},
	} {
		c, ok := byName[name]
		if !ok {
			t.Errorf("no category %s", name)
			continue
		}
		if c.Questions != 1 || !near(c.At[0].Recall, w[0]) || !near(c.At[1].NDCG, w[1]) {
			t.Errorf("%s: %+v, want recall@1 %.3f nDCG@5 %.3f", name, c, w[0], w[1])
		}
	}
	if len(rep.Details) != 5 {
		t.Fatalf("details: %d", len(rep.Details))
	}
	for _, d := range rep.Details {
		if d.Question == "Did Ferdinand ever paint spaceships?" && (len(d.Evidence) != 1 || d.Evidence[0] != "D2:2") {
			t.Errorf("evidence D2:02 not normalized: %v", d.Evidence)
		}
	}
	// Search only, one conversation by id.
	rep2, err := Locomo(context.Background(), filepath.Join("testdata", "locomo-synthetic.json"),
		LocomoOptions{Conversations: []string{"syn-1"}, NoRecall: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep2.Systems) != 1 || rep2.Observations != 0 || rep2.Systems[0].Overall.At[0].K != 5 {
		t.Errorf("search-only report: %+v", rep2)
	}
	if _, err := Locomo(context.Background(), filepath.Join("testdata", "locomo-synthetic.json"),
		LocomoOptions{Conversations: []string{"conv-404"}}); !errors.Is(err, kb.ErrNotFound) {
		t.Errorf("unknown conversation: %v, want kb.ErrNotFound", err)
	}
}

func TestLocomoTurnText(t *testing.T) {
	tu := locomoTurn{Speaker: "Odile", Text: " hi ", BlipCaption: "a cat"}
	d, ok := parseLocomoDate("1:56 pm on 8 May, 2023")
	if !ok || d.Format("2006-01-02 15:04") != "2023-05-08 13:56" {
		t.Fatalf("date %v %v", d, ok)
	}
	if got := locomoTurnText(tu, d, LocomoOptions{}); got != "Odile: hi [shares a photo: a cat]" {
		t.Errorf("text %q", got)
	}
	if got := locomoTurnText(tu, d, LocomoOptions{NoSpeaker: true, DateInText: true}); got != "hi [shares a photo: a cat]\n(8 May 2023)" {
		t.Errorf("text %q", got)
	}
	if _, ok := parseLocomoDate("yesterday"); ok {
		t.Error("parsed a non-date")
	}
}

func TestParseLocomoErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"[\n{\"sample_id\": 3}]", "x.json:2: "},
		{"[\n\n{", "x.json:3: invalid JSON"},
		{`{"a":1}`, "x.json:1: "},
		{`[{"sample_id":"a","conversation":{"session_1":"oops"}}]`, `sample "a": session_1 is not a list`},
		{`[{"sample_id":"a"},{"sample_id":"a"}]`, "duplicate sample_id"},
	} {
		_, err := parseLocomo("x.json", []byte(c.in))
		var le *LocomoError
		if err == nil || !errors.As(err, &le) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
	convs, err := parseLocomo("x.json", []byte(`[{"conversation":{"session_2":[{"speaker":"A","text":"t"}]},"qa":[{"question":"q","evidence":"D2:1","category":9}]}]`))
	if err != nil || len(convs) != 1 || convs[0].ID != "conv-1" || convs[0].Sessions[0].Turns[0].DiaID != "D2:1" ||
		len(convs[0].Questions) != 1 || len(convs[0].Problems) != 2 {
		t.Errorf("lenient parse: %+v %v", convs, err)
	}
}

func TestPlainQuery(t *testing.T) {
	for in, want := range map[string]string{
		`What is Caroline's job?`:                     "caroline job",
		`When did Melanie paint a sunrise? (2022)`:    "melanie paint sunrise 2022",
		`+must -not "quoted" a:b title:x* ~1 /re/ !^`: "quoted b title x 1",
		`Don't you know?`:                             "know",
		`May 7th: café, café!`:                        "may 7th café",
		`???`:                                         "",
	} {
		if got := PlainQuery(in); got != want {
			t.Errorf("PlainQuery(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzPlainQuery(f *testing.F) {
	for _, s := range []string{"What's up?", `a:b "c" (d) +e -f g* h~ /i/ !j ^k 'l'`, "Ünïcødé’s text", "\\", "AND OR NOT"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := PlainQuery(s)
		if strings.ContainsAny(q, `?:()"+-*~/!^'\[]{}&|<>=`) {
			t.Fatalf("PlainQuery(%q) = %q keeps query syntax", s, q)
		}
		if q != "" {
			if _, err := query.NewQueryStringQuery(q).Parse(); err != nil {
				t.Fatalf("PlainQuery(%q) = %q does not parse: %v", s, q, err)
			}
		}
	})
}

func FuzzParseLocomo(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("testdata", "locomo-synthetic.json")); err == nil {
		f.Add(b)
	}
	for _, s := range []string{"", "[]", "[{}]", `[{"conversation":{"session_1":[{}],"session_1_date_time":"x"},"qa":[{"evidence":["D1:1 D1:2;D","D:1:1"],"category":1}]}]`,
		`[{"qa":[{"evidence":[1,null,{}]}]}]`, `[{"conversation":{"session_999999":[]}}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		convs, err := parseLocomo("f.json", b)
		if err != nil {
			return
		}
		for _, c := range convs {
			ids := map[string]bool{}
			for _, s := range c.Sessions {
				for _, tu := range s.Turns {
					ids[tu.DiaID] = true
				}
			}
			for _, q := range c.Questions {
				if len(q.Evidence) == 0 {
					t.Fatal("question without evidence kept")
				}
				for _, e := range q.Evidence {
					if !ids[e] {
						t.Fatalf("evidence %q names no turn", e)
					}
				}
			}
		}
	})
}

// locomoFile is ../shared/data/locomo/locomo10.json next to the repo.
func locomoFile(t *testing.T) string {
	t.Helper()
	dir := testenv.ModuleRoot(t)
	p := filepath.Join(dir, "..", "shared", "data", "locomo", "locomo10.json")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("LoCoMo data not available (%s): skipping the real-data check", p)
	}
	return p
}

func TestLocomoReal(t *testing.T) {
	p := locomoFile(t)
	rep, err := Locomo(context.Background(), p, LocomoOptions{Conversations: []string{"conv-26"}, NoRecall: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Questions < 150 || len(rep.Problems) != 0 {
		t.Errorf("questions %d, problems %q", rep.Questions, rep.Problems)
	}
	at := rep.Systems[0].Overall.At
	if at[1].K != 10 || at[1].Recall <= 0.3 {
		t.Errorf("search recall@10 = %.3f, want > 0.3", at[1].Recall)
	}
	t.Logf("conv-26 search: %+v", at)
}
