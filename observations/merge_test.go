package observations

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestMergeTwiceChangesNothing: the second merge of the same candidates
// into the files the first one planned writes nothing.
func TestMergeTwiceChangesNothing(t *testing.T) {
	ctx := context.Background()
	a, b := sampleCorrection("s1"), sampleCorrection("s2")
	res, err := (&Merger{}).Merge(ctx, []*Observation{a, b})
	if err != nil || len(res.Writes) != 1 || res.Types[TypeCorrection].New != 1 || res.Types[TypeCorrection].Merged != 1 {
		t.Fatalf("first merge: %v %+v %+v", err, res, res.Types[TypeCorrection])
	}
	var files []*File
	for _, w := range res.Writes {
		f, p := ParseFile(w.Path, w.Content)
		if p != nil {
			t.Fatal(p)
		}
		if f.Obs.Sessions != 2 {
			t.Errorf("sessions %d, want 2", f.Obs.Sessions)
		}
		files = append(files, f)
	}
	res, err = (&Merger{Files: files}).Merge(ctx, []*Observation{sampleCorrection("s1"), sampleCorrection("s2")})
	if err != nil || len(res.Writes) != 0 || res.Types[TypeCorrection].Unchanged != 2 {
		t.Fatalf("second merge: %v %+v %+v", err, res.Writes, res.Types[TypeCorrection])
	}
}

func TestMergeLeavesWhatItMustNotTouch(t *testing.T) {
	ctx := context.Background()
	o := sampleCorrection("s1")
	rel := FilePath(o.Type, o.ID)
	m := &Merger{Broken: map[string]bool{rel: true}}
	res, _ := m.Merge(ctx, []*Observation{o})
	if len(res.Writes) != 0 || len(res.Problems) != 1 || res.Problems[0].Path != rel {
		t.Errorf("broken file: %+v", res)
	}
	m = &Merger{Occupied: func(string) bool { return true }}
	res, _ = m.Merge(ctx, []*Observation{sampleCorrection("s1")})
	if len(res.Writes) != 0 || len(res.Problems) != 1 {
		t.Errorf("occupied: %+v", res)
	}
	m = &Merger{Tombstones: []Tombstone{TombstoneOf(o, "", o.FirstSeen)}}
	res, _ = m.Merge(ctx, []*Observation{sampleCorrection("s7")})
	if len(res.Writes) != 0 || res.Forgotten != 1 {
		t.Errorf("forgotten: %+v", res)
	}
}

// recurrenceSessions are three real-format sessions in which the agent's
// npm call is refused: two give the same correction in different words,
// the third (same tool) a different lesson.
func recurrenceSessions() (a, b, near, other *Session) {
	a = newSession("sa").user("add lodash").
		reject("Bash", `{"command":"npm install lodash"}`).
		user("we use pnpm in this repo, not npm").s
	b = newSession("sb").user("add vitest for the tests").
		reject("Bash", `{"command":"npm i -D vitest"}`).
		user("no, run pnpm add for dependencies; npm writes a package-lock.json we don't want").s
	near = newSession("sc").user("add zod").
		reject("Bash", `{"command":"npm install zod@latest"}`).
		user("pin the exact version with --save-exact, never latest").s
	other = newSession("sd").user("push the fix").
		reject("Bash", `{"command":"git push --force origin main"}`).
		user("never force push to main, open a pull request from a branch").s
	return
}

func corrections(t *testing.T, ss ...*Session) []*Observation {
	t.Helper()
	var out []*Observation
	for _, s := range ss {
		got := Extract(s, nil, []string{TypeCorrection})
		if len(got) != 1 {
			t.Fatalf("%s: %d corrections, want 1", s.ID, len(got))
		}
		out = append(out, got...)
	}
	return out
}

// TestMergeRecurrenceAcrossWording (issue 14, kind 6): the same correction
// in two sessions in different words (both after a refused call of the
// same action type, both naming the same tools) becomes one observation
// with sessions: 2 and the sources of both; an unrelated correction and a
// near miss (same tool, another lesson) stay apart; a re-run changes
// nothing.
func TestMergeRecurrenceAcrossWording(t *testing.T) {
	ctx := context.Background()
	a, b, near, other := recurrenceSessions()
	res, err := (&Merger{}).Merge(ctx, corrections(t, a, b, near, other))
	if err != nil {
		t.Fatal(err)
	}
	var files []*File
	bySession := map[string]*File{}
	for _, w := range res.Writes {
		f, p := ParseFile(w.Path, w.Content)
		if p != nil {
			t.Fatal(p)
		}
		files = append(files, f)
		for _, s := range f.Obs.Sources {
			bySession[s.Session] = f
		}
	}
	if len(files) != 3 {
		t.Fatalf("%d observations, want 3 (the reworded pair merged, the near miss and the unrelated one apart)", len(files))
	}
	if bySession["sa"] != bySession["sb"] || bySession["sa"].Obs.Sessions != 2 {
		t.Errorf("reworded correction not merged: %+v", bySession["sa"].Obs.Sources)
	}
	if bySession["sc"] == bySession["sa"] || bySession["sc"].Obs.Sessions != 1 {
		t.Errorf("near miss (same tool, other lesson) merged: %+v", bySession["sc"].Obs.Sources)
	}
	if bySession["sd"] == bySession["sa"] || bySession["sd"] == bySession["sc"] {
		t.Error("unrelated correction merged")
	}
	// Idempotent: the same sessions again (kb extract --all), or one of
	// them alone (--rerun of that session), write nothing.
	for _, again := range [][]*Session{{a, b, near, other}, {b}, {near}} {
		res, err = (&Merger{Files: files}).Merge(ctx, corrections(t, again...))
		if err != nil || len(res.Writes) != 0 {
			t.Fatalf("re-run of %d sessions: %v %d writes", len(again), err, len(res.Writes))
		}
	}
}

// TestMergeRecurrenceScope: a reworded correction is not merged across
// projects, nor the agent's unreviewed words with the person's.
func TestMergeRecurrenceScope(t *testing.T) {
	ctx := context.Background()
	a, b, _, _ := recurrenceSessions()
	cs := corrections(t, a, b)
	cs[0].Projects, cs[1].Projects = []string{"/home/dev/shop"}, []string{"/home/dev/blog"}
	res, _ := (&Merger{}).Merge(ctx, cs)
	if res.Types[TypeCorrection].New != 2 {
		t.Errorf("merged across projects: %+v", res.Types[TypeCorrection])
	}
	cs = corrections(t, a, b)
	cs[1].Author, cs[1].Origin = AuthorAgent, OriginAssistantText
	cs[1].ID = ""
	res, _ = (&Merger{}).Merge(ctx, cs)
	if res.Types[TypeCorrection].New != 2 {
		t.Errorf("merged the agent's words with the person's: %+v", res.Types[TypeCorrection])
	}
}

// A later lesson that takes back an earlier one about the same tool ("we
// dropped rubocop for standard, forget the rubocop -a thing") is no
// recurrence of it: the two stay apart and the later supersedes the
// earlier.
func TestRevokedLessonIsNoRecurrence(t *testing.T) {
	first := newSession("sa").user("fix the style offenses").
		reject("Bash", `{"command":"bundle exec rubocop -A app/models"}`).
		user("no -A, the unsafe cops change behavior. use `bin/rubocop -a`, safe corrections only").s
	later := newSession("sb").user("autocorrect the new service").
		reject("Bash", `{"command":"bin/rubocop -a app/services"}`).
		user("heads up: we dropped rubocop for standard last week, forget the rubocop -a thing. it's `bundle exec standardrb --fix`").s
	cs := corrections(t, first, later)
	if n, byStatus := supersedeLater(t, cs); n != 2 || byStatus[StatusSuperseded] != 1 {
		t.Errorf("%d observations, statuses %v: want 2, one superseded", n, byStatus)
	}
}

// supersedeLater merges two corrections, the second a month after the
// first, supersedes, and counts the files written by status.
func supersedeLater(t *testing.T, cs []*Observation) (int, map[string]int) {
	t.Helper()
	if len(cs) != 2 {
		t.Fatalf("want 2 corrections, got %d", len(cs))
	}
	cs[0].LastSeen, cs[1].LastSeen = time.Date(2026, 2, 5, 11, 0, 0, 0, time.UTC), time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC)
	m := &Merger{}
	res, err := m.Merge(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := res.Supersede(m.Files); err != nil {
		t.Fatal(err)
	}
	byStatus := map[string]int{}
	for _, w := range res.Writes {
		f, p := ParseFile(w.Path, w.Content)
		if p != nil {
			t.Fatal(p)
		}
		byStatus[f.Obs.Status]++
	}
	return len(res.Writes), byStatus
}

// The words that take the earlier lesson back may come after the part of
// the message the lesson keeps ("... redo it with ruff pls. forget the
// black/isort thing"): the excerpt quotes them, and the later lesson
// still supersedes the earlier one instead of counting as its recurrence.
func TestRevocationOutsideTheLesson(t *testing.T) {
	first := newSession("sa").user("format the api code").
		reject("Bash", `{"command":"poetry run autopep8 --in-place -r app"}`).
		user("we use black + isort, both configured in pyproject: `poetry run black app && poetry run isort app`").s
	later := newSession("sb").user("can you reformat services/api?").
		call("Bash", `{"command":"poetry run black app && poetry run isort app"}`, "reformatted app/x.py").
		user("ah wait, we decided on friday to drop black and isort. everything is ruff now: `poetry run ruff format` for formatting and `poetry run ruff check --fix` for imports. black and isort are gone from pyproject and CI only runs ruff. so redo it with ruff pls. and forget the black/isort thing I told you before").s
	cs := corrections(t, first, later)
	if n, byStatus := supersedeLater(t, cs); n != 2 || byStatus[StatusSuperseded] != 1 {
		t.Errorf("%d observations, statuses %v: want 2, one superseded", n, byStatus)
	}
}

// Code the refused edit wrote, that the person names in a sentence with
// no negation, and that the agent's next version of the file drops, is
// what the agent wrote against the correction.
func TestRedoDropsWhatWasWrong(t *testing.T) {
	s := newSession("sc").user("the invoice total must apply the customer's discount").
		reject("Edit", `{"file_path":"/p/web/invoice.ts","old_string":"x","new_string":"const total = parseFloat(amount) * qty"}`).
		user("niente Float per i soldi, mai. parseFloat ci ha già fatto sballare i centesimi. gli importi sono interi in cents").
		call("Edit", `{"file_path":"/p/web/invoice.ts","old_string":"x","new_string":"const totalCents = amountCents * qty"}`, "ok").s
	cs := corrections(t, s)
	if len(cs) != 1 || !strings.Contains(cs[0].Excerpt, WroteMark+"`parseFloat`") {
		t.Fatalf("want the dropped code marked: %+v", cs[0].Excerpt)
	}
}

// The person names code the agent just wrote, in a message with no
// negation, and the agent's next version of the file drops it: a
// correction, with the dropped code as what the agent wrote against it
// (a selector keeps its dot).
func TestNamedCodeTheRedoDrops(t *testing.T) {
	s := newSession("sd").user("write a job that backfills customers.tier").
		call("Write", `{"file_path":"/p/app/jobs/backfill.rb","content":"def perform\n  Customer.all.each do |c|\n    c.update_columns(tier: 1)\n  end\nend\n"}`, "ok").
		user("customers is 3M rows, .all.each loads all of them into memory and the job gets OOM-killed. in jobs always find_each").
		call("Edit", `{"file_path":"/p/app/jobs/backfill.rb","old_string":"Customer.all.each do |c|","new_string":"Customer.find_each(batch_size: 1000) do |c|"}`, "ok").s
	cs := corrections(t, s)
	if len(cs) != 1 || !strings.Contains(cs[0].Excerpt, WroteMark+"`.all.each`") {
		for _, c := range cs {
			t.Log(c.Excerpt)
		}
		t.Fatalf("want one correction naming .all.each, got %d", len(cs))
	}
}

// The agent's command failed, the person names a part of it that the
// agent's retry of the same action leaves out: a correction; and "forget
// X", X named by an earlier lesson, takes that lesson back.
func TestRetriedCommandAndForgetByName(t *testing.T) {
	first := newSession("se").user("lance les specs de Order stp").
		reject("Bash", `{"command":"bundle exec rspec spec/models/order_spec.rb"}`).
		user("non, passe par bin/rspec, c'est le binstub spring, ça évite de recharger rails").s
	later := newSession("sf").user("run the checkout request specs").
		call("Bash", `{"command":"bin/rspec spec/requests/checkout_spec.rb"}`, "bin/rspec: No such file or directory - spring").
		user("ah right, we ripped spring out last week, it kept serving stale code in CI. forget bin/rspec, it's just bundle exec rspec again now").
		call("Bash", `{"command":"bundle exec rspec spec/requests/checkout_spec.rb"}`, "17 examples, 0 failures").s
	cs := corrections(t, first, later)
	if n, byStatus := supersedeLater(t, cs); n != 2 || byStatus[StatusSuperseded] != 1 {
		t.Errorf("%d observations, statuses %v: want 2, one superseded", n, byStatus)
	}
}

// A revocation takes back what its own clause names, not whatever else
// the message mentions.
func TestRevocationNamesItsThingInItsClause(t *testing.T) {
	a := &Observation{Type: TypeCorrection, Lesson: "Never skip the pre-commit hook with --no-verify."}
	b := &Observation{Type: TypeCorrection, Lesson: "We dropped rubocop for standard last week. Forget the rubocop -a thing, it's `bundle exec standardrb --fix` now, the pre-commit hook runs it too."}
	if revokes(a, b) {
		t.Fatal("a lesson about the hook is not revoked by a message that mentions the hook")
	}
	c := &Observation{Type: TypeCorrection, Lesson: "Use `bin/rubocop -a`, safe corrections only."}
	if !revokes(c, b) {
		t.Fatal("the rubocop lesson is revoked")
	}
}
