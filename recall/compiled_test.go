package recall

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/observations"
)

func compiledDocs() []CompileDoc {
	obs := func(path, typ, title string, f map[string]any, body string) CompileDoc {
		return CompileDoc{Hit: Hit{Path: path, ID: filepath.Base(path), Layer: LayerObservations, Type: typ, Title: title, Fields: f},
			Body: body, Stamp: "1:1"}
	}
	return []CompileDoc{
		obs("observations/corrections/push.md", observations.TypeCorrection, "Never force-push main",
			map[string]any{"action_type": "git:push-force", "action_types": []string{"git:push-force", "git:push"}, "trigger": "git push --force",
				"lesson": "Never force-push main; open a revert PR instead.", "sessions": 2.0, "importance": 0.9},
			"Never force-push main; open a revert PR instead."),
		obs("observations/corrections/migrate.md", observations.TypeCorrection, "Run the migration check",
			map[string]any{"action_type": "db:migrate", "lesson": "Run `make migrate-check` before applying migrations to renderer.py.", "sessions": 1.0},
			"Run make migrate-check before applying migrations. The renderer.py file holds the schema."),
		obs("observations/preferences/tabs.md", observations.TypePreference, "Tabs in Go",
			map[string]any{"statement": "Use tabs in Go files", "sessions": 3.0}, "Use tabs in Go files"),
		{Hit: Hit{Path: "library/conventions/review.md", ID: "review", Layer: LayerLibrary, Type: "convention", Title: "Review before merge",
			Fields: map[string]any{"triggers": []string{"merging a pull request"}}}, Body: "Ask for one review.", Stamp: "2:2"},
	}
}

func compile(t testing.TB, docs []CompileDoc, o CompileOptions) *Compiled {
	t.Helper()
	var buf bytes.Buffer
	if err := Compile(&buf, docs, o); err != nil {
		t.Fatal(err)
	}
	c, err := ParseCompiled(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func paths(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Path)
	}
	return out
}

// The activation index answers each kind of question recall asks: action
// types whole, words through the analyzer (stems, file names whole and in
// parts, stop words dropped), triggered library notes, and a layer and
// type listing ranked as the engine ranks standing candidates (consequence
// x recurrence, standingWeight: the correction of importance 0.9 seen in 2
// sessions before the preference of 3 sessions and no importance); filters
// and limits hold.
func TestCompiledSearch(t *testing.T) {
	c := compile(t, compiledDocs(), CompileOptions{Meta: CompiledMeta{Dirs: map[string]int64{"observations": 1}}, Taxonomy: observations.Default()})
	if c.Meta().Docs != 4 {
		t.Fatalf("meta %+v", c.Meta())
	}
	for _, tc := range []struct {
		name string
		s    Search
		want []string
	}{
		{"type", Search{ActionTypes: []string{"git:push"}}, []string{"observations/corrections/push.md"}},
		{"type case-sensitive", Search{ActionTypes: []string{"Git:Push"}}, nil},
		{"types ranked by rarity", Search{ActionTypes: []string{"git:push", "db:migrate", "git:push-force"}},
			[]string{"observations/corrections/push.md", "observations/corrections/migrate.md"}},
		{"stemmed word", Search{Words: []string{"migrations"}}, []string{"observations/corrections/migrate.md"}},
		{"file name part", Search{Words: []string{"renderer"}}, []string{"observations/corrections/migrate.md"}},
		{"quoted file name", Search{Words: []string{`"renderer.py"`}}, []string{"observations/corrections/migrate.md"}},
		{"stop words only", Search{Words: []string{"the", "before"}}, nil},
		{"layer filter", Search{Words: []string{"review"}, Layers: []string{LayerObservations}}, nil},
		{"triggered", Search{Triggered: true, Layers: []string{LayerLibrary}}, []string{"library/conventions/review.md"}},
		{"standing, consequence x recurrence first", Search{Layers: []string{LayerObservations}, DocTypes: []string{observations.TypeCorrection, observations.TypePreference}},
			[]string{"observations/corrections/push.md", "observations/preferences/tabs.md", "observations/corrections/migrate.md"}},
		{"standing only", Search{Layers: []string{LayerObservations}, Standing: true},
			[]string{"observations/corrections/push.md", "observations/preferences/tabs.md"}},
		{"limit", Search{Layers: []string{LayerObservations}, Limit: 1}, []string{"observations/corrections/push.md"}},
	} {
		hits, err := c.Search(tc.s)
		if err != nil {
			t.Fatal(err)
		}
		if got := paths(hits); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	hits, _ := c.Search(Search{ActionTypes: []string{"git:push-force"}})
	cd := candidateOf(hits[0])
	if cd.pre == nil || cd.lesson == "" || !slices.Contains(cd.types, "git:push-force") || cd.sessions != 2 {
		t.Errorf("the compiled candidate: %+v", cd)
	}
	// Its trigger was classified when compiled, with this taxonomy.
	if tt := cd.triggerTypes(observations.Default()); !slices.Contains(tt, "git:push-force") || cd.pre.taxKey != observations.Default().Key() {
		t.Errorf("trigger types %v (key %q)", tt, cd.pre.taxKey)
	}
}

// An unchanged document (same path and stamp) keeps the records of the
// previous index, read from it, not from its file; a changed one is read
// again.
func TestCompileReusesUnchanged(t *testing.T) {
	loads := map[string]int{}
	var mu sync.Mutex // Compile loads on every core
	load := func(path, layer string) (*observations.Observation, *doc.Document, error) {
		mu.Lock()
		loads[path]++
		mu.Unlock()
		if layer == LayerObservations {
			return &observations.Observation{ID: path, Lesson: "from " + path}, nil, nil
		}
		return nil, &doc.Document{Title: "note"}, nil
	}
	docs := compiledDocs()
	prev := compile(t, docs, CompileOptions{Load: load})
	if len(loads) != 4 {
		t.Fatalf("first compile loaded %v", loads)
	}
	docs[1].Stamp = "9:9"
	clear(loads)
	c := compile(t, docs, CompileOptions{Load: load, Prev: prev})
	if len(loads) != 1 || loads["observations/corrections/migrate.md"] != 1 {
		t.Errorf("second compile loaded %v", loads)
	}
	hits, _ := c.Search(Search{ActionTypes: []string{"git:push-force"}})
	if len(hits) != 1 || hits[0].ID != "push.md" {
		t.Fatalf("hits %+v", hits)
	}
}

// The item of a hit comes from the index while its file is the one
// compiled, and from the file once it changed.
func TestCompiledFilesFollowTheFile(t *testing.T) {
	root := t.TempDir()
	rel := "observations/corrections/push.md"
	abs := filepath.Join(root, rel)
	os.MkdirAll(filepath.Dir(abs), 0o755)
	file := "---\nid: cor-1\ntype: correction\ntitle: Never force-push main\ntrigger: git push --force\nlesson: From the file.\n---\n"
	os.WriteFile(abs, []byte(file), 0o644)
	st, _ := os.Lstat(abs)
	d := compiledDocs()[0]
	d.Stamp = StampOf(st)
	c := compile(t, []CompileDoc{d}, CompileOptions{Load: func(string, string) (*observations.Observation, *doc.Document, error) {
		return &observations.Observation{ID: "cor-1", Type: observations.TypeCorrection, Lesson: "From the index."}, nil, nil
	}})
	if _, err := c.Search(Search{ActionTypes: []string{"git:push-force"}}); err != nil {
		t.Fatal(err)
	}
	r := c.Files(root)
	if o, err := r.Observation(rel); err != nil || o.Lesson != "From the index." {
		t.Fatalf("unchanged file: %+v %v", o, err)
	}
	os.WriteFile(abs, []byte(strings.Replace(file, "From the file.", "From the edited file.", 1)), 0o644)
	future := time.Now().Add(time.Hour)
	os.Chtimes(abs, future, future)
	if o, err := r.Observation(rel); err != nil || o.Lesson != "From the edited file." {
		t.Fatalf("edited file: %+v %v", o, err)
	}
}

// A recall over the activation index gives what a recall over any other
// Searcher of the same documents gives (the in-memory one of the engine
// tests, which reads the fields as the bleve index stores them).
func TestCompiledRecallMatchesFields(t *testing.T) {
	docs := compiledDocs()
	c := compile(t, docs, CompileOptions{})
	mem := &memIndex{}
	for _, d := range docs {
		mem.hits = append(mem.hits, d.Hit)
	}
	files := memFiles{obs: map[string]*observations.Observation{}}
	for _, d := range docs {
		if d.Layer == LayerObservations {
			files.obs[d.Path] = &observations.Observation{ID: d.ID, Type: d.Type, Title: d.Title, Sessions: int(fieldNumber(d.Fields["sessions"])),
				Trigger: fieldString(d.Fields["trigger"]), Lesson: fieldString(d.Fields["lesson"]), Statement: fieldString(d.Fields["statement"])}
		}
	}
	q := Query{Tool: "Bash", Input: []byte(`{"command":"git push --force origin main"}`)}
	var got [2][]string
	for i, ix := range []Searcher{c, mem} {
		e := &Engine{Index: ix, Files: files}
		res, err := e.Recall(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		got[i] = res.ActionTypes
		for _, it := range res.Items {
			got[i] = append(got[i], it.ID)
		}
	}
	if !slices.Equal(got[0], got[1]) || !slices.Contains(got[0], "push.md") {
		t.Errorf("compiled %v, fields %v", got[0], got[1])
	}
}

// ParseCompiled refuses a truncated, foreign or tampered file without a
// panic; Search over what it accepts does not panic.
func TestParseCompiledRefusesDamage(t *testing.T) {
	var buf bytes.Buffer
	if err := Compile(&buf, compiledDocs(), CompileOptions{}); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	for n := 0; n < len(b); n += 7 {
		if _, err := ParseCompiled(b[:n]); err == nil {
			t.Fatalf("a file cut at %d of %d parsed", n, len(b))
		}
	}
	if _, err := OpenCompiled(filepath.Join(t.TempDir(), CompiledFile)); !errors.Is(err, ErrNoCompiled) {
		t.Errorf("missing file: %v", err)
	}
}

// FuzzParseCompiled: any bytes are parsed or refused, and what is parsed
// answers every kind of search without a panic.
func FuzzParseCompiled(f *testing.F) {
	var buf bytes.Buffer
	Compile(&buf, compiledDocs(), CompileOptions{})
	f.Add(buf.Bytes())
	f.Add([]byte(compiledMagic + "\x02\x00\x00\x00{}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseCompiled(b)
		if err != nil {
			return
		}
		for _, s := range []Search{{ActionTypes: []string{"git:push"}}, {Words: []string{"migrations", `"renderer.py"`}},
			{Triggered: true}, {Layers: []string{LayerObservations}}} {
			hits, _ := c.Search(s)
			for _, h := range hits {
				c.Files(t.TempDir()).Observation(h.Path)
			}
		}
	})
}

// A candidate record decodes to what was encoded, every field (filled by
// reflection: a field added and not written fails); a record cut anywhere
// is refused.
func TestCandRecordRoundTrip(t *testing.T) {
	var r candRecord
	fillAll(t, &r)
	b := r.marshal()
	var got candRecord
	if err := got.unmarshal(b); err != nil || !reflect.DeepEqual(got, r) {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	for n := 0; n < len(b); n++ {
		var x candRecord
		if x.unmarshal(b[:n]) == nil {
			t.Fatalf("a record cut at %d of %d decoded", n, len(b))
		}
	}
}

// A compile reads at most MaxLoads files, the most recurring documents
// first; the others get no item record (a hook reads their file).
func TestCompileBoundsLoads(t *testing.T) {
	var mu sync.Mutex
	loads := map[string]bool{}
	load := func(path, layer string) (*observations.Observation, *doc.Document, error) {
		mu.Lock()
		loads[path] = true
		mu.Unlock()
		return &observations.Observation{ID: path}, nil, nil
	}
	first := compile(t, compiledDocs(), CompileOptions{Load: load, MaxLoads: 2})
	if len(loads) != 2 || !loads["observations/preferences/tabs.md"] || !loads["observations/corrections/push.md"] || first.Meta().Unloaded != 2 {
		t.Errorf("loaded %v (%d unloaded), want the two recurring ones", loads, first.Meta().Unloaded)
	}
	// The next compile loads the rest, keeping what the first loaded.
	clear(loads)
	next := compile(t, compiledDocs(), CompileOptions{Load: load, MaxLoads: 2, Prev: first})
	if len(loads) != 2 || loads["observations/preferences/tabs.md"] || next.Meta().Unloaded != 0 {
		t.Errorf("second compile loaded %v (%d unloaded)", loads, next.Meta().Unloaded)
	}
}

// A compile that reuses the unchanged documents of the previous index
// whole (Reuse: path and stamp only) writes the same bytes as a compile of
// every document in full, over random edits, additions and removals: the
// postings carried over are renumbered and merged, the best-first lists
// sorted again, layers and types interned in the same order.
func TestCompileIncrementalEqualsFull(t *testing.T) {
	load := func(path, layer string) (*observations.Observation, *doc.Document, error) {
		if layer == LayerObservations {
			return &observations.Observation{ID: path, Lesson: "from " + path}, nil, nil
		}
		return nil, &doc.Document{Title: "note " + path}, nil
	}
	words := strings.Fields("push force main revert migration schema renderer tabs review merge deploy staging wipe cache token")
	mk := func(i, v int) CompileDoc {
		w := func(k int) string { return words[(i*7+v*3+k)%len(words)] }
		f := map[string]any{"sessions": float64((i + v) % 4), "importance": float64(i%10) / 10}
		if i%3 == 0 {
			f["action_types"] = []string{"git:" + w(1), "shell:" + w(2)}
		}
		if i%5 == 0 {
			f["triggers"] = []string{"when " + w(3)}
		}
		layer, typ := LayerObservations, observations.TypeCorrection
		if i%4 == 1 {
			layer, typ = LayerLibrary, "convention"
		} else if i%4 == 2 {
			typ = observations.TypePreference
		}
		return CompileDoc{Hit: Hit{Path: fmt.Sprintf("%s/d/%03d.md", layer, i), ID: fmt.Sprintf("d%03d", i), Layer: layer, Type: typ,
			Title: w(0) + " " + w(4), Fields: f}, Body: strings.Join([]string{w(5), w(6), w(1), w(7)}, " "), Stamp: fmt.Sprintf("%d:%d", i, v)}
	}
	meta := CompiledMeta{Compiled: time.Unix(1, 0).UTC()}
	full := func(docs []CompileDoc, prev *Compiled) []byte {
		var b bytes.Buffer
		if err := Compile(&b, docs, CompileOptions{Meta: meta, Load: load, Prev: prev}); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	rng := rand.New(rand.NewPCG(1, 2))
	version := map[int]int{}
	// Documents over several of the chunks Compile analyzes in parallel
	// (compileChunk), so that order and reuse cross chunk boundaries.
	n := 2*compileChunk + 88
	for i := range n {
		version[i] = 0
	}
	current := func() []CompileDoc {
		var out []CompileDoc
		for i, v := range version {
			out = append(out, mk(i, v))
		}
		return out
	}
	first := full(current(), nil)
	// On one core the same bytes: the parallel analysis changes nothing.
	procs := runtime.GOMAXPROCS(1)
	one := full(current(), nil)
	runtime.GOMAXPROCS(procs)
	if !bytes.Equal(one, first) {
		t.Fatalf("a compile on one core differs from one on %d (%d vs %d bytes)", procs, len(one), len(first))
	}
	prev, err := ParseCompiled(first)
	if err != nil {
		t.Fatal(err)
	}
	for round := range 30 {
		changed := map[int]bool{}
		for range 1 + rng.IntN(6) {
			i := rng.IntN(n + 20)
			switch _, ok := version[i]; {
			case ok && rng.IntN(4) == 0:
				delete(version, i)
			default:
				version[i]++
				changed[i] = true
			}
		}
		want := full(current(), prev)
		var docs []CompileDoc
		for i, v := range version {
			d := mk(i, v)
			if !changed[i] && prev.Holds(d.Path, d.Stamp) {
				d = CompileDoc{Hit: Hit{Path: d.Path}, Stamp: d.Stamp, Reuse: true}
			}
			docs = append(docs, d)
		}
		var got bytes.Buffer
		if err := Compile(&got, docs, CompileOptions{Meta: meta, Load: load, Prev: prev}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("round %d: incremental compile differs from the full one (%d vs %d bytes)", round, got.Len(), len(want))
		}
		if prev, err = ParseCompiled(want); err != nil {
			t.Fatal(err)
		}
	}
	// A document marked Reuse that prev does not hold is refused.
	err = Compile(io.Discard, []CompileDoc{{Hit: Hit{Path: "observations/d/999.md"}, Stamp: "1:1", Reuse: true}}, CompileOptions{Meta: meta, Prev: prev})
	if !errors.Is(err, ErrNotReusable) {
		t.Fatalf("err %v, want ErrNotReusable", err)
	}
}

// More documents of an action type than a search's limit: the limit keeps
// those that recurred and matter most, wherever their paths sort, and a
// document of two of the types asked still comes first.
func TestCompiledTypeSearchKeepsTheBestOfALimit(t *testing.T) {
	var docs []CompileDoc
	for i := range 150 {
		f := map[string]any{"action_type": "git:push", "sessions": 1.0, "importance": 0.1}
		if i >= 140 {
			f["sessions"], f["importance"] = 4.0, 0.9 // recurring and important, last by path
		}
		if i == 70 {
			f["action_types"] = []string{"git:push", "git:push-force"}
		}
		docs = append(docs, CompileDoc{Hit: Hit{Path: fmt.Sprintf("observations/corrections/c%03d.md", i), Layer: LayerObservations,
			Type: observations.TypeCorrection, Fields: f}, Stamp: "1:1"})
	}
	c := compile(t, docs, CompileOptions{})
	hits, err := c.Search(Search{ActionTypes: []string{"git:push", "git:push-force"}, Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	got := paths(hits)
	if len(got) != 20 || got[0] != "observations/corrections/c070.md" {
		t.Fatalf("first %v", got)
	}
	for i := 140; i < 150; i++ {
		if !slices.Contains(got, fmt.Sprintf("observations/corrections/c%03d.md", i)) {
			t.Errorf("the recurring c%03d.md is not among the 20 kept: %v", i, got)
		}
	}
}

// agreeDocs are n documents of a few action types and words, some rare
// ("infra:rare", "zanzibar").
func agreeDocs(n int) (types, words []string, docs []CompileDoc) {
	types = []string{"git:push", "git:push-force", "db:migrate", "pkg:npm", "test:run", "deploy:prod"}
	words = strings.Fields("alpha beta gamma delta ledger rates importer client store balance invoice")
	for i := range n {
		typ := observations.TypeCorrection
		if i%3 == 1 {
			typ = observations.TypePreference
		}
		f := map[string]any{"action_types": []string{types[i%len(types)], types[(i*7)%len(types)]},
			"sessions": float64(1 + i%4), "importance": float64(i%10) / 10, "lesson": "Lesson " + words[i%len(words)]}
		if i%97 == 0 {
			f["action_types"] = []string{"infra:rare"}
		}
		body := words[(i*3)%len(words)] + " " + words[(i*5)%len(words)]
		if i%500 == 0 {
			body += " zanzibar"
		}
		docs = append(docs, CompileDoc{Hit: Hit{Path: fmt.Sprintf("observations/x/d%04d.md", i), Layer: LayerObservations, Type: typ,
			Title: "doc " + words[i%len(words)], Fields: f}, Body: body, Stamp: "1:1"})
	}
	return types, words, docs
}

// BenchmarkCompiledSearch is a hook's searches at 10,000 documents: by
// words (the written content's, BM25) and by action types.
func BenchmarkCompiledSearch(b *testing.B) {
	types, words, docs := agreeDocs(10000)
	c := compile(b, docs, CompileOptions{Taxonomy: observations.Default()})
	for _, bc := range []struct {
		name string
		s    Search
	}{
		{"words", Search{Words: append([]string{"zanzibar"}, words...), Limit: 60, Fields: StoredFields}},
		{"types", Search{ActionTypes: types[:4], Limit: 60, Fields: StoredFields}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := c.Search(bc.s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Scores kept in a map (a search of few postings), in an array, and
// summed by merging lists in document order with pruning (bounded) rank
// the same
// documents with the same scores, for every kind of search, rare and
// common terms, with filters and limits; Search returns them.
func TestCompiledSearchScoresAgree(t *testing.T) {
	types, words, docs := agreeDocs(3000)
	c := compile(t, docs, CompileOptions{Taxonomy: observations.Default()})
	searches := []Search{
		{ActionTypes: []string{"infra:rare"}},
		{ActionTypes: []string{"git:push", "git:push-force"}, Limit: 100},
		{ActionTypes: []string{"test:run", "db:migrate"}, Layers: []string{LayerObservations}, DocTypes: []string{observations.TypePreference}, Limit: 30},
		{ActionTypes: types, Limit: 5},
		{ActionTypes: append([]string{"infra:rare"}, types...), Limit: 12},
		{Words: []string{"zanzibar"}},
		{Words: []string{"ledger", "rates"}, Limit: 60},
		{Words: []string{"alpha"}, Limit: 500},
		// Many words, few kept: bounded leaves most documents out.
		{Words: append([]string{"zanzibar"}, words...), Limit: 10},
		{Words: words[:6], Limit: 3},
		{Words: words, Layers: []string{LayerObservations}, DocTypes: []string{observations.TypePreference}, Limit: 7},
		{Words: []string{"lesson", "doc", "zanzibar", "ledger"}, Limit: 1},
		{Standing: true, Layers: []string{LayerObservations}, Limit: 50},
		{Layers: []string{LayerObservations}, Limit: 20},
	}
	// Each search scored every way it can be: in an array of the index's
	// size, in a map, and (lists in document order) bounded; Search returns
	// the way it takes.
	ways := func(s Search) map[string][]scored {
		limit := s.Limit
		if limit <= 0 {
			limit = 10
		}
		pls, w, first := c.scoring(s)
		keep := c.filter(s)
		table := func(threshold int) []scored {
			defer func(v int) { sparseScores = v }(sparseScores)
			sparseScores = threshold
			return c.accumulated(pls, keep, limit, w, first)
		}
		out := map[string][]scored{"array": table(1 << 30), "map": table(0)}
		if w != nil && !first {
			out["bounded"] = c.bounded(pls, keep, limit, w)
		}
		return out
	}
	for i, s := range searches {
		got := ways(s)
		dense := got["array"]
		if len(dense) == 0 {
			t.Errorf("search %d finds nothing: the test does not test it", i)
		}
		for name, order := range got {
			if !slices.Equal(order, dense) {
				t.Errorf("search %d: %s %v, array %v", i, name, order, dense)
			}
		}
		hits, err := c.Search(s)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != len(dense) {
			t.Fatalf("search %d: %d hits, %d scored", i, len(hits), len(dense))
		}
		for j, h := range hits {
			if d := c.byPath[h.Path]; d != dense[j].doc || h.Score != dense[j].score {
				t.Errorf("search %d hit %d: %s %v, scored doc %d %v", i, j, h.Path, h.Score, dense[j].doc, dense[j].score)
			}
		}
	}
}

// The compile lays out what one hook reads together: the standing
// documents' candidate records first, best first; then the others grouped
// by the candidate's primary action type (primaryType, which reads what
// the record's decoding reads), best first within a group; the item
// records after every candidate record, in the same order. A search
// reads the same either way (the doc table locates every record).
func TestCompiledLayoutGroupsByPrimaryType(t *testing.T) {
	types := []string{"git:push", "db:migrate", "test:run"}
	var docs []CompileDoc
	for i := range 90 {
		typ := observations.TypeCorrection
		status := "candidate"
		if i%9 == 0 {
			status = "active" // may stand
		}
		f := map[string]any{"action_types": []string{types[i%3]}, "sessions": float64(1 + i%4), "importance": float64(i%10) / 10,
			"lesson": fmt.Sprintf("Lesson %d about pushing", i), "status": status}
		docs = append(docs, CompileDoc{Hit: Hit{Path: fmt.Sprintf("observations/x/d%03d.md", i), Layer: LayerObservations, Type: typ,
			Title: fmt.Sprintf("doc %d", i), Fields: f}, Body: "push", Stamp: "1:1"})
	}
	o := CompileOptions{Taxonomy: observations.Default(), Load: func(path, layer string) (*observations.Observation, *doc.Document, error) {
		return &observations.Observation{ID: path, Type: observations.TypeCorrection, Lesson: "x"}, nil, nil
	}}
	c := compile(t, docs, o)
	type at struct {
		off          uint32
		standing     bool
		group        string
		rank         float32
		itemOff, doc int
	}
	var all []at
	maxCand := uint32(0)
	for d := range c.h.Docs {
		e := c.doc(d)
		b, ok := c.slice(e.candOff, e.candLen)
		if !ok {
			t.Fatalf("doc %d: no candidate record", d)
		}
		var r candRecord
		if err := r.unmarshal(b); err != nil {
			t.Fatal(err)
		}
		want := ""
		if len(r.Types) > 0 {
			want = r.Types[0]
		}
		if got := primaryType(b); got != want {
			t.Errorf("doc %d: primaryType %q, the record's first type %q", d, got, want)
		}
		all = append(all, at{e.candOff, e.flags&flagStanding != 0, want, e.rank, int(e.itemOff), d})
		maxCand = max(maxCand, e.candOff+e.candLen)
	}
	slices.SortFunc(all, func(a, b at) int { return cmp.Compare(a.off, b.off) })
	for i := 1; i < len(all); i++ {
		a, b := all[i-1], all[i]
		switch {
		case a.standing != b.standing:
			if !a.standing {
				t.Fatalf("doc %d (standing) after doc %d (not)", b.doc, a.doc)
			}
		case a.standing || a.group == b.group:
			if a.rank < b.rank {
				t.Errorf("doc %d (rank %v) before doc %d (rank %v)", a.doc, a.rank, b.doc, b.rank)
			}
		case a.group > b.group:
			t.Errorf("group %q before %q", a.group, b.group)
		}
	}
	if all[0].standing != true || all[len(all)-1].standing {
		t.Errorf("standing documents not first")
	}
	for i, x := range all {
		if uint32(x.itemOff) < maxCand {
			t.Errorf("doc %d: item record at %d, among the candidate records (they end at %d)", x.doc, x.itemOff, maxCand)
		}
		if i > 0 && x.itemOff < all[i-1].itemOff {
			t.Errorf("doc %d: item record before the one of doc %d, whose candidate record comes first", x.doc, all[i-1].doc)
		}
	}
	hits, err := c.Search(Search{ActionTypes: []string{"git:push"}, Limit: 50})
	if err != nil || len(hits) != 30 {
		t.Fatalf("%d hits, %v", len(hits), err)
	}
}

// A pinned index (OpenCompiledPinned) decodes the same hits as one opened
// plainly, and what it decoded stays readable after Close: the mapping is
// left to the process's exit.
func TestCompiledPinned(t *testing.T) {
	var docs []CompileDoc
	for i := range 50 {
		docs = append(docs, CompileDoc{Hit: Hit{Path: fmt.Sprintf("observations/x/d%03d.md", i), Layer: LayerObservations,
			Type: observations.TypeCorrection, Title: fmt.Sprintf("doc %d", i),
			Fields: map[string]any{"action_types": []string{"git:push"}, "lesson": fmt.Sprintf("Never force push, case %d", i)}},
			Body: "push", Stamp: "1:1"})
	}
	path := filepath.Join(t.TempDir(), CompiledFile)
	var buf bytes.Buffer
	if err := Compile(&buf, docs, CompileOptions{Taxonomy: observations.Default()}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	search := func(open func(string) (*Compiled, error)) []string {
		c, err := open(path)
		if err != nil {
			t.Fatal(err)
		}
		hits, err := c.Search(Search{ActionTypes: []string{"git:push"}, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
		var out []string
		for _, h := range hits {
			out = append(out, h.Path+" "+h.Title+" "+h.cand.lesson)
		}
		return out
	}
	plain, pinned := search(OpenCompiled), search(OpenCompiledPinned)
	if len(plain) != 50 || !slices.Equal(plain, pinned) {
		t.Fatalf("plain %v\npinned %v", plain, pinned)
	}
}

// A file that cannot be read when the compile loads item records leaves
// that document without one (a hook reads the file) and the compile goes
// on: one unreadable file never keeps the other changes from the hooks.
func TestCompileLoadErrorLeavesItemToHook(t *testing.T) {
	var docs []CompileDoc
	for i := range 3 {
		docs = append(docs, CompileDoc{Hit: Hit{Path: fmt.Sprintf("observations/x/d%d.md", i), Layer: LayerObservations,
			Type: observations.TypeCorrection, Title: "doc", Fields: map[string]any{"lesson": "Never force push"}}, Stamp: "1:1"})
	}
	o := CompileOptions{Taxonomy: observations.Default(), Load: func(path, layer string) (*observations.Observation, *doc.Document, error) {
		if path == "observations/x/d1.md" {
			return nil, nil, errors.New("read: is a directory")
		}
		return &observations.Observation{ID: path, Type: observations.TypeCorrection, Lesson: "x"}, nil, nil
	}}
	c := compile(t, docs, o)
	for d := range c.h.Docs {
		e := c.doc(d)
		b, ok := c.slice(e.itemOff, e.itemLen)
		if !ok || len(b) == 0 {
			t.Fatalf("doc %d: no item record", d)
		}
		if path, _, _ := strings.Cut(c.key(e), "\x00"); (path == "observations/x/d1.md") != (b[0] == itemNone) {
			t.Errorf("%s: item kind %d", path, b[0])
		}
	}
}

// A lesson about code is found by the code a call writes, whatever
// language its words are in: the activation index files each prohibited
// signature under its anchor, and the code's identifier runs look them up.
func TestCompiledAnchors(t *testing.T) {
	said := "别用强制解包。`try!`、`as!` 在 app 代码里一律不要。用 `guard let`。"
	docs := append(compiledDocs(), CompileDoc{Hit: Hit{Path: "observations/corrections/unwrap.md", ID: "unwrap", Layer: LayerObservations,
		Type: observations.TypeCorrection, Title: "别用强制解包",
		Fields: map[string]any{"lesson": said, "trigger": "editing `Features/Orders/ReorderButton.swift`",
			"excerpt": "Agent: Edit `Features/Orders/ReorderButton.swift`\nUser: " + said}}, Body: said, Stamp: "3:3"})
	c := compile(t, docs, CompileOptions{Taxonomy: observations.Default()})
	for code, want := range map[string][]string{
		"let coupon = note.object as! Coupon":  {"observations/corrections/unwrap.md"},
		"let data = try! JSONDecoder().decode": {"observations/corrections/unwrap.md"},
		"guard let coupon = note.object":       nil, // advised, not prohibited: no anchor
	} {
		hits, err := c.Search(Search{Anchors: codeAnchors(code, "", nil)})
		if err != nil {
			t.Fatal(err)
		}
		if got := paths(hits); !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v", code, got, want)
		}
	}
	for sig, want := range map[string]string{"bigquery.Client()": "bigquery", "as!": "as", "!": "", "%v": "", "NOT IN": "not"} {
		if got := sigAnchor(sig); got != want {
			t.Errorf("sigAnchor(%q) = %q, want %q", sig, got, want)
		}
	}
}

// A preference the person stated while correcting (SignalCorrecting) is
// no cue of its own, over the activation index and over a field index
// alike: the correction beside it knows the action and its scope. It
// stands in a new session's context as any preference does.
func TestPreferenceSaidWhileCorrectingStandsOnly(t *testing.T) {
	obs := func(path, typ string, f map[string]any) CompileDoc {
		return CompileDoc{Hit: Hit{Path: path, ID: filepath.Base(path), Layer: LayerObservations, Type: typ, Title: path, Fields: f}, Stamp: "1:1"}
	}
	pref := map[string]any{"statement": "Never FLUSHDB on the staging redis; unlink only your keys.", "action_types": []string{"db:flush-cache"},
		"sessions": 1.0, "signals": []string{observations.SignalCorrecting}}
	docs := []CompileDoc{obs("observations/preference/flush.md", observations.TypePreference, pref)}
	c := compile(t, docs, CompileOptions{Taxonomy: observations.Default()})
	files := memFiles{obs: map[string]*observations.Observation{"observations/preference/flush.md": {ID: "flush.md", Type: observations.TypePreference,
		Statement: fieldString(pref["statement"]), Sessions: 1, Signals: []string{observations.SignalCorrecting}}}}
	for _, ix := range []Searcher{c, &memIndex{hits: []Hit{docs[0].Hit}}} {
		e := &Engine{Index: ix, Files: files}
		res, err := e.Recall(context.Background(), Query{Tool: "Bash", Input: []byte(`{"command":"redis-cli -h staging FLUSHDB"}`)})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Items) != 0 {
			t.Errorf("%T: a tool call recalled %v", ix, res.Items)
		}
		res, err = e.Recall(context.Background(), Query{Standing: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Items) != 1 {
			t.Errorf("%T: the standing context holds %v", ix, res.Items)
		}
	}
	// Without the signal, the same preference is a cue.
	delete(pref, "signals")
	c = compile(t, docs, CompileOptions{Taxonomy: observations.Default()})
	files.obs["observations/preference/flush.md"].Signals = nil
	res, err := (&Engine{Index: c, Files: files}).Recall(context.Background(), Query{Tool: "Bash", Input: []byte(`{"command":"redis-cli -h staging FLUSHDB"}`)})
	if err != nil || len(res.Items) != 1 {
		t.Errorf("without the signal: %v %v", res, err)
	}
}
