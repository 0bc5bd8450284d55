package recall

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kbmem/kb/observations"
)

func TestReducePaths(t *testing.T) {
	got, files := reducePaths("Edit `/Users/dain/workspace/claude-code-log/claude_code_log/renderer.py` and ./docs/guide.md, see e.g. v1.2 in process.env; run `cd /tmp/x/ && make`")
	want := "Edit ` renderer ` and  guide , see e.g. v1.2 in  process ; run `cd  x  && make`"
	if got != want {
		t.Errorf("text\n got %q\nwant %q", got, want)
	}
	wantFiles := []fileRef{{"renderer.py", "claude-code-log/claude_code_log"}, {"guide.md", "docs"}, {"process.env", ""}}
	if !reflect.DeepEqual(files, wantFiles) {
		t.Errorf("files %+v, want %+v", files, wantFiles)
	}
	// A URL names a page, not a file of the project.
	if got, files := reducePaths("the link is https://github.com/me/site/blob/main/public/tokenizer.html now"); len(files) != 0 ||
		!strings.Contains(got, "tokenizer.html") {
		t.Errorf("URL read as a file: %q %+v", got, files)
	}
	if f := sameFile([]fileRef{{"renderer.py", "claude_code_log"}}, []fileRef{{"renderer.py", ""}}); f != "renderer.py" {
		t.Errorf("same file %q", f)
	}
	if f := sameFile([]fileRef{{"renderer.py", "a"}}, []fileRef{{"renderer.py", "b"}}); f != "" {
		t.Errorf("other directory matched: %q", f)
	}
	// Two directories up: the same name in another module is another file;
	// a parent named on one side only as its last directory is the same.
	if f := sameFile([]fileRef{{"prompts.py", "netmiko/prompts"}}, []fileRef{{"prompts.py", "infrahub/prompts"}}); f != "" {
		t.Errorf("another module's file matched: %q", f)
	}
	if f := sameFile([]fileRef{{"prompts.py", "netmiko/prompts"}}, []fileRef{{"prompts.py", "prompts"}}); f != "prompts.py" {
		t.Errorf("same file, one side naming less of its path: %q", f)
	}
	if f := sameFile([]fileRef{{"prompts.py", "xnetmiko/prompts"}}, []fileRef{{"prompts.py", "netmiko/prompts"}}); f != "" {
		t.Errorf("a directory name's suffix matched: %q", f)
	}
	if f := sameFile([]fileRef{{"__init__.py", ""}}, []fileRef{{"__init__.py", ""}}); f != "" {
		t.Errorf("generic name matched: %q", f)
	}
}

func TestInProject(t *testing.T) {
	for _, c := range []struct {
		projects []string
		dir      string
		want     bool
	}{
		{[]string{"/home/dev/shop"}, "/home/dev/shop", true},
		{[]string{"/home/dev/shop"}, "/home/dev/shop/api", true},
		{[]string{"/home/dev/shop/api"}, "/home/dev/shop", true},
		{[]string{"/Users/alice/shop"}, "/home/bob/shop", true}, // one repo, two people's paths
		{[]string{"/home/dev/shop"}, "/home/dev/shopping", false},
		{[]string{"/home/dev/shop", "/home/dev/ledger"}, "/home/dev/ledger", true},
		{[]string{"/home/dev/shop"}, "/srv/ledger", false},
	} {
		if got := inProject(c.projects, c.dir); got != c.want {
			t.Errorf("inProject(%v, %q) = %v", c.projects, c.dir, got)
		}
	}
}

// A script a lesson runs is not a file it is about changing: writing
// hoge.py is not the moment for "to run python hoge.py, use python3".
func TestCandidateRunScriptIsNoFile(t *testing.T) {
	c := candidateOf(Hit{Path: "observations/procedure/p.md", Layer: LayerObservations, Type: observations.TypeProcedure,
		Fields: map[string]any{"goal": "cd to myapp and run python hoge.py", "noteid": "p"}})
	if len(c.files) != 0 {
		t.Fatalf("run script kept as a file: %+v", c.files)
	}
	c = candidateOf(Hit{Path: "observations/correction/c.md", Layer: LayerObservations, Type: observations.TypeCorrection,
		Fields: map[string]any{"lesson": "Do not edit api/gen/client.py by hand: edit api/openapi.yaml", "noteid": "c"}})
	if len(c.files) != 2 {
		t.Fatalf("edited files lost: %+v", c.files)
	}
}

// A script a command runs as its program is run, not changed; sed -i and
// perl -pi edit in place, as an Edit call does.
func TestRunScriptsAndInPlaceEdits(t *testing.T) {
	files := []fileRef{{"deploy.sh", "scripts"}, {"utils.py", "vendor/pyswift"}}
	if got := withoutRunScripts(files, "./scripts/deploy.sh staging && echo ok"); len(got) != 1 || got[0].base != "utils.py" {
		t.Errorf("direct run: %+v", got)
	}
	if got := withoutRunScripts(files, "cat scripts/deploy.sh"); len(got) != 2 {
		t.Errorf("a script read is no script run: %+v", got)
	}
	for cmd, want := range map[string]bool{
		"sed -i 's/a/b/' backend/vendor/x.py":    true,
		"sed -i.bak -e 's/a/b/' x.py":            true,
		"perl -pi -e 's/a/b/' x.py":              true,
		"sed -n '1,20p' x.py":                    false,
		"grep -r 'sed -i' docs/":                 false,
		"cd web && sed --in-place 's/a/b/' x.ts": true,
	} {
		checkEach(t, "editsInPlace", editsInPlace, cmd, want)
	}
}

// A lesson about a file, seen once, whose later sentences point back into
// it ("progenitor builds it from ...") is no request about the task at
// hand: it fires on the next edit of that file. A request is.
func TestFileLessonNotTaskBoundByLaterReferent(t *testing.T) {
	edit := buildCue(observations.Default(), Query{Tool: "Edit", Cwd: "/p",
		Input: json.RawMessage(`{"file_path":"/p/cli/crates/ledger-api/src/generated.rs","old_string":"a","new_string":"b"}`)})
	hit := func(lesson string) bool {
		c := candidateOf(Hit{Path: "observations/correction/c.md", Layer: LayerObservations, Type: observations.TypeCorrection,
			Fields: map[string]any{"trigger": "editing `ledger-api/src/generated.rs`", "lesson": lesson, "noteid": "c", "sessions": 1.0}})
		edit.match(c)
		return c.relevance > 0
	}
	if !hit("Generated.rs is generated. Progenitor builds it from backend/schema/openapi.yaml; run `just schema`.") {
		t.Error("a lesson about the file did not fire on it")
	}
	if hit("Can you replace them with one link.") {
		t.Error("a one-time request fired on a later edit of its file")
	}
}

// A path with a longer extension is a file; a bare dotted name needs a
// short one.
func TestReducePathsLongExtensions(t *testing.T) {
	_, files := reducePaths("edit bff/schema.graphql and services/booking/gradle.lockfile, not django.contrib")
	if len(files) != 2 || files[0].base != "schema.graphql" || files[1].base != "gradle.lockfile" {
		t.Fatalf("files %+v", files)
	}
}

// The file a lesson sends the agent to is where it is followed; a file it
// describes or prohibits is not.
func TestAdvisedFile(t *testing.T) {
	for _, tc := range []struct {
		said, file string
		want       bool
	}{
		{"no hex codes in screens. the hex values live only in src/theme/tokens.ts, otherwise dark mode breaks", "tokens.ts", true},
		{"versions go in the version catalog — gradle/libs.versions.toml — and the build file only says `libs.x`", "libs.versions.toml", true},
		{"don't touch generated.ts. add the field in bff/schema.graphql, then run `yarn codegen`", "schema.graphql", true},
		{"don't touch generated.ts. add the field in bff/schema.graphql, then run `yarn codegen`", "generated.ts", false},
		{"progenitor builds it from backend/schema/openapi.yaml, and that one is generated too", "openapi.yaml", false},
		{"never edit db/migration/V12__init.sql, add a new file", "V12__init.sql", false},
		// The file something is built from says nothing either way; the
		// one file a prohibition leaves out is where to write.
		{"don't edit the xcodeproj, XcodeGen builds it from ios/project.yml", "project.yml", false},
		{"don't touch the other locales, add keys everywhere except config/locales/en.yml", "en.yml", true},
		// "add it in" in other languages.
		{"Ne touche jamais aux fichiers `*.g.dart`. Ajoute le champ dans `invoice_dto.dart` et relance la génération.", "invoice_dto.dart", true},
		{"Las claves nuevas no van en los otros idiomas: añade la clave en locales/es.json primero.", "es.json", true},
		{"新しい項目は schema.graphql に追加して、生成物は触らないで", "schema.graphql", true},
	} {
		if got := advisedFile(tc.said, tc.file); got != tc.want {
			t.Errorf("advisedFile(%q, %q) = %v, want %v", tc.said, tc.file, got, tc.want)
		}
	}
	// A lesson about code does not fire on an edit of its file that
	// writes none of that code.
	edit := func(code string) *cue {
		return toolCue("Edit", "file_path", "/p/booking/restaurant/Restaurant.kt", "old_string", "a", "new_string", code)
	}
	said := "Nein, kein Double für Geld. Beträge immer als Long in Minor Units, also depositPerPersonMinor."
	mk := func() *candidate {
		return candidateOf(Hit{Path: "observations/correction/c.md", Layer: LayerObservations, Type: observations.TypeCorrection,
			Fields: map[string]any{"trigger": "editing `booking/restaurant/Restaurant.kt`", "lesson": said, "noteid": "c",
				"excerpt": "User: " + said}})
	}
	c := mk()
	cu := edit("    var latitude: Double? = null,")
	cu.readSaid(c)
	if cu.match(c); c.relevance > 0 {
		t.Errorf("fired on an unrelated edit of its file: %+v", c)
	}
	said = "no Double for money: amounts are Long minor units."
	c = mk()
	cu = edit("    val amount: Double,")
	cu.readSaid(c)
	if cu.match(c); c.relevance <= 0 {
		t.Errorf("did not fire on a Double for money: %+v", c)
	}
}

// A glob a lesson names ("config/locales/*.yml") is the files it matches
// in that directory, by their own names; "release/*" reads as the word
// release; a bare short glob ("*.yml") is no file scope.
func TestGlobScope(t *testing.T) {
	_, lesson := reducePaths("Only en.yml please. Every other locale, config/locales/*.yml except en.yml, comes from Crowdin")
	for file, want := range map[string]string{
		"/p/config/locales/fr.yml": "fr.yml",
		"/p/config/settings.yml":   "",
		"/p/app/locales/fr.json":   "",
	} {
		_, mine := reducePaths(file)
		if got := sameFile(lesson, mine); got != want {
			t.Errorf("sameFile(%s) = %q, want %q", file, got, want)
		}
	}
	if text, _ := reducePaths("Release/* counts"); !strings.Contains(text, "Release") {
		t.Errorf("glob directory lost: %q", text)
	}
	_, bare := reducePaths("never edit *.yml by hand")
	_, mine := reducePaths("/p/ci/deploy.yml")
	if got := sameFile(bare, mine); got != "" {
		t.Errorf("a bare short glob scoped %q", got)
	}
	if !advisedFile("every other locale, config/locales/*.yml except en.yml, comes from Crowdin", "en.yml") {
		t.Error("the file a glob's lesson leaves out")
	}
}

// "Never change an applied migration, add a new file": a Write of a file
// that is not there yet is the advised new file; an Edit of an existing
// one, or a Write over it, is not.
func TestNewFileFollows(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "V12__init.sql")
	if err := os.WriteFile(old, []byte("create table t (id int);"), 0o644); err != nil {
		t.Fatal(err)
	}
	for said, want := range map[string]bool{
		"아니요, 이미 적용된 마이그레이션은 절대 고치지 마세요. 새 파일 V38__add_max_party_size.sql 로 ALTER TABLE 하세요.": true,
		"never edit an applied migration, add a new file instead":           true,
		"don't create a new migration for this, fold it into the open PR's": false,
	} {
		if got := advisesNewFile(said); got != want {
			t.Errorf("advisesNewFile(%q) = %v", said, got)
		}
	}
	q := func(tool, p string) Query {
		in, _ := json.Marshal(map[string]string{"file_path": p, "content": "alter table t add c int;"})
		return Query{Tool: tool, Input: in, Cwd: dir}
	}
	if !createsFile(q("Write", filepath.Join(dir, "V40__add_c.sql"))) || createsFile(q("Write", old)) || createsFile(q("Edit", old)) ||
		!createsFile(q("Write", "V41__rel.sql")) {
		t.Error("createsFile")
	}
}
