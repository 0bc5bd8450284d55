package kb

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kbmem/kb/observations"
)

// TestExtractRetractsTemplateLater: a template turn is the person's while
// one session holds it, so extracting that session alone makes an
// observation of it. Once a second session with the same template is
// imported, the next default `kb extract` (which does not read the first
// session for extraction again) retires that observation with a
// tombstone; the correction the person typed in the first session stays.
func TestExtractRetractsTemplateLater(t *testing.T) {
	root := t.TempDir()
	one := filepath.Join(root, "one", "projects", "-home-dev-app")
	atSession(t, one, "a7710000-0000-4000-8000-000000000001", 1, []string{"no, don't use npm here. Use pnpm install instead, the lockfile is pnpm's."})
	k := newExtractKB(t)
	exImport(t, k, one)
	exExtract(t, k, ExtractOptions{})
	bad, good := atFromTemplate(t, k)
	if len(bad) == 0 {
		t.Fatalf("control: the template in one session gave no observation; the test proves nothing")
	}
	personal := ""
	for _, f := range good {
		if f.Obs.Type == observations.TypeCorrection && strings.Contains(f.Obs.Lesson, "pnpm") {
			personal = f.Obs.ID
		}
	}
	if personal == "" {
		t.Fatalf("control: no correction from what the person typed")
	}

	two := filepath.Join(root, "two", "projects", "-home-dev-app")
	atSession(t, two, "a7710000-0000-4000-8000-000000000002", 3, []string{"stop, run the tests with go test -race ./... before saying it is done."})
	exImport(t, k, two)
	rep := exExtract(t, k, ExtractOptions{})
	if !slices.Equal(rep.Sessions, []string{"a7710000-0000-4000-8000-000000000002"}) {
		t.Fatalf("extracted %v: the first session must not be extracted again for this test to mean anything", rep.Sessions)
	}
	bad, good = atFromTemplate(t, k)
	for _, f := range bad {
		t.Errorf("still there after the template recurred: %s %q", f.Obs.Type, f.Obs.Lesson)
	}
	if len(rep.Retracted) == 0 {
		t.Errorf("report names no retracted file")
	}
	if !slices.ContainsFunc(good, func(f *ObsFile) bool { return f.Obs.ID == personal }) {
		t.Errorf("the person's correction %s was lost", personal)
	}
	ts, err := k.Tombstones()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Retracted {
		id := strings.TrimSuffix(filepath.Base(p), ".md")
		if !observations.Tombstoned(ts, id) {
			t.Errorf("%s retired without a tombstone", id)
		}
	}
	// A re-run, and a full one, change nothing.
	for _, o := range []ExtractOptions{{}, {All: true}} {
		if again := exExtract(t, k, o); len(again.Written) > 0 || len(again.Retracted) > 0 {
			t.Errorf("re-run %+v wrote %v, retracted %v", o, again.Written, again.Retracted)
		}
	}
}

// TestRetractKeepsPersonSourceAndEdits: an observation with a template
// source and another keeps the other and is recounted; a file a person
// edited is reported and left as it is.
func TestRetractKeepsPersonSourceAndEdits(t *testing.T) {
	mk := func(id string, edited bool, srcs ...observations.SourceRef) *observations.File {
		o := &observations.Observation{ID: id, Type: observations.TypeCorrection, Title: "Use pnpm", Lesson: "Use pnpm install, not npm install.",
			Trigger: "npm install", Sources: srcs, Sessions: len(srcs), Signals: []string{observations.SignalRecurrence}}
		rel, out, _, err := observations.RenderFile(o, nil)
		if err != nil {
			t.Fatal(err)
		}
		f, prob := observations.ParseFile(rel, out)
		if prob != nil {
			t.Fatal(prob)
		}
		f.Edited = edited
		return f
	}
	tpl := observations.SourceRef{Session: "s1", From: 3, To: 4}
	own := observations.SourceRef{Session: "s2", From: 7, To: 8}
	both := mk("cor-both", false, tpl, own)
	edited := mk("cor-edited", true, tpl)
	only := mk("cor-only", false, tpl)
	revs, probs := observations.Retract([]*observations.File{both, edited, only},
		func(s observations.SourceRef) bool { return s == tpl }, time.Date(2026, 2, 5, 0, 0, 0, 0, time.UTC))
	if len(probs) != 1 || probs[0].Path != edited.Path {
		t.Errorf("problems %v: want one for the edited file", probs)
	}
	if len(revs) != 2 {
		t.Fatalf("revisions: %d", len(revs))
	}
	for _, r := range revs {
		switch r.File.Obs.ID {
		case "cor-both":
			f, prob := observations.ParseFile(r.File.Path, r.Content)
			if prob != nil {
				t.Fatal(prob)
			}
			if !slices.Equal(f.Obs.Sources, []observations.SourceRef{own}) || f.Obs.Sessions != 1 || slices.Contains(f.Obs.Signals, observations.SignalRecurrence) {
				t.Errorf("kept: sources %v sessions %d signals %v", f.Obs.Sources, f.Obs.Sessions, f.Obs.Signals)
			}
		case "cor-only":
			if r.Tomb == nil || r.Content != nil {
				t.Errorf("the template-only observation is not retired: %+v", r)
			}
		default:
			t.Errorf("unexpected revision of %s", r.File.Obs.ID)
		}
	}
}

// cloneSession writes a Claude Code session in which the agent's call is
// refused and the person says what to do instead.
func cloneSession(t *testing.T, dir, sid string, day int, ask, cmd, reason string) {
	c := exNewCC(sid, time.Date(2026, 3, day, 9, 0, 0, 0, time.UTC))
	c.n = day * 1000
	c.user(ask)
	c.reject("Bash", map[string]any{"command": cmd})
	c.user(reason)
	c.say("Understood.")
	c.write(t, dir)
}

// copyTree copies what clone b has under dir and clone a lacks, as a git
// merge of the two clones would leave it.
func copyTree(t *testing.T, a, b *KB, dir string) {
	t.Helper()
	src := filepath.Join(b.Root, dir)
	err := filepath.WalkDir(src, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(b.Root, p)
		dst := filepath.Join(a.Root, rel)
		if _, err := os.Stat(dst); err == nil {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestExtractFoldsClonesParaphrases (issue 18): two clones extract the same
// correction in other words, so their files have other ids and one session
// each; after the clones are merged, `kb extract` folds them into one file
// with sessions: 2 (the older survives), removes the other with a
// tombstone that redirects its id, keeps unrelated corrections apart, and
// a re-run changes nothing.
func TestExtractFoldsClonesParaphrases(t *testing.T) {
	root := t.TempDir()
	da := filepath.Join(root, "a", "projects", "-home-dev-app")
	db := filepath.Join(root, "b", "projects", "-home-dev-app")
	cloneSession(t, da, "a7720000-0000-4000-8000-00000000000a", 1, "add lodash", "npm install lodash", "we use pnpm in this repo, not npm")
	cloneSession(t, da, "a7720000-0000-4000-8000-00000000000c", 2, "push the fix", "git push --force origin main", "never force push to main, open a pull request from a branch")
	cloneSession(t, db, "a7720000-0000-4000-8000-00000000000b", 4, "add vitest for the tests", "npm i -D vitest", "no, run pnpm add for dependencies; npm writes a package-lock.json we don't want")
	cloneSession(t, db, "a7720000-0000-4000-8000-00000000000d", 5, "add zod", "npm install zod@latest", "pin the exact version with --save-exact, never latest")
	ka, kb := newExtractKB(t), newExtractKB(t)
	exImport(t, ka, da)
	exImport(t, kb, db)
	exExtract(t, ka, ExtractOptions{})
	exExtract(t, kb, ExtractOptions{})
	corrOf := func(k *KB) map[string]*ObsFile {
		out := map[string]*ObsFile{}
		for _, f := range exLoadObs(t, k) {
			if f.Obs.Type == observations.TypeCorrection {
				for _, s := range f.Obs.Sources {
					out[s.Session[len(s.Session)-1:]] = f
				}
			}
		}
		return out
	}
	before := corrOf(ka)
	for s, f := range corrOf(kb) {
		before[s] = f
	}
	if before["a"] == nil || before["b"] == nil || before["a"].Obs.ID == before["b"].Obs.ID {
		t.Fatalf("control: the clones' corrections must be two ids: %v", before)
	}
	older, newer := before["a"].Obs.ID, before["b"].Obs.ID

	copyTree(t, ka, kb, "traces")
	copyTree(t, ka, kb, observations.Dir)
	rep := exExtract(t, ka, ExtractOptions{})
	after := corrOf(ka)
	if after["a"] != nil && after["a"] == after["b"] {
		if f := after["a"]; f.Obs.ID != older || f.Obs.Sessions != 2 || len(f.Obs.Sources) != 2 {
			t.Errorf("folded into %s with sessions %d, sources %v; want %s, 2, both", f.Obs.ID, f.Obs.Sessions, f.Obs.Sources, older)
		}
	} else {
		t.Fatalf("the paraphrases were not folded: %s / %s (report %+v)", after["a"].Path, after["b"].Path, rep.Folded)
	}
	for _, s := range []string{"c", "d"} {
		if after[s] == nil || after[s] == after["a"] || after[s].Obs.Sessions != 1 {
			t.Errorf("unrelated correction of session %s: %+v", s, after[s])
		}
	}
	if after["c"] == after["d"] {
		t.Errorf("unrelated corrections folded together")
	}
	if len(rep.Folded) != 1 {
		t.Errorf("report: folded %+v", rep.Folded)
	}
	if _, err := os.Stat(filepath.Join(ka.Root, observations.FilePath(observations.TypeCorrection, newer))); !os.IsNotExist(err) {
		t.Errorf("the folded file is still there: %v", err)
	}
	if id, err := ka.ResolveObservation(t.Context(), newer); err != nil || id != older {
		t.Errorf("the folded id resolves to %q, %v; want %s", id, err, older)
	}
	for _, o := range []ExtractOptions{{}, {All: true}} {
		if again := exExtract(t, ka, o); len(again.Written) > 0 || len(again.Folded) > 0 || len(again.Problems) > 0 {
			t.Errorf("re-run %+v: wrote %v, folded %v, problems %v", o, again.Written, again.Folded, again.Problems)
		}
	}
}

// TestJournalDeleteResumes: a run killed after its journal was written,
// with a fold's removal pending, is finished by the next run: the file is
// removed; one changed since is left and reported.
func TestJournalDeleteResumes(t *testing.T) {
	k := newExtractKB(t)
	write := func(rel, body string) []byte {
		p := filepath.Join(k.Root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return []byte(body)
	}
	gone := write("observations/correction/cor-0000000001.md", "---\nid: cor-0000000001\n---\n")
	kept := write("observations/correction/cor-0000000002.md", "---\nid: cor-0000000002\n---\n")
	j := &extractJournal{Version: 1, Writes: []*obsWrite{
		{Path: "observations/correction/cor-0000000001.md", Before: sum(gone), Delete: true},
		{Path: "observations/correction/cor-0000000002.md", Before: sum(append(kept, 'x')), Delete: true},
	}}
	b, _ := json.Marshal(j)
	os.MkdirAll(filepath.Dir(k.journalPath()), 0o755)
	if err := os.WriteFile(k.journalPath(), b, 0o600); err != nil {
		t.Fatal(err)
	}
	written, probs, err := k.resumeExtract()
	if err != nil {
		t.Fatal(err)
	}
	if len(written) != 1 || len(probs) != 1 || probs[0].Path != "observations/correction/cor-0000000002.md" {
		t.Errorf("written %v, problems %v", written, probs)
	}
	if _, err := os.Stat(filepath.Join(k.Root, "observations/correction/cor-0000000001.md")); !os.IsNotExist(err) {
		t.Errorf("pending removal not finished: %v", err)
	}
	if _, err := os.Stat(filepath.Join(k.Root, "observations/correction/cor-0000000002.md")); err != nil {
		t.Errorf("a file changed since was removed: %v", err)
	}
	if _, err := os.Stat(k.journalPath()); !os.IsNotExist(err) {
		t.Errorf("journal left: %v", err)
	}
}
