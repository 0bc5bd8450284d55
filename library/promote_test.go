package library

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/kbmem/kb/internal/markdown"
	"github.com/kbmem/kb/observations"
)

func src(sessions ...string) []observations.SourceRef {
	var out []observations.SourceRef
	for i, s := range sessions {
		out = append(out, observations.SourceRef{Session: s, From: i + 1, To: i + 2})
	}
	return out
}

var now = time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)

func TestPlanPromotionsRules(t *testing.T) {
	obs := []*observations.Observation{
		{ID: "cor-1", Type: observations.TypeCorrection, Lesson: "Use uv, not pip.", ActionType: "pkg:pip", Trigger: "installing with pip", Sources: src("a", "b")},
		{ID: "cor-2", Type: observations.TypeCorrection, Lesson: "One-off.", Sources: src("a")},
		{ID: "cor-3", Type: observations.TypeCorrection, Lesson: "Rejected.", Status: observations.StatusRejected, Sources: src("a", "b", "c")},
		{ID: "pref-1", Type: observations.TypePreference, Statement: "Prefer table tests.", Accepts: 4, Rejects: 1, Sources: src("a", "b", "c")},
		{ID: "pref-2", Type: observations.TypePreference, Statement: "Inconsistent.", Accepts: 3, Rejects: 2, Sources: src("a", "b", "c")},
		{ID: "proc-1", Type: observations.TypeProcedure, Goal: "Test and commit a Go change", Steps: []string{"Edit *.go", "Bash: go test", "Bash: git commit"}, Sources: src("a", "b", "c")},
		{ID: "proc-2", Type: observations.TypeProcedure, Goal: "Release", Steps: []string{"Bash: make release", "Review the changelog"}, Sources: src("a", "b", "c")},
		// Mined agent routine: the gate calls it obvious, as learn does.
		{ID: "proc-3", Type: observations.TypeProcedure, Goal: "Recurring workflow: Read → Edit *.go → TodoWrite", Steps: []string{"Read", "Edit *.go", "TodoWrite"}, Sources: src("a", "b", "c")},
		{ID: "dec-1", Type: observations.TypeDecision, Chosen: "bleve", Question: "Which search library?", Importance: 0.9,
			Alternatives: []observations.Alternative{{Name: "bleve", Reasoning: "pure Go"}, {Name: "sqlite FTS", Reasoning: "needs cgo"}}, Sources: src("a")},
		{ID: "dec-2", Type: observations.TypeDecision, Chosen: "minor", Importance: 0.5, Sources: src("a")},
		{ID: "disc-1", Type: observations.TypeDiscovery, Claim: "The cache key includes the locale.", Sources: src("a", "d")},
		{ID: "disc-2", Type: observations.TypeDiscovery, Claim: "Never referenced.", Sources: src("a")},
	}
	grads := PlanPromotions(PlanInput{Observations: obs, Rules: DefaultRules(), Now: now, NoteIDs: []string{"adr-0004-old"}})
	var got []string
	for _, g := range grads {
		got = append(got, g.Kind+":"+strings.Join(g.Observations, ","))
	}
	want := "convention:cor-1 preference:pref-1 procedure:proc-1 procedure:proc-2 adr:dec-1 note:disc-1"
	if strings.Join(got, " ") != want {
		t.Fatalf("got %v\nwant %s", got, want)
	}
	if grads[4].ID != "adr-0005-use-bleve" || grads[4].Path != "library/adrs/adr-0005-use-bleve.md" {
		t.Errorf("adr = %s %s", grads[4].ID, grads[4].Path)
	}
	if !strings.Contains(string(grads[4].Content), "**sqlite FTS**: needs cgo") {
		t.Errorf("adr lacks alternatives:\n%s", grads[4].Content)
	}
	if grads[2].Skill == nil || grads[3].Skill != nil {
		t.Errorf("skills: %v %v", grads[2].Skill, grads[3].Skill)
	}
	d, err := markdown.Parse(grads[0].Path, grads[0].Content)
	if err != nil {
		t.Fatal(err)
	}
	if d.Type != TypeConvention || d.Lifecycle != "self" || strings.Join(d.Relations["derived_from"], ",") != "cor-1" ||
		strings.Join(d.Sources, ",") != "a,b" || !strings.Contains(d.Body, "installing with pip") {
		t.Errorf("convention: %+v\n%s", d.Fields, d.Body)
	}
	trig, _ := d.Fields["triggers"].([]any)
	if len(trig) == 0 || trig[0] != "pkg:pip" {
		t.Errorf("triggers = %v", d.Fields["triggers"])
	}
	// Deterministic.
	again := PlanPromotions(PlanInput{Observations: obs, Rules: DefaultRules(), Now: now, NoteIDs: []string{"adr-0004-old"}})
	for i := range grads {
		if !bytes.Equal(grads[i].Content, again[i].Content) {
			t.Errorf("graduation %d differs between runs", i)
		}
	}
	// Taken paths get a suffix.
	taken := PlanPromotions(PlanInput{Observations: obs[:1], Rules: DefaultRules(), Now: now,
		Taken: func(rel string) bool { return rel == "library/conventions/use-uv-not-pip.md" }})
	if taken[0].Path != "library/conventions/use-uv-not-pip-2.md" || taken[0].ID != "use-uv-not-pip-2" {
		t.Errorf("taken path: %s", taken[0].Path)
	}
}

func TestExplain(t *testing.T) {
	o := &observations.Observation{ID: "pref-1", Type: observations.TypePreference, Accepts: 3, Rejects: 1, Sources: src("a", "b")}
	e := Explain(o, DefaultRules())
	if e.Eligible || len(e.Checks) != 3 || e.Checks[0].Have != 4 || e.Checks[1].Have != 2 || e.Checks[2].Have != 0.75 || e.Checks[2].Met {
		t.Errorf("explain = %+v", e)
	}
	q := Explain(&observations.Observation{ID: "q", Type: observations.TypeQuestion}, DefaultRules())
	if q.Eligible || q.Note == "" {
		t.Errorf("question explain = %+v", q)
	}
}

func TestClusters(t *testing.T) {
	mk := func(id, typ, at, failure, session string) *observations.Observation {
		return &observations.Observation{ID: id, Type: typ, ActionType: at, Failure: failure, Sources: src(session)}
	}
	obs := []*observations.Observation{
		mk("n1", observations.TypeNegativeResult, "", "the test still fails with a timeout", "a"),
		mk("n2", observations.TypeNegativeResult, "docker:run", "connection attempts time out", "b"),
		mk("n3", observations.TypeNegativeResult, "", "deadline exceeded", "c"),
		mk("c1", observations.TypeCorrection, "sql:drop-column", "", "a"),
		mk("c2", observations.TypeCorrection, "sql:drop-column", "", "a"),
		mk("c3", observations.TypeCorrection, "sql:drop-column", "", "a"), // one session only: no pattern
		mk("q1", observations.TypeQuestion, "sql:drop-column", "", "d"),
	}
	cl := Clusters(obs, nil, 3)
	if len(cl) != 1 || cl[0].Key != "failure:timeout" || len(cl[0].Obs) != 3 {
		t.Fatalf("clusters = %+v", cl)
	}
	obs[5].Sources = src("e")
	cl = Clusters(obs, nil, 3)
	if len(cl) != 2 || cl[0].Key != "action:sql:drop-column" || cl[1].Key != "failure:timeout" {
		t.Fatalf("clusters = %+v", cl)
	}
	if cl := Clusters(obs, map[string]bool{"n1": true}, 3); len(cl) != 1 {
		t.Errorf("skip ignored: %+v", cl)
	}
}

func TestParameterizable(t *testing.T) {
	cases := map[string]bool{
		"Edit *.go|Bash: go test|Bash: git commit": true,
		"Edit *.go|Write *.md":                     false, // no command
		"Bash: make release|Review the changelog":  false, // judgment
		"": false,
	}
	for in, want := range cases {
		var steps []string
		if in != "" {
			steps = strings.Split(in, "|")
		}
		if got := Parameterizable(steps); got != want {
			t.Errorf("Parameterizable(%q) = %v", in, got)
		}
	}
}

func TestDraftADR(t *testing.T) {
	dec := &observations.Observation{ID: "dec-1", Type: observations.TypeDecision, Chosen: "Vite", Question: "How should we serve the app?",
		Alternatives: []observations.Alternative{{Name: "Vite", Reasoning: "HMR"}, {Name: "Rack", Reasoning: "needs Ruby"}},
		Reasons:      []string{"the team already uses Node"}, Sources: src("s1")}
	neg := &observations.Observation{ID: "neg-1", Type: observations.TypeNegativeResult, Approach: "python http.server", Failure: "no HMR",
		FollowedBy: "switched to Vite", Sources: src("s2")}
	c := DraftADR(7, []*observations.Observation{dec}, []*observations.Observation{neg}, now)
	if c.ID != "adr-0007-use-vite" || c.RelPath != "library/adrs/adr-0007-use-vite.md" {
		t.Errorf("id %s path %s", c.ID, c.RelPath)
	}
	body := string(c.Content)
	for _, want := range []string{"## Context", "How should we serve the app?", "**Rack**: needs Ruby", "**python http.server** (tried, abandoned): no HMR",
		"We chose Vite because the team already uses Node.", "switched to Vite", "## Sources", "[[dec-1]]", "s2#1-2"} {
		if !strings.Contains(body, want) {
			t.Errorf("draft lacks %q:\n%s", want, body)
		}
	}
	if _, err := markdown.Parse(c.RelPath, c.Content); err != nil {
		t.Error(err)
	}
}

func TestADRSources(t *testing.T) {
	mk := func(id, typ, session string) *observations.Observation {
		return &observations.Observation{ID: id, Type: typ, Sources: []observations.SourceRef{{Session: session}}}
	}
	dec := mk("d1", observations.TypeDecision, "s1")
	all := []*observations.Observation{dec, mk("n1", observations.TypeNegativeResult, "s1"), mk("n2", observations.TypeNegativeResult, "s2"),
		mk("c1", observations.TypeCorrection, "s1"), mk("d2", observations.TypeDecision, "s2-long")}
	d, n, err := ADRSources(dec, all)
	if err != nil || len(d) != 1 || len(n) != 1 || n[0].ID != "n1" {
		t.Errorf("from a decision: %v %v %v", d, n, err)
	}
	if _, _, err := ADRSources(all[3], all); err == nil {
		t.Error("a correction drafted an ADR")
	}
	d, n = ADRSourcesOfSession("s2", all)
	if len(d) != 1 || d[0].ID != "d2" || len(n) != 1 || n[0].ID != "n2" {
		t.Errorf("of a session (prefix): %v %v", d, n)
	}
}
