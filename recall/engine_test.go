package recall

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/observations"
)

// The engine alone, over in-memory ports: what recall asks of kb is only
// what ports.go declares. (kb's tests run the same engine over a real
// bleve index and real files.)

// memIndex answers Searches over documents held in memory, the way the
// index does for the fields recall asks about.
type memIndex struct {
	hits     []Hit
	searches []Search
}

func (m *memIndex) Search(s Search) ([]Hit, error) {
	m.searches = append(m.searches, s)
	var out []Hit
	for _, h := range m.hits {
		if len(s.Layers) > 0 && !slices.Contains(s.Layers, h.Layer) || len(s.DocTypes) > 0 && !slices.Contains(s.DocTypes, h.Type) {
			continue
		}
		hit := h
		switch {
		case len(s.ActionTypes) > 0:
			var vals []string
			for _, f := range []string{"action_type", "action_types", "triggers"} {
				vals = append(vals, fieldList(h.Fields[f])...)
			}
			if !slices.ContainsFunc(s.ActionTypes, func(t string) bool { return slices.Contains(vals, t) }) {
				continue
			}
		case len(s.Words) > 0:
			text := strings.ToLower(h.Title + " " + h.Description + " " + strings.Join(fieldList(h.Fields["lesson"]), " "))
			hit.Score = 0
			for _, w := range s.Words {
				if strings.Contains(text, strings.Trim(w, `"`)) {
					hit.Score++
				}
			}
			if hit.Score == 0 {
				continue
			}
		case s.Triggered:
			if len(fieldList(h.Fields["triggers"])) == 0 {
				continue
			}
		}
		out = append(out, hit)
	}
	return out, nil
}

func fieldList(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []string:
		return v
	}
	return nil
}

// memFiles reads documents held in memory.
type memFiles struct {
	obs  map[string]*observations.Observation
	docs map[string]*doc.Document
}

func (m memFiles) Observation(p string) (*observations.Observation, error) {
	if o, ok := m.obs[p]; ok {
		return o, nil
	}
	return nil, errors.New(p + ": no such file")
}

func (m memFiles) Document(p string) (*doc.Document, error) {
	if d, ok := m.docs[p]; ok {
		return d, nil
	}
	return nil, errors.New(p + ": no such file")
}

type fixedClock time.Time

func (c fixedClock) Now() time.Time { return time.Time(c) }

func TestEngineOverPorts(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	push := &observations.Observation{ID: "cor-push", Type: observations.TypeCorrection, Title: "no force push",
		Trigger: "force-pushing a branch: `git push --force origin main`", Lesson: "Never force-push main; open a revert PR instead.",
		ActionType: "git:push-force", ActionTypes: []string{"git:push-force", "git:push"}, Importance: 0.8, Sessions: 2,
		Sources:  []observations.SourceRef{{Session: "6f1c0d3e-aaaa"}, {Session: "9a8b7c6d-bbbb"}},
		LastSeen: now.Add(-24 * time.Hour)}
	gone := &observations.Observation{ID: "cor-gone", Type: observations.TypeCorrection, Trigger: "force-pushing",
		Lesson: "A file deleted since the last sync.", ActionTypes: []string{"git:push-force"}}
	idx := &memIndex{}
	for _, o := range []*observations.Observation{push, gone} {
		idx.hits = append(idx.hits, Hit{Path: "observations/correction/" + o.ID + ".md", ID: o.ID, Layer: LayerObservations, Type: o.Type,
			Title: o.Title, Fields: map[string]any{"noteid": o.ID, "action_types": o.ActionTypes, "trigger": o.Trigger, "lesson": o.Lesson,
				"importance": o.Importance, "sessions": float64(o.Sessions), "status": "candidate"}})
	}
	e := &Engine{Config: Config{HighConsequence: []string{"git:push-force"}}, Index: idx, Clock: fixedClock(now),
		Files: memFiles{obs: map[string]*observations.Observation{"observations/correction/cor-push.md": push}}}
	res, err := e.Recall(context.Background(), Query{Action: "git push --force origin main"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 1 {
		t.Fatalf("items %+v", res.Items)
	}
	it := res.Items[0]
	if it.ID != "cor-push" || it.Kind != KindCorrections || !it.HighConsequence || it.ActionType != "git:push-force" || it.Score <= 0 {
		t.Errorf("item %+v", it)
	}
	want := "You are about to run `git push --force origin main`. In session 9a8b7c6d…, 2 times this was corrected: Never force-push main"
	if !strings.HasPrefix(it.Text, want) || !strings.HasSuffix(it.Text, "[cor-push]") {
		t.Errorf("text %q", it.Text)
	}
	for _, r := range []string{"action type git:push-force matches", "seen in 2 sessions", "high-consequence action"} {
		if !slices.Contains(it.Reasons, r) {
			t.Errorf("reasons %q lack %q", it.Reasons, r)
		}
	}
	if res.Budget != DefaultBudget || res.Tokens != Tokens(res.Markdown()) || !slices.Contains(res.ActionTypes, "git:push-force") {
		t.Errorf("result %+v", res)
	}
	if len(idx.searches) == 0 || !slices.Contains(idx.searches[0].ActionTypes, "git:push-force") ||
		!slices.Contains(idx.searches[0].Fields, "action_types") {
		t.Errorf("searches %+v", idx.searches)
	}
	// Recency is measured from the Clock: the same lesson a year later
	// ranks lower.
	e.Clock = fixedClock(now.AddDate(1, 0, 0))
	later, err := e.Recall(context.Background(), Query{Action: "git push --force origin main"})
	if err != nil || len(later.Items) != 1 || later.Items[0].Score >= it.Score {
		t.Errorf("a year later: %+v, %v (was %v)", later.Items, err, it.Score)
	}
}

// countEmbedder embeds a text as its length, counting the texts asked.
type countEmbedder struct{ texts int }

func (c *countEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	c.texts += len(texts)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{float32(len(t)), 1}
	}
	return out, nil
}

func TestEmbeddingCache(t *testing.T) {
	root := t.TempDir()
	emb := &countEmbedder{}
	c := &EmbeddingCache{Embedder: emb, Model: "m", Dir: filepath.Join(root, ".index", "embeddings"), Tree: fsx.Tree{Root: root}}
	ctx := context.Background()
	v, err := c.Embed(ctx, []string{"ab", "abcd"})
	if err != nil || len(v) != 2 || v[1][0] != 4 || emb.texts != 2 {
		t.Fatalf("first: %v %v, %d embedded", v, err, emb.texts)
	}
	v, err = c.Embed(ctx, []string{"abcd", "abc"})
	if err != nil || v[0][0] != 4 || v[1][0] != 3 || emb.texts != 3 {
		t.Fatalf("second: %v %v, %d embedded (only the new text should be)", v, err, emb.texts)
	}
	// Another model has vectors of its own.
	other := &EmbeddingCache{Embedder: emb, Model: "m2", Dir: c.Dir, Tree: c.Tree}
	if _, err := other.Embed(ctx, []string{"ab"}); err != nil || emb.texts != 4 {
		t.Fatalf("other model: %v, %d embedded", err, emb.texts)
	}
	// A torn vector file is embedded again, not trusted.
	ents, _ := filepath.Glob(filepath.Join(c.Dir, "*", "*.f32"))
	if len(ents) != 4 {
		t.Fatalf("%d vector files", len(ents))
	}
	for _, p := range ents {
		if err := os.WriteFile(p, []byte{1, 2, 3}, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Embed(ctx, []string{"ab"}); err != nil || emb.texts != 5 {
		t.Fatalf("torn: %v, %d embedded", err, emb.texts)
	}
}
