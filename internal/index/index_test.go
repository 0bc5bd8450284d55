package index

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/analysis"

	"github.com/gofrs/flock"
)

func openNew(t testing.TB) (*Index, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".index")
	ix, info, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !info.Rebuilt || info.Reason != "missing" {
		t.Fatalf("fresh open: got %+v, want rebuilt because missing", info)
	}
	t.Cleanup(func() { ix.Close() })
	return ix, dir
}

func mustApply(t testing.TB, ix *Index, changes ...Change) {
	t.Helper()
	if err := ix.Apply(changes); err != nil {
		t.Fatal(err)
	}
}

func search(t testing.TB, ix *Index, q Query) []string {
	t.Helper()
	res, err := ix.Search(q)
	if err != nil {
		t.Fatalf("search %+v: %v", q, err)
	}
	ids := make([]string, 0, len(res.Hits))
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	return ids
}

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

func wantIDs(t testing.TB, ix *Index, q Query, want ...string) {
	t.Helper()
	if q.Limit == 0 {
		q.Limit = 100
	}
	got := search(t, ix, q)
	if !reflect.DeepEqual(sorted(got), sorted(want)) && !(len(got) == 0 && len(want) == 0) {
		t.Errorf("query %q (filters %v %v %v %v): got %v, want %v", q.Text, q.Layers, q.Types, q.Tags, q.Statuses, got, want)
	}
}

func note(id, typ, title, body string, tags ...string) Doc {
	return Doc{ID: id, Layer: "library", Type: typ, Title: title, Body: body, Tags: tags, Status: "active"}
}

func file(path string, docs ...Doc) Change {
	return Change{Path: path, Stamp: Stamp{Mtime: int64(len(path)) * 1000, Size: int64(len(docs))}, Docs: docs}
}

// fixture indexes a small KB covering every layer and field kind.
func fixture(t testing.TB, ix *Index) {
	t.Helper()
	mustApply(t, ix,
		file("library/adr-0001.md", note("adr-0001", "adr", "Use Postgres for storage",
			"We decided to use Postgres. A schema migration drops the old column.", "db", "storage")),
		file("library/howto-deploy.md", note("howto-deploy", "howto", "Deploying the service",
			"Run the deploy script. Never force push to main.", "ops")),
		file("observations/corrections.jsonl",
			Doc{ID: "c1", Layer: "observations", Type: "correction", Title: "Do not force push",
				Text:     map[string]string{"trigger": "agent ran a database migration without backup", "lesson": "take a backup first"},
				Keywords: map[string][]string{"action_type": {"git:push-force"}},
				Num:      map[string]float64{"importance": 0.9, "sessions": 3}, Status: "open"},
			Doc{ID: "c2", Layer: "observations", Type: "correction", Title: "Prefer small commits",
				Text:     map[string]string{"trigger": "huge commit", "lesson": "split commits"},
				Keywords: map[string][]string{"action_type": {"git:commit"}},
				Num:      map[string]float64{"importance": 0.2, "sessions": 1}, Status: "closed"}),
		file("traces/s1.jsonl",
			Doc{ID: "s1#1", Layer: "traces", Type: "turn", Session: "s1", Seq: 1, Body: "please add a migrations folder",
				Created: time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)},
			Doc{ID: "s1#2", Layer: "traces", Type: "turn", Session: "s1", Seq: 2, Body: "done, see [[adr-0001]]",
				Links: []string{"ADR-0001"}, Created: time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)}),
	)
}

func TestSearchBasics(t *testing.T) {
	ix, _ := openNew(t)
	fixture(t, ix)
	if n, err := ix.Count(); err != nil || n != 6 {
		t.Fatalf("Count = %d, %v; want 6", n, err)
	}
	wantIDs(t, ix, Query{Text: "postgres"}, "adr-0001")
	// Stemming both ways: migrations finds migration and vice versa.
	wantIDs(t, ix, Query{Text: "migrations"}, "adr-0001", "c1", "s1#1")
	wantIDs(t, ix, Query{Text: "migration"}, "adr-0001", "c1", "s1#1")
	// OR semantics of plain words.
	wantIDs(t, ix, Query{Text: "postgres deploy"}, "adr-0001", "howto-deploy")
	// +must / -mustnot / phrases.
	wantIDs(t, ix, Query{Text: "+migration -postgres"}, "c1", "s1#1")
	wantIDs(t, ix, Query{Text: `"force push"`}, "howto-deploy", "c1")
	wantIDs(t, ix, Query{Text: `"push force"`})
	// A stop word alone in a must clause does not empty the result.
	wantIDs(t, ix, Query{Text: "+the +postgres"}, "adr-0001")
	// Plain words match ids and tags exactly.
	wantIDs(t, ix, Query{Text: "howto-deploy"}, "howto-deploy")
	wantIDs(t, ix, Query{Text: "ops"}, "howto-deploy")
	// Prefix, fuzzy and regexp.
	wantIDs(t, ix, Query{Text: "Postgr*"}, "adr-0001")
	wantIDs(t, ix, Query{Text: "postgras~1"}, "adr-0001")
	wantIDs(t, ix, Query{Text: "/deplo[a-z]+/"}, "howto-deploy")
	// Empty text matches everything.
	wantIDs(t, ix, Query{}, "adr-0001", "howto-deploy", "c1", "c2", "s1#1", "s1#2")

	res, err := ix.Search(Query{Text: "migration", Limit: 1, Offset: 1})
	if err != nil || res.Total != 3 || len(res.Hits) != 1 {
		t.Fatalf("paging: %+v %v", res, err)
	}
	res, err = ix.Search(Query{Text: "migration", Limit: -1, Offset: 1 << 40})
	if err != nil || res.Total != 3 || len(res.Hits) != 0 {
		t.Fatalf("paging past the end: %+v %v", res, err)
	}
}

func TestFieldQueries(t *testing.T) {
	ix, _ := openNew(t)
	fixture(t, ix)
	cases := map[string][]string{
		"type:adr":                            {"adr-0001"},
		"type:correction":                     {"c1", "c2"},
		"tags:db":                             {"adr-0001"},
		"tags:DB":                             nil, // keywords are case-sensitive
		"layer:traces":                        {"s1#1", "s1#2"},
		"status:open":                         {"c1"},
		"id:c2":                               {"c2"},
		"path:observations/corrections.jsonl": {"c1", "c2"},
		`path:"library/adr-0001.md"`:          {"adr-0001"},
		"session:s1":                          {"s1#1", "s1#2"},
		"seq:2":                               {"s1#2"},
		"trigger:migrations":                  {"c1"},
		"lesson:backup":                       {"c1"},
		"trigger:first":                       nil,
		`action_type:git\:push-force`:         {"c1"},
		`action_type:"git:push-force"`:        {"c1"},
		"action_type:git*":                    {"c1", "c2"},
		"importance:>0.5":                     {"c1"},
		"sessions:<=1":                        {"c2"},
		"links:adr-0001":                      {"s1#2"},
		`created:>"2025-01-01"`:               {"s1#2"},
		"title:push":                          {"c1"},
		"body:push":                           {"howto-deploy"},
		"+type:correction -status:closed":     {"c1"},
	}
	for q, want := range cases {
		wantIDs(t, ix, Query{Text: q}, want...)
	}
}

func TestFilters(t *testing.T) {
	ix, _ := openNew(t)
	fixture(t, ix)
	wantIDs(t, ix, Query{Layers: []string{"library"}}, "adr-0001", "howto-deploy")
	wantIDs(t, ix, Query{Layers: []string{"library", "traces"}, Text: "migration"}, "adr-0001", "s1#1")
	wantIDs(t, ix, Query{Types: []string{"adr", "howto"}, Tags: []string{"ops"}}, "howto-deploy")
	wantIDs(t, ix, Query{Statuses: []string{"open", "active"}, Layers: []string{"observations"}}, "c1")
	wantIDs(t, ix, Query{Tags: []string{"nope"}})
	wantIDs(t, ix, Query{Text: "migration", ExcludeLayers: []string{"traces"}}, "c1", "adr-0001")
	wantIDs(t, ix, Query{Text: "migration", Layers: []string{"library", "traces"}, ExcludeLayers: []string{"library"}}, "s1#1")
	// Filters do not change scores.
	a, _ := ix.Search(Query{Text: "migration"})
	b, _ := ix.Search(Query{Text: "migration", Layers: []string{"library", "observations", "traces"}})
	if len(a.Hits) != len(b.Hits) {
		t.Fatalf("filtered hits differ: %d vs %d", len(a.Hits), len(b.Hits))
	}
	for i := range a.Hits {
		if a.Hits[i].ID != b.Hits[i].ID || a.Hits[i].Score != b.Hits[i].Score {
			t.Errorf("hit %d: %s %v vs %s %v", i, a.Hits[i].ID, a.Hits[i].Score, b.Hits[i].ID, b.Hits[i].Score)
		}
	}
}

func TestHitFields(t *testing.T) {
	ix, _ := openNew(t)
	fixture(t, ix)
	res, err := ix.Search(Query{Text: "session:s1 AND seq:2", Fields: []string{"links", "created", "nope"}})
	if err != nil {
		t.Fatal(err)
	}
	var h *Hit
	for i := range res.Hits {
		if res.Hits[i].ID == "s1#2" {
			h = &res.Hits[i]
		}
	}
	if h == nil {
		t.Fatalf("s1#2 not found in %+v", res.Hits)
	}
	if h.Path != "traces/s1.jsonl" || h.Layer != "traces" || h.Type != "turn" || h.Session != "s1" || h.Seq != 2 {
		t.Errorf("hit = %+v", h)
	}
	if !reflect.DeepEqual(h.Fields["links"], []string{"adr-0001"}) || h.Fields["created"] == nil {
		t.Errorf("hit fields = %#v", h.Fields)
	}
	if _, ok := h.Fields["nope"]; ok {
		t.Errorf("unknown field returned")
	}
}

func TestTitleBoost(t *testing.T) {
	ix, _ := openNew(t)
	// The body-only doc mentions the word more often and is short; the
	// title match must still win.
	mustApply(t, ix,
		file("a.md", note("body-only", "note", "Unrelated heading", "rollback rollback plan")),
		file("b.md", note("title", "note", "Rollback", "This note explains how we undo a release when something goes wrong in production after the deploy finished.")),
		file("c.md", note("desc", "note", "Other", "nothing here", "x")),
	)
	mustApply(t, ix, file("c.md", Doc{ID: "desc", Layer: "library", Type: "note", Title: "Other", Description: "rollback notes", Body: "nothing here at all, just filler words for length"}))
	got := search(t, ix, Query{Text: "rollback"})
	if len(got) != 3 || got[0] != "title" {
		t.Fatalf("ranking = %v, want title first", got)
	}
	// Field-qualified queries are not expanded.
	wantIDs(t, ix, Query{Text: "title:rollback"}, "title")
}

func TestHighlight(t *testing.T) {
	ix, _ := openNew(t)
	long := strings.Repeat("filler words about nothing in particular. ", 20) +
		"Here the schema migration dropped a column in production. " +
		strings.Repeat("more filler text follows here. ", 20)
	mustApply(t, ix, file("a.md", note("a", "note", "Incident", long)),
		file("b.md", Doc{ID: "b", Title: "Migrations", Description: "short description only"}))
	res, err := ix.Search(Query{Text: "migrations column", Highlight: true})
	if err != nil {
		t.Fatal(err)
	}
	snips := map[string]string{}
	for _, h := range res.Hits {
		snips[h.ID] = h.Snippet
	}
	s := snips["a"]
	if !strings.Contains(s, "**migration**") || !strings.Contains(s, "**column**") ||
		!strings.HasPrefix(s, "…") || !strings.HasSuffix(s, "…") || len(s) > 300 || strings.Contains(s, "  ") {
		t.Errorf("snippet a = %q", s)
	}
	if snips["b"] != "short description only" {
		t.Errorf("snippet b = %q", snips["b"])
	}
	res, _ = ix.Search(Query{Text: "migrations"})
	if len(res.Hits) == 0 || res.Hits[0].Snippet != "" {
		t.Errorf("snippet without Highlight: %+v", res.Hits)
	}
}

func TestReplaceAndRemove(t *testing.T) {
	ix, _ := openNew(t)
	turns := func(n int, word string) Change {
		var docs []Doc
		for i := 1; i <= n; i++ {
			docs = append(docs, Doc{ID: "s9#" + string(rune('0'+i)), Layer: "traces", Session: "s9", Seq: i, Body: word})
		}
		return file("traces/s9.jsonl", docs...)
	}
	mustApply(t, ix, turns(3, "alpha"), file("n.md", note("n", "note", "Keep", "alpha")))
	wantIDs(t, ix, Query{Text: "alpha"}, "s9#1", "s9#2", "s9#3", "n")
	mustApply(t, ix, turns(2, "beta"))
	wantIDs(t, ix, Query{Text: "alpha"}, "n")
	wantIDs(t, ix, Query{Text: "beta"}, "s9#1", "s9#2")
	if _, ok := ix.Get("s9#3"); ok {
		t.Error("doc dropped from its file still exists")
	}
	// Idempotent: applying the same change again changes nothing.
	mustApply(t, ix, turns(2, "beta"))
	if n, _ := ix.Count(); n != 3 {
		t.Errorf("Count = %d, want 3", n)
	}
	// A note moving to another file keeps existing when the old file goes.
	mustApply(t, ix, file("m.md", note("n", "note", "Moved", "gamma")), Change{Path: "n.md", Remove: true})
	wantIDs(t, ix, Query{Text: "gamma"}, "n")
	mustApply(t, ix, Change{Path: "traces/s9.jsonl", Remove: true})
	wantIDs(t, ix, Query{}, "n")
	if _, ok := ix.Stamps()["traces/s9.jsonl"]; ok {
		t.Error("stamp of removed file kept")
	}
	if _, ok := ix.Stamps()["n.md"]; ok {
		t.Error("stamp of removed file kept")
	}
	// Removing an unknown file is fine.
	mustApply(t, ix, Change{Path: "never.md", Remove: true})
}

func TestGetRoundTrip(t *testing.T) {
	ix, dir := openNew(t)
	d := Doc{
		ID: "c1", Path: "ignored", Layer: "observations", Type: "correction", Title: "T", Description: "D", Body: "B",
		Tags: []string{"b", "a", "c"}, Lifecycle: "draft", Status: "open",
		Created: time.Date(2024, 1, 2, 3, 4, 5, 6, time.UTC), Updated: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
		Session: "s", Seq: 7, Links: []string{"x", "y"},
		Text:     map[string]string{"trigger": "tr", "lesson": "le"},
		Keywords: map[string][]string{"action_type": {"git:push-force", "rm"}},
		Num:      map[string]float64{"importance": 0.5},
	}
	mustApply(t, ix, file("observations/c.jsonl", d))
	check := func(ix *Index) {
		t.Helper()
		got, ok := ix.Get("c1")
		if !ok {
			t.Fatal("Get: not found")
		}
		want := d
		want.Path = "observations/c.jsonl"
		got.Created, got.Updated = got.Created.UTC(), got.Updated.UTC()
		if !reflect.DeepEqual(*got, want) {
			t.Errorf("Get:\n got %+v\nwant %+v", *got, want)
		}
		if _, ok := ix.Get("nope"); ok {
			t.Error("Get of unknown id succeeded")
		}
	}
	check(ix)
	stamps := ix.Stamps()
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix2, info, err := Open(dir)
	if err != nil || info.Rebuilt {
		t.Fatalf("reopen: %+v %v", info, err)
	}
	defer ix2.Close()
	if !reflect.DeepEqual(ix2.Stamps(), stamps) || len(stamps) != 1 {
		t.Errorf("stamps after reopen = %v, want %v", ix2.Stamps(), stamps)
	}
	check(ix2)
	// The field registry survives too: keyword analyzer for action_type.
	wantIDs(t, ix2, Query{Text: `action_type:"git:push-force"`}, "c1")
}

func TestAll(t *testing.T) {
	ix, _ := openNew(t)
	fixture(t, ix)
	mustApply(t, ix, file("library/howto-deploy.md")) // now empty: its doc goes
	all, err := ix.All()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Doc{}
	for _, d := range all {
		byID[d.ID] = d
	}
	if len(all) != 5 || len(byID) != 5 {
		t.Fatalf("All returned %d docs: %v", len(all), all)
	}
	adr := byID["adr-0001"]
	if adr.Path != "library/adr-0001.md" || adr.Title != "Use Postgres for storage" || adr.Type != "adr" ||
		adr.Layer != "library" || !reflect.DeepEqual(adr.Tags, []string{"db", "storage"}) || adr.Body != "" {
		t.Errorf("adr = %+v", adr)
	}
	if !reflect.DeepEqual(byID["s1#2"].Links, []string{"adr-0001"}) {
		t.Errorf("links = %v", byID["s1#2"].Links)
	}
	// AllWhere keeps the docs whose id it is told to, with the same fields.
	part, err := ix.AllWhere(nil, func(id string) bool { return id == "adr-0001" || id == "s1#2" }, DefaultAllFields...)
	if err != nil || len(part) != 2 {
		t.Fatalf("AllWhere: %v %v", part, err)
	}
	for _, d := range part {
		if !reflect.DeepEqual(d, byID[d.ID]) {
			t.Errorf("AllWhere %s = %+v, All = %+v", d.ID, d, byID[d.ID])
		}
	}
	some, err := ix.All("session", "seq")
	if err != nil || some[0].Title != "" {
		t.Fatalf("All(session, seq): %v %v", some, err)
	}
	for _, d := range some {
		if d.ID == "s1#2" && (d.Session != "s1" || d.Seq != 2) {
			t.Errorf("s1#2 = %+v", d)
		}
	}
}

func TestInvalidDocs(t *testing.T) {
	ix, _ := openNew(t)
	mustApply(t, ix, file("a.md", Doc{ID: "a", Keywords: map[string][]string{"kind": {"x"}}}))
	bad := []Change{
		file("b.md", Doc{ID: ""}),
		file("b.md", Doc{ID: "b", Text: map[string]string{"title": "x"}}),
		file("b.md", Doc{ID: "b", Text: map[string]string{"_text": "x"}}),
		file("b.md", Doc{ID: "b", Text: map[string]string{"a b": "x"}}),
		file("b.md", Doc{ID: "b", Num: map[string]float64{"kind": 1}}), // kind is a keyword field
		file("b.md", Doc{ID: "b", Text: map[string]string{"t": "x"}, Num: map[string]float64{"t": 1}}),
		{Docs: []Doc{{ID: "x"}}},
	}
	for _, c := range bad {
		err := ix.Apply([]Change{file("ok.md", note("ok", "note", "ok", "ok")), c})
		var de *DocError
		if !errors.As(err, &de) {
			t.Errorf("Apply(%+v) = %v, want *DocError", c, err)
		}
	}
	// Nothing of the rejected batches was indexed.
	wantIDs(t, ix, Query{}, "a")
}

func TestInvalidQuery(t *testing.T) {
	ix, _ := openNew(t)
	fixture(t, ix)
	for _, q := range []string{`"unterminated`, `/[/`, `a~5`, `+`, `field:>`, `created:>"not a date"`, `a:b:c`} {
		_, err := ix.Search(Query{Text: q})
		var qe *QueryError
		if !errors.As(err, &qe) {
			t.Errorf("Search(%q) = %v, want *QueryError", q, err)
		} else if qe.Error() == "" || !strings.Contains(qe.Error(), "invalid query") {
			t.Errorf("Search(%q) message %q", q, qe.Error())
		}
	}
}

func TestReset(t *testing.T) {
	ix, dir := openNew(t)
	fixture(t, ix)
	if err := ix.Reset(); err != nil {
		t.Fatal(err)
	}
	if n, _ := ix.Count(); n != 0 || len(ix.Stamps()) != 0 {
		t.Fatalf("after reset: %d docs, %d stamps", n, len(ix.Stamps()))
	}
	fixture(t, ix)
	wantIDs(t, ix, Query{Text: "postgres"}, "adr-0001")
	ix.Close()
	ix2, info, err := Open(dir)
	if err != nil || info.Rebuilt {
		t.Fatalf("reopen after reset: %+v %v", info, err)
	}
	ix2.Close()
}

func TestReadOnlyAndBusy(t *testing.T) {
	ix, dir := openNew(t)
	fixture(t, ix)
	old := BusyTimeout
	BusyTimeout = 50 * time.Millisecond
	defer func() { BusyTimeout = old }()
	// bolt's flock is per open file, so a second open in this process is
	// refused just like one from another process.
	if _, _, err := Open(dir); !errors.Is(err, ErrBusy) {
		t.Fatalf("second Open = %v, want ErrBusy", err)
	}
	if _, err := OpenReadOnly(dir); !errors.Is(err, ErrBusy) {
		t.Fatalf("OpenReadOnly while open = %v, want ErrBusy", err)
	}
	ix.Close()
	ro, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	wantIDs(t, ro, Query{Text: "postgres"}, "adr-0001")
	if err := ro.Apply([]Change{file("x.md")}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Apply on read-only = %v", err)
	}
	if err := ro.Reset(); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Reset on read-only = %v", err)
	}
	ro.Close()
	if _, err := ro.Search(Query{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Search after Close = %v", err)
	}
	var se *StaleError
	if _, err := OpenReadOnly(filepath.Join(t.TempDir(), "none")); !errors.As(err, &se) {
		t.Errorf("OpenReadOnly(missing) = %v, want *StaleError", err)
	}
}

// TestCorruption breaks a real index in various ways; Open must rebuild.
func TestCorruption(t *testing.T) {
	segments := func(t *testing.T, dir string) []string {
		m, _ := filepath.Glob(filepath.Join(dir, bleveDir, "store", "*.zap"))
		if len(m) == 0 {
			t.Fatal("no segment files found")
		}
		return m
	}
	cases := []struct {
		name   string
		break_ func(t *testing.T, dir string)
		reason string
	}{
		{"truncated segments", func(t *testing.T, dir string) {
			for _, p := range segments(t, dir) {
				st, _ := os.Stat(p)
				if err := os.Truncate(p, st.Size()/2); err != nil {
					t.Fatal(err)
				}
			}
		}, "corrupt: "},
		{"empty segments", func(t *testing.T, dir string) {
			for _, p := range segments(t, dir) {
				os.Truncate(p, 0)
			}
		}, "corrupt: "},
		{"garbage index_meta.json", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, bleveDir, "index_meta.json"), []byte("\x00garbage{{"), 0o644)
		}, "corrupt: "},
		{"deleted index_meta.json", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, bleveDir, "index_meta.json"))
		}, "corrupt: "},
		{"deleted store", func(t *testing.T, dir string) {
			os.RemoveAll(filepath.Join(dir, bleveDir, "store"))
		}, "corrupt: "},
		{"garbage root.bolt", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, bleveDir, "store", "root.bolt"), []byte(strings.Repeat("garbage!", 2048)), 0o600)
		}, "corrupt: "},
		{"deleted bleve dir", func(t *testing.T, dir string) {
			os.RemoveAll(filepath.Join(dir, bleveDir))
		}, "corrupt: "},
		{"other schema", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, schemaFile), []byte("0\n"), 0o644)
		}, "schema 0 -> " + strconv.Itoa(SchemaVersion)},
		{"garbage schema", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, schemaFile), []byte("\xff\xfe"), 0o644)
		}, "corrupt: schema"},
		{"deleted schema", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, schemaFile))
		}, "corrupt: schema file missing"},
		{"garbage stamps", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, stampsFile), []byte("KBSTAMP1 garbage"), 0o644)
		}, "corrupt: stamps"},
		{"truncated stamps", func(t *testing.T, dir string) {
			b, _ := os.ReadFile(filepath.Join(dir, stampsFile))
			os.WriteFile(filepath.Join(dir, stampsFile), b[:len(b)-3], 0o644)
		}, "corrupt: stamps"},
		{"deleted stamps", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, stampsFile))
		}, "corrupt: stamps file missing"},
		{"stamps behind index (crash before stamp write)", func(t *testing.T, dir string) {
			st, err := readStampSet(dir)
			if err != nil {
				t.Fatal(err)
			}
			m, prog := st.all()
			writeStamps(filepath.Join(dir, stampsFile), st.gen-1, m, prog)
			os.Remove(filepath.Join(dir, stampLogFile))
		}, "interrupted update"},
		{"torn last record of the stamps log", func(t *testing.T, dir string) {
			p := filepath.Join(dir, stampLogFile)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(p, b[:len(b)-3], 0o644)
		}, "interrupted update"},
		{"garbage stamps log", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, stampLogFile), []byte("KBSTLOG1 garbage"), 0o644)
		}, "interrupted update"},
		{"stamps log not a file", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, stampLogFile))
			os.MkdirAll(filepath.Join(dir, stampLogFile, "x"), 0o755)
		}, "corrupt: stamps"},
		{"deleted stamps log", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, stampLogFile))
		}, "interrupted update"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), ".index")
			ix, _, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			fixture(t, ix)
			mustApply(t, ix, file("extra.md", note("extra", "note", "Extra", "words")))
			ix.Close()
			tc.break_(t, dir)
			ix, info, err := Open(dir)
			if err != nil {
				t.Fatalf("Open after damage: %v", err)
			}
			defer ix.Close()
			if !info.Rebuilt || !strings.HasPrefix(info.Reason, tc.reason) {
				t.Fatalf("OpenInfo = %+v, want rebuilt with reason %q...", info, tc.reason)
			}
			t.Logf("reason: %s", info.Reason)
			if n, err := ix.Count(); n != 0 || err != nil || len(ix.Stamps()) != 0 {
				t.Fatalf("rebuilt index not empty: %d %v %v", n, err, ix.Stamps())
			}
			fixture(t, ix)
			wantIDs(t, ix, Query{Text: "postgres"}, "adr-0001")
			ix.Close()
			ix, info, err = Open(dir)
			if err != nil || info.Rebuilt {
				t.Fatalf("reopen after rebuild: %+v %v", info, err)
			}
		})
	}
}

func TestStampsCodec(t *testing.T) {
	m := map[string]Stamp{"a.md": {1, 2}, "traces/ü ñ.jsonl": {-5, 1 << 40}, "": {0, 0}}
	prog := map[string]Progress{"traces/ü ñ.jsonl": {Done: 1 << 39, Tail: 0xdeadbeef}}
	b := encodeStamps(42, m, prog)
	gen, got, gotProg, err := decodeStamps(b)
	if err != nil || gen != 42 || !reflect.DeepEqual(got, m) || !reflect.DeepEqual(gotProg, prog) {
		t.Fatalf("round trip: %d %v %v %v", gen, got, gotProg, err)
	}
	for i := range b {
		c := slices.Clone(b)
		c[i] ^= 0x55
		if _, _, _, err := decodeStamps(c); err == nil {
			t.Fatalf("flipped byte %d not detected", i)
		}
		if _, _, _, err := decodeStamps(b[:i]); err == nil {
			t.Fatalf("truncation at %d not detected", i)
		}
	}
}

func FuzzStamps(f *testing.F) {
	f.Add(encodeStamps(1, map[string]Stamp{"a": {1, 2}}, nil))
	f.Add(encodeStamps(3, map[string]Stamp{"t.jsonl": {1, 2}}, map[string]Progress{"t.jsonl": {Done: 2, Tail: 7}}))
	f.Add([]byte(stampMagic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		gen, m, prog, err := decodeStamps(b)
		if err != nil {
			return
		}
		gen2, m2, prog2, err := decodeStamps(encodeStamps(gen, m, prog))
		if err != nil || gen2 != gen || !reflect.DeepEqual(m2, m) || !reflect.DeepEqual(prog2, prog) {
			t.Fatalf("re-encoded stamps differ: %v", err)
		}
	})
}

// FuzzQuery: arbitrary query text never panics; failures are *QueryError.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{"", "postgres", `"force push"`, "+a -b", "type:adr", `action_type:git\:push-force`,
		"importance:>0.5", `created:>"2024-01-01"`, "a~2", "a~9", "/[/", "x*", "title:(", `\`, "^", "a^2", "::",
		"-", "+", `""`, "seq:-1", "a AND b OR c", "\x00", "tags:é*", "/a{1000}/"} {
		f.Add(s)
	}
	dir := filepath.Join(f.TempDir(), ".index")
	ix, _, err := Open(dir)
	if err != nil {
		f.Fatal(err)
	}
	defer ix.Close()
	fixture(f, ix)
	f.Fuzz(func(t *testing.T, s string) {
		_, err := ix.Search(Query{Text: s, Highlight: true, Limit: 5})
		var qe *QueryError
		if err != nil && !errors.As(err, &qe) {
			t.Fatalf("Search(%q) = %v, want nil or *QueryError", s, err)
		}
	})
}

// TestRebuildIsSerialized: a process that finds the index damaged while
// another holds the rebuild lock waits, then looks again; it never removes
// the index the other process was creating.
func TestRebuildIsSerialized(t *testing.T) {
	ix, dir := openNew(t)
	mustApply(t, ix, file("a.md", note("a", "note", "Alpha", "kept across the wait")))
	ix.Close()
	schema, err := os.ReadFile(filepath.Join(dir, schemaFile))
	if err != nil {
		t.Fatal(err)
	}
	// Another process is mid-rebuild: the schema file is not written yet.
	os.Remove(filepath.Join(dir, schemaFile))
	other := flock.New(filepath.Join(dir, rebuildLock))
	if err := other.Lock(); err != nil {
		t.Fatal(err)
	}
	type result struct {
		ix   *Index
		info OpenInfo
		err  error
	}
	done := make(chan result, 1)
	go func() {
		ix, info, err := Open(dir)
		done <- result{ix, info, err}
	}()
	select {
	case r := <-done:
		t.Fatalf("Open did not wait for the rebuild lock: %+v", r)
	case <-time.After(300 * time.Millisecond):
	}
	if _, err := os.Stat(filepath.Join(dir, bleveDir)); err != nil {
		t.Fatalf("the waiting Open removed the index being built: %v", err)
	}
	// The other process finishes: schema written last, lock released.
	os.WriteFile(filepath.Join(dir, schemaFile), schema, 0o644)
	other.Unlock()
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	defer r.ix.Close()
	if r.info.Rebuilt {
		t.Errorf("rebuilt an index another process had just made healthy: %s", r.info.Reason)
	}
	wantIDs(t, r.ix, Query{Text: "across"}, "a")
}

// TestFileNamesByTheirParts: a note naming `timeline.html`, `renderer.py`,
// `src/orders/pricing.py` or `legacy_flag` is found by the whole name and
// by each part ("timeline", "renderer", "pricing", "legacy"), as rg -i
// finds them; a word that is only inside another word is not a part.
func TestFileNamesByTheirParts(t *testing.T) {
	ix, _ := openNew(t)
	mustApply(t, ix,
		file("library/ui.md", note("ui", "note", "The UI", "The view is rendered by `timeline.html` through renderer.py.")),
		file("library/orders.md", note("orders", "note", "Orders", "Prices come from src/orders/pricing.py; drop legacy_flag later.")),
		file("library/other.md", note("other", "note", "Other", "Timelines of the project and its pricelist.")),
	)
	wantIDs(t, ix, Query{Text: "timeline.html"}, "ui")
	wantIDs(t, ix, Query{Text: "renderer"}, "ui")
	wantIDs(t, ix, Query{Text: "renderer.py"}, "ui")
	wantIDs(t, ix, Query{Text: "pricing"}, "orders")
	wantIDs(t, ix, Query{Text: "pricing.py"}, "orders")
	wantIDs(t, ix, Query{Text: "legacy"}, "orders")
	wantIDs(t, ix, Query{Text: "legacy_flag"}, "orders")
	// Stemming still joins timeline/timelines.
	wantIDs(t, ix, Query{Text: "timeline"}, "ui", "other")
	wantIDs(t, ix, Query{Text: "price"}, "orders")
}

func FuzzPartsFilter(f *testing.F) {
	for _, s := range []string{"timeline.html", "a..b", "_x_", "v1.2.3", ".", "__init__.py", "ünï.cödé"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		in := analysis.TokenStream{{Term: []byte(s), Start: 0, End: len(s), Position: 1}}
		out := (partsFilter{}).Filter(in)
		if len(out) == 0 || string(out[0].Term) != s {
			t.Fatalf("%q: the token itself is not kept first: %+v", s, out)
		}
		for _, tok := range out[1:] { // the parts
			if tok.Start < 0 || tok.End > len(s) || tok.Start > tok.End || string(tok.Term) != s[tok.Start:tok.End] || len(tok.Term) == 0 || tok.Position != 1 {
				t.Fatalf("%q: part %+v", s, tok)
			}
		}
	})
}

// Releasing the mapped pages of the segments while documents are added,
// listed and searched, and after the index is closed, changes nothing of
// what is read (the pages are read again from the files).
func TestReleaseMappedEvery(t *testing.T) {
	ix, _ := openNew(t)
	stop := ix.ReleaseMappedEvery(time.Millisecond)
	defer stop()
	fixture(t, ix)
	want, err := ix.All(DefaultAllFields...)
	if err != nil {
		t.Fatal(err)
	}
	for range 50 {
		ix.releaseMapped()
		got, err := ix.All(DefaultAllFields...)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("All after a release: %v %v, want %v", got, err, want)
		}
		wantIDs(t, ix, Query{Text: `action_type:"git:push-force"`}, "c1")
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix.releaseMapped() // closed: nothing to release
	time.Sleep(5 * time.Millisecond)
	stop()
	stop()
}

// OpenToSearch answers as OpenReadOnly does without reading the stamps;
// they are read when asked for, and damaged ones are found by the opens
// that read them, not by a query.
func TestOpenToSearch(t *testing.T) {
	ix, dir := openNew(t)
	fixture(t, ix)
	mustApply(t, ix, file("library/extra.md", note("extra", "note", "Extra", "postgres again")))
	ix.Close()
	ro, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	wantGen, wantStamps := ro.Gen(), ro.Stamps()
	want := search(t, ro, Query{Text: "postgres"})
	ro.Close()

	s, err := OpenToSearch(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.st != nil {
		t.Error("OpenToSearch read the stamps")
	}
	if s.Gen() != wantGen {
		t.Errorf("Gen = %d, want %d", s.Gen(), wantGen)
	}
	if got := search(t, s, Query{Text: "postgres"}); !slices.Equal(got, want) {
		t.Errorf("search = %v, want %v", got, want)
	}
	if got := s.Stamps(); !maps.Equal(got, wantStamps) {
		t.Errorf("Stamps = %v, want %v", got, wantStamps)
	}
	s.Close()

	// A damaged stamps file: OpenReadOnly refuses, a query still answers.
	if err := os.WriteFile(filepath.Join(dir, stampsFile), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	var se *StaleError
	if _, err := OpenReadOnly(dir); !errors.As(err, &se) {
		t.Fatalf("OpenReadOnly with damaged stamps = %v, want *StaleError", err)
	}
	s, err = OpenToSearch(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := search(t, s, Query{Text: "postgres"}); !slices.Equal(got, want) {
		t.Errorf("search with damaged stamps = %v, want %v", got, want)
	}
	if got := s.Stamps(); len(got) != 0 {
		t.Errorf("Stamps of unreadable stamps = %v, want none", got)
	}
}
