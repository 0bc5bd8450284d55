package kb

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kbmem/kb/episodes"
)

// TestBuildEpisodes: every fixture session lands in exactly one episode;
// rebuilding changes nothing; an episode a person edited is kept.
func TestBuildEpisodes(t *testing.T) {
	t.Parallel()
	_, k := newProject(t)
	loadFixture(t, k)
	ctx := context.Background()
	rep, err := k.BuildEpisodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != 34 || rep.Episodes == 0 || len(rep.Written) != rep.Episodes || len(rep.Problems) != 0 {
		t.Fatalf("build: %+v", rep)
	}
	all, probs, err := k.LoadEpisodes(ctx)
	if err != nil || len(probs) != 0 || len(all) != rep.Episodes {
		t.Fatalf("load: %d %v %v", len(all), probs, err)
	}
	seen := map[string]int{}
	for _, f := range all {
		for _, s := range f.Episode.Scope.Sessions {
			seen[s]++
		}
		if f.Edited {
			t.Errorf("%s counts as edited", f.Path)
		}
	}
	if len(seen) != 34 {
		t.Errorf("%d sessions in episodes", len(seen))
	}
	for s, n := range seen {
		if n != 1 {
			t.Errorf("session %s in %d episodes", s, n)
		}
	}
	// A kb-written episode whose sessions regrouped goes; a broken file is reported.
	stale, err := episodes.Render(&episodes.Episode{ID: "ep-stale", Title: "old", Goal: "g", Outcome: episodes.OutcomeOpen,
		Scope: episodes.Scope{Sessions: []string{"gone"}}})
	if err != nil {
		t.Fatal(err)
	}
	write(t, k.Root, "episodes/ep-stale.md", string(stale))
	write(t, k.Root, "episodes/broken.md", "---\ntype: episode\noutcome: maybe\n---\n")
	again, err := k.BuildEpisodes(ctx)
	if err != nil || len(again.Written) != 0 || again.Unchanged != rep.Episodes || len(again.Removed) != 1 || len(again.Problems) != 1 {
		t.Fatalf("rebuild: %+v %v", again, err)
	}
	if err := os.Remove(filepath.Join(k.Root, "episodes", "broken.md")); err != nil {
		t.Fatal(err)
	}
	// A person's edit survives rebuilds.
	f := all[0]
	abs := filepath.Join(k.Root, filepath.FromSlash(f.Path))
	b, _ := os.ReadFile(abs)
	edited := strings.Replace(string(b), "**Goal:**", "**Goal (as I see it):**", 1)
	if err := os.WriteFile(abs, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	third, err := k.BuildEpisodes(ctx)
	if err != nil || len(third.Kept) != 1 || len(third.Written) != 0 {
		t.Fatalf("third build: %+v %v", third, err)
	}
	if now, _ := os.ReadFile(abs); string(now) != edited {
		t.Error("edited episode overwritten")
	}
	shown, err := k.ShowEpisode(ctx, f.Episode.ID[:6])
	if err != nil && !strings.Contains(err.Error(), "ambiguous") {
		t.Fatal(err)
	}
	if err == nil && shown.Episode.ID != f.Episode.ID && !strings.HasPrefix(shown.Episode.ID, f.Episode.ID[:6]) {
		t.Errorf("show: %s", shown.Episode.ID)
	}
	if _, err := k.ShowEpisode(ctx, "ep-none"); err == nil {
		t.Error("unknown episode found")
	}
	// The fixture's decision session's episode carries the decision.
	dec := obsByText(t, k, "Chose Vite")
	found := false
	for _, f := range all {
		for _, d := range f.Episode.Decisions {
			found = found || d == dec.Obs.ID
		}
	}
	if !found {
		t.Error("no episode lists the Vite decision")
	}
}
