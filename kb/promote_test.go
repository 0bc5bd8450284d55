package kb

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/kbmem/kb/internal/gitx"
	"github.com/kbmem/kb/internal/markdown"
	"github.com/kbmem/kb/library"
	"github.com/kbmem/kb/observations"
)

var testSig = &object.Signature{Name: "Test", Email: "test@example.com", When: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}

const agentsMD = "# Agents\n\nHand-written guidance.\n\n<!-- kb:begin learned -->\n- learned line kept as is\n<!-- kb:end learned -->\n\nTrailing text.\n"

// newProject makes a git repo with a commit and a KB at .kb/.
func newProject(t testing.TB) (string, *KB) {
	t.Helper()
	proj := t.TempDir()
	repo, err := git.PlainInit(proj, false)
	if err != nil {
		t.Fatal(err)
	}
	write(t, proj, "README.md", "# shop\n")
	write(t, proj, "AGENTS.md", agentsMD)
	write(t, proj, "main.go", "package main\n")
	if _, err := Init(filepath.Join(proj, DefaultDirName)); err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddGlob("."); err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Commit("initial", &git.CommitOptions{Author: testSig, Committer: testSig}); err != nil {
		t.Fatal(err)
	}
	k, err := OpenRoot(filepath.Join(proj, DefaultDirName))
	if err != nil {
		t.Fatal(err)
	}
	k.Logf = t.Logf
	return proj, k
}

func commitAll(t testing.TB, proj, msg string) {
	t.Helper()
	repo, err := git.PlainOpen(proj)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddGlob("."); err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Commit(msg, &git.CommitOptions{Author: testSig, Committer: testSig}); err != nil {
		t.Fatal(err)
	}
}

func write(t testing.TB, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// loadFixture imports and extracts the 34-session fixture.
func loadFixture(t testing.TB, k *KB) {
	t.Helper()
	dir := t.TempDir()
	if n := renderScenarios(t, filepath.Join(repoRoot(t), "testdata", "promote", "scenarios.json"), dir); n < 30 {
		t.Fatalf("fixture has %d sessions, want >= 30", n)
	}
	ctx := context.Background()
	if _, err := k.Import(ctx, []string{dir}, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Extract(ctx, ExtractOptions{All: true}); err != nil {
		t.Fatal(err)
	}
}

// obsByText finds the observation whose title contains text.
func obsByText(t testing.TB, k *KB, text string) *ObsFile {
	t.Helper()
	files, _, err := k.LoadObservations(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.Contains(f.Obs.Title, text) {
			return f
		}
	}
	t.Fatalf("no observation titled like %q", text)
	return nil
}

// snapshot reads every file of the project except the KB's derived state
// and git's object store, plus git's index and HEAD.
func snapshot(t testing.TB, proj string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(proj, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(proj, p)
		rel = filepath.ToSlash(rel)
		if fi.IsDir() {
			switch rel {
			case ".kb/.state", ".kb/.index", ".git/objects", ".git/refs", ".git/logs":
				return filepath.SkipDir
			}
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[rel] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameSnapshot(t testing.TB, before, after map[string]string) {
	t.Helper()
	for p, b := range before {
		if a, ok := after[p]; !ok {
			t.Errorf("%s disappeared", p)
		} else if a != b {
			t.Errorf("%s changed", p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s appeared", p)
		}
	}
}

type wantGrad struct {
	kind, text string
	sessions   []string // session id prefixes
	trigger    string
}

var fixtureGrads = []wantGrad{
	{library.TypeConvention, "Never force-push to main", []string{"s08", "s20"}, "git:push-force"},
	{library.TypeConvention, "Stage the files by name", []string{"s01", "s05", "s12"}, "git:stage-all"},
	{library.TypePreference, "always run the build", []string{"s03", "s07", "s14", "s22", "s27"}, "build"},
	{library.TypeProcedure, "make migrate", []string{"s02", "s10", "s18", "s25"}, "Bash: make migrate"},
	{library.TypePattern, "timeout", []string{"s16", "s19", "s21"}, ""},
}

func shortSessions(ss []string) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s[:3])
	}
	sort.Strings(out)
	return out
}

// TestPromoteFixture: on the 34-session fixture exactly the recurring
// items graduate, with their provenance, and nothing below threshold does.
func TestPromoteFixture(t *testing.T) {
	t.Parallel()
	proj, k := newProject(t)
	loadFixture(t, k)
	commitAll(t, proj, "kb: import and extract")
	ctx := context.Background()
	before := snapshot(t, proj)

	// Explain: counts against thresholds.
	tabs := obsByText(t, k, "tabs for indentation")
	ex, err := k.PromoteExplain(ctx, tabs.Obs.ID)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Eligible || len(ex.Checks) != 3 || ex.Checks[0].Have != 2 || ex.Checks[0].Need != 5 || ex.Checks[0].Met ||
		ex.Checks[1].Have != 2 || ex.Checks[2].Have != 1 || !ex.Checks[2].Met {
		t.Errorf("explain = %+v", ex)
	}

	dry, err := k.Promote(ctx, PromoteOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	sameSnapshot(t, before, snapshot(t, proj))
	r, err := gitx.Open(proj)
	if err != nil {
		t.Fatal(err)
	}
	if bs, _ := r.Branches("kb/"); len(bs) != 0 {
		t.Fatalf("dry run made branches %v", bs)
	}
	if len(dry.Graduations) != len(fixtureGrads) {
		for _, g := range dry.Graduations {
			t.Logf("graduated %s %q", g.Kind, g.Title)
		}
		t.Fatalf("%d graduations, want %d", len(dry.Graduations), len(fixtureGrads))
	}
	files, _, _ := k.LoadObservations(ctx)
	obsSessions := map[string][]string{}
	for _, f := range files {
		obsSessions[f.Obs.ID] = library.Sessions(f.Obs)
	}
	for _, w := range fixtureGrads {
		// Graduations of a kind come in the order of their observations'
		// IDs, which are hashes: each is looked for by what it is about.
		i := slices.IndexFunc(dry.Graduations, func(g library.Graduation) bool {
			return g.Kind == w.kind && strings.Contains(g.Title+" "+string(g.Content), w.text)
		})
		if i < 0 {
			t.Errorf("no graduation: want %s about %q", w.kind, w.text)
			continue
		}
		g := dry.Graduations[i]
		if got := strings.Join(shortSessions(g.Sessions), ","); got != strings.Join(w.sessions, ",") {
			t.Errorf("%s: sessions %s, want %v", g.Title, got, w.sessions)
		}
		d, err := markdown.Parse(g.Path, g.Content)
		if err != nil {
			t.Fatalf("%s does not parse: %v\n%s", g.Path, err, g.Content)
		}
		if d.Type != w.kind || d.Fields["promoted_by"] != g.Rule || len(d.Relations["derived_from"]) != len(g.Observations) {
			t.Errorf("%s: frontmatter %v", g.Path, d.Fields)
		}
		var sess []string
		for _, id := range g.Observations {
			sess = append(sess, obsSessions[id]...)
		}
		if len(sess) != len(g.Sessions) || len(d.Sources) != len(g.Sessions) {
			t.Errorf("%s: sources %v, observation sessions %v", g.Path, d.Sources, sess)
		}
		if w.trigger != "" && !strings.Contains(strings.Join(g.Triggers, "|"), w.trigger) {
			t.Errorf("%s: triggers %v lack %q", g.Path, g.Triggers, w.trigger)
		}
		if !strings.Contains(d.Body, "## Why it graduated") || !strings.Contains(d.Body, "## Provenance") ||
			!strings.Contains(g.Why, "promote.") {
			t.Errorf("%s: no graduation reason:\n%s", g.Path, d.Body)
		}
	}
	if sk := dry.Graduations[3].Skill; sk == nil || !strings.HasPrefix(sk.Path, ".claude/skills/") {
		t.Errorf("procedure without skill: %+v", sk)
	} else if d, err := markdown.Parse(sk.Path, sk.Content); err != nil || d.Fields["name"] != sk.Name || d.Fields["description"] == nil {
		t.Errorf("skill frontmatter: %v %v", err, sk.Content)
	}
	if !strings.Contains(dry.Diff, "+++ b/.kb/library/conventions/") || !strings.Contains(dry.Diff, "AGENTS.md") {
		t.Errorf("dry-run diff:\n%s", dry.Diff)
	}

	// The real run: one commit on a new branch, nothing else touched.
	res, err := k.Promote(ctx, PromoteOptions{Now: time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	sameSnapshot(t, before, snapshot(t, proj))
	if res.Branch != "kb/promote-2026-04-01-1" || res.Commit == "" {
		t.Fatalf("branch %q commit %q", res.Branch, res.Commit)
	}
	for _, g := range res.Graduations {
		if _, err := r.FileAt(res.Branch, ".kb/"+g.Path); err != nil {
			t.Errorf("%s not on the branch: %v", g.Path, err)
		}
	}
	for _, id := range res.Graduations[0].Observations {
		f, _ := findObs(files, id)
		b, err := r.FileAt(res.Branch, ".kb/"+f.Path)
		if err != nil || !strings.Contains(string(b), "status: promoted") {
			t.Errorf("observation %s on the branch: %v\n%s", id, err, b)
		}
		if f.Obs.Status != observations.StatusCandidate {
			t.Errorf("work tree observation %s is %s", id, f.Obs.Status)
		}
	}
	agents, err := r.FileAt(res.Branch, "AGENTS.md")
	if err != nil {
		t.Fatal(err)
	}
	a := string(agents)
	if !strings.HasPrefix(a, agentsMD) || !strings.Contains(a, library.BlockBegin) || !strings.Contains(a, "Stage the files by name") ||
		!strings.Contains(a, ".kb/library/conventions/") {
		t.Errorf("AGENTS.md on the branch:\n%s", a)
	}
	diff, err := r.Diff("HEAD", res.Branch)
	if err != nil || !strings.Contains(diff, "library/procedures/") {
		t.Errorf("branch diff: %v\n%s", err, diff)
	}

	// Proposed candidates are not proposed twice while the branch is open.
	again, err := k.Promote(ctx, PromoteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Graduations) != 0 || again.Branch != "" || len(again.Pending) == 0 {
		t.Errorf("second run: %d graduations, branch %q, pending %v", len(again.Graduations), again.Branch, again.Pending)
	}
}

// TestPromoteKeepsUncommittedChanges: a modified tracked file, a staged
// file and an untracked file are byte-identical after kb promote, and so
// are git's index and HEAD.
func TestPromoteKeepsUncommittedChanges(t *testing.T) {
	t.Parallel()
	proj, k := newProject(t)
	loadFixture(t, k)
	write(t, proj, "README.md", "# shop\n\nwork in progress\n")
	write(t, proj, "AGENTS.md", agentsMD+"\nmy uncommitted note\n")
	write(t, proj, "staged.go", "package main // staged\n")
	repo, err := git.PlainOpen(proj)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := repo.Worktree()
	if _, err := wt.Add("staged.go"); err != nil {
		t.Fatal(err)
	}
	write(t, proj, "untracked.txt", "scratch\n")
	before := snapshot(t, proj)
	stBefore, err := wt.Status()
	if err != nil {
		t.Fatal(err)
	}
	res, err := k.Promote(context.Background(), PromoteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Branch == "" {
		t.Fatal("no branch")
	}
	sameSnapshot(t, before, snapshot(t, proj))
	stAfter, err := wt.Status()
	if err != nil {
		t.Fatal(err)
	}
	if sortedLines(stBefore.String()) != sortedLines(stAfter.String()) {
		t.Errorf("git status changed:\n%s\nvs\n%s", stBefore, stAfter)
	}
	// The branch is built from HEAD: the uncommitted AGENTS.md line is not in it.
	r, _ := gitx.Open(proj)
	b, _ := r.FileAt(res.Branch, "AGENTS.md")
	if strings.Contains(string(b), "my uncommitted note") || !strings.Contains(string(b), library.BlockEnd) {
		t.Errorf("AGENTS.md on the branch:\n%s", b)
	}
}

// TestPromoteRejectApply: a rejected candidate is never proposed again;
// --apply writes the work tree and is idempotent.
func TestPromoteRejectApply(t *testing.T) {
	t.Parallel()
	proj, k := newProject(t)
	loadFixture(t, k)
	ctx := context.Background()
	pref := obsByText(t, k, "always run the build")
	rr, err := k.PromoteReject(ctx, pref.Obs.ID[:8], "we run the build in CI anyway")
	if err != nil || !rr.Changed {
		t.Fatalf("reject: %+v %v", rr, err)
	}
	if again, err := k.PromoteReject(ctx, pref.Obs.ID, "x"); err != nil || again.Changed {
		t.Errorf("second reject: %+v %v", again, err)
	}
	if _, err := k.PromoteReject(ctx, "nope-0000", "x"); err == nil {
		t.Error("rejecting an unknown id worked")
	}
	ex, err := k.PromoteExplain(ctx, pref.Obs.ID)
	if err != nil || ex.Eligible || ex.Status != observations.StatusRejected {
		t.Errorf("explain rejected: %+v %v", ex, err)
	}
	res, err := k.Promote(ctx, PromoteOptions{Apply: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Applied || len(res.Graduations) != len(fixtureGrads)-1 {
		t.Fatalf("apply: %d graduations", len(res.Graduations))
	}
	for _, g := range res.Graduations {
		if g.Kind == library.TypePreference {
			t.Errorf("rejected preference proposed: %s", g.Title)
		}
		if _, err := os.Stat(filepath.Join(k.Root, filepath.FromSlash(g.Path))); err != nil {
			t.Errorf("not written: %v", err)
		}
		if g.Skill != nil {
			if _, err := os.Stat(filepath.Join(proj, filepath.FromSlash(g.Skill.Path))); err != nil {
				t.Errorf("skill not written: %v", err)
			}
		}
		for _, id := range g.Observations {
			files, _, _ := k.LoadObservations(ctx)
			f, _ := findObs(files, id)
			if f.Obs.Status != observations.StatusPromoted || f.Edited {
				t.Errorf("%s: status %s edited %v", id, f.Obs.Status, f.Edited)
			}
		}
	}
	agents, _ := os.ReadFile(filepath.Join(proj, "AGENTS.md"))
	if !strings.HasPrefix(string(agents), agentsMD) || strings.Count(string(agents), library.BlockBegin) != 1 {
		t.Errorf("AGENTS.md:\n%s", agents)
	}
	// Idempotent: nothing is left to promote, nothing changes.
	before := snapshot(t, proj)
	again, err := k.Promote(ctx, PromoteOptions{Apply: true})
	if err != nil || len(again.Graduations) != 0 || len(again.Files) != 0 {
		t.Fatalf("second apply: %+v %v", again, err)
	}
	sameSnapshot(t, before, snapshot(t, proj))
	st, err := k.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Layers[LayerTraces] != 34 || st.Promotable != 0 || st.Rejected != 1 || st.Promoted != 6 || st.Candidates == 0 ||
		st.OldestCandidate.IsZero() {
		t.Errorf("status = %+v", st)
	}
}

// TestPromoteSync: a note deleted in review of a merged promotion branch
// rejects the candidates it came from.
func TestPromoteSync(t *testing.T) {
	t.Parallel()
	proj, k := newProject(t)
	loadFixture(t, k)
	ctx := context.Background()
	if st, err := k.Status(ctx); err != nil || st.Promotable != len(fixtureGrads) || !st.Stale {
		t.Errorf("status before promotion: %+v %v", st, err)
	}
	res, err := k.Promote(ctx, PromoteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := k.Status(ctx)
	if err != nil || len(st.PendingBranches) != 1 || st.Promotable != 0 || st.Stale {
		t.Errorf("status with an open branch: %+v %v", st, err)
	}
	// Squash-merge the branch, minus the force-push convention.
	r, _ := gitx.Open(proj)
	dropped := ".kb/" + res.Graduations[0].Path
	for _, f := range res.Files {
		if f.Path == dropped {
			continue
		}
		b, err := r.FileAt(res.Branch, f.Path)
		if err != nil {
			t.Fatal(err)
		}
		write(t, proj, f.Path, string(b))
	}
	for _, f := range res.Files {
		if strings.Contains(f.Path, "/observations/") {
			t.Errorf("untracked observation %s in the commit", f.Path)
		}
	}
	commitAll(t, proj, "merge promotions")
	sync, err := k.PromoteSync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rej := sync.Rejected
	if len(rej) != 1 || rej[0].ID != res.Graduations[0].Observations[0] || rej[0].Note != dropped {
		t.Fatalf("sync rejected %+v", rej)
	}
	want := 0
	for _, g := range res.Graduations[1:] {
		want += len(g.Observations)
	}
	if len(sync.Promoted) != want {
		t.Errorf("sync promoted %d, want %d", len(sync.Promoted), want)
	}
	if again, err := k.PromoteSync(ctx); err != nil || len(again.Promoted)+len(again.Rejected) != 0 {
		t.Errorf("second sync: %+v %v", again, err)
	}
	files, _, _ := k.LoadObservations(ctx)
	f, _ := findObs(files, rej[0].ID)
	if f.Obs.Status != observations.StatusRejected {
		t.Errorf("status %s", f.Obs.Status)
	}
	next, err := k.Promote(ctx, PromoteOptions{DryRun: true})
	if err != nil || len(next.Graduations) != 0 {
		t.Errorf("after sync: %+v %v", next, err)
	}
}

// TestPromoteOutsideGit: a standalone KB not in git needs --apply.
func TestPromoteOutsideGit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	root := filepath.Join(dir, "mem")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, root, ConfigFile, "version: 1\n")
	k, err := OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	k.ProjectRoot = root
	if _, err := gitx.Open(root); err == nil {
		t.Skip("temp dir is inside a git repository")
	}
	o := &observations.Observation{Type: observations.TypeCorrection, Lesson: "Use uv, not pip.", Title: "Use uv, not pip.",
		Status: observations.StatusCandidate, ActionTypes: []string{"pkg:pip"},
		Sources: []observations.SourceRef{{Session: "a", From: 1, To: 2}, {Session: "b", From: 3, To: 4}}, Sessions: 2}
	if _, _, err := k.SaveObservation(o, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Promote(context.Background(), PromoteOptions{}); err == nil {
		t.Fatal("branch promotion outside git worked")
	}
	res, err := k.Promote(context.Background(), PromoteOptions{Apply: true})
	if err != nil || len(res.Graduations) != 1 {
		t.Fatalf("apply: %+v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(root, "AGENTS.md")); err != nil {
		t.Errorf("AGENTS.md: %v", err)
	}
}

func sortedLines(s string) string {
	l := strings.Split(s, "\n")
	sort.Strings(l)
	return strings.Join(l, "\n")
}

// TestPromoteSkipsWhatTheLibrarySays: a candidate that met its rule but
// that a library note (written by a person, in other words) already says is
// not proposed as a second note; it is listed as covered, explain names
// the note, and kb status does not count it as promotable.
func TestPromoteSkipsWhatTheLibrarySays(t *testing.T) {
	t.Parallel()
	proj, k := newProject(t)
	loadFixture(t, k)
	write(t, k.Root, "library/conventions/no-force-push.md", `---
id: no-force-push
type: convention
title: Do not force-push to main
description: Never rewrite main's history with a force push; open a pull request instead.
triggers: ["git:push-force", "git push --force"]
---

# Do not force-push to main

Force-pushing main rewrites what everyone has pulled.
`)
	commitAll(t, proj, "kb: import, extract, a hand-written convention")
	ctx := context.Background()
	dry, err := k.Promote(ctx, PromoteOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(dry.Graduations) != len(fixtureGrads)-1 {
		t.Errorf("%d graduations, want %d", len(dry.Graduations), len(fixtureGrads)-1)
	}
	for _, g := range dry.Graduations {
		if strings.Contains(g.Title, "force-push") {
			t.Errorf("proposed a second note %s beside no-force-push", g.Path)
		}
	}
	if len(dry.Covered) != 1 || dry.Covered[0].Note != "no-force-push" || dry.Covered[0].Path != "library/conventions/no-force-push.md" {
		t.Fatalf("covered = %+v", dry.Covered)
	}
	ex, err := k.PromoteExplain(ctx, dry.Covered[0].Observation)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Eligible || !strings.Contains(ex.Note, "no-force-push") {
		t.Errorf("explain = %+v", ex)
	}
	st, err := k.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Promotable != len(fixtureGrads)-1 {
		t.Errorf("status promotable %d, want %d", st.Promotable, len(fixtureGrads)-1)
	}
}
