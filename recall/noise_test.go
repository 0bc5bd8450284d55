package recall

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kbmem/kb/observations"
)

// noiseEngine is an engine over observations held in memory.
func noiseEngine(obs ...*observations.Observation) *Engine {
	idx := &memIndex{}
	files := memFiles{obs: map[string]*observations.Observation{}}
	for _, o := range obs {
		p := "observations/" + o.Type + "/" + o.ID + ".md"
		files.obs[p] = o
		idx.hits = append(idx.hits, Hit{Path: p, ID: o.ID, Layer: LayerObservations, Type: o.Type, Title: o.Title,
			Fields: map[string]any{"noteid": o.ID, "action_types": o.ActionTypes, "trigger": o.Trigger, "lesson": o.Lesson,
				"approach": o.Approach, "failure": o.Failure, "importance": 0.6, "sessions": float64(1), "status": "candidate"}})
	}
	return &Engine{Index: idx, Files: files}
}

func callQuery(tool string, input map[string]any) Query {
	b, _ := json.Marshal(input)
	return Query{Tool: tool, Input: b, Cwd: "/p", Project: "/p"}
}

func recalled(t *testing.T, e *Engine, q Query) []string {
	t.Helper()
	res, err := e.Recall(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return res.IDs()
}

// Three kinds of noise seen on the replay of real sessions, each for its
// class: a lesson that names a file of some kind is about that file, not
// about every action on files of the kind; a negative result's approach
// (kb's description of the failed call) is its corrected moment, not what
// it says; a command that only looks (git diff, find | grep) changes no
// file it names.
func TestNoiseMechanisms(t *testing.T) {
	report := &observations.Observation{ID: "cor-report", Type: observations.TypeCorrection,
		Trigger: "editing tests: Edit `app/test/test_links.py`", ActionTypes: []string{"test:modify"},
		Lesson: "Check that the change to `app/render.py`, `app/test/test_links.py` really works before calling it done; the person reported: “the navigation section is gone”."}
	failed := &observations.Observation{ID: "neg-tests", Type: observations.TypeNegativeResult, ActionTypes: []string{"test:modify"},
		Approach: "editing tests: Edit `app/test/test_links.py`", Failure: "the navigation section is gone"}
	e := noiseEngine(report, failed)

	other := callQuery("Edit", map[string]any{"file_path": "/p/app/test/test_cache.py", "old_string": "a", "new_string": "def test_cache_navigation_section():\n    pass\n"})
	if got := recalled(t, e, other); len(got) != 0 {
		t.Errorf("an edit of another test file: %v", got)
	}
	same := callQuery("Edit", map[string]any{"file_path": "/p/app/test/test_links.py", "old_string": "a", "new_string": "b"})
	if got := recalled(t, e, same); len(got) != 2 {
		t.Errorf("an edit of the file the lessons are about: %v", got)
	}
	for _, cmd := range []string{
		"git diff app/test/test_links.py",
		`find app -name "*.py" | grep -E "(test_links|render)" | sort`,
		"cat app/test/test_links.py | head -50",
	} {
		if got := recalled(t, e, callQuery("Bash", map[string]any{"command": cmd})); len(got) != 0 {
			t.Errorf("%s: %v", cmd, got)
		}
	}
	// Changing the file from the shell is changing it.
	if got := recalled(t, e, callQuery("Bash", map[string]any{"command": "sed -i 's/a/b/' app/test/test_links.py"})); len(got) == 0 {
		t.Errorf("sed -i on the file: nothing")
	}
	if got := recalled(t, e, callQuery("Bash", map[string]any{"command": `find app -name "test_links.py" -delete`})); len(got) == 0 {
		t.Errorf("find -delete of the file: nothing")
	}
}

// The person's request about the task at hand, seen once, names the file
// it was made on; a later edit of that file is no moment for it (on the
// replay of the shared transcripts, two such requests came back on every
// edit of renderer.py across three sessions). A rule about the file, the
// same request seen in two sessions, and a lesson kb composed around the
// person's words still fire. TaskBound's words are English; a one-off
// request in another language is held by the file-alone rule instead: an
// edit that writes none of its words does not get it.
func TestTaskBoundRequestIsNotAboutTheFile(t *testing.T) {
	lesson := func(id, text string) *observations.Observation {
		return &observations.Observation{ID: id, Type: observations.TypeCorrection, Trigger: "editing `app/render.py`",
			ActionTypes: []string{"file:modify"}, Lesson: text}
	}
	edit := callQuery("Edit", map[string]any{"file_path": "/p/app/render.py", "old_string": "a", "new_string": "b"})
	for _, tc := range []struct {
		name, text string
		sessions   float64
		fires      bool
	}{
		{"a request with a referent", "I didn't find those links helpful, can you please replace them with a single link to `app/render.py`'s index", 1, false},
		{"an investigation", "Check whether we need `render_combined` in `app/render.py`.", 1, false},
		{"the same request in two sessions", "I didn't find those links helpful, can you please replace them with a single link to `app/render.py`'s index", 2, true},
		{"a rule about the file", "Never hand-edit `app/render.py`: regenerate it with make render.", 1, true},
		{"composed by kb, about what the edit changes", "Check that the change to `app/render.py` really works before calling it done; the person reported: “the rendered page is empty”.", 1, true},
		{"composed by kb, about something else", "Check that the change to `app/render.py` really works before calling it done; the person reported: “the links are gone”.", 1, false},
		{"a request in Chinese", "这些链接没用，请把 `app/render.py` 里的它们换成一个链接", 1, false},
		{"a rule that says now", "No, `app/render.py` is generated now: change the template it comes from.", 1, true},
	} {
		e := noiseEngine(lesson("cor-x", tc.text))
		e.Index.(*memIndex).hits[0].Fields["sessions"] = tc.sessions
		if got := recalled(t, e, edit); (len(got) == 1) != tc.fires {
			t.Errorf("%s: recalled %v, want fired %v", tc.name, got, tc.fires)
		}
	}
}

// A project's session starts with its own preferences and those written
// by hand (no project), not with another project's; a query that names no
// project is not scoped.
func TestStandingWithoutProject(t *testing.T) {
	mine := &observations.Observation{ID: "pref-mine", Type: observations.TypePreference, Statement: "Use uv for Python here.", Projects: []string{"/p"}}
	free := &observations.Observation{ID: "pref-free", Type: observations.TypePreference, Statement: "Answer in short paragraphs."}
	e := noiseEngine(mine, free)
	e.Config.ScopeProjects = true
	idx := e.Index.(*memIndex)
	for i := range idx.hits {
		idx.hits[i].Fields["statement"] = []*observations.Observation{mine, free}[i].Statement
		idx.hits[i].Fields["projects"] = []*observations.Observation{mine, free}[i].Projects
	}
	for _, tc := range []struct {
		project string
		want    string
	}{{"", "[pref-free pref-mine]"}, {"/p", "[pref-free pref-mine]"}, {"/q", "[pref-free]"}} {
		got := recalled(t, e, Query{Standing: true, Project: tc.project, Cwd: tc.project})
		slices.Sort(got)
		if s := fmt.Sprint(got); s != tc.want {
			t.Errorf("project %q: %s, want %s", tc.project, s, tc.want)
		}
	}
}

// The "(about ...)" extraction adds to resolve a "that" quotes the
// corrected call, as the trigger does: it does not make the lesson name
// that call's tool or speak of its kind of action. A lesson that says
// the tool in its own words still does.
func TestObjectReferenceIsNotTheLessonsWords(t *testing.T) {
	reuse := &observations.Observation{ID: "cor-reuse", Type: observations.TypeCorrection, ActionTypes: []string{"py:run"},
		Trigger: "running Python: `uv run python -c \"from app.render import page\"`",
		Lesson:  "Reuse templates/components/nav.html for that (about `uv run python -c \"from app.render import page\"`)."}
	npm := &observations.Observation{ID: "cor-npm", Type: observations.TypeCorrection, ActionTypes: []string{"pkg:install", "pkg:npm"},
		Trigger: "installing packages: `npm install`", Lesson: "Do not go ahead with `npm install` unasked; the person said: “use pnpm”."}
	e := noiseEngine(reuse, npm)
	for _, cmd := range []string{"uv run pytest -m unit -v", "uv run ruff format"} {
		if got := recalled(t, e, callQuery("Bash", map[string]any{"command": cmd})); len(got) != 0 {
			t.Errorf("%s: %v", cmd, got)
		}
	}
	if got := recalled(t, e, callQuery("Bash", map[string]any{"command": "npm install lodash"})); !slices.Contains(got, "cor-npm") {
		t.Errorf("npm install: %v", got)
	}
}

// TestFollowingTheAdvisedProgram: a proposal that runs the program the
// lesson advises, and none of the corrected call's, follows the lesson
// even when it is not the advised command itself; another program of the
// same kind, or the corrected one, still gets the lesson.
func TestFollowingTheAdvisedProgram(t *testing.T) {
	uv := &observations.Observation{ID: "cor-uv", Type: observations.TypeCorrection,
		Trigger: "adding or installing a dependency: `pip install django-filter`", ActionTypes: []string{"pkg:install"},
		Lesson: "Use uv - `uv add django-filter`. Pip does not touch uv.lock, and CI installs from the lock."}
	e := noiseEngine(uv)
	for cmd, want := range map[string]bool{
		"uv sync --locked":             false,
		"uv add --dev pytest-randomly": false,
		"pip install requests":         true,
		"python -m pip install httpx":  true,
	} {
		got := recalled(t, e, callQuery("Bash", map[string]any{"command": cmd}))
		if (len(got) > 0) != want {
			t.Errorf("%s: recalled %v, want %v", cmd, got, want)
		}
	}
	// A package manager runs a project binary named after it; its own
	// commands run none.
	for cmd, want := range map[string][]string{
		"cd web && pnpm vitest src/lib": {"pnpm", "vitest"},
		"pnpm dlx vercel deploy --prod": {"pnpm", "vercel"},
		"yarn jest --watch":             {"yarn", "jest"},
		"pnpm install":                  {"pnpm"},
		"pnpm -C web build":             {"pnpm"},
	} {
		if p := programsOf(cmd); !slices.Equal(p, want) {
			t.Errorf("programsOf(%q) = %v, want %v", cmd, p, want)
		}
	}
	if p := programsOf("uv run black apps && npx prettier -w . && python -m pytest -q"); !slices.Equal(p, []string{"uv", "black", "npx", "prettier", "python", "pytest"}) {
		t.Errorf("programsOf: %v", p)
	}
}

// TestBannedPackage: "do not use requests ... a hung requests.get" bans
// the package: a Write that imports it and a command that installs it get
// the lesson; code that uses the advised client does not, nor a lesson
// that names the word only as prose.
func TestBannedPackage(t *testing.T) {
	httpx := &observations.Observation{ID: "cor-http", Type: observations.TypeCorrection,
		Trigger: "editing `integrations/portcall.py`", ActionTypes: []string{"code:modify"},
		Lesson: "Do not use requests in this codebase - no default timeout, and a hung requests.get blocked a worker. Use the shared client: `from core.http import get_client`."}
	// The search index finds the lesson by its words; here the match
	// itself is checked, for what a Write writes and a command runs.
	tax, _ := observations.NewTaxonomy(nil)
	hit := func(q Query) string {
		c := &candidate{typ: observations.TypeCorrection, lesson: httpx.Lesson, trigger: httpx.Trigger}
		buildCue(tax, q).matchSignatures(c)
		return c.sigHit
	}
	if got := hit(callQuery("Write", map[string]any{"file_path": "/p/payments/adyen.py", "content": "import requests\n\nsession = requests.Session()\n"})); got != "requests" {
		t.Errorf("a Write importing the banned package: hit %q", got)
	}
	if got := hit(callQuery("Bash", map[string]any{"command": "uv add requests"})); got != "requests" {
		t.Errorf("installing the banned package: hit %q", got)
	}
	if got := hit(callQuery("Write", map[string]any{"file_path": "/p/payments/adyen.py", "content": "from core.http import get_client\n\nclient = get_client()\n"})); got != "" {
		t.Errorf("code that follows the lesson: hit %q", got)
	}
	if s := signatures("Please do not use tabs in this file; the formatter uses spaces."); slices.ContainsFunc(s, func(sg signature) bool { return sg.text == "tabs" }) {
		t.Errorf("a word that is never code became a signature: %+v", s)
	}
}

// TestCodeWordOnSubject: a language type written as a plain word in a
// prohibition ("no floats anywhere near money") is that code, on code that
// is about the lesson's subject: a price computed in floats gets it, a
// great-circle distance in floats does not.
func TestCodeWordOnSubject(t *testing.T) {
	tax, _ := observations.NewTaxonomy(nil)
	lesson := "Do not use floats anywhere near money. Amounts are integer cents and go through core.money.Money; euros only show up in templates."
	hit := func(content string) string {
		c := &candidate{typ: observations.TypeCorrection, lesson: lesson, trigger: "editing `apps/pricing/fares.py`"}
		buildCue(tax, callQuery("Write", map[string]any{"file_path": "/p/apps/x.py", "content": content})).matchSignatures(c)
		return c.sigHit
	}
	if got := hit("def apply_promotion(total: float) -> float:\n    \"\"\"The discounted total in euros.\"\"\"\n    return total * 0.9\n"); got != "float" {
		t.Errorf("money in floats: hit %q", got)
	}
	if got := hit("def distance_nm(lat1: float, lon1: float) -> float:\n    return 3440.065 * lat1\n"); got != "" {
		t.Errorf("a distance in floats: hit %q", got)
	}
	// The lesson in Portuguese, the code in English; an example span
	// (`@map(...)`) is no subject.
	lesson = "não usa float pra dinheiro, nunca. colunas `*_cents` bigInteger e `@map(\"fee_minor\")`."
	if got := hit("rate_per_gt_eur: float = 0.0\n"); got != "float" {
		t.Errorf("euros in floats, lesson in Portuguese: hit %q", got)
	}
	if got := hit("weight_kg = Column(float, info={\"map\": \"weight\"})\n"); got != "" {
		t.Errorf("a weight in floats: hit %q", got)
	}
	// Every signature of a lesson about money, not only a type word:
	// `to_f` in a hit rate is no amount, in an invoice total it is.
	lesson = "niente Float per i soldi, mai. to_f e round(2) ci hanno già fatto sballare i centesimi sulle fatture."
	if got := hit("def hit_rate\n  (hits.to_f / lookups).round(2)\nend\n"); got != "" {
		t.Errorf("a hit rate with to_f: hit %q", got)
	}
	if got := hit("def total_eur\n  (total_cents.to_f / 100).round(2)\nend\n"); got == "" {
		t.Error("an amount with to_f: no hit")
	}
	// "para" is "for" in Spanish and Portuguese, not Turkish money.
	if moneyWordRE.MatchString("no uses float para las coordenadas, usa double") {
		t.Error("a Spanish lesson about coordinates read as one about money")
	}
}

// TestKindOfFileInThePath: a prohibition that names a kind of file in words
// ("no JSON fixtures for tests") is about another file whose path says the
// same (payments/fixtures/refunds.json), not about a path that shares one
// everyday word (tests/factories.py).
func TestKindOfFileInThePath(t *testing.T) {
	tax, _ := observations.NewTaxonomy(nil)
	c := func() *candidate {
		return &candidate{typ: observations.TypeCorrection, trigger: "editing `bookings/fixtures/overbooking.json`",
			lesson: "Do not use JSON fixtures for tests - they rot when a model changes. Use factory_boy in tests/factories.py."}
	}
	for file, want := range map[string]bool{
		"/p/apps/payments/fixtures/refunds.json": true,
		"/p/tests/factories.py":                  false,
		"/p/apps/payments/models.py":             false,
	} {
		cd := c()
		buildCue(tax, callQuery("Write", map[string]any{"file_path": file, "content": "x"})).matchFile(cd)
		if (cd.fileHit != "") != want {
			t.Errorf("%s: file hit %q, want %v", file, cd.fileHit, want)
		}
	}
}

// TestKindByExtensionInItsPlace: "do not hand-edit prefab yaml", corrected
// on an edit of Assets/Prefabs/StopDetail.prefab, is about another .prefab
// in that place, which the cue retrieves by its extension's word; not
// about a file of another kind beside it, nor a .prefab elsewhere.
func TestKindByExtensionInItsPlace(t *testing.T) {
	tax, _ := observations.NewTaxonomy(nil)
	c := func() *candidate {
		return &candidate{typ: observations.TypeCorrection, trigger: "editing `field-app/Assets/Prefabs/StopDetail.prefab`",
			lesson: "Do not hand-edit prefab yaml. Either tell me what to rewire in the editor, or write an editor script under Assets/Editor."}
	}
	for file, want := range map[string]bool{
		"/p/field-app/Assets/Prefabs/SignaturePad.prefab": true,
		"/p/field-app/Assets/Prefabs/README.md":           false,
		"/p/other/Vendor/Thing.prefab":                    false,
	} {
		cd := c()
		cu := buildCue(tax, callQuery("Edit", map[string]any{"file_path": file, "old_string": "a: 0", "new_string": "a: 1"}))
		cu.matchFile(cd)
		if (cd.fileHit != "") != want {
			t.Errorf("%s: file hit %q, want %v", file, cd.fileHit, want)
		}
		if want && !slices.Contains(cu.words, "prefab") {
			t.Errorf("%s: cue words %v hold no kind of the file", file, cu.words)
		}
	}
}

// TestSchemaAndMigrationAreOneArea: a lesson corrected on a migration
// that altered a table (sql:alter-table, with db:migration from its path)
// holds for a later migration or a request for one: neither type is
// incidental to the other.
func TestSchemaAndMigrationAreOneArea(t *testing.T) {
	if schemaArea("sql") != schemaArea("db") || schemaArea("git") == schemaArea("db") {
		t.Error("sql and db are one area, git is not")
	}
}

// TestRunScriptIsNotTheFileChanged: the script a command runs (python
// manage.py ..., node build.js, inside quotes too) is run, not changed:
// it is no file the call touches; a file the command writes still is.
func TestRunScriptIsNotTheFileChanged(t *testing.T) {
	tax, _ := observations.NewTaxonomy(nil)
	for cmd, want := range map[string]string{
		`fly ssh console -a app-staging -C "python manage.py showmigrations"`: "",
		"uv run python manage.py test apps.bookings":                          "",
		"node scripts/build.js && cp dist/app.js public/app.js":               "app.js",
		"sed -i 's/a/b/' manage.py":                                           "manage.py",
	} {
		var got []string
		for _, f := range buildCue(tax, callQuery("Bash", map[string]any{"command": cmd})).files {
			got = append(got, f.base)
		}
		if want == "" && len(got) > 0 || want != "" && !slices.Contains(got, want) {
			t.Errorf("%s: files %v, want %q", cmd, got, want)
		}
	}
}

// TestAdvisedNameUsedBare: code that uses the advised qualified name bare
// (Money.from_cents after "go through core.money.Money") follows the
// lesson; code that writes the prohibited pattern still gets it, advised
// name or not.
func TestAdvisedNameUsedBare(t *testing.T) {
	tax, _ := observations.NewTaxonomy(nil)
	lesson := "Do not use floats anywhere near money: amounts are integer cents and all arithmetic goes through core.money.Money."
	match := func(content string) *candidate {
		c := &candidate{typ: observations.TypeCorrection, lesson: lesson, trigger: "editing `apps/pricing/fares.py`"}
		buildCue(tax, callQuery("Edit", map[string]any{"file_path": "/p/apps/pricing/fares.py", "new_string": content})).matchSignatures(c)
		return c
	}
	if c := match("def infant_fare(fare: Fare) -> Money:\n    return Money.from_cents(0)\n"); c.follow == "" || c.sigHit != "" {
		t.Errorf("bare advised name: follow %q, hit %q", c.follow, c.sigHit)
	}
	if c := match("def child_fare(total: float) -> Money:\n    return Money.from_cents(int(total * 100))  # total money in euros\n"); c.sigHit == "" {
		t.Errorf("the prohibited float beside the advised name: no hit")
	}
	if lastName("core.money.Money") != "Money" || lastName("from core.http import get_client") != "get_client" || lastName("x.get") != "" || lastName("Money") != "" {
		t.Errorf("lastName")
	}
}

// The person's question after a call they refused, kept as a correction's
// lesson and seen once, does not fire on a later call of the same type
// alone; an instruction that ends in a polite question still does.
func TestQuestionLessonNeedsMoreThanType(t *testing.T) {
	mk := func(id, said string) *observations.Observation {
		return &observations.Observation{ID: id, Type: observations.TypeCorrection, ActionTypes: []string{"edit:agent-instructions"},
			Trigger: "editing agent instruction files (CLAUDE.md, AGENTS.md): Write `.claude/.gitignore`", Lesson: said}
	}
	ask := mk("cor-ask", "我想接入github怎么做，这样每一次操作都能记录在github")
	tell := mk("cor-tell", "Please don't write into .claude at all. Could you keep the notes in the repo instead?")
	e := noiseEngine(ask, tell)
	for _, h := range e.Index.(*memIndex).hits {
		h.Fields["excerpt"] = "User: " + h.Fields["lesson"].(string)
	}
	q := callQuery("Write", map[string]any{"file_path": "/p/.claude/plans/plan.md", "content": "# plan"})
	got := recalled(t, e, q)
	if slices.Contains(got, "cor-ask") || !slices.Contains(got, "cor-tell") {
		t.Errorf("recalled %v: want cor-tell and not cor-ask", got)
	}
}

// A question asks to know, not to act: the words it shares with a lesson
// are no moment for it.
func TestQuestionWordsAlone(t *testing.T) {
	les := &observations.Observation{ID: "cor-star", Type: observations.TypeCorrection, Trigger: "editing `marts/fct_daily.sql`",
		Lesson: "Do not use select * in our models. List the columns: BigQuery bills per column scanned."}
	e := noiseEngine(les)
	if got := recalled(t, e, Query{Task: "which dbt models billed the most bytes in BigQuery last week?"}); len(got) != 0 {
		t.Errorf("a question recalled %v", got)
	}
}

// A lesson about where a secret may go fires on a call that puts a secret
// there, not on every change of the same file or command; a program's name
// inside a file name ("Pulumi.staging.yaml") does not name the program;
// a preview of a production change is no production change.
func TestSecretsProgramsAndPreviews(t *testing.T) {
	settings := correctionObs("cor-settings", "editing `src/Api/appsettings.Development.json`", "No secrets in appsettings*.json, Development included: those files are committed. Locally use dotnet user-secrets.")
	plain := correctionObs("cor-plain", "running `cd infra && pulumi config set app:mollieKey [REDACTED:kb-flag-secret]`", "No, that way the key is kept in plain text in Pulumi.staging.yaml, which is in git. Any secret value goes in with `pulumi config set --secret`.")
	prod := correctionObs("cor-prod", "deploying to or changing production: `cd infra && pulumi up --stack prod --yes`", "Nothing gets applied to prod from a laptop: open a PR, the infra workflow runs the up after approval.", "deploy:production")
	e := noiseEngine(settings, plain, prod)
	for _, h := range e.Index.(*memIndex).hits {
		h.Fields["excerpt"] = "User: " + h.Fields["lesson"].(string)
	}
	edit := func(s string) Query {
		return callQuery("Edit", map[string]any{"file_path": "/p/src/Api/appsettings.json", "old_string": "{", "new_string": s})
	}
	bash := func(s string) Query { return callQuery("Bash", map[string]any{"command": s}) }
	expectRecalls(t, e, []recallCase{
		{"a setting", edit(`"Billing": {"InvoiceDueDays": 21}`), nil},
		{"an API key", edit(`"Mollie": {"ApiKey": "live_wQ8rT5yU2iO9pA3sD6fG1hJ4kL7zX0cV"}`), []string{"cor-settings"}},
		{"a replica count", bash("cd infra && pulumi config set app:maxReplicas 8 --stack staging"), nil},
		{"a token", bash("cd infra && pulumi config set app:postmarkToken 0b4e7d2a-93c1-4f6e-b8a5-2d7c9e1f3a60 --stack prod"), []string{"cor-plain", "cor-prod"}}, // a change of prod too
		{"another subcommand", bash("cd infra && pulumi up --stack dev --yes"), nil},
		{"a preview", bash("cd infra && pulumi preview --stack prod --diff"), nil},
		{"the change", bash("cd infra && pulumi up --stack prod"), []string{"cor-prod"}},
	})
}

// recallCase is a query and the ids it must recall, in order.
type recallCase struct {
	name string
	q    Query
	want []string
}

func expectRecalls(t *testing.T, e *Engine, cases []recallCase) {
	t.Helper()
	for _, c := range cases {
		if got := recalled(t, e, c.q); !slices.Equal(got, c.want) {
			t.Errorf("%s: recalled %v, want %v", c.name, got, c.want)
		}
	}
}

// Scope read from the corrected call: another subcommand of the same
// program, a file outside the directory the lesson names, a file instead
// of a command; a pin followed in another form; a file kind the lesson
// names.
func TestScopeOfTheCorrectedCall(t *testing.T) {
	cpm := correctionObs("cor-cpm", "adding or installing a dependency: `cd billing && dotnet add src/Billing.Api package Polly --version 8.5.0`", "Stop, billing uses central package management: versions live only in Directory.Packages.props.", "pkg:install")
	web := correctionObs("cor-web", "editing `portal/lib/shop_web/controllers/export_controller.ex`", "Do not use Repo in shop_web. Put the query in a context function and call it.")
	migrate := correctionObs("cor-migrate", "writing or running a database migration: `MIX_ENV=prod DATABASE_URL=$STAGING_URL mix ecto.migrate`", "Don't run migrations against staging from your machine: the db-migrate workflow does it.", "db:migration")
	pin := correctionObs("cor-pin", "changing CI configuration: Write `.github/workflows/ci.yml`", "Pin every action to a full commit SHA with the version as a comment: `actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2`.", "edit:ci-config")
	snap := correctionObs("cor-snap", "editing `src/Billing.Data/Migrations/20260115_AddNumber.cs`", "Never edit the ModelSnapshot or an applied migration by hand; change the entity and run `dotnet ef migrations add X`.")
	e := noiseEngine(cpm, web, migrate, pin, snap)
	for _, h := range e.Index.(*memIndex).hits {
		h.Fields["excerpt"] = "User: " + h.Fields["lesson"].(string)
	}
	e.Index.(*memIndex).hits[1].Fields["excerpt"] = "Agent: Write `portal/lib/shop_web/controllers/export_controller.ex`" + observations.WroteMark + "`Repo`\nUser: again, no Repo in shop_web. put the query in a context function"
	edit := func(path, s string) Query {
		return callQuery("Edit", map[string]any{"file_path": "/p/" + path, "old_string": "x", "new_string": s})
	}
	expectRecalls(t, e, []recallCase{
		{"another subcommand", callQuery("Bash", map[string]any{"command": `cd billing && dotnet user-secrets set "A:B" x --project src/Billing.Api`}), nil},
		{"the same subcommand", callQuery("Bash", map[string]any{"command": "cd billing && dotnet add src/Billing.Api package Serilog"}), []string{"cor-cpm"}},
		{"outside the directory", edit("portal/lib/shop/orders.ex", "def list(id), do: Repo.all(q)"), nil},
		{"inside it", edit("portal/lib/shop_web/live/orders_live.ex", "orders = Repo.all(q)"), []string{"cor-web"}},
		{"a migration file, not a migration run", callQuery("Write", map[string]any{"file_path": "/p/priv/repo/migrations/20260318_create_reviews.exs", "content": "create table(:reviews)"}), nil},
		{"a migration run", callQuery("Bash", map[string]any{"command": "DATABASE_URL=$PROD_URL mix ecto.migrate"}), []string{"cor-migrate"}},
		{"pinned in another form", edit(".github/workflows/deploy.yml", "- uses: azure/login@a65d910e8af852a8061c627c456678983e180302 # v2.2.0"), nil},
		{"not pinned", edit(".github/workflows/deploy.yml", "- uses: azure/login@a65d910e8af852a8061c627c456678983e180302 # v2.2.0\n- uses: actions/cache@v4"), []string{"cor-pin"}},
		{"the file kind named", edit("src/Billing.Data/Migrations/BillingDbContextModelSnapshot.cs", `b.Property<string>("Reason").HasMaxLength(200);`), []string{"cor-snap"}},
	})
}

// correctionObs is a correction with the given trigger, lesson and action
// types.
func correctionObs(id, trigger, lesson string, types ...string) *observations.Observation {
	return &observations.Observation{ID: id, Type: observations.TypeCorrection, Trigger: trigger, Lesson: lesson, ActionTypes: types}
}

// Two lessons that name a file without being about acting on it: one
// corrected on a command that only looked at the file, and a failure
// report ("check that the change to X really works") on a call that does
// not change X, or changes a part of X the report does not speak of.
func TestFileNamedWithoutActingOnIt(t *testing.T) {
	looked := correctionObs("cor-looked", "running `ls -la /p/opt/build/hello.adx`",
		"Update the script to compile hello world under this folder (about `ls -la /p/opt/build/hello.adx`).")
	report := correctionObs("cor-report", "editing `opt/script/validate.py`",
		"Check that the change to `opt/script/validate.py` really works before calling it done"+observations.FailureReported+"“the strace run hangs”.")
	e := noiseEngine(looked, report)
	expectRecalls(t, e, []recallCase{
		{"a compile that writes the file looked at", callQuery("Bash", map[string]any{"command": "riscv64-elf-gcc -O2 -o /p/opt/build/hello.adx hello.c"}), nil},
		{"a commit of the reported file", callQuery("Bash", map[string]any{"command": "git add opt/script/validate.py && git commit -m wip"}), nil},
		{"an edit of the reported code", callQuery("Edit", map[string]any{"file_path": "/p/opt/script/validate.py", "old_string": "run(cmd)", "new_string": "run(['strace', '-f'] + cmd)"}), []string{"cor-report"}},
		// A report is a bug of one moment: an edit of another part of the
		// file touches nothing it reported.
		{"an edit of another part of the file", callQuery("Edit", map[string]any{"file_path": "/p/opt/script/validate.py", "old_string": "a", "new_string": "b"}), nil},
	})
}

// Near misses of dev8's kinds: a lesson about prod on a staging run whose
// registry host ends in .dev; an additive edit for a lesson against
// removing; the allowed directory a lesson names; the refused command run
// with the flag the lesson advises; a read-only task run through kubectl
// exec; Go code rules on a .proto file.
func TestNearMissesOfTheCorrectedAction(t *testing.T) {
	prod := correctionObs("cor-prod", "running `skaffold run -p prod --default-repo=europe-docker.pkg.dev/acme-prod/apps`",
		"Nein, auch nicht mit skaffold. Prod fasst niemand von der eigenen Maschine an.")
	fields := correctionObs("cor-fields", "changing an API schema (protobuf, OpenAPI, GraphQL): Edit `proto/acme/berth/v1/berth.proto`",
		"Never delete a field number and never renumber: add `reserved 4;` instead.", "api:schema")
	grpc := correctionObs("cor-grpc", "editing `services/berthd/internal/server/berth_server.go`",
		"ใน handler ของ gRPC ห้าม return error ธรรมดา (fmt.Errorf / errors.New) นะ ให้ใช้ `status.Error(codes.NotFound, ...)` เสมอ ส่วน fmt.Errorf กับ %w ใช้ได้ใน internal/store.", "api:schema")
	match := correctionObs("cor-match", "running `cd ios && bundle exec fastlane match appstore`",
		"Whoa, not like that. Locally match only ever runs with --readonly.")
	deploy := correctionObs("cor-deploy", "deploying to or changing production: `helm upgrade api ./chart --kube-context prod`",
		"No, prod never gets deployed from a laptop: push a release tag.", "deploy:production")
	e := saidEngine(prod, fields, grpc, match, deploy)
	expectRecalls(t, e, []recallCase{
		{"staging", bashQ("skaffold run -p staging --default-repo=europe-docker.pkg.dev/acme-staging/apps"), nil},
		// skaffold run -p prod deploys production: the lesson corrected on
		// helm (prod never gets deployed from a laptop) is about it too.
		{"prod", bashQ("skaffold run -p prod --default-repo=europe-docker.pkg.dev/acme-prod/apps"), []string{"cor-prod", "cor-deploy"}},
		{"a field added", editQ("proto/acme/berth/v1/berth.proto", "  int32 draught = 6;\n}", "  int32 draught = 6;\n  int32 bollards = 7;\n}"), nil},
		{"a field removed", editQ("proto/acme/berth/v1/berth.proto", "  string code = 4;\n  int32 draught = 6;", "  int32 draught = 6;"), []string{"cor-fields"}},
		{"wrapping in the store", editQ("services/berthd/internal/store/bookings.go", "return b, err", `return b, fmt.Errorf("load %s: %w", id, err)`), nil},
		{"a plain error in a handler", editQ("services/berthd/internal/server/tug_server.go", "// TODO", `return nil, errors.New("closed")`), []string{"cor-grpc"}},
		{"with the advised flag", bashQ("cd ios && bundle exec fastlane match appstore --readonly"), nil},
		{"without it", bashQ("cd ios && bundle exec fastlane match appstore --force_for_new_devices"), []string{"cor-match"}},
		{"a status through kubectl exec", bashQ("kubectl --context prod -n acme exec deploy/api -- php artisan migrate:status"), nil},
	})
}

// dev9's kinds: a CamelCase stack name names its environment; a read-only
// database task; an attribute is no call; a tool run through a runner is
// no lesson for another program the runner runs; a revoked tool's
// replacement run again follows the lesson; a pin lesson on an edit that
// uses no action; a directory the refused command acted in.
func TestNearMissesOfDev9Kinds(t *testing.T) {
	deploy := correctionObs("cor-cdk", "deploying to or changing production: `cd infra && npx cdk deploy QuaysideProd-Api`",
		"No. Nothing goes to prod from a laptop.", "infra:terraform-apply")
	migrate := correctionObs("cor-migrate", "writing or running a database migration: `sqlx migrate run --database-url \"$STAGING_DATABASE_URL\"`",
		"No, nobody applies migrations by hand on shared databases: the migrate task runs them in the deploy.", "db:migration")
	unwrap := correctionObs("cor-unwrap", "editing `crates/api/src/routes/bookings.rs`",
		"No unwrap/expect anywhere in request paths: map it into AppError.")
	black := correctionObs("cor-black", "running Python: `poetry run black ml/ -l 100`",
		"We dropped black on monday, ruff does the formatting now: `poetry run ruff format ml/` (that replaces isort too).", "py:run", "style:format")
	pin := correctionObs("cor-pin", "changing CI configuration: Edit `.github/workflows/backend.yml`",
		"Every third-party action pinned to a full commit sha: `uses: aws-actions/configure-aws-credentials@e3dd6a429d7300a6a4c196c26e071d42e0343502 # v4.0.2`.", "edit:ci-config")
	data := correctionObs("cor-data", "committing: `git add ml/data/raw/ais_2025.parquet && git commit -m data`",
		"Data doesn't go in git: everything under ml/data/ is tracked with dvc, `dvc add` the file.", "git:commit")
	e := saidEngine(deploy, migrate, unwrap, black, pin, data)
	e.Index.(*memIndex).hits[2].Fields["excerpt"] = "Agent: Edit `crates/api/src/routes/bookings.rs`" + observations.WroteMark + "`expect()`\nUser: no unwrap/expect anywhere in request paths: map it into AppError."
	expectRecalls(t, e, []recallCase{
		{"a staging stack", bashQ("cd infra && npx cdk deploy QuaysideStaging-Worker"), nil},
		{"the prod stack", bashQ("cd infra && npx cdk deploy QuaysideProd-Api"), []string{"cor-cdk"}},
		{"migrate info", bashQ(`sqlx migrate info --database-url "$STAGING_DATABASE_URL"`), nil},
		// Stopped on the shared staging database, the lesson holds on
		// production, where more is at stake; not on the local one.
		{"migrations on prod", bashQ(`DATABASE_URL="$PROD_DATABASE_URL" sqlx migrate run --source crates/db/migrations`), []string{"cor-migrate"}},
		{"migrations locally", bashQ(`DATABASE_URL=postgres://localhost/quayside_dev sqlx migrate run --source crates/db/migrations`), nil},
		{"an attribute", editQ("crates/api/src/routes/zones.rs", "fn f() {", "#[expect(clippy::float_cmp, reason = \"sentinel\")]\nfn f() {"), nil},
		{"a call", editQ("crates/api/src/routes/zones.rs", "let b = q;", "let b = q.expect(\"booking\");"), []string{"cor-unwrap"}},
		{"python through poetry", bashQ(`cd ml && poetry run python -c "print(1)"`), nil},
		{"the replacement", bashQ("cd ml && poetry run ruff format src/quayside_ml/features.py"), nil},
		{"a tool the lesson names", bashQ("poetry run isort ml/src"), []string{"cor-black"}},
		{"no action used", editQ(".github/workflows/backend.yml", "key: cargo-a", "key: cargo-b"), nil},
		{"an unpinned action", editQ(".github/workflows/backend.yml", "steps:", "steps:\n  - uses: actions/cache@v4"), []string{"cor-pin"}},
		{"a config commit", bashQ("git add ml/configs/train.yaml && git commit -m cfg"), nil},
		{"a data commit", bashQ("git add ml/data/raw/ais_2026.parquet && git commit -m data"), []string{"cor-data"}},
	})
}

// saidEngine is noiseEngine with each observation's lesson as the
// person's words of its excerpt.
func saidEngine(obs ...*observations.Observation) *Engine {
	e := noiseEngine(obs...)
	for _, h := range e.Index.(*memIndex).hits {
		h.Fields["excerpt"] = "User: " + h.Fields["lesson"].(string)
	}
	return e
}

func bashQ(cmd string) Query { return callQuery("Bash", map[string]any{"command": cmd}) }

func editQ(path, old, new string) Query {
	return callQuery("Edit", map[string]any{"file_path": "/p/" + path, "old_string": old, "new_string": new})
}

// dev10's kinds: the lesson's own exception for tests and specs; the
// advised form qualifying the prohibited call in the same statement; a
// read-only query on the production database; a file the lesson sends the
// work to.
func TestExceptionsAndQualifiedCalls(t *testing.T) {
	sub := correctionObs("cor-sub", "editing `portal/src/app/orders/order-detail/order-detail.component.ts`",
		"No bare .subscribe() in components, it leaks: use the async pipe, or takeUntilDestroyed(this.destroyRef). (in specs it's fine)")
	inject := correctionObs("cor-inject", "editing `src/main/java/com/acme/orders/RateService.java`",
		"Constructor injection only, no @Autowired fields. Field injection is ok in test classes, nowhere else.")
	prod := correctionObs("cor-prod", "running `kubectl --context aks-prod exec deploy/api -- psql \"$DATABASE_URL\" -c \"UPDATE invoices SET status='paid'\"`",
		"Hayır, prod veritabanına elle yazmak yok. SELECT serbest, UPDATE/DELETE değil: ops/datafixes/ altına SQL script, PR aç.", "sql:delete-all", "deploy:production")
	apt := correctionObs("cor-apt", "installing packages globally or system-wide: `sudo apt-get install -y libboost-all-dev`",
		"Apt は使わないで。 Geo の C++ 依存は全部 vcpkg マニフェスト（geo/vcpkg.json）経由。", "pkg:install-global", "pkg:install", "sys:sudo")
	e := saidEngine(sub, inject, prod, apt)
	e.Index.(*memIndex).hits[0].Fields["excerpt"] = "Agent: Edit `portal/src/app/orders/order-detail/order-detail.component.ts`" + observations.WroteMark + "`subscribe()`\nUser: " + sub.Lesson
	e.Index.(*memIndex).hits[1].Fields["excerpt"] = "Agent: Edit `src/main/java/com/acme/orders/RateService.java`" + observations.WroteMark + "`@Autowired`\nUser: " + inject.Lesson
	expectRecalls(t, e, []recallCase{
		{"a spec", editQ("portal/src/app/invoices/invoice-list.component.spec.ts", "});", "});\napi.list().subscribe((p) => done());"), nil},
		{"qualified", editQ("portal/src/app/map/map.component.ts", "ctor() {", "ctor() {\n  this.store.depot$\n    .pipe(takeUntilDestroyed(this.destroyRef))\n    .subscribe((d) => this.fly(d));"), nil},
		{"bare", editQ("portal/src/app/map/map.component.ts", "ctor() {", "ctor() {\n  this.store.depot$.subscribe((d) => this.fly(d));"), []string{"cor-sub"}},
		{"a test class", editQ("src/test/java/com/acme/orders/WebhookControllerIT.java", "class W {", "class W {\n  @Autowired\n  private MockMvc mvc;"), nil},
		{"a select on prod", bashQ(`kubectl --context aks-prod exec deploy/api -- psql "$DATABASE_URL" -c "SELECT status FROM invoices WHERE id = 1"`), nil},
		{"an update on prod", bashQ(`kubectl --context aks-prod exec deploy/api -- psql "$DATABASE_URL" -c "UPDATE invoices SET status='void'"`), []string{"cor-prod"}},
		{"the manifest", editQ("geo/vcpkg.json", `"dependencies": ["fmt"]`, `"dependencies": ["abseil", "fmt"]`), nil},
	})
}

// dev11's kinds: a sandbox named "sbx"; an inspection run through a
// runner; an exception for tests said far from its word in Chinese.
func TestSandboxRunnersAndFarExceptions(t *testing.T) {
	prod := correctionObs("cor-tf", "applying infrastructure changes (terraform apply): `terraform -chdir=infra/envs/prod apply`",
		"Nooit terraform apply lokaal op prod of staging: maak een MR.", "infra:terraform-apply")
	stage := correctionObs("cor-sls", "deploying to or changing production: `npx serverless deploy`",
		"Careful, the default stage is prod: always deploy with `--stage dev`.", "pkg:npm", "deploy:production")
	collect := correctionObs("cor-collect", "editing `src/main/scala/etl/Daily.scala`",
		"别在大表上 .collect()，全拉到 driver 上肯定 OOM。测试里对几行 fixture 调 collect() 没问题。")
	e := saidEngine(prod, stage, collect)
	e.Index.(*memIndex).hits[2].Fields["excerpt"] = "Agent: Edit `src/main/scala/etl/Daily.scala`" + observations.WroteMark + "`collect()`\nUser: " + collect.Lesson
	expectRecalls(t, e, []recallCase{
		{"a sandbox", bashQ("terraform -chdir=infra/envs/sbx-ruben apply -var project_id=acme-sbx-ruben"), nil},
		{"prod", bashQ("terraform -chdir=infra/envs/prod apply"), []string{"cor-tf"}},
		{"logs through npx", bashQ("npx serverless logs -f onReading --stage prod"), nil},
		{"the program again", bashQ("pnpm dlx serverless deploy --stage prod"), []string{"cor-sls"}},
		{"a spec", editQ("src/test/scala/etl/DailySpec.scala", "// max", "// max\nval out = Daily.max(fixture).collect()"), nil},
	})
}

// A tool under another of its names (sls for serverless, fly for flyctl)
// is the corrected program: its flag advice holds.
func TestToolAliasIsTheSameProgram(t *testing.T) {
	stage := correctionObs("cor-sls", "deploying to or changing production: `npx serverless deploy --stage prod`",
		"Careful, the default stage is prod: always deploy with `--stage dev`.", "pkg:npm", "deploy:production")
	e := saidEngine(stage)
	expectRecalls(t, e, []recallCase{
		{"the alias", bashQ("sls deploy --stage prod"), []string{"cor-sls"}},
		{"another program", bashQ("terraform -chdir=infra/prod apply"), nil},
	})
}

// The refused command run again, under another name of its tool and
// with other arguments, is the corrected action though it has no type;
// not against another environment, not as another subcommand, not after
// a refused chain or a command that only looked.
func TestRefusedCommandAgain(t *testing.T) {
	stage := correctionObs("cor-sls", "running `cd lambdas/alerts && npx serverless deploy`",
		"Nie deployuj bez --stage: domyślny stage w serverless.yml to prod. Zawsze `--stage dev`.")
	kamal := correctionObs("cor-kamal", "running `kamal app exec -d production -i \"bin/rails console\"`",
		"Never open a console on production; write a maintenance task and run it through CI.")
	chain := correctionObs("cor-chain", "running `git stash && git switch main && git pull`",
		"Leave my stash alone.")
	look := correctionObs("cor-look", "running `pulumi preview -s staging`",
		"Renaming a resource needs aliases, or it is replaced.")
	e := saidEngine(stage, kamal, chain, look)
	expectRecalls(t, e, []recallCase{
		{"the alias, elsewhere", bashQ("cd lambdas/webhooks && sls deploy"), []string{"cor-sls"}},
		{"another subcommand", bashQ("sls logs -f relay"), nil},
		{"staging", bashQ("kamal app exec -d staging -i \"bin/rails console\""), nil},
		{"production again", bashQ("kamal app exec -d production \"bin/rails runner 'Order.count'\""), []string{"cor-kamal"}},
		{"a command of a chain", bashQ("git switch release"), nil},
		{"a preview", bashQ("pulumi preview -s prod"), nil},
	})
}

// A request for a field a type lacks is the moment for the project's
// lesson about its generated code; a request about the type's behaviour
// is not.
func TestMissingFieldReachesCodegen(t *testing.T) {
	gen := correctionObs("cor-gen", "hand-editing a generated file: Edit `app/lib/models/order.g.dart`",
		"Never hand-edit the *.g.dart files, run `dart run build_runner build --delete-conflicting-outputs` after changing the model.", "edit:generated-file")
	e := saidEngine(gen)
	expectRecalls(t, e, []recallCase{
		{"a missing field", Query{Task: "the Order model doesn't have the pickup_window field yet, add it"}, []string{"cor-gen"}},
		{"a new column", Query{Task: "the orders query should also return the courier column"}, []string{"cor-gen"}},
		{"behaviour", Query{Task: "the Order total rounds wrong on the checkout screen, fix it"}, nil},
	})
}

// A file the lesson lets the agent change is no file it warns about, in
// any language; the negated permission is a prohibition.
func TestPermittedFileIsNoCue(t *testing.T) {
	loc := correctionObs("cor-loc", "editing `app/src/main/res/values-fr/strings.xml`",
		"Jangan edit values-fr/strings.xml langsung, itu hasil sync dari Lokalise. Yang boleh diedit cuma values/strings.xml, sumbernya.")
	gen := correctionObs("cor-gen", "editing `api/gen/client.ts`",
		"Never hand-edit api/gen/client.ts, it is generated; api/spec.yaml you can edit, then run make gen.")
	e := saidEngine(loc, gen)
	expectRecalls(t, e, []recallCase{
		{"the source strings", editQ("app/src/main/res/values/strings.xml", "<resources>", "<resources>\n<string name=\"a\">A</string>"), nil},
		{"the synced strings", editQ("app/src/main/res/values-fr/strings.xml", "<resources>", "<resources>\n<string name=\"a\">B</string>"), []string{"cor-loc"}},
		{"the spec", editQ("api/spec.yaml", "paths:", "paths:\n  /a: {}"), nil},
		{"the generated client", editQ("api/gen/client.ts", "export", "export const a = 1;\nexport"), []string{"cor-gen"}},
	})
}

// A flag in the instead-part after a prohibition of its own is one
// tool's way to do it; the prohibition holds for every tool of the type.
func TestFlagInsteadPartAfterProhibition(t *testing.T) {
	show := correctionObs("cor-show", "printing a secret's value to the terminal: `gcloud secrets versions access latest --secret db-password`",
		"Do not print secret values. Look at the metadata instead (`--format=json(createTime,state)`), and compare hashes if you must.", "secret:reveal")
	e := saidEngine(show)
	expectRecalls(t, e, []recallCase{
		{"another tool", bashQ("vault kv get -field=password secret/prod/db"), []string{"cor-show"}},
	})
}

// dev11's recall: the environments a negated clause names are the
// lesson's; a command named in prose is a signature; Expo's store tools
// publish.
func TestLessonEnvironmentsAndProseCommands(t *testing.T) {
	tf := correctionObs("cor-tf", "applying infrastructure changes (terraform apply): `cd infra/envs/prod && terraform apply`",
		"Ho! Nooit terraform apply lokaal op prod of staging. En ook niet even snel met gcloud run services update eromheen: maak een MR.", "infra:terraform-apply")
	e := saidEngine(tf)
	expectRecalls(t, e, []recallCase{
		{"staging", bashQ("cd infra/envs/staging && terraform apply -target=google_pubsub_subscription.alerts"), []string{"cor-tf"}},
		{"a sandbox", bashQ("terraform -chdir=infra/envs/sbx-ruben apply"), nil},
		{"the command in prose", bashQ("gcloud run services update api --region europe-west4 --max-instances 30"), []string{"cor-tf"}},
	})
}

// Thai clauses are split at every space between Thai words, one after
// another, and not at the spaces around a quoted Latin word.
func TestThaiClauses(t *testing.T) {
	got := splitClauses("ห้าม return error นะ ให้ใช้ status เสมอ ส่วน fmt ใช้ได้")
	want := []string{"ห้าม return error นะ", "ให้ใช้ status เสมอ", "ส่วน fmt ใช้ได้"}
	if !slices.Equal(got, want) {
		t.Errorf("splitClauses: %q, want %q", got, want)
	}
	if got := thaiClauses("ก ข ค"); got != "ก; ข; ค" {
		t.Errorf("thaiClauses: %q", got)
	}
}

// A request meets a correction in all the person said, not only in the
// sentence kb kept as the lesson; a request to write or tell about an
// action is no moment for a lesson about doing it.
func TestRequestMeetsThePersonsWords(t *testing.T) {
	mig := correctionObs("cor-mig", "writing or running a database migration: `php artisan migrate --force`",
		"Do not run migrations against prod Cloud SQL from your machine.", "db:migration")
	e := wordsEngine("no. don't run migrations against prod Cloud SQL from your machine. prod schema changes only go out with a release: the chart has a pre-upgrade hook Job that runs them.", mig)
	expectRecalls(t, e, []recallCase{
		{"the request", Query{Task: "the tug table has to exist in prod before monday, get the schema change out"}, []string{"cor-mig"}},
		{"words about it", Query{Task: "write the release notes for the schema change that went to prod"}, nil},
		{"a walk-through", Query{Task: "walk me through how a schema change gets to prod"}, nil},
	})
}

// The environments a lesson prohibits in words count when the corrected
// command named none (it reached prod through a proxy); a file named in
// the same clause is no environment.
func TestEnvironmentOfTheLessonsWords(t *testing.T) {
	mig := correctionObs("cor-mig", "writing or running a database migration: `DB_PORT=6543 ./vendor/bin/sail artisan migrate`",
		"Do not run migrations against prod from your machine.", "db:migration")
	e := wordsEngine("no, don't run migrations against prod from your machine, only the release job does that.", mig)
	expectRecalls(t, e, []recallCase{
		{"the test database", bashQ("./vendor/bin/sail artisan migrate:fresh --database=pgsql_testing"), nil},
		{"prod", bashQ("php artisan migrate --force --env=production"), []string{"cor-mig"}},
	})
}

// wordsEngine is noiseEngine with said as the person's words of every
// observation's excerpt.
func wordsEngine(said string, obs ...*observations.Observation) *Engine {
	e := noiseEngine(obs...)
	for _, h := range e.Index.(*memIndex).hits {
		h.Fields["excerpt"] = "User: " + said
	}
	return e
}

// A question about a file is no change of it; a lesson that names its
// program's subcommand ("don't run packer build locally") is not about
// another subcommand; "cant" without its apostrophe still negates.
func TestQuestionsSubcommandsAndTypos(t *testing.T) {
	packer := correctionObs("cor-packer", "running `cd fleet/packer && packer build -var-file=vars/edge.pkrvars.hcl .`",
		"ローカルで packer build は実行しないでください。edge.pkr.hcl の post-processor がイメージをアップロードします。")
	vault := correctionObs("cor-vault", "editing `ansible/group_vars/edge/main.yml`",
		"hm, secret cant sit there in plaintext, group_vars is in git. ansible-vault encrypt_string it.")
	e := saidEngine(packer, vault)
	expectRecalls(t, e, []recallCase{
		{"a question", Query{Task: "walk me through what the post-processors in edge.pkr.hcl do"}, nil},
		{"another subcommand", bashQ("packer fmt -recursive fleet/packer"), nil},
		{"the subcommand", bashQ("cd fleet/packer && packer build ."), []string{"cor-packer"}},
		{"no secret", editQ("/p/ansible/group_vars/edge/main.yml", "a: 1", "a: 1\nminio_bucket: core-photos"), nil},
	})
}

// The flags of the command a lesson advises are not flags the person
// took from the refused one; a type the person's own words name holds
// across kinds of call; running the advised program is not following an
// advised command of it.
func TestAdvisedCommandsAndOwnWords(t *testing.T) {
	nextest := correctionObs("cor-nextest", "running tests: `cd api && cargo test -p quarry-api --test interval_overlap`",
		"nope, use nextest: `cargo nextest run -p quarry-api`. plain cargo test runs all the sqlx::test dbs in one process.", "test:run")
	reset := correctionObs("cor-reset", "altering a table schema: Write `admin/priv/repo/migrations/20260129_add_status.exs`",
		"don't drop or reset the admin dev database again, whatever the reason. if a migration is stuck, `mix ecto.rollback --step 1`, or drop the leftover object by hand.",
		"sql:alter-table", "db:migration", "db:reset")
	e := saidEngine(nextest, reset)
	expectRecalls(t, e, []recallCase{
		{"the suite without the flag", bashQ("cd api && cargo test --workspace --all-features"), []string{"cor-nextest"}},
		{"dropdb", bashQ("dropdb --if-exists quarry_admin_dev && createdb quarry_admin_dev"), []string{"cor-reset"}},
		{"the advised command", bashQ("cd admin && mix ecto.rollback --step 1"), nil},
	})
}

// A lesson that a secret may not sit in a kind of file fires on a secret
// written into another file of that kind and place, and not on a setting
// written there or a secret written elsewhere.
func TestSecretInAnotherFileOfThePlace(t *testing.T) {
	vault := correctionObs("cor-vault", "editing `ansible/inventories/sites/group_vars/edge/main.yml`",
		"hm, secret cant sit there in plaintext, group_vars is in git. ansible-vault encrypt_string it and put it in vault.yml.")
	e := saidEngine(vault)
	expectRecalls(t, e, []recallCase{
		{"a key in group_vars/all", editQ("/p/fleet/ansible/inventories/sites/group_vars/all/main.yml", "a: 1", "a: 1\ngrafana_api_key: \"glc_eyJvIjoiOTgxMjM0IiwibiI6InF1YXJyeS1lZGdl\""), []string{"cor-vault"}},
		{"a psk in group_vars/pits", editQ("/p/fleet/ansible/inventories/sites/group_vars/pits/wifi.yml", "---", "---\nwifi_psk: \"Rosario#Shed2026\""), []string{"cor-vault"}},
		{"a setting", editQ("/p/fleet/ansible/inventories/sites/host_vars/pit-01.yml", "---", "---\nntp_server: ntp.local"), nil},
		{"a key in app code", editQ("/p/api/src/config.rs", "x", "const API_KEY: &str = \"glc_eyJvIjoiOTgxMjM0IiwibiI6InF1YXJyeS1lZGdl\";"), nil},
	})
}

// A traceback line before the error is pasted, not the person's words:
// a lesson that is only that never fires, and its columns and calls are
// no signatures.
func TestPastedTraceIsNoLesson(t *testing.T) {
	said := `res = self._obj.execute(query, params) psycopg2.errors.UndefinedColumn: column crm_lead.submission_done does not exist LINE 1: ...ndor_registration", "crm_lead"."submission_date" HINT: Perhaps you meant`
	if _, all := cutPasted(said); !all {
		t.Fatal("a pasted trace read as a lesson")
	}
	if sigs := saidSignatures("User: "+said, said); len(sigs) != 0 {
		t.Fatalf("signatures from a pasted trace: %+v", sigs)
	}
	if own, _ := cutPasted(`i get an internal error console logs 55647-22a4.js?dpl=dpl_BDbo:6 WebSocket connection to 'wss://x.supabase.co/realtime' failed`); strings.Contains(own, "WebSocket") {
		t.Fatalf("a browser console line kept in the lesson: %q", own)
	}
	if _, all := cutPasted(`キーをファイルに直書きしないで TypeError: fetch failed`); all {
		t.Fatal("Japanese words before a pasted error are a lesson")
	}
	if _, all := cutPasted(`use the retry helper in lib/http.ts instead TypeError: fetch failed`); all {
		t.Fatal("the person's words before a pasted error are a lesson")
	}
}

// A correction on a file the person calls generated is about every file
// its generator writes, known by the compound extension (.sql.go,
// .g.dart); not about the file's source, nor about a file of the plain
// extension.
func TestGeneratedKind(t *testing.T) {
	sqlc := &observations.Observation{ID: "cor-sqlc", Type: observations.TypeCorrection,
		Trigger: "editing `worker/internal/db/payouts.sql.go`", ActionTypes: []string{"code:modify"},
		Lesson: "Do not go ahead with edit of `worker/internal/db/payouts.sql.go` unasked; the person said: “thats sqlc output (DO NOT EDIT at the top), change the query in queries/ and run `sqlc generate`”."}
	e := noiseEngine(sqlc)
	for _, tc := range []struct {
		tool  string
		input map[string]any
		want  bool
	}{
		{"Edit", map[string]any{"file_path": "/p/worker/internal/db/ledger.sql.go", "old_string": "a", "new_string": "b"}, true},
		{"Bash", map[string]any{"command": "sed -i 's/100/500/' worker/internal/db/invoices.sql.go"}, true},
		{"Edit", map[string]any{"file_path": "/p/worker/internal/db/queries/ledger.sql", "old_string": "a", "new_string": "b"}, false},
		{"Edit", map[string]any{"file_path": "/p/worker/internal/consumer/ledger.go", "old_string": "a", "new_string": "b"}, false},
	} {
		if got := recalled(t, e, callQuery(tc.tool, tc.input)); (len(got) > 0) != tc.want {
			t.Errorf("%s %v: %v, want a hit %v", tc.tool, tc.input, got, tc.want)
		}
	}
}

// A lesson that sets a part of the project apart ("os lambdas são outra
// história, lá é npm normal") says nothing about a call there.
func TestExemptPlace(t *testing.T) {
	said := "não, no app é `npx expo install expo-location`. yarn add puro quebra o build nativo. os lambdas são outra história, lá é npm normal"
	c := &candidate{said: said, trigger: "adding or installing a dependency: `cd app && yarn add expo-location`"}
	for _, tc := range []struct {
		cmd, edit string
		want      bool
	}{
		{"cd lambdas/tide-alerts && npm install @aws-sdk/client-sns", "", true},
		{"cd app && yarn add expo-camera", "", false},
		{"", "/p/lambdas/tide-alerts/handler.ts", true},
		{"", "/p/app/src/screens/Map.tsx", false},
	} {
		cu := &cue{command: tc.cmd, editPath: tc.edit}
		if got := cu.exemptPlace(c); got != tc.want {
			t.Errorf("%q %q: %v, want %v", tc.cmd, tc.edit, got, tc.want)
		}
	}
}

// A lesson about secrets corrected on a command ("never written as a
// string in a .ts file") is found and fires when an edit writes a secret
// into a file of the kind it names, not when the edit writes none.
func TestSecretIntoNamedKind(t *testing.T) {
	o := &observations.Observation{ID: "cor-secret", Type: observations.TypeCorrection,
		Trigger: "running `cd infra && pulumi config set [REDACTED:kb-flag-secret] 'Vd8#qLm2!zR4' --stack staging`",
		Lesson:  "I segreti vanno sempre con `pulumi config set --secret`, mai con `config.require` e mai scritti come stringa in un file .ts."}
	e := noiseEngine(o)
	e.Index.(*memIndex).hits[0].Fields["excerpt"] = "Agent: `cd infra && pulumi config set [REDACTED:kb-flag-secret] 'Vd8#qLm2!zR4' --stack staging` (refused)\nUser: " + o.Lesson
	edit := func(file, code string) Query {
		return callQuery("Edit", map[string]any{"file_path": file, "old_string": "  login: \"admin\",", "new_string": "  login: \"admin\",\n" + code})
	}
	if got := recalled(t, e, edit("/p/infra/src/database.ts", "  administratorLoginPassword: \"N7#vQ2!xLp9w\",")); len(got) != 1 {
		t.Errorf("a secret written into a .ts file: %v", got)
	}
	if got := recalled(t, e, edit("/p/infra/src/database.ts", "  skuName: \"GP_S_Gen5_2\",")); len(got) != 0 {
		t.Errorf("a setting written into a .ts file: %v", got)
	}
	if got := recalled(t, e, edit("/p/infra/config/database.yaml", "  password: \"N7#vQ2!xLp9w\"")); len(got) != 0 {
		t.Errorf("a secret written into a file of another kind: %v", got)
	}
}

// A type match on a secondary type of the candidate's own domain is the
// general case of what was corrected and needs the lesson's words; not
// when the proposal holds what the lesson prohibits: "no reset --hard",
// said after `git checkout -- .`, fires on `git reset --hard && git
// switch`.
func TestGeneralizedTypeWithProhibitedSignature(t *testing.T) {
	o := &observations.Observation{ID: "cor-mine", Type: observations.TypeCorrection,
		Trigger:     "discarding uncommitted changes: `git checkout -- . && git clean -fd && git switch hotfix/x`",
		ActionTypes: []string{"git:discard-changes", "git:clean", "git:reset-hard"},
		Lesson:      "Never throw away uncommitted changes you didn't make yourself: no checkout -- ., no restore, no reset --hard, no clean -f.",
		Excerpt:     "Agent: `git checkout -- . && git clean -fd && git switch hotfix/x` (refused)\nUser: those are mine. Never throw away uncommitted changes you didn't make yourself: no checkout -- ., no restore, no reset --hard, no clean -f."}
	e := noiseEngine(o)
	if got := recalled(t, e, callQuery("Bash", map[string]any{"command": "git reset --hard HEAD && git switch release/2026.11"})); len(got) != 1 {
		t.Errorf("reset --hard, which the lesson names: %v", got)
	}
	if got := recalled(t, e, callQuery("Bash", map[string]any{"command": "git switch release/2026.11"})); len(got) != 0 {
		t.Errorf("a plain switch: %v", got)
	}
}

// A preference names its tool in the command it quotes: it is about that
// tool, not about every call of the same broad type through another one
// (the runner npx or pnpm exec, maven's wrapper), and a call that already
// runs the command it prescribes has nothing to learn from it. A call of
// its own tool that does not run the prescribed command still fires.
func TestPreferenceToolAndCompliance(t *testing.T) {
	pref := &observations.Observation{ID: "pref-vitest", Type: observations.TypePreference, ActionTypes: []string{"test:run", "pkg:npm"},
		Statement: "Always `pnpm vitest run <path>` (or `pnpm test:unit`, which is vitest run)."}
	for _, tc := range []struct {
		cmd   string
		fires bool
	}{
		{"./mvnw -pl batch-service -am test -Dtest=InvoiceExportJobConfigTest", false},
		{"cd admin-web && pnpm exec playwright test e2e/invoices.spec.ts", false},
		{"cd infra/cdk && npx cdk deploy BrambleDev-BatchStack", false},
		{"cd admin-web && pnpm vitest run src/stores/customers.spec.ts", false},
		{"npx vitest src/stores/customers.spec.ts", true},
	} {
		e := noiseEngine(pref)
		e.Index.(*memIndex).hits[0].Fields["statement"] = pref.Statement
		if got := recalled(t, e, callQuery("Bash", map[string]any{"command": tc.cmd})); (len(got) == 1) != tc.fires {
			t.Errorf("%s: recalled %v, want fired %v", tc.cmd, got, tc.fires)
		}
	}
}

// A directory the person names as a path is the place their words are
// about: a command that writes a path in it, whatever the tool; a
// directory they send the work to, a path that only starts the same, or a
// file path that ends where the name does is none.
func TestDirectoryNamedByThePerson(t *testing.T) {
	gen := correctionObs("cor-gen", "editing `app/android/app/src/main/AndroidManifest.xml`",
		"Don't change anything in app/android or app/ios by hand, they are generated by `npx expo prebuild --clean`; put permissions in app.config.ts.")
	theme := correctionObs("cor-theme", "editing `app/src/components/TideBadge.tsx`",
		"No hardcoded hex in components: use the theme tokens. Hex only inside app/src/theme/, where the tokens are defined.")
	e := saidEngine(gen, theme)
	expectRecalls(t, e, []recallCase{
		{"a command writing into a named directory", bashQ("sed -i 's/minSdkVersion = 24/minSdkVersion = 26/' app/android/build.gradle"), []string{"cor-gen"}},
		{"a path that only starts the same", bashQ("sed -i 's/a/b/' myapp/android2/build.gradle"), nil},
		{"where the work belongs", editQ("app/src/theme/colors.ts", "export const a = 1", "export const tideRising = '#1e88e5'"), nil},
	})
	if got := namedDirs("use bin/rails credentials:edit, see app/ios and src/components; https://x.io/a/b"); !slices.Equal(got, []string{"bin/rails", "app/ios"}) {
		t.Errorf("namedDirs: %v", got)
	}
	for _, c := range []struct {
		p, d string
		want bool
	}{{"/home/x/app/ios/a.plist", "app/ios", true}, {"kamal app exec \"bin/rails runner x\"", "bin/rails", false}, {"/x/myapp/ios/a", "app/ios", false}} {
		if pathHolds(c.p, c.d) != c.want {
			t.Errorf("pathHolds(%q, %q) = %v", c.p, c.d, !c.want)
		}
	}
}

// A command that failed because its program is missing ("python: command
// not found", instead python3) is a fact of the environment: it comes back
// when a call runs that program again, whatever wraps it (Codex runs every
// command as `bash -lc CMD`, a here-document's lines are data), and not on
// an edit or a look at the file the failed command read.
func TestMissingProgramIsAboutRunningIt(t *testing.T) {
	neg := &observations.Observation{ID: "neg-python", Type: observations.TypeNegativeResult, ActionTypes: []string{"lang:python"},
		Approach: "running Python: `python - <<'PY' import re from pathlib import Path path = Path('specs/001-app/tasks.md')…`",
		Failure:  "bash: line 1: python: command not found"}
	e := noiseEngine(neg)
	codex := func(cmd string) Query {
		return callQuery("shell", map[string]any{"command": []string{"bash", "-lc", cmd}})
	}
	expectRecalls(t, e, []recallCase{
		{"python again, through bash -lc", codex("python - <<'PY'\nfrom pathlib import Path\nprint(Path('specs/001-app/tasks.md').read_text()[:100])\nPY"), []string{"neg-python"}},
		{"python3, as it advises", codex("python3 - <<'PY'\nfrom pathlib import Path\nprint(Path('specs/001-app/tasks.md').read_text()[:100])\nPY"), nil},
		{"a look at the file", codex("nl -ba specs/001-app/tasks.md | sed -n '1,80p'"), nil},
		{"an edit of the file", editQ("specs/001-app/tasks.md", "- [ ] T001", "- [x] T001"), nil},
	})
	if got := programsOf("python - <<'PY'\nimport os, re\nprint(1)\nPY\necho done"); !slices.Equal(got, []string{"python", "echo"}) {
		t.Errorf("programs of a command with a here-document: %q", got)
	}
}

// TestAdvisedCallBesideTheCorrectedCode: an edit that writes the call the
// lesson advises (cursor.execute(sql, params)) and, in the same code, what
// the lesson was corrected for (SQL built with an f-string) does not
// follow the lesson; the advised call written alone does.
func TestAdvisedCallBesideTheCorrectedCode(t *testing.T) {
	o := correctionObs("cor-sql", "editing `backend/apps/reports/revenue.py`",
		"no f-strings in SQL. values go in as %s placeholders with a params list, cursor.execute(sql, [org_id, months]), like the query right above it. and don't float() money.", "sql:concat-query")
	expectRecalls(t, noiseEngine(o), []recallCase{
		{"the advised call around an f-string", editQ("backend/apps/banking/queries.py", "# TODO", "with connection.cursor() as cursor:\n    cursor.execute(f\"SELECT id FROM tx WHERE conn = {conn_id}\")\n"), []string{"cor-sql"}},
		{"the advised call with a placeholder", editQ("backend/apps/banking/queries.py", "# TODO", "with connection.cursor() as cursor:\n    cursor.execute(\"SELECT id FROM tx WHERE conn = %s\", [conn_id])\n"), nil},
	})
}

// A directory path the person names as the place where things are allowed
// ("stdout'a yazmak sadece src/bin/ altındaki CLI araçlarına serbest")
// sets apart a file under it, in any language the permission is said in.
func TestExemptPlaceByDirectoryPath(t *testing.T) {
	c := &candidate{said: "println! ya da dbg! koyma. stdout'a yazmak sadece src/bin/ altındaki CLI araçlarına serbest.",
		trigger: "Edit `api/src/ingest/las.rs`"}
	for edit, want := range map[string]bool{
		"/p/api/src/bin/import_collars.rs": true,
		"/p/api/src/ingest/survey.rs":      false,
	} {
		if got := (&cue{editPath: edit}).exemptPlace(c); got != want {
			t.Errorf("%s: %v, want %v", edit, got, want)
		}
	}
}

// TestFileAloneIsNoEvidence: a one-off lesson corrected on an edit of a
// file fires on a later edit of that file when the edit writes a word of
// the lesson, not on every edit of it; a lesson about editing the file at
// all (generated, not by hand, a refused write of it) fires on any edit;
// a shell call that names the file and does not change it gets neither.
func TestFileAloneIsNoEvidence(t *testing.T) {
	lesson := func(text, excerpt string) *observations.Observation {
		return &observations.Observation{ID: "cor-f", Type: observations.TypeCorrection, Trigger: "editing `app/banner.py`",
			ActionTypes: []string{"file:modify"}, Lesson: text, Excerpt: excerpt}
	}
	edit := func(code string) Query {
		return callQuery("Edit", map[string]any{"file_path": "/p/app/banner.py", "old_string": "a", "new_string": code})
	}
	texts := lesson("화면에 보이는 문자열을 `app/banner.py` 에 하드코딩하지 마세요: locale/messages.po 에 키로 추가하고 gettext 로 불러요.", "")
	generated := lesson("Never hand-edit `app/banner.py`: regenerate it with make banner.", "")
	for _, tc := range []struct {
		name string
		o    *observations.Observation
		q    Query
		want bool
	}{
		{"a padding change", texts, edit("PADDING = 12"), false},
		{"code that uses the lesson's words", texts, edit("title = gettext(\"banner.title\")"), true},
		{"a generated file", generated, edit("PADDING = 12"), true},
		{"its refused write again", lesson("Do not go ahead with write of `app/banner.py`; the person's reason: “BannerView already exists”.",
			"Agent: Write `app/banner.py` (refused)\nUser: BannerView already exists"), edit("class Banner: pass"), true},
		{"git add of the file", generated, callQuery("Bash", map[string]any{"command": "git add app/banner.py"}), false},
		{"rm of the file", generated, callQuery("Bash", map[string]any{"command": "rm app/banner.py"}), true},
	} {
		e := noiseEngine(tc.o)
		if got := recalled(t, e, tc.q); (len(got) == 1) != tc.want {
			t.Errorf("%s: recalled %v, want fired %v", tc.name, got, tc.want)
		}
	}
}

// TestWhatTheLessonAllows: an edit whose action type comes only from code
// the lesson says is fine ("`# noqa: E501` on a long url line is fine")
// does not get the lesson; the code it prohibits still does.
func TestWhatTheLessonAllows(t *testing.T) {
	o := correctionObs("cor-ignore", "editing `api/harbours.py`",
		"no type: ignore. we run mypy strict for a reason and the ignores hide real bugs. ruff `# noqa: E501` on a long url line is fine btw, thats a different thing", "code:lint-suppress")
	expectRecalls(t, noiseEngine(o), []recallCase{
		{"the allowed noqa", editQ("api/client.py", "x = 1\n", "FEED_URL = \"https://example.org/a/very/long/path\"  # noqa: E501\n"), nil},
		{"a type: ignore", editQ("api/client.py", "x = 1\n", "harbour = lookup(code)  # type: ignore[assignment]\n"), []string{"cor-ignore"}},
	})
}

// TestPathTypeIsTheFile: an action type that an edit's path alone gives
// (edit:ci-config for a workflow) is the same evidence as the file: a
// one-off lesson corrected on a workflow edit fires on a later edit of it
// that writes what the lesson is about, not on a timeout.
func TestPathTypeIsTheFile(t *testing.T) {
	o := correctionObs("cor-ci", "changing CI configuration: Edit `.github/workflows/backend.yml`",
		"No. CI builds offline and without a database, and stays that way: no postgres service; run `cargo sqlx prepare` locally after changing a query.", "edit:ci-config")
	e := saidEngine(o)
	expectRecalls(t, e, []recallCase{
		{"a timeout", editQ(".github/workflows/backend.yml", "timeout-minutes: 10", "timeout-minutes: 20"), nil},
		{"a database service", editQ(".github/workflows/backend.yml", "jobs:\n", "services:\n  postgres:\n    image: postgres:16\njobs:\n"), []string{"cor-ci"}},
	})
}

// TestLookingIsNotDoing: a command that only looks (grep, cat) and names
// the code a lesson is about does not get it; a lesson corrected on that
// very program does.
func TestLookingIsNotDoing(t *testing.T) {
	unwrap := correctionObs("cor-unwrap", "when asked to как будто бы сейчас не очень правильно",
		"Do not go ahead with the change that way; the person said: “Давай переделаем AlarmsLevelViewModel - мне не нравится этот класс”.")
	grep := correctionObs("cor-grep", "running `grep -E \"PollingLock|Polling.*lock\" -r .`",
		"When I give you log keywords, `grep` for every one of them whole: no truncation, no fuzzy fallback.")
	e := saidEngine(unwrap, grep)
	expectRecalls(t, e, []recallCase{
		{"a grep for the class", bashQ(`grep -rn "AlarmsLevelViewModel\b" . --include="*.swift"`), []string{"cor-grep"}},
	})
}

func TestFileChangeCommands(t *testing.T) {
	for cmd, want := range map[string]bool{
		"rm app/banner.py":                       true,
		"cd app && sudo mv banner.py old.py":     true,
		"echo x >> app/banner.py":                true,
		"cat app/banner.py | tee app/copy.py":    true,
		"git checkout -- app/banner.py":          true,
		"find app -name banner.py -delete":       true,
		"npm install left-pad":                   false,
		"pip install -r requirements.txt":        false,
		"git add app/banner.py && git status":    false,
		"python -m pytest app/banner.py 2>&1":    false,
		"grep -n TODO app/banner.py > /dev/null": true, // a redirection writes a file, conservatively
	} {
		if got := fileChangeRE.MatchString(cmd); got != want {
			t.Errorf("fileChangeRE(%q) = %v, want %v", cmd, got, want)
		}
	}
}

// TestRequestInAnotherEcosystem: a request that names a language whose
// tools are of another family than the lesson's (C++ for a lesson about
// npx and jest) does not get it; one that names the lesson's world does.
func TestRequestInAnotherEcosystem(t *testing.T) {
	o := correctionObs("cor-nx", "running tests: `cd frontend && npx ng test --watch=false`",
		"we're on nx + jest since march, karma is gone. `npx nx test portal`, dont call ng test or jest directly", "test:run")
	e := saidEngine(o)
	for task, want := range map[string]bool{
		"run the unit tests of the C++ geo library":     false,
		"run the TypeScript unit tests of the frontend": true,
	} {
		got := recalled(t, e, Query{Task: task, Project: "/p"})
		if (len(got) > 0) != want {
			t.Errorf("%q: recalled %v, want %v", task, got, want)
		}
	}
	if otherEcosystem("bump the cmake minimum version", wordSet{"npx", "nx"}) != true || otherEcosystem("fix the react test", wordSet{"npx", "nx"}) {
		t.Error("otherEcosystem")
	}
	// A file names its language by its extension.
	for text, want := range map[string]bool{
		"run the tests for AddressForm.vue":           true,
		"run the specs for app/models/order.rb":       false,
		"run the tests in `spec/order_spec.rb`, then": false,
		"run the tests, see README.md":                false,
	} {
		if got := otherEcosystem(text, wordSet{"bundle", "rspec"}); got != want {
			t.Errorf("otherEcosystem(%q, rspec) = %v, want %v", text, got, want)
		}
	}
}

// TestQuestionThenRequest: a prompt that asks a question and goes on to
// ask for an action is a request; a question with an aside is not.
func TestQuestionThenRequest(t *testing.T) {
	for text, want := range map[string]bool{
		"does the address form still work? run the tests for AddressForm.vue": false,
		"why is the build red? Fix it.":                                       false,
		"what does the deploy script do? I have never read it.":               true,
		"how does the cache expire? The docs are vague.":                      true,
		"is staging up? thanks":                                               true,
		"what does this do?":                                                  true,
		"deploy it":                                                           false,
	} {
		if got := isQuestion(text); got != want {
			t.Errorf("isQuestion(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestOutsideTheEditedPlace: a lesson corrected on an edit that names the
// directory of the edited file as its place ("don't touch app/android and
// app/ios by hand") is not about a command run in another directory; a
// command inside it gets it.
func TestOutsideTheEditedPlace(t *testing.T) {
	o := correctionObs("cor-native", "editing `app/android/app/src/main/AndroidManifest.xml`",
		"app/android और app/ios में हाथ से कुछ मत बदलो — ये `npx expo prebuild --clean` से generate होते हैं; permission `app.config.ts` में डालो", "pkg:install")
	expectRecalls(t, saidEngine(o), []recallCase{
		{"another directory", bashQ("cd lambdas/tide-alerts && npm install @aws-sdk/client-sns"), nil},
		{"inside it", bashQ("sed -i 's/x/y/' app/android/app/build.gradle"), []string{"cor-native"}},
	})
}

// TestAllowedEnvironment: the environment the person's words allow
// ("로컬 docker redis는 마음대로 해도 돼요": local is fine) is another one
// than the corrected call's: the same command there does not get the
// lesson, against the shared instance it does.
func TestAllowedEnvironment(t *testing.T) {
	o := correctionObs("cor-flush", "running `redis-cli -u \"$UPSTASH_REDIS_URL\" FLUSHALL`",
		"안돼요!! FLUSHALL 절대 쓰지 마세요. 세션이랑 rate limit 카운터도 같이 들어있어요. 캐시만 지우려면 `pnpm cache:purge price` 쓰세요. 로컬 docker redis는 마음대로 해도 돼요.", "db:flush-cache")
	expectRecalls(t, saidEngine(o), []recallCase{
		{"the local redis", bashQ("docker compose exec redis redis-cli FLUSHALL"), nil},
		{"the shared one", bashQ(`redis-cli -u "$UPSTASH_REDIS_URL" FLUSHALL`), []string{"cor-flush"}},
	})
}

// TestCodexExecCommand: Codex's exec_command holds its command in "cmd":
// it is a shell call of its program, not an edit with no command.
func TestCodexExecCommand(t *testing.T) {
	c := buildCue(observations.Default(), Query{Tool: "exec_command", Input: json.RawMessage(`{"cmd":"sed -n '1,260p' app.py","workdir":"/w"}`)})
	if c.kind != "shell" || c.program != "sed" || c.command != "sed -n '1,260p' app.py" {
		t.Errorf("kind %q program %q command %q", c.kind, c.program, c.command)
	}
}
