package recall

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/kbmem/kb/observations"
)

// searchOnly hides the activation index's standing list: the engine then
// takes the path of any other Searcher (a thousand candidates ranked).
type searchOnly struct{ Searcher }

// countingLister counts the standing documents the engine looked at.
type countingLister struct {
	*Compiled
	visited int
}

func (c *countingLister) eachStanding(s Search, visit func(*candidate) bool) error {
	return c.Compiled.eachStanding(s, func(cand *candidate) bool { c.visited++; return visit(cand) })
}

// A new session's standing context read from the activation index's
// standing list, best first and only until each kind has its share, is the
// one the engine builds from every candidate ranked: the same items in the
// same order, with other projects' one-off preferences, superseded and
// rejected lessons and one-off corrections left out, for a KB with many
// more candidates of each kind than are read.
func TestStandingReadsBestFirstAsTheRankingDoes(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var docs []CompileDoc
	files := memFiles{obs: map[string]*observations.Observation{}}
	statuses := []string{"", "", "", "", observations.StatusPromoted, observations.StatusSuperseded, observations.StatusRejected}
	projects := [][]string{nil, {"/work/app"}, {"/work/other"}, {"/work/app", "/work/other"}}
	for i := range 300 {
		typ := observations.TypeCorrection
		if i%2 == 1 {
			typ = observations.TypePreference
		}
		dir := map[string]string{observations.TypeCorrection: "corrections", observations.TypePreference: "preferences"}[typ]
		path := fmt.Sprintf("observations/%s/o%03d.md", dir, i)
		f := map[string]any{
			"sessions":   float64(1 + rng.Intn(5)),
			"importance": float64(rng.Intn(10)) / 10,
			"status":     statuses[rng.Intn(len(statuses))],
			"sources":    []string{fmt.Sprintf("traces/s%d.jsonl#3", i)},
			"lesson":     fmt.Sprintf("Lesson %d: run the check %d first.", i, i),
			"trigger":    fmt.Sprintf("running step %d", i),
			"statement":  fmt.Sprintf("Prefer tool %d for job %d.", i, i),
		}
		if p := projects[rng.Intn(len(projects))]; p != nil {
			f["projects"] = p
		}
		id := fmt.Sprintf("o%03d", i)
		docs = append(docs, CompileDoc{Hit: Hit{Path: path, ID: id, Layer: LayerObservations, Type: typ,
			Title: fmt.Sprintf("Lesson %d", i), Fields: f}, Body: fmt.Sprint(f["lesson"]), Stamp: "1:1"})
		files.obs[path] = &observations.Observation{ID: id, Type: typ, Title: fmt.Sprintf("Lesson %d", i),
			Sessions: int(f["sessions"].(float64)), Importance: f["importance"].(float64), Status: f["status"].(string),
			Lesson: fmt.Sprint(f["lesson"]), Trigger: fmt.Sprint(f["trigger"]), Statement: fmt.Sprint(f["statement"])}
	}
	c := compile(t, docs, CompileOptions{})
	for _, q := range []Query{
		{Standing: true, Project: "/work/app"},
		{Standing: true, Project: "/work/app", Budget: 100000},
		{Standing: true},
	} {
		var got [2][]string
		lister := &countingLister{Compiled: c}
		for i, ix := range []Searcher{lister, searchOnly{c}} {
			e := &Engine{Index: ix, Files: files, Config: Config{ScopeProjects: true}}
			res, err := e.Recall(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range res.Items {
				got[i] = append(got[i], it.ID)
			}
			got[i] = append(got[i], res.Markdown())
		}
		if !slices.Equal(got[0], got[1]) {
			t.Errorf("%+v: from the standing list\n%q\nranked\n%q", q, got[0], got[1])
		}
		if len(got[0]) < 2 {
			t.Errorf("%+v: nothing stands: %q", q, got[0])
		}
		if lister.visited >= 150 {
			t.Errorf("%+v: looked at %d standing documents of 300 to read %d", q, lister.visited, len(got[0])-1)
		}
	}
}

// The standing lists are one per layer: a search of the library's reads
// the library's alone (it walked every observation's posting before), and
// one of every layer visits them merged best first, as one list did.
func TestStandingListsPerLayer(t *testing.T) {
	var docs []CompileDoc
	for i := range 60 {
		layer, typ := LayerObservations, observations.TypePreference
		if i%4 == 0 {
			layer, typ = LayerLibrary, "convention"
		}
		docs = append(docs, CompileDoc{Hit: Hit{Path: fmt.Sprintf("%s/x/d%02d.md", layer, i), Layer: layer, Type: typ, Title: "doc",
			Fields: map[string]any{"importance": float64(i%10) / 10, "sessions": float64(1 + i%3), "lesson": "Prefer x"}}, Stamp: "1:1"})
	}
	c := compile(t, docs, CompileOptions{Taxonomy: observations.Default()})
	visit := func(s Search) (paths []string, ranks []float32) {
		err := c.eachStanding(s, func(cand *candidate) bool {
			paths = append(paths, cand.path)
			ranks = append(ranks, c.doc(cand.doc).rank)
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		return paths, ranks
	}
	lib, _ := visit(Search{Layers: []string{LayerLibrary}})
	if len(lib) != 15 {
		t.Fatalf("library: %d documents, want 15", len(lib))
	}
	all, ranks := visit(Search{})
	if len(all) != 60 {
		t.Fatalf("every layer: %d documents, want 60", len(all))
	}
	for i := 1; i < len(ranks); i++ {
		if ranks[i] > ranks[i-1] {
			t.Fatalf("not best first at %d: %v after %v", i, ranks[i], ranks[i-1])
		}
	}
	hits, err := c.Search(Search{Standing: true, Layers: []string{LayerObservations, LayerLibrary}, Limit: 10})
	if err != nil || len(hits) != 10 {
		t.Fatalf("standing search of both layers: %d hits, %v", len(hits), err)
	}
	for i := range hits {
		if hits[i].Path != all[i] {
			t.Errorf("hit %d: %s, the merged list's %s", i, hits[i].Path, all[i])
		}
	}
}

// A new session in a project reads the one-off preferences of that
// project (its own path, a directory inside it or around it, a project of
// the same name, none written by a person), the lessons that recurred
// there or in two projects, and none of the others (a lesson that
// recurred in one other project is out of its scope): a KB of many
// projects is not walked whole to find that none of its lessons stands
// here.
func TestStandingWalkOfOneProject(t *testing.T) {
	var docs []CompileDoc
	add := func(name string, projects []string, sessions float64) {
		f := map[string]any{"importance": 0.5, "sessions": sessions, "status": "candidate", "statement": "Prefer " + name,
			"sources": []string{"traces/s1.jsonl#3"}}
		if projects != nil {
			f["projects"] = projects
		}
		if name == "noproject" {
			delete(f, "sources") // written by a person: it stands in every project
		}
		docs = append(docs, CompileDoc{Hit: Hit{Path: "observations/preferences/" + name + ".md", ID: name, Layer: LayerObservations,
			Type: observations.TypePreference, Title: name, Fields: f}, Stamp: "1:1"})
	}
	for i := range 300 {
		add(fmt.Sprintf("other%03d", i), []string{fmt.Sprintf("/home/dev/project%03d", i)}, 1)
	}
	add("same", []string{"/home/dev/app"}, 1)
	add("inside", []string{"/home/dev/app/web"}, 1)
	add("around", []string{"/home/dev"}, 1)
	add("samename", []string{"C:\\src\\App"}, 1)
	add("noproject", nil, 1)
	add("nodirectory", nil, 1)                                     // a session that recorded no directory: it stands nowhere
	add("recurring", []string{"/home/dev/project007"}, 3)          // another project's: outOfScope
	add("recurring2", []string{"/home/dev/p1", "/home/dev/p2"}, 3) // seen in two projects: it travels
	add("recurringhere", []string{"/home/dev/app"}, 3)
	c := compile(t, docs, CompileOptions{Taxonomy: observations.Default()})
	var seen []string
	err := c.eachStanding(Search{Layers: []string{LayerObservations}, Project: "/home/dev/app"}, func(cand *candidate) bool {
		seen = append(seen, cand.path)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"same", "inside", "around", "samename", "noproject", "recurring2", "recurringhere"} {
		if !slices.Contains(seen, "observations/preferences/"+want+".md") {
			t.Errorf("%s not visited: %q", want, seen)
		}
	}
	if len(seen) != 7 {
		t.Errorf("visited %d standing documents, want the 7 that may stand here: %q", len(seen), seen)
	}
	// What stands in every project is listed by layer and type: a walk
	// for preferences reads no other type's postings, and none of one
	// project's.
	if l, ok := c.termList(termWideStanding, LayerObservations+"\x00"+observations.TypePreference); !ok || l.n != 1 {
		t.Errorf("the observations' wide list of preferences: %+v, %v; want recurring2 alone", l, ok)
	}
	if _, ok := c.termList(termWideStanding, LayerObservations+"\x00"+observations.TypeCorrection); ok {
		t.Errorf("a list of corrections in a KB of preferences")
	}
}

// A recurring correction stands; a recurring failure report ("Check that
// the change to X really works; the person reported: ...") is about
// changing X and does not, unless a person promoted it.
func TestFailureReportDoesNotStand(t *testing.T) {
	var docs []CompileDoc
	add := func(name, lesson, status string) {
		f := map[string]any{"importance": 0.5, "sessions": 3.0, "status": status, "lesson": lesson,
			"sources": []string{"traces/s1.jsonl#3"}, "projects": []string{"/home/dev/app"}}
		docs = append(docs, CompileDoc{Hit: Hit{Path: "observations/correction/" + name + ".md", ID: name, Layer: LayerObservations,
			Type: observations.TypeCorrection, Title: name, Fields: f}, Stamp: "1:1"})
	}
	report := "Check that the change to `web/app.tsx` really works before calling it done" + observations.FailureReported + "“./web/app.tsx Error: ╭─[/w/app.tsx:9:1]”."
	add("rule", "Use pnpm, not npm: the lockfile is pnpm's.", observations.StatusCandidate)
	add("report", report, observations.StatusCandidate)
	add("promoted", report, observations.StatusPromoted)
	c := compile(t, docs, CompileOptions{Taxonomy: observations.Default()})
	var seen []string
	if err := c.eachStanding(Search{Layers: []string{LayerObservations}, Project: "/home/dev/app"}, func(cand *candidate) bool {
		seen = append(seen, cand.id)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(seen)
	if !slices.Equal(seen, []string{"promoted", "rule"}) {
		t.Errorf("standing %q, want the rule and the promoted report", seen)
	}
}
