package kb

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbmem/kb/observations"
	"github.com/kbmem/kb/traces"
)

// atTemplate is a prompt template a team pastes (or a tool injects) at the
// start of its sessions: prose with numbered steps, short of the shape
// TemplateShape recognises alone (no placeholder, no front matter, no
// user-input section), so only its recurrence tells it is not typed.
const atTemplate = "Working agreement for this repository, read it before doing anything:\n" +
	"1. From now on always run make lint before you commit anything.\n" +
	"2. I prefer table-driven tests over one function per case.\n" +
	"3. We decided to use sqlite instead of postgres for the local cache, because it needs no server.\n" +
	"4. Never push to main directly; open a branch."

// atSession writes one Claude Code session of the project: the template,
// then what the person typed.
func atSession(t *testing.T, dir, sid string, day int, person []string) string {
	c := exNewCC(sid, time.Date(2026, 2, day, 9, 0, 0, 0, time.UTC))
	c.n = day * 1000 // record uuids of their own, as real sessions have
	c.user(atTemplate)
	c.say("Understood.")
	for _, p := range person {
		c.reject("Bash", map[string]any{"command": "npm install"})
		c.user(p)
		c.say("Done.")
	}
	return c.write(t, dir)
}

// atFromTemplate returns the observations of the scored types with a
// source record holding the template's text.
func atFromTemplate(t *testing.T, k *KB) (bad, good []*ObsFile) {
	t.Helper()
	st := &traces.Store{Root: k.Root}
	tpl := map[string]bool{} // session#seq of the template records
	infos, err := st.Sessions()
	if err != nil {
		t.Fatal(err)
	}
	for _, si := range infos {
		st.ReadFile(si.Path, func(r traces.Record) error {
			if strings.HasPrefix(r.Text, "Working agreement") {
				tpl[fmt.Sprintf("%s#%d", r.Session, r.Seq)] = true
			}
			return nil
		})
	}
	for _, f := range exLoadObs(t, k) {
		switch f.Obs.Type {
		case observations.TypeCorrection, observations.TypePreference, observations.TypeDecision:
		default:
			continue
		}
		hit := false
		for _, s := range f.Obs.Sources {
			for q := s.From; q <= s.To; q++ {
				hit = hit || tpl[fmt.Sprintf("%s#%d", s.Session, q)]
			}
		}
		if hit {
			bad = append(bad, f)
		} else {
			good = append(good, f)
		}
	}
	return bad, good
}

// TestExtractTemplateRecurring: the same template text in two sessions
// yields no correction, preference or decision, while what the person
// typed in the same sessions still does. One session alone shows the text
// would count if it were the person's (nothing tells it is a template).
func TestExtractTemplateRecurring(t *testing.T) {
	root := t.TempDir()
	one := filepath.Join(root, "one", "projects", "-home-dev-app")
	atSession(t, one, "a7700000-0000-4000-8000-000000000001", 1, []string{"no, don't use npm here. Use pnpm install instead, the lockfile is pnpm's."})
	k := newExtractKB(t)
	exImport(t, k, one)
	exExtract(t, k, ExtractOptions{All: true})
	if bad, _ := atFromTemplate(t, k); len(bad) == 0 {
		t.Fatalf("control: the template in one session gave no observation; the test proves nothing")
	}

	two := filepath.Join(root, "two", "projects", "-home-dev-app")
	atSession(t, two, "a7700000-0000-4000-8000-000000000001", 1, []string{"no, don't use npm here. Use pnpm install instead, the lockfile is pnpm's."})
	atSession(t, two, "a7700000-0000-4000-8000-000000000002", 3, []string{"stop, npm is wrong for this repo: run pnpm install so the pnpm lockfile stays the source of truth."})
	k = newExtractKB(t)
	exImport(t, k, two)
	exExtract(t, k, ExtractOptions{All: true})
	bad, good := atFromTemplate(t, k)
	for _, f := range bad {
		t.Errorf("%s from the template: %q", f.Obs.Type, f.Obs.Lesson)
	}
	corr := 0
	for _, f := range good {
		if f.Obs.Type == observations.TypeCorrection && strings.Contains(f.Obs.Lesson, "pnpm") {
			corr++
		}
	}
	if corr == 0 {
		t.Errorf("the person's corrections were lost with the template: %d other observations", len(good))
	}

	// Session by session: the second session's import makes the turn
	// recur, and from then on both occurrences are the template's.
	st := &traces.Store{Root: k.Root}
	a, err := st.Attribution()
	if err != nil {
		t.Fatal(err)
	}
	infos, _ := st.Sessions()
	n := 0
	for _, si := range infos {
		st.ReadFile(si.Path, func(r traces.Record) error {
			if strings.HasPrefix(r.Text, "Working agreement") {
				n++
				if r.Who() != traces.AuthorPerson {
					t.Errorf("stored author %q: recurrence is derived, not written at import", r.Who())
				}
				if w := a.Author(&r, si.Path); w != traces.AuthorTemplate {
					t.Errorf("session %s: template turn attributed to %q", si.ID, w)
				}
			}
			return nil
		})
	}
	if n != 2 {
		t.Fatalf("template records: %d", n)
	}
}
