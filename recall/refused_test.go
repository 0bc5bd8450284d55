package recall

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/kbmem/kb/observations"
)

func TestCommandPaths(t *testing.T) {
	for cmd, want := range map[string][]string{
		"gcloud iam service-accounts keys create /tmp/k.json --iam-account=x@y": {"gcloud iam service-accounts keys create"},
		"cd infra && AWS_PROFILE=prod aws iam create-access-key --user-name ci": {"aws iam create-access-key"},
		"sudo /usr/bin/az ad sp credential reset --id 42":                       {"az ad sp credential reset"},
		"gsutil rm gs://bucket/a.csv":                                           {"gsutil rm"},
	} {
		if got := commandPaths(cmd); !slices.Equal(got, want) {
			t.Errorf("commandPaths(%q) = %q, want %q", cmd, got, want)
		}
	}
}

func TestCommandObjects(t *testing.T) {
	for _, tc := range []struct{ cmd, said, want string }{
		{"gsutil rm gs://gridwise-raw/mdm/readings-0412.csv.gz", "Nee, niets verwijderen uit gridwise-raw.", "gridwise-raw"},
		{"bq query --project_id=gridwise-prod 'DELETE FROM marts.x", "no hand DML on gridwise-prod, nothing", "gridwise-prod"},
		{"psql -d orders_v2 -c 'TRUNCATE events'", "不要动 orders_v2 这个库", "orders_v2"},
		// A name the person does not repeat is no object; nor is a
		// part of a longer name.
		{"aws s3 rm s3://ledger-exports/2024 --recursive", "don't delete exports", ""},
		{"gsutil rm gs://gridwise-raw-archive/x", "leave gridwise-raw alone", ""},
	} {
		got := commandObjects(tc.cmd, tc.said)
		if tc.want == "" && len(got) > 0 || tc.want != "" && !slices.Contains(got, tc.want) {
			t.Errorf("commandObjects(%q, %q) = %q, want %q", tc.cmd, tc.said, got, tc.want)
		}
	}
	for cmd, want := range map[string]bool{
		"gcloud storage rm --recursive gs://b/x":          true,
		"gsutil mv gs://b/x gs://b/_bad/x":                true,
		`python -c "c.query('TRUNCATE TABLE marts.dim')"`: true,
		"psql -c 'DELETE FROM orders WHERE id = 3'":       true,
		"bq query 'SELECT count(*) FROM t'":               false,
		"gsutil ls -l gs://b/x":                           false,
		"docker run --rm -it app":                         false,
		"make quarantine URI=gs://b/x":                    false,
	} {
		checkEach(t, "changes", changes, cmd, want)
	}
}

// A refused command the taxonomy has no type for still fires on the same
// command path; a refused change of an object the person named fires on
// another tool's change of that object, and not on a read of it or a
// change of another one.
func TestRefusedCommandSignals(t *testing.T) {
	bash := func(cmd string) *cue { return toolCue("Bash", "command", cmd) }
	keys := func() *candidate {
		said := "no service account keys, org policy. impersonate the SA instead"
		return &candidate{typ: observations.TypeCorrection, said: said, lesson: said,
			trigger: "running `gcloud iam service-accounts keys create ~/.config/gcloud/dev.json…`"}
	}
	bucket := func() *candidate {
		said := "Nee, niets verwijderen uit gridwise-raw: die bucket is onveranderlijk. Gebruik `make quarantine URI=...`"
		return &candidate{typ: observations.TypeCorrection, said: said, lesson: said,
			trigger: "running `gsutil rm gs://gridwise-raw/mdm/2026/02/10/readings-0412.csv.gz`"}
	}
	for _, tc := range []struct {
		c    func() *candidate
		cmd  string
		want string
	}{
		{keys, "gcloud iam service-accounts keys create /tmp/ci.json --iam-account=ci@p.iam.gserviceaccount.com", "gcloud iam service-accounts keys create"},
		{keys, "gcloud auth application-default login --impersonate-service-account=ci@p.iam.gserviceaccount.com", ""},
		{keys, "gcloud iam service-accounts list", ""},
		{bucket, "gcloud storage rm --recursive gs://gridwise-raw/scada/2026/03/14/", "gridwise-raw"},
		{bucket, "gsutil mv gs://gridwise-raw/a.csv.gz gs://gridwise-raw/_bad/a.csv.gz", "gridwise-raw"},
		{bucket, "gsutil ls -l gs://gridwise-raw/scada/", ""},
		{bucket, "gcloud storage rm --recursive gs://gridwise-scratch/voltage/", ""},
		{bucket, "make quarantine URI=gs://gridwise-raw/mdm/a.csv.gz", ""},
	} {
		c := tc.c()
		if got := bash(tc.cmd).refusedHit(c); got != tc.want {
			t.Errorf("%s: refusedHit = %q, want %q", tc.cmd, got, tc.want)
		}
	}
}

// A broad type match (py:run) names the runner of every Python call:
// `uv run pre-commit` is no evidence for a lesson about `uv run dbt build
// --target prod`, and a build that names no environment is none for a
// lesson about a production one.
func TestBroadTypeRunnerAndEnvironment(t *testing.T) {
	tax := observations.Default()
	said := "don't point dbt at prod from your laptop: prod is built by the dbt_prod job after the merge"
	mk := func() *candidate {
		return &candidate{typ: observations.TypeCorrection, said: said, lesson: said,
			trigger: "running Python: `cd dbt && uv run dbt build --target prod -s fct_outage_minutes`",
			types:   []string{"py:run", "deploy:production"}}
	}
	for cmd, want := range map[string]bool{
		"cd dbt && uv run dbt build --target prod -s fct_substation_load": true,
		"cd dbt && uv run dbt build -s fct_substation_load+":              false,
		"uv run pre-commit run --all-files":                               false,
		"cd api && uv run alembic revision --autogenerate -m x":           false,
	} {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		cu := buildCue(tax, Query{Tool: "Bash", Input: in, Cwd: "/p"})
		c := mk()
		cu.match(c)
		if got := c.relevance > 0; got != want {
			t.Errorf("%s: fired %v, want %v (%+v)", cmd, got, want, c)
		}
	}
}

// A span that ends in an ellipsis is a prefix; Turkish "Hayır" and its
// negative imperatives make a clause a prohibition; a name inside a longer
// word (an e-mail, a host) is no signature of its own.
func TestSignatureShapes(t *testing.T) {
	for _, tc := range []struct{ code, span string }{
		{"from `gridwise-prod.marts.fct_load`", "gridwise-prod.marts…"},
		{"select 1 from gridwise-prod.marts", "gridwise-prod.marts…"},
	} {
		if !containsSpan(tc.code, tc.span) {
			t.Errorf("containsSpan(%q, %q) = false", tc.code, tc.span)
		}
	}
	if containsSpan("from gridwise-prod.raw.meters", "gridwise-prod.marts…") {
		t.Error("a prefix matched another name")
	}
	sigs := signatures("Hayır, endpoint içinde her istekte yeni bir `bigquery.Client()` oluşturma")
	if len(sigs) != 1 || !sigs[0].prohibited {
		t.Errorf("Turkish prohibition: %+v", sigs)
	}
	for _, s := range signatures("use `gcloud auth login` and impersonate dagster-dev@gridwise-dev.iam.gserviceaccount.com") {
		if s.text == "@gridwise" || s.text == "dev.iam.gserviceaccount.com" {
			t.Errorf("a part of an address as a signature: %+v", s)
		}
	}
}

// Test files are known by their names and directories in the conventions
// of several languages, and by the marks of their frameworks.
func TestTestCode(t *testing.T) {
	for path, want := range map[string]bool{
		"/p/ios/PantryboxTests/CartStoreTests.swift": true,
		"/p/spec/models/order_spec.rb":               true,
		"/p/web/src/cart.test.ts":                    true,
		"/p/svc/handler_test.go":                     true,
		"/p/tests/test_api.py":                       true,
		"/p/app/models/latest.rb":                    false,
		"/p/ios/Pantrybox/CartView.swift":            false,
	} {
		if got := toolCue("Write", "file_path", path, "content", "x = 1").testCode(); got != want {
			t.Errorf("testCode(%s) = %v, want %v", path, got, want)
		}
	}
	if !toolCue("Write", "file_path", "/p/a.swift", "content", "import XCTest\nfinal class A: XCTestCase {}").testCode() {
		t.Error("XCTest marks")
	}
	checkEach(t, "exemptsTests", exemptsTests, "测试代码（PantryboxTests）里无所谓，force unwrap 可以", true)
}

// The person's negated words that name the refused program make any call
// of it the corrected action; a lesson's placeholder ends its span; the
// runner of advised advice is no evidence of following it, nor is the
// global tool the advice runs through a runner.
func TestRefusedProgramAndAdvice(t *testing.T) {
	if !negatesWord("no, we dropped rubocop for standard", "rubocop") || negatesWord("run rubocop, don't skip it. use standard", "standard") {
		t.Error("negatesWord")
	}
	said := "no, we dropped rubocop for standard: run `bundle exec standardrb --fix`"
	c := &candidate{typ: observations.TypeCorrection, said: said, lesson: said, trigger: "running `bundle exec rubocop -a app/models`"}
	if got := toolCue("Bash", "command", "bin/rubocop app/controllers").refusedHit(c); got != "rubocop" {
		t.Errorf("refusedHit = %q, want rubocop", got)
	}
	if sigs := signatures("response से पहले `await env.MENU_CACHE.put(...)` मत करो"); len(sigs) != 1 || !sigs[0].prohibited ||
		!containsSpan("await env.MENU_CACHE.put(key, body)", sigs[0].text) {
		t.Errorf("an elided call after a Hindi negation: %+v", sigs)
	}
	for text, want := range map[string]bool{
		"forget the `rubocop -a` thing from before, it's `standardrb --fix` now": true,
		"don't forget the `rubocop -a` before you commit":                        false,
	} {
		if sigs := signatures(text); len(sigs) == 0 || sigs[0].prohibited != want || len(sigs) > 1 && sigs[1].prohibited {
			t.Errorf("%q: %+v", text, sigs)
		}
	}
	sigs := signatures("upgrade one gem at a time: `bundle update --conservative <gem>`")
	if len(sigs) != 1 || sigs[0].text != "bundle update --conservative…" {
		t.Errorf("placeholder span: %+v", sigs)
	}
	beta := "never upload from your machine; `bundle exec fastlane ios beta` runs in CI only"
	mk := func() *candidate {
		return &candidate{typ: observations.TypeCorrection, said: beta, lesson: beta, trigger: "running `xcrun altool --upload-app -f build/App.ipa`"}
	}
	for cmd, want := range map[string]string{
		"fastlane ios beta":             "",
		"bundle exec fastlane ios beta": "fastlane",
		"bundle install":                "",
	} {
		if got := toolCue("Bash", "command", cmd).followsProgram(mk()); got != want {
			t.Errorf("followsProgram(%s) = %q, want %q", cmd, got, want)
		}
	}
	checkEach(t, "RequestsTask", observations.RequestsTask, "can you replace them with one link", true)
	checkEach(t, "RequestsTask", observations.RequestsTask, "No, it's generated now: change the template", false)
}

// Code the lesson prohibits, written inside the function the lesson puts
// it in, follows the lesson: the client created in `def lifespan` is the
// shared one the person asked for, the one created in an endpoint is not.
func TestAdvisedPlace(t *testing.T) {
	said := "Hayır, endpoint içinde her istekte yeni bir `bigquery.Client()` oluşturma. Lifespan'da açılan paylaşımlı istemciyi `Depends(get_bq)` ile al."
	mk := func() *candidate {
		return &candidate{typ: observations.TypeCorrection, said: said, lesson: said, trigger: "writing `api/routers/outages.py`"}
	}
	edit := func(old, code string) *cue {
		return toolCue("Edit", "file_path", "/p/api/app.py", "old_string", old, "new_string", code)
	}
	in := edit("async def lifespan(app: FastAPI):\n    settings = get_settings()", "    app.state.bq = bigquery.Client()")
	c := mk()
	in.matchSignatures(c)
	if c.sigHit != "" || c.follow != "lifespan" {
		t.Errorf("in lifespan: sigHit %q, follow %q", c.sigHit, c.follow)
	}
	out := edit("@router.get(\"/tariffs\")\ndef list_tariffs():\n    rows = []", "    app.state.bq = bigquery.Client()")
	c = mk()
	out.matchSignatures(c)
	if c.sigHit == "" {
		t.Error("in an endpoint: no signature hit")
	}
	if advisesPlace("don't open the client in handle_request, use the shared one", "handle_request") {
		t.Error("a place named in the prohibition is advised")
	}
}

// The flag the person repeats from the refused command ("不要 down -v") is
// what was wrong: the same command without it is another action, unless
// the lesson's other words meet the proposal. A push to a branch of one's
// own is not the corrected push to a shared branch.
func TestFlagAndBranchScope(t *testing.T) {
	said := "别！不要 down -v，也别删 volume。pgdata 里是 40GB 的快照"
	c := &candidate{typ: observations.TypeCorrection, said: said, lesson: said, trigger: "running `docker compose down -v && docker compose up -d db`"}
	for cmd, want := range map[string]bool{
		"docker compose down && docker compose up -d --build api": true,
		"docker compose down -v":                                  false,
		"docker volume rm app_pgdata":                             false,
	} {
		if got := toolCue("Bash", "command", cmd).lacksNamedFlags(c); got != want {
			t.Errorf("lacksNamedFlags(%s) = %v, want %v", cmd, got, want)
		}
	}
	if f := namedFlags("git add -A && git commit -m x", "never `git add -A` or `git add .`"); len(f) != 1 || f[0] != "-A" {
		t.Errorf("namedFlags: %q", f)
	}
	for cmd, want := range map[string]string{
		"git push --force-with-lease origin feat/qr": "feat/qr",
		"git push origin HEAD:develop":               "develop",
		"cd x && git push -f origin +main":           "main",
		"git push --force":                           "",
	} {
		if got := pushBranch(cmd); got != want {
			t.Errorf("pushBranch(%s) = %q, want %q", cmd, got, want)
		}
	}
	rule := "Never rewrite develop or main, no reset + force push. back it out with `git revert`"
	r := &candidate{typ: observations.TypePreference, said: rule, lesson: rule}
	if !toolCue("Bash", "command", "git push --force-with-lease origin feat/qr").otherBranch(r) ||
		toolCue("Bash", "command", "git push --force origin develop").otherBranch(r) ||
		toolCue("Bash", "command", "git push --force").otherBranch(r) {
		t.Error("otherBranch")
	}
}
