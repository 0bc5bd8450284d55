// Package examples is `kb demo`: a KB built from the bundled example data
// (testdata/examples), searched and navigated through the facade, each step
// recorded. A face beside cmd/kb.
package examples

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/textutil"
	"github.com/kbmem/kb/kb"
)

// DemoStep is one thing the demo did, with what it showed.
type DemoStep struct {
	Title   string   `json:"title"`
	Command string   `json:"command"`
	Output  []string `json:"output"`
}

// DemoReport is what `kb demo` did.
type DemoReport struct {
	Root  string     `json:"root"`
	Steps []DemoStep `json:"steps"`
}

// FindExamples locates testdata/examples from dir upwards (the repository's
// bundled example data).
func FindExamples(dir string) (string, error) {
	dir, _ = filepath.Abs(dir)
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "testdata", "examples")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("%w: bundled examples (testdata/examples) not found from %s; run kb demo from the kb repository or pass --examples DIR", kb.ErrNotFound, dir)
		}
	}
}

// Demo builds a KB in root from the example data, then searches and
// navigates it, recording each step. It uses only embedded defaults: no
// server, no API key.
func Demo(ctx context.Context, examples, root string) (*DemoReport, error) {
	rep := &DemoReport{Root: root}
	step := func(title, cmd string, lines ...string) {
		rep.Steps = append(rep.Steps, DemoStep{Title: title, Command: cmd, Output: lines})
	}
	if _, err := kb.Init(root); err != nil {
		return nil, err
	}
	n, err := copyTree(filepath.Join(examples, "library"), filepath.Join(root, kb.LayerLibrary))
	if err != nil {
		return nil, fmt.Errorf("demo: copy examples: %w", err)
	}
	step("Create a KB and add the example library notes", "kb init "+root, fmt.Sprintf("%d notes copied into %s", n, filepath.Join(root, kb.LayerLibrary)))
	k, err := kb.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	k.Logf = func(string, ...any) {}
	x, st, err := k.OpenIndex(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	step("Index the notes (bleve, English stemming)", "kb index", fmt.Sprintf("%d files indexed", st.Added))

	for _, q := range []string{"removing a column", "git add", "+type:adr secrets"} {
		res, err := x.Search(kb.SearchOptions{Query: q, Limit: 3})
		if err != nil {
			return nil, err
		}
		var lines []string
		for _, h := range res.Hits {
			lines = append(lines, fmt.Sprintf("%-32s %s", h.ID, h.Title))
		}
		if len(lines) == 0 {
			lines = []string{"(no results)"}
		}
		step("Search", fmt.Sprintf("kb search %q", q), lines...)
	}
	note, err := x.Show("adr-0001-postgres-migrations")
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, l := range note.Links {
		lines = append(lines, "links to   "+l.Target+" -> "+orUnresolved(l.To))
	}
	for _, l := range note.Backlinks {
		lines = append(lines, "linked from "+l.From)
	}
	step("Navigate: links and backlinks of an ADR", "kb show adr-0001-postgres-migrations", lines...)
	var gb strings.Builder
	if err := x.WriteGraph(&gb, "mermaid", "stage-files-by-name", 1); err != nil {
		return nil, err
	}
	step("Graph around a convention", "kb graph --format mermaid --from stage-files-by-name", strings.Split(strings.TrimSpace(gb.String()), "\n")...)
	lint, err := k.Lint(ctx)
	if err != nil {
		return nil, err
	}
	lines = nil
	for _, p := range lint.Problems {
		lines = append(lines, p.String())
	}
	step("Lint: the example has one deliberately broken link", "kb lint", lines...)
	x.Close()

	if err := demoPipeline(ctx, k, filepath.Join(examples, "transcripts"), step); err != nil {
		return nil, err
	}
	return rep, nil
}

// demoPipeline runs the layers above the library on the example
// transcripts: import, extract, recall before a repeated mistake, the
// Claude Code hook, and what would graduate to the library.
func demoPipeline(ctx context.Context, k *kb.KB, dir string, step func(title, cmd string, lines ...string)) error {
	if _, err := os.Stat(dir); err != nil {
		return nil // examples without transcripts: the library part is the demo
	}
	imp, err := k.Import(ctx, []string{dir}, kb.ImportOptions{})
	if err != nil {
		return fmt.Errorf("demo: import: %w", err)
	}
	step("Import three Claude Code sessions (secrets redacted, append-only)", "kb import testdata/examples/transcripts",
		fmt.Sprintf("%d records in %d sessions from %d files", imp.Totals.Appended, imp.Totals.Sessions, imp.Totals.Files))

	if _, err := k.Extract(ctx, kb.ExtractOptions{}); err != nil {
		return fmt.Errorf("demo: extract: %w", err)
	}
	obs, _, err := k.LoadObservations(ctx)
	if err != nil {
		return err
	}
	var lines []string
	for _, f := range obs {
		o := f.Obs
		text := o.Lesson
		if text == "" {
			text = o.Title
		}
		lines = append(lines, fmt.Sprintf("%-15s %-11s %d session(s)  %s", o.ID, o.Type, o.Sessions, textutil.Truncate(text, 70)))
	}
	step("Extract typed observations: the same correction in two sessions is one observation", "kb extract && kb observations", lines...)

	action := "git add -A && git commit -m wip"
	rc, err := k.Recall(ctx, kb.RecallQuery{Action: action})
	if err != nil {
		return fmt.Errorf("demo: recall: %w", err)
	}
	md := strings.TrimSpace(rc.Markdown())
	if md == "" {
		md = "(nothing recalled)"
	}
	step("Recall before the agent repeats the mistake", fmt.Sprintf("kb recall --action %q", action), strings.Split(md, "\n")...)

	event := `{"hook_event_name":"PreToolUse","session_id":"demo","cwd":"/home/dev/ledger","tool_name":"Bash","tool_input":{"command":"pip install requests"}}`
	out, err := k.HandleHook(ctx, "claude-code", []byte(event))
	if err != nil {
		return fmt.Errorf("demo: hook: %w", err)
	}
	hookOut := strings.TrimSpace(string(out))
	if hookOut == "" {
		hookOut = "(no output: nothing matched)"
	}
	step("The Claude Code PreToolUse hook, as Claude Code calls it", "echo '{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"pip install requests\"}}' | kb hook claude-code", textutil.Truncate(hookOut, 600))

	pr, err := k.Promote(ctx, kb.PromoteOptions{DryRun: true})
	if err != nil {
		return fmt.Errorf("demo: promote: %w", err)
	}
	lines = nil
	for _, g := range pr.Graduations {
		lines = append(lines, fmt.Sprintf("%s -> %s", g.Kind, g.Path), "  why: "+g.Why)
	}
	for _, c := range pr.Covered {
		lines = append(lines, fmt.Sprintf("%s earned graduation, but %s already says it: no second note", c.Observation, c.Path))
	}
	if len(lines) == 0 {
		lines = []string{"(nothing has earned graduation yet)"}
	}
	step("What has earned a place in the library (a reviewable git branch without --dry-run; never a note the library already has)", "kb promote --dry-run", lines...)
	return nil
}

func orUnresolved(s string) string {
	if s == "" {
		return "(unresolved)"
	}
	return s
}

// copyTree copies the regular files under src into dst atomically, keeping
// the relative layout, and returns how many it copied.
func copyTree(src, dst string) (int, error) {
	n := 0
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		return fsx.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	return n, err
}
