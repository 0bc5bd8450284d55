package recall

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kbmem/kb/observations"
)

func TestCompleteLessonKeepsInsteadPart(t *testing.T) {
	o := &observations.Observation{Type: observations.TypeCorrection, Lesson: "Do not use rm -rf.",
		Excerpt: "Agent: `rm -rf build/` (refused)\nUser: ugh, no rm -rf. `make clean` removes exactly what the build produces."}
	got := completeLesson(o)
	if !strings.Contains(got, "make clean") {
		t.Fatalf("instead-part lost: %q", got)
	}
	// Extraction spells the person's contraction out; the person's words
	// are still found, with the instead-part in the next sentence.
	o.Lesson = "Do not put keys in code, not even test keys."
	o.Excerpt = "Agent: Edit `billing/client.go` (refused)\nUser: don’t put keys in code, not even test keys. Everything secret comes in through the environment: put the value in .env.local."
	if got := completeLesson(o); !strings.Contains(got, ".env.local") {
		t.Fatalf("instead-part lost after a contraction: %q", got)
	}
	o.Excerpt = "User: something else entirely"
	if got := completeLesson(o); got != o.Lesson {
		t.Fatalf("unrelated words replaced the lesson: %q", got)
	}
}

func TestSignaturesPolarity(t *testing.T) {
	sigs := signatures("Nein, bitte kein time.Now() direkt. Der Store hat schon ein clock-Feld – nimm s.clock.Now(), das liefert immer UTC.")
	pol := map[string]bool{}
	for _, s := range sigs {
		pol[s.text] = s.prohibited
	}
	if p, ok := pol["time.Now()"]; !ok || !p {
		t.Fatalf("time.Now() not prohibited: %+v", sigs)
	}
	if p, ok := pol["s.clock.Now()"]; !ok || p {
		t.Fatalf("s.clock.Now() not advised: %+v", sigs)
	}
	sigs = signatures("Use `%w` instead of `%v` when wrapping errors.")
	for _, s := range sigs {
		if s.text == "%v" && !s.prohibited || s.text == "%w" && s.prohibited {
			t.Fatalf("instead of: %+v", sigs)
		}
	}
}

func TestContainsSpan(t *testing.T) {
	for _, c := range []struct {
		code, span string
		want       bool
	}{
		{"t := time.Now().UTC()", "time.Now()", true},
		{"x := s.clock.Now()", "clock.Now()", false}, // inside a selector
		{"x := s.clock.Now()", "time.Now()", false},
		{"rows, _ := db.Query(\"select * from t\")", "SELECT *", true},
		{"console.log('x')", "console.log", true},
		{"myconsole.log('x')", "console.log", false},
		{"let a: any = 1", "any", true},
		{"let company = 1", "any", false},
	} {
		if got := containsSpan(c.code, c.span); got != c.want {
			t.Errorf("containsSpan(%q, %q) = %v", c.code, c.span, got)
		}
	}
}

func TestStripCommentsByLanguage(t *testing.T) {
	if got := stripComments("// refetch when any filter changes\nconst url = \"http://x\" // any\n", "a.ts"); strings.Contains(got, "any") || !strings.Contains(got, "http://x") {
		t.Fatalf("ts: %q", got)
	}
	if got := stripComments("x = 1  # except: pass\n", "a.py"); strings.Contains(got, "except") {
		t.Fatalf("py: %q", got)
	}
	if got := stripComments("# not a comment in markdown", "a.md"); !strings.Contains(got, "not a comment") {
		t.Fatalf("md: %q", got)
	}
}

func TestContentSignatureFiresOnWrittenCode(t *testing.T) {
	c := &candidate{typ: observations.TypeCorrection, said: "No console.log in web/; log through @fleet/logger instead."}
	in, _ := json.Marshal(map[string]string{"file_path": "/p/web/a.tsx", "old_string": "x", "new_string": "x\nconsole.log('d', v)"})
	cu := buildCue(observations.Default(), Query{Tool: "Edit", Input: in, Cwd: "/p"})
	cu.matchSignatures(c)
	if c.sigHit != "console.log" || c.typeScore < sigScore {
		t.Fatalf("no signature hit: %+v", c)
	}
	c = &candidate{typ: observations.TypeCorrection, said: "No console.log in web/."}
	in, _ = json.Marshal(map[string]string{"file_path": "/p/web/a.tsx", "old_string": "x", "new_string": "x // console.log was here"})
	cu = buildCue(observations.Default(), Query{Tool: "Edit", Input: in, Cwd: "/p"})
	cu.matchSignatures(c)
	if c.sigHit != "" {
		t.Fatalf("fired on a comment: %+v", c)
	}
}

// A SQL keyword of one dialect, in capitals after "no", is that SQL: in a
// query, not as a query builder's method.
func TestDialectKeywordInProse(t *testing.T) {
	said := "better. but this is Oracle 19c — there's no LIMIT. use `FETCH FIRST 50 ROWS ONLY`."
	for code, want := range map[string]string{
		"ORDER BY NAME\nLIMIT #{pageSize} OFFSET #{offset}": "LIMIT ",
		"select id from t order by id limit 25;":            "LIMIT ",
		".sort(\\.$dueDate, .descending)\n.limit(50)":       "",
	} {
		c := &candidate{typ: observations.TypeCorrection, said: said}
		buildCue(observations.Default(), editQ("sql/a.sql", "x", code)).matchSignatures(c)
		if c.sigHit != want {
			t.Errorf("%q: sigHit %q, want %q", code, c.sigHit, want)
		}
	}
}

func TestLexiconEquivalents(t *testing.T) {
	tax := observations.Default()
	for prompt, want := range map[string]string{
		"get rid of the stale caches in the repo":                        "fs:delete-recursive",
		"ship it to prod":                                                "deploy:production",
		"installe la librairie httpx dans le projet api":                 "pkg:install",
		"o banco local tá bagunçado, apaga tudo e começa do zero":        "db:reset",
		"bitte die Änderungen committen? nein: committe sie einfach":     "git:commit",
		"本番のマイグレーションを実行して":                                               "db:migration",
		"fold this fix into my last commit":                              "git:commit-amend",
		"the hook keeps failing, get the commit in without it":           "git:no-verify",
		"the new build throws 502s in production, roll it back":          "deploy:production",
		"undo yesterday's merge, make it look like it never happened":    "git:push-force",
		"the fix is merged and CI is green, get it live for customers":   "deploy:production",
		"about 60 orders on prod got the wrong week, shift them by one":  "deploy:production",
		"QA needs the new flow on their phones today, push a beta build": "deploy:publish",
		"requests has a security advisory out, upgrade it":               "pkg:upgrade",
		"tidy up the lint offenses in app/services":                      "lint:run",
		"lookups by payment id do a seq scan, add an index for it":       "db:migration",
	} {
		cu := buildCue(tax, Query{Task: prompt})
		found := false
		for _, ty := range cu.types {
			found = found || ty == want
		}
		if !found {
			t.Errorf("%q: types %v, want %s", prompt, cu.types, want)
		}
	}
	if _, err := ParseLexicon("no arrow here"); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("bad line: %v", err)
	}
}

// An untyped edit's trigger ("editing `x`") is an edit, not a command.
func TestCallKind(t *testing.T) {
	for trigger, want := range map[string]string{
		"editing `internal/stripe/client.go`":                   "edit",
		"hand-editing a generated file: Edit `api/gen/a.pb.go`": "edit",
		"running `bin/rubocop -a app/models`":                   "shell",
		"when asked to fix the build":                           "",
		"writing: Write `db/migrate/1_add.rb`":                  "edit",
		"MultiEdit `a.go`":                                      "edit",
		"NotebookEdit `eda.ipynb`":                              "edit",
		"apply_patch `*** Begin Patch`":                         "edit",
		"after `make gen`, Edit `api/gen/a.pb.go`":              "edit",
		"running `Edit` of a plain `Write up`":                  "shell",
	} {
		if got := callKind(trigger); got != want {
			t.Errorf("callKind(%q) = %q, want %q", trigger, got, want)
		}
	}
	// A type the lesson got from its words, not from the command it
	// corrected, is no evidence on its own.
	c := &candidate{typ: observations.TypeCorrection, trigger: "running `bin/deploy production`", matchedAT: "lint:run"}
	if cu := buildCue(observations.Default(), Query{Task: "x"}); !cu.wordOnlyType(c) {
		t.Error("a type from the lesson's words")
	}
}

func TestInspectionIsNoDeploy(t *testing.T) {
	for cmd, want := range map[string]bool{
		"sed -n '895p' /root/install.sh":                                        true,
		"sed -i 's/a/b/' /root/install.sh":                                      false,
		"bash -n /root/install.sh && echo ok":                                   true,
		"bash /root/install.sh":                                                 false,
		"diff -u install.sh.bak install.sh":                                     true,
		"cat <<'EOF'\nstep 1 | done && rm -rf x\nEOF":                           true,
		"cat <<'EOF' > notes.md\nrm -rf x\nEOF\nrm -rf build":                   false,
		"kubectl --context prod -n fleet-prod get pods":                         true,
		"helm list -n fleet-prod":                                               true,
		"terraform -chdir=infra/prod plan":                                      true,
		"helm upgrade dispatch ./chart -n fleet-prod":                           false,
		"kubectl apply -f prod.yaml":                                            false,
		"make deploy ENV=prod":                                                  false,
		"packer fmt -check -diff -recursive fleet/packer":                       true,
		"ansible-playbook -i inventories/sites/hosts.yml edge.yml --list-hosts": true,
		"ansible-playbook -i inventories/sites/hosts.yml edge.yml":              false,
		// A hyphenated subcommand says what it does by its first word.
		"kubectl -n airflow-prod exec deploy/scheduler -- airflow dags list-runs -d daily": true,
		"aws ec2 describe-instances --region eu-west-1":                                    true,
		"aws s3api delete-object --bucket prod-raw --key x":                                false,
	} {
		if got := inspection(cmd); got != want {
			t.Errorf("inspection(%q) = %v", cmd, got)
		}
	}
}

func FuzzParseLexicon(f *testing.F) {
	f.Add(builtinEquivalents)
	f.Add("a | b * c => d\n# x\n")
	f.Add("=>")
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLexicon(s)
		if err == nil {
			_, _ = l.Rewrite(s, 16)
		}
	})
}

func FuzzSignatures(f *testing.F) {
	f.Add("Nein, kein time.Now(); nimm `clock.Now()` instead of `time.Now()`.")
	f.Add("Don't change anything in app/android or app/ios by hand; see https://x.io/a/b and bin/rails.")
	f.Fuzz(func(t *testing.T, s string) {
		for _, sg := range signatures(s) {
			_ = containsSpan(s, sg.text)
		}
		_ = stripComments(s, "x.go")
		for _, d := range namedDirs(s) {
			if !strings.Contains(strings.ToLower(s), d) {
				t.Errorf("namedDirs(%q) gave %q, not in it", s, d)
			}
			_ = pathHolds(strings.ToLower(s), d)
		}
	})
}

// A long message keeps its first sentence and the sentences that say what
// to do instead; reasons and asides go first, marked "…".
func TestFitLessonKeepsInsteadSentences(t *testing.T) {
	said := "Don't hand-edit the lockfile. " + strings.Repeat("It broke the build for everyone last week and took the whole afternoon to find. ", 4) +
		"Run `uv lock` instead and commit what it writes."
	got := fitLesson(said, 200, "")
	if !strings.HasPrefix(got, "Don't hand-edit the lockfile.") || !strings.Contains(got, "uv lock") || len(got) > 200 || !strings.Contains(got, "…") {
		t.Errorf("%q (%d bytes)", got, len(got))
	}
	de := "Bitte nicht die Lockdatei von Hand ändern. " + strings.Repeat("Das hat letzte Woche den Build kaputt gemacht. ", 4) + "Verwende stattdessen `uv lock`."
	if got := fitLesson(de, 160, ""); !strings.Contains(got, "uv lock") || len(got) > 160 {
		t.Errorf("de: %q", got)
	}
	// A code span is one piece: "a.b. c" inside backticks does not split.
	if s := sentences("Use `x.y. z` here. Then go."); len(s) != 2 {
		t.Errorf("sentences: %q", s)
	}
	// A question asked of the agent, and the page pasted after it, are no
	// part of the lesson; an instruction after the question still is.
	pasted := "We need to find a cleaner way to reinstall without hunting for cached files. Does this doc page help? " +
		"Tools are Python packages that provide command-line interfaces. The tool interface includes a dedicated " +
		"interface for interacting with tools. " + strings.Repeat("Tools can be upgraded in place. ", 3)
	for _, max := range []int{300, 1000} { // also when the whole would fit
		if got := fitLesson(pasted, max, ""); got != "We need to find a cleaner way to reinstall without hunting for cached files. …" {
			t.Errorf("pasted page, max %d: %q", max, got)
		}
	}
	if got := fitLesson("No npm here. "+strings.Repeat("It wrecks the lockfile. ", 6)+"Why npm? Use `pnpm add` instead.", 120, ""); !strings.Contains(got, "pnpm add") || strings.Contains(got, "Why npm") {
		t.Errorf("instead after a question: %q", got)
	}
	long := strings.Repeat("word ", 100)
	if got := fitLesson(long, 50, ""); len(got) > 50 || !strings.HasSuffix(got, "…") {
		t.Errorf("one long sentence: %q", got)
	}
	// A list written on one line ("Trois choses : - ... - ..."): each item
	// is a sentence, so the item that says what to do is kept.
	list := "Non, pas de double pour de l'argent. Jamais. Trois choses : - les montants c'est BigDecimal, toujours avec Money.SCALE (2) et RoundingMode.HALF_EVEN - on compare avec compareTo, pas equals - en base c'est du numeric(12,2), " + strings.Repeat("jOOQ le mappe déjà en BigDecimal, donc aucune conversion à faire. ", 4)
	if got := fitLesson(list, 300, ""); !strings.Contains(got, "toujours avec Money.SCALE") || len(got) > 300 {
		t.Errorf("a list on one line: %q", got)
	}
	// Chinese and Japanese end sentences with no space, and a numbered list
	// written on one line after a colon is one item per sentence.
	if s := sentences("好的。这里有三点： 1、不要截断 2、不要降级。谢谢！"); len(s) != 5 || s[2] != "1、不要截断" {
		t.Errorf("CJK sentences: %q", s)
	}
	if s := sentences("Two things: 1. use pnpm 2. never push to main. Thanks!"); len(s) != 4 || s[1] != "1. use pnpm" {
		t.Errorf("numbered sentences: %q", s)
	}
	// The lesson is the third point of a long message: it is kept, whatever
	// the preamble before it.
	zh := "根据上述的分析过程与分析结果，我指出几个我严重不满意的地方，请帮我指出原有skill不好的地方。如果优化执行前有需求不清楚，可以反问我： " +
		"1、" + strings.Repeat("第一点的说明很长很长。", 4) + " 2、" + strings.Repeat("第二点的说明也很长。", 4) + " 3、日志关键字检索时不要有任何截断，也不允许降级进行模糊匹配"
	key := spelledOut("3、日志关键字检索时不要有任何截断")
	if got := fitLesson(zh, 200, key); !strings.Contains(got, "不允许降级进行模糊匹配") || len(got) > 200 {
		t.Errorf("the lesson's point: %q", got)
	}
	if s := sentences("Steps: - build it - ship it. Then rest - or not."); len(s) != 4 || s[3] != "Then rest - or not." {
		t.Errorf("list sentences: %q", s)
	}
}

// Within a clause the last polarity word before a span decides it.
func TestSignaturePolarityWithinClause(t *testing.T) {
	for _, tc := range []struct {
		text, span string
		prohibited bool
	}{
		{"In the database it's always an integer `amount_cents` column, never a `FloatField`.", "amount_cents", false},
		{"In the database it's always an integer `amount_cents` column, never a `FloatField`.", "FloatField", true},
		{"Don't use `rm -rf` here.", "rm -rf", true},
		{"Never use `git push --force`.", "git push --force", true},
		{"`rm -rf` is never ok.", "rm -rf", true},
		{"Nicht `%v`, sondern `%w` verwenden.", "%w", false},
		{"Nicht `%v`, sondern `%w` verwenden.", "%v", true},
		// A negation in the next alternative does not govern this one.
		{"if a migration is stuck, `mix ecto.rollback --step 1`, or drop the leftover object by hand", "mix ecto.rollback --step 1", false},
		// Rust macros written bare.
		{"println! ya da dbg! koyma. Log lazımsa tracing kullan", "println!", true},
		// A must after a negation advises what follows it, in any
		// language: "not enough, (we) need to create `X`".
		{"Так лучше, но не достаточно. Нужно создать расширение `RadiationType+BluetoothCommands`", "RadiationType+BluetoothCommands", false},
		{"还是不对，不够完整，需要用 `httpx.New()` 创建客户端", "httpx.New()", false},
		{"Das reicht nicht, du musst `errors.Join` verwenden", "errors.Join", false},
	} {
		found := false
		for _, sg := range signatures(tc.text) {
			if sg.text == tc.span {
				found = true
				if sg.prohibited != tc.prohibited {
					t.Errorf("%q: %s prohibited=%v", tc.text, tc.span, sg.prohibited)
				}
			}
		}
		if !found {
			t.Errorf("%q: no signature %s in %v", tc.text, tc.span, signatures(tc.text))
		}
	}
}

// A code span is code to the letter: "`git add .`" prohibits staging
// everything, not every git add.
func TestSignatureSpanKeepsItsDot(t *testing.T) {
	said := "Never `git add -A` or `git add .` in this repo: stage files by name."
	c := &candidate{typ: observations.TypeCorrection, said: said}
	cu := buildCue(observations.Default(), Query{Tool: "Bash", Input: json.RawMessage(`{"command":"git add src/a.go src/a_test.go"}`), Cwd: "/p"})
	cu.matchSignatures(c)
	if c.sigHit != "" {
		t.Fatalf("staging by name fired %q", c.sigHit)
	}
	c = &candidate{typ: observations.TypeCorrection, said: said}
	cu = buildCue(observations.Default(), Query{Tool: "Bash", Input: json.RawMessage(`{"command":"git add . && git commit -m x"}`), Cwd: "/p"})
	if cu.matchSignatures(c); c.sigHit != "git add ." {
		t.Fatalf("git add . not matched: %+v", c)
	}
}

// A prohibited Go print or log call is the whole family of its format
// suffixes; another function of the package is not.
func TestFormatVariantsFire(t *testing.T) {
	said := "take the fmt.Println out; use the slog logger from the context."
	edit := func(code string) *cue {
		return toolCue("Edit", "file_path", "/p/svc/a.go", "old_string", "x", "new_string", code)
	}
	for code, want := range map[string]bool{
		"\tfmt.Printf(\"n=%d\\n\", n)":               true,
		"\tfmt.Print(n)":                             true,
		"\treturn fmt.Errorf(\"route: %w\", err)":    false,
		"\ts := fmt.Sprintf(\"%d\", n)":              false,
		"\tlogging.FromContext(ctx).Debug(\"n\", n)": false,
	} {
		c := &candidate{typ: observations.TypeCorrection, said: said}
		if edit(code).matchSignatures(c); (c.sigHit != "") != want {
			t.Errorf("%q: hit %q, want a hit %v", code, c.sigHit, want)
		}
	}
	if v := formatVariants("log.Fatalf"); !slicesEqual(v, []string{"log.Fatal", "log.Fatalln"}) {
		t.Errorf("log.Fatalf variants %v", v)
	}
	for _, s := range []string{"console.log", "time.Now()", "Exit", "x"} {
		if v := formatVariants(s); v != nil {
			t.Errorf("%s has variants %v", s, v)
		}
	}
}

func slicesEqual(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }

// A preference is shown with what the person said after it in the same
// message (the instead-part), not with what came before it.
func TestCompleteStatementKeepsInsteadPart(t *testing.T) {
	o := &observations.Observation{Type: observations.TypePreference,
		Statement: "Take the fmt.Println out before you commit — we never leave prints in Go code.",
		Excerpt:   "User: good catch. but take the fmt.Println out before you commit — we never leave prints in Go code. if something's worth logging, use the slog logger from the context: logging.FromContext(ctx).Debug(...)"}
	got := completeStatement(o)
	if !strings.HasPrefix(got, o.Statement) || !strings.Contains(got, "logging.FromContext") || strings.Contains(got, "good catch") {
		t.Fatalf("statement %q", got)
	}
	o.Excerpt = "User: 我更喜欢小的提交。每个提交只做一件事。"
	o.Statement = "我更喜欢小的提交。"
	if got := completeStatement(o); got != o.Statement && !strings.Contains(got, "每个提交") {
		t.Fatalf("CJK statement %q", got)
	}
	o.Excerpt = "User: something else"
	if got := completeStatement(o); got != o.Statement {
		t.Fatalf("unrelated words replaced the statement: %q", got)
	}
}

// One message can yield a correction and a preference: the agent reads
// the words once.
func TestFoldRepeated(t *testing.T) {
	items := []Item{
		{ID: "cor-1", Text: "You are about to run `git add -A`. This was corrected: Never commit secrets, and never `git add -A`: stage files by name.", Lesson: "Never commit secrets, and never `git add -A`: stage files by name."},
		{ID: "pref-1", Text: "PREFER: Never commit secrets, and never `git add -A`: stage files by name. Secrets live in SOPS.", Lesson: "Never commit secrets, and never `git add -A`: stage files by name. Secrets live in SOPS."},
		{ID: "cor-2", Text: "BEFORE editing a.go: use r.Context().", Lesson: "use r.Context() in handlers, not context.Background()."},
	}
	got := foldRepeated(items)
	if len(got) != 2 || got[0].ID != "cor-1" || got[1].ID != "cor-2" {
		t.Fatalf("folded %+v", got)
	}
}

// A prohibited call fires on its family (codefamilies.txt), and a family
// member is matched as written: datetime.now() is not the advised
// datetime.now(timezone.utc).
func TestCodeFamiliesFire(t *testing.T) {
	edit := func(code string) *cue { return toolCue("Write", "file_path", "/p/svc/a.py", "content", code) }
	for _, tc := range []struct {
		said, code string
		want       bool
	}{
		{"use r.Context() there, not context.Background().", "ctx := context.TODO()", true},
		{"never datetime.utcnow(): it is naive; use datetime.now(timezone.utc).", "t = datetime.now()", true},
		{"never datetime.utcnow(): it is naive; use datetime.now(timezone.utc).", "t = datetime.now(timezone.utc)", false},
		{"no console.log in web/, log through @fleet/logger.", "console.debug('x', v)", true},
		{"no console.log in web/, log through @fleet/logger.", "console.error('x', v)", false},
		{"never a bare `except: pass`, it hides the error.", "try:\n    f()\nexcept Exception: pass\n", true},
	} {
		c := &candidate{typ: observations.TypeCorrection, said: tc.said}
		if edit(tc.code).matchSignatures(c); (c.sigHit != "") != tc.want {
			t.Errorf("%q on %q: hit %q, want a hit %v", tc.said, tc.code, c.sigHit, tc.want)
		}
	}
	for k, v := range parseCodeFamilies(builtinCodeFamilies) {
		if len(v) == 0 || slicesContain(v, k) {
			t.Errorf("family of %q: %v", k, v)
		}
	}
}

func slicesContain(s []string, x string) bool {
	return strings.Contains("\x00"+strings.Join(s, "\x00")+"\x00", "\x00"+x+"\x00")
}

// A span written as a call is any call of a bare name ("print()" is
// print(x), "unwrap()" is .unwrap()), and a dotted name passed by name
// (default=datetime.now); a dotted name called with arguments is not.
func TestCallIn(t *testing.T) {
	for _, tc := range []struct {
		code, span string
		want       bool
	}{
		{`print("sync", pk)`, "print()", true},
		{`pprint(x)`, "print()", false},
		{`blueprint(app)`, "print()", false},
		{`let d = s.parse().unwrap();`, "unwrap()", true},
		{`let d = s.parse().unwrap_or(0);`, "unwrap()", false},
		{`signed_up_at = models.DateTimeField(default=datetime.now)`, "datetime.now()", true},
		{`t = datetime.now(timezone.utc)`, "datetime.now()", false},
		{`t = mydatetime.now`, "datetime.now()", false},
		{`x = float(total) * 0.02`, "float()", true},
		{`x = total`, "float()", false},
	} {
		if got := callIn(tc.code, tc.span); got != tc.want {
			t.Errorf("callIn(%q, %q) = %v, want %v", tc.code, tc.span, got, tc.want)
		}
	}
}

// Chinese, Japanese and Korean negations make a span prohibited, and a
// CJK full stop ends a clause: what comes after it is advised.
func TestSignaturesCJKNegation(t *testing.T) {
	for _, tc := range []struct{ said, prohibited, advised string }{
		{"ledger-core はライブラリなので unwrap() も expect() も使わないでください。", "unwrap()", ""},
		{"别！不要 `docker compose down -v`。然后 `docker compose restart db`。", "docker compose down -v", "docker compose restart db"},
		{"`git push --force` 하지 마세요.", "git push --force", ""},
	} {
		pol := map[string]bool{}
		for _, s := range signatures(tc.said) {
			pol[s.text] = s.prohibited
		}
		if p, ok := pol[tc.prohibited]; !ok || !p {
			t.Errorf("%q: %q not prohibited: %v", tc.said, tc.prohibited, pol)
		}
		if tc.advised != "" {
			if p, ok := pol[tc.advised]; !ok || p {
				t.Errorf("%q: %q not advised: %v", tc.said, tc.advised, pol)
			}
		}
	}
}

// A lesson that says it does not hold in tests does not fire on test code.
func TestLessonExemptsTests(t *testing.T) {
	said := "ledger-core はライブラリなので unwrap() も expect() も使わないでください。テストの中の unwrap() は大丈夫です。"
	write := func(path, code string) *cue { return toolCue("Write", "file_path", path, "content", code) }
	c := &candidate{typ: observations.TypeCorrection, said: said, lesson: said}
	write("/p/crates/core/src/fx.rs", "fn rate() -> f64 { s.parse().unwrap() }").match(c)
	if c.sigHit == "" || c.rejected {
		t.Fatalf("library code: %+v", c)
	}
	c = &candidate{typ: observations.TypeCorrection, said: said, lesson: said}
	write("/p/crates/core/src/fx.rs", "#[test]\nfn rate() { s.parse().unwrap(); }").match(c)
	if !c.rejected {
		t.Fatalf("test code: %+v", c)
	}
	for text, want := range map[string]bool{
		"no print() in the backend; in tests it's fine": true,
		"never mock the database, except in tests":      true,
		"测试里可以用 unwrap()":                               true,
		"no print() in the backend":                     false,
		"run the tests before you push":                 false,
	} {
		checkEach(t, "exemptsTests", exemptsTests, text, want)
	}
}

// A call against one environment is not the situation of a lesson
// corrected against another: environments are read from the words tools
// and people use, and only for actions that target one.
func TestOtherEnvironment(t *testing.T) {
	for text, want := range map[string]string{
		`psql "$PROD_DATABASE_URL" -c "UPDATE x"`:         "prod",
		"helm upgrade api charts/api --namespace staging": "staging",
		"aws ecs update-service --cluster ledger-prod":    "prod",
		"./scripts/deploy.sh local":                       "dev",
		"git push origin main":                            "",
		"cd admin && MIX_ENV=test mix ecto.reset":         "test",
		"RAILS_ENV=production bin/rails db:migrate":       "prod",
	} {
		got := ""
		for e := range environments(text) {
			got = e
		}
		if got != want {
			t.Errorf("environments(%q) = %q, want %q", text, got, want)
		}
	}
	c := &candidate{typ: observations.TypeCorrection, trigger: "deploying to production: `./scripts/deploy.sh prod`"}
	shell := func(cmd string) *cue { return toolCue("Bash", "command", cmd) }
	if !shell("./scripts/deploy.sh staging").otherEnvironment(c) {
		t.Error("staging deploy read as the prod lesson's situation")
	}
	for _, cmd := range []string{"./scripts/deploy.sh prod", "helm upgrade api charts/api --namespace production", "terraform apply"} {
		if shell(cmd).otherEnvironment(c) {
			t.Errorf("%q ruled out", cmd)
		}
	}
	// A lesson that allows one environment in so many words does not
	// name it as its own; the throwaway test environment is another
	// situation than the default one the corrected call ran in.
	c = &candidate{typ: observations.TypeCorrection, trigger: "dropping or resetting a database: `cd admin && mix ecto.reset`",
		said: "don't reset the admin dev database again. reset/drop is only ok with MIX_ENV=test."}
	if !shell("cd admin && MIX_ENV=test mix ecto.reset").otherEnvironment(c) {
		t.Error("the test environment the lesson allows read as its situation")
	}
	if shell("cd admin && mix ecto.reset").otherEnvironment(c) {
		t.Error("the corrected command itself ruled out")
	}
}

// A request that says what state a thing is in and then what to do to
// "it" is classified with that thing as the act's object.
func TestPronounAct(t *testing.T) {
	tax := observations.Default()
	for task, want := range map[string]string{
		"the orders DLQ is full of poison messages since Friday, just empty it": "queue:purge",
		"my local db got corrupted after the rebase, wipe it":                   "db:reset",
	} {
		if got := tax.ClassifyText(pronounAct(task)); !slices.Contains(got, want) {
			t.Errorf("%q: %q classified %v, want %s", task, pronounAct(task), got, want)
		}
	}
	if act := pronounAct("deploy it to staging"); act != "" {
		t.Errorf("no subject named, yet %q", act)
	}
}

// After a refused command, a proposal that runs what the person said to
// run instead follows the lesson, unless it also does the corrected thing
// apart from that.
func TestFollowsAfterRefusal(t *testing.T) {
	shell := func(cmd string) *cue { return toolCue("Bash", "command", cmd) }
	lesson := func(trigger, said string) *candidate {
		return &candidate{typ: observations.TypeCorrection, trigger: trigger, said: said, lesson: said,
			types: observations.Default().ClassifyText(trigger), typeScore: 1}
	}
	c := lesson("adding or installing a dependency: `cd mobile/ios && pod install --repo-update`",
		"bundle exec. same as last time — pods only through the Gemfile")
	if cu := shell("cd mobile/ios && bundle exec pod install"); cu.followsWords(c) != "bundle exec" {
		t.Errorf("bundle exec not followed: %q", cu.followsWords(c))
	} else if c.follow = "bundle exec"; cu.besides(c) {
		t.Error("the advised command read as the corrected one besides")
	}
	c = lesson("running the whole test suite: `go test ./...`", "use go test -short ./... here")
	if f := shell("go test -v ./...").followsWords(c); f != "" {
		t.Errorf("the corrected program's own words read as advice: %q", f)
	}
	c = lesson("force-pushing a branch: `git push --force origin main`", "never. git pull --rebase, then a normal push")
	c.follow = "git pull"
	if !shell("git pull --rebase && git push --force origin main").besides(c) {
		t.Error("a force push after the advised pull read as following")
	}
}

func TestFollowsWordsNotInANegatedClause(t *testing.T) {
	in, _ := json.Marshal(map[string]string{"command": "sudo chmod 777 ./cache"})
	cu := buildCue(observations.Default(), Query{Tool: "Bash", Input: in, Cwd: "/p"})
	c := &candidate{typ: observations.TypeCorrection, trigger: "running with sudo: `sudo chmod -R 777 /var/cache`",
		said: "don't use sudo in the dev container and never chmod 777. Fix the ownership in the Dockerfile with a USER and chown instead."}
	if f := cu.followsWords(c); f != "" {
		t.Fatalf("prohibited words read as advice: %q", f)
	}
}

// Spans of punctuation (!!, ?:) match after an identifier; annotations
// are code; a type named as a noun ("kein Double") and negations of more
// languages (Russian, Polish, Turkish, Vietnamese, Dutch) prohibit.
func TestSignaturesMoreCodeAndLanguages(t *testing.T) {
	if !containsSpan("val b = repo.findById(id)!!", "!!") {
		t.Error("!! after an identifier")
	}
	for _, tc := range []struct{ said, prohibited string }{
		{"no `!!` — use `?: throw NotFoundException(id)`", "!!"},
		{"and no @Autowired fields: constructor injection", "@Autowired"},
		{"Nein, kein Double für Geld, Beträge als Long in Minor Units.", "double"},
		{"Нет, FetchType.EAGER не ставим — оставь LAZY.", "FetchType.EAGER"},
		{"Nie używaj datetime.utcnow() w modelach.", "datetime.utcnow()"},
		{"Gebruik geen console.log in de app.", "console.log"},
	} {
		pol := map[string]bool{}
		for _, s := range signatures(tc.said) {
			pol[s.text] = s.prohibited
		}
		if p, ok := pol[tc.prohibited]; !ok || !p {
			t.Errorf("%q: %q not prohibited: %v", tc.said, tc.prohibited, pol)
		}
	}
}

// The code an excerpt records the agent wrote against the person's words
// is prohibited, beside the signatures of the words.
func TestWroteSignatures(t *testing.T) {
	ex := "Agent: Edit `src/resolvers/guest.ts` (refused)" + observations.WroteMark + "`axios`, `axios.get`\nUser: don't call services with axios from the BFF"
	sigs := saidSignatures(ex, personWordsOf(ex))
	n := 0
	for _, s := range sigs {
		if (s.text == "axios" || s.text == "axios.get") && s.prohibited {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("signatures %+v", sigs)
	}
}

// toolCue is the cue of a tool call in project /p whose input holds the
// given keys and values.
func toolCue(tool string, kv ...string) *cue {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	in, _ := json.Marshal(m)
	return buildCue(observations.Default(), Query{Tool: tool, Input: in, Cwd: "/p"})
}

// checkEach reports f(in) when it is not want.
func checkEach(t *testing.T, name string, f func(string) bool, in string, want bool) {
	t.Helper()
	if got := f(in); got != want {
		t.Errorf("%s(%q) = %v, want %v", name, in, got, want)
	}
}

func TestAdvisedSpanInsideProhibitedIsNotFollowed(t *testing.T) {
	// The advised `env` is inside the process.env the edit writes: the
	// edit does what the lesson prohibits.
	said := "don't read process.env directly. everything goes through `env` from `@/env`, use env.API_KEY."
	excerpt := "Agent: Write `src/app/route.ts`" + observations.WroteMark + "`process.env`\nUser: " + said
	edit := func(code string) string {
		c := &candidate{typ: observations.TypeCorrection, said: said, excerpt: excerpt}
		in, _ := json.Marshal(map[string]string{"file_path": "/p/web/src/lib/mail.ts", "old_string": "x", "new_string": code})
		buildCue(observations.Default(), Query{Tool: "Edit", Input: in, Cwd: "/p"}).matchSignatures(c)
		return c.sigHit
	}
	if hit := edit("const k = process.env.MAIL_KEY;"); hit != "process.env" {
		t.Fatalf("no hit on process.env: %q", hit)
	}
	// Written the advised way, it is followed.
	if hit := edit("import { env } from '@/env';\nconst k = env.MAIL_KEY;"); hit != "" {
		t.Fatalf("fired on the advised form: %q", hit)
	}
}

func TestBareFormOfAnExtendedCommand(t *testing.T) {
	sigs := signatures("when you run tests always `pnpm vitest run` (or `pnpm test --run`), plain `pnpm test`/`pnpm vitest` starts the watcher.")
	for _, tc := range []struct{ cmd, want string }{
		{"cd web && pnpm vitest src/lib/cart", "pnpm vitest"},
		{"pnpm test", "pnpm test"},
		{"pnpm vitest run src/lib/cart", ""},
		{"pnpm test --run", ""},
		{"pnpm lint", ""},
	} {
		if got := bareForm(sigs, tc.cmd); got != tc.want {
			t.Errorf("bareForm(%q) = %q, want %q (%+v)", tc.cmd, got, tc.want, sigs)
		}
	}
}

// "sin X ni Y" prohibits X and Y; a clause that calls what it names
// acceptable advises it, whatever negation follows ("porque no hacen
// panic").
func TestSpanishWithoutAndAllowed(t *testing.T) {
	wantPolarity(t, "Sin unwrap() ni expect() en el código que se exporta a JS. Devuelve Result<_, JsError> y usa ?. unwrap_or / unwrap_or_default están bien porque no hacen panic.",
		map[string]bool{"unwrap()": true, "expect()": true, "unwrap_or_default": false})
}

// wantPolarity checks whether each span of text is found prohibited.
func wantPolarity(t *testing.T, text string, want map[string]bool) {
	t.Helper()
	pol := map[string]bool{}
	for _, s := range signatures(text) {
		pol[s.text] = s.prohibited
	}
	for span, w := range want {
		if got, ok := pol[span]; !ok || got != w {
			t.Errorf("%s: prohibited=%v (found %v), want %v: %v", span, got, ok, w, pol)
		}
	}
}

// A span a clause says does harm is what the lesson prohibits; a check
// that "would have failed" is no harm the span does.
func TestHarmfulSpanIsProhibited(t *testing.T) {
	wantPolarity(t, "customers is 3M rows, `.all.each` loads all of them into memory and the job gets OOM-killed. in app code always `find_each`. strong_migrations would have failed CI anyway",
		map[string]bool{".all.each": true, "find_each": false, "strong_migrations": false})
}

// A program the lesson advises by its path, run by its bare name, is the
// other copy the lesson warns about; run by its path, or under a
// negation, it is not.
func TestBareProgram(t *testing.T) {
	said := "that's your global rubocop, it doesnt know our config. always bin/rubocop, it runs the bundled version."
	for _, tc := range []struct{ cmd, want string }{
		{"rubocop -A app/services", "rubocop"},
		{"bin/rubocop -a app/services", ""},
		{"bundle exec rspec spec", ""},
	} {
		if got := bareProgram(said, tc.cmd, programsOf(tc.cmd)); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.cmd, got, tc.want)
		}
	}
	if got := bareProgram("forget bin/rspec, it's just bundle exec rspec again now", "rspec spec/x_spec.rb", []string{"rspec"}); got != "" {
		t.Errorf("a revoked path advises nothing: %q", got)
	}
	// A wrapper script advised: the tool it pins, run bare, is the global one.
	wrapper := "not your global gradle. always ./gradlew, the wrapper pins 8.7."
	for _, tc := range []struct{ cmd, want string }{
		{"cd field-app && gradle assembleRelease", "gradle"},
		{"./gradlew assembleRelease", ""},
		{"cd app && ./mvnw test", ""},
	} {
		if got := bareProgram(wrapper, tc.cmd, programsOf(tc.cmd)); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.cmd, got, tc.want)
		}
	}
}

// TestFitLessonDropsApproval: an approval of the last step that opens the
// person's words is left out when they must be cut, so the instead-part
// fits ("ok that one's fine", "c'est bon").
func TestFitLessonDropsApproval(t *testing.T) {
	reason := strings.Repeat("We lost a week to it last year. ", 3)
	for _, said := range []string{
		"ok that one's fine, it went to your local db from appsettings.Development.json. but never run the update against prod. " + reason + "Generate the script with `migrations script --idempotent` instead.",
		"C'est bon, ça va dans la base locale. Mais jamais de mise à jour sur la prod. " + reason + "Utilise `migrations script --idempotent` à la place.",
	} {
		got := fitLesson(said, 200, "")
		if strings.Contains(got, "fine") || strings.Contains(got, "C'est bon") || !strings.Contains(got, "--idempotent") {
			t.Errorf("fitLesson(%q) = %q", said, got)
		}
	}
	if got := fitLesson("Looks good. Now never push to main. "+reason+"Open a PR with `gh pr create`.", 400, ""); !strings.HasPrefix(got, "Looks good.") {
		t.Errorf("words that fit are kept whole: %q", got)
	}
}

// A program the lesson advises through a wrapper (a version manager, a
// bundle, a runner), run on its own, runs outside it; run through it, or
// a program that only reads text, is no hit.
func TestWrappedForm(t *testing.T) {
	for _, tc := range []struct{ said, cmd, want string }{
		{"Bitte nicht das globale flutter. Immer `fvm flutter …` bzw. `fvm dart …`.", "cd app && flutter test test/x", "flutter"},
		{"Bitte nicht das globale flutter. Immer `fvm flutter …` bzw. `fvm dart …`.", "fvm flutter test", ""},
		{"not the global pod. `bundle exec pod install`, the Gemfile pins it.", "cd ios && pod install", "pod"},
		{"не запускай pytest напрямую, только `uv run pytest -x`", "pytest tests/unit", "pytest"},
		{"не запускай pytest напрямую, только `uv run pytest -x`", "uv run pytest tests/unit", ""},
		{"never plain `go test`, use `gotestsum --format testname`", "test -f go.mod && echo ok", ""},
		{"no `npm run build` here, use `pnpm build`", "pnpm build", ""},
	} {
		if got := wrappedForm(signatures(tc.said), programsOf(tc.cmd)); got != tc.want {
			t.Errorf("%q on %q: %q, want %q (%+v)", tc.said, tc.cmd, got, tc.want, signatures(tc.said))
		}
	}
}

// An advised flag is followed by a call that passes it with its value, or
// with a value that begins with it (the advised filter, narrowed).
func TestHasFlagValuesOf(t *testing.T) {
	for _, tc := range []struct {
		cmd, span string
		want      bool
	}{
		{`cd backend && dotnet test tests/X --filter "Category!=Integration&FullyQualifiedName~Tax"`, `dotnet test --filter "Category!=Integration"`, true},
		{`dotnet test --filter=Category!=Integration`, `--filter "Category!=Integration"`, true},
		{`dotnet test --filter "Category=Integration"`, `--filter "Category!=Integration"`, false},
		{`dotnet test tests/X`, `--filter "Category!=Integration"`, false},
		{`uv run pytest -m "not slow and not db" tests/`, `pytest -m "not slow"`, true},
		{`pytest -m slow`, `pytest -m "not slow"`, false},
	} {
		if got := hasFlagValuesOf(flagValues(tc.cmd), tc.span); got != tc.want {
			t.Errorf("hasFlagValuesOf(%q, %q) = %v, want %v", tc.cmd, tc.span, got, tc.want)
		}
	}
}

// A member written alone in prose (".Result", ".Wait()") is code; a file
// kind (".env") is not.
func TestMemberAlone(t *testing.T) {
	wantPolarity(t, "Do not block on tasks anywhere in the backend: no .Result, no .Wait(), no GetAwaiter().GetResult().",
		map[string]bool{".Result": true, ".Wait": true})
	for _, s := range signatures("never commit the .env file, keep secrets out of .gitignore'd files too") {
		if strings.HasPrefix(s.text, ".") {
			t.Errorf("a file kind read as code: %+v", s)
		}
	}
}

// A prohibited command is run with a flag more, not with another
// argument; a namespaced command named in prose is code.
func TestWithFlagsBetween(t *testing.T) {
	for _, tc := range []struct {
		cmd, span string
		want      bool
	}{
		{"cd worker && go get -u -t ./... && go mod tidy", "go get -u ./…", true},
		{"git push --force origin main", "git push origin main", true},
		{"rm -rf ./build", "rm -rf /", false},
		{"git push --force-with-lease origin feat/x", "git push --force origin", false},
		{"terraform apply -auto-approve -var-file=prod.tfvars", "terraform apply -auto-approve", true},
	} {
		if got := withFlagsBetween(tc.cmd, tc.span); got != tc.want {
			t.Errorf("withFlagsBetween(%q, %q) = %v, want %v", tc.cmd, tc.span, got, tc.want)
		}
	}
	wantPolarity(t, "Whoa, no. Never migrate:fresh, migrate:refresh or db:wipe on the portal.",
		map[string]bool{"migrate:fresh": true, "migrate:refresh": true, "db:wipe": true})
}

// A lesson that leaves tests out, in the person's words.
func TestExemptsTests(t *testing.T) {
	for text, want := range map[string]bool{
		"customers is 3M rows, .all.each loads all of them into memory. always find_each. in specs with 3 factory rows I don't care": true,
		"unwrap in tests is fine, never in the handlers":                       true,
		"테스트 코드에서 `find.text(...)`에 리터럴 쓰는 건 괜찮습니다.":                           true,
		"never .all.each on customers, I don't care how small the table looks": false,
		"add tests for it, and never hit the network":                          false,
		// The permission in other words and languages.
		"nada de unwrap() en los handlers. en los tests si puedes usar unwrap, ahí da igual": true,
		"pas de unwrap() dans les handlers ; dans les tests peu importe":                     true,
		"nada de unwrap() nos handlers; nos testes tanto faz":                                true,
		"kein unwrap() in Handlern, in den Tests ist es egal":                                true,
		"niente unwrap() negli handler, nei test va bene":                                    true,
		"en los handlers no se permite unwrap()":                                             false,
		// The tests allowed to do it as much as they like.
		"no unwrap/expect anywhere in request paths. tests can unwrap all they want": true,
		"no console.log in src/; specs may log freely":                               true,
		"tests can be slow, never call the network":                                  false,
		"unwrap() は使わないでください。テストコード（`#[cfg(test)]` と api/tests/ 以下）は unwrap のままで大丈夫です。": true,
	} {
		if got := exemptsTests(text); got != want {
			t.Errorf("exemptsTests(%q) = %v, want %v", text, got, want)
		}
	}
}

// An instruction verb of the person's language makes the code span after
// it advised, not prohibited ("Zrób nową: `uv run alembic revision`").
func TestAdviceVerbsOfOtherLanguages(t *testing.T) {
	for _, s := range []string{"Zrób nową: ", "Użyj ", "Haz esto: ", "Fais plutôt : ", "Esegui ", "Сделай так: "} {
		if !adviceRE.MatchString(s) {
			t.Errorf("adviceRE does not match %q", s)
		}
	}
}

// Another constant of the advised enum is the choice the lesson turns
// down; the advised one, another type's constant, or a call is not.
func TestOtherConstant(t *testing.T) {
	for _, tc := range []struct{ code, advised, want string }{
		{"removalPolicy: RemovalPolicy.DESTROY,", "RemovalPolicy.RETAIN", "RemovalPolicy.DESTROY"},
		{"x.setScale(2, RoundingMode.HALF_UP)", "RoundingMode.HALF_EVEN", "RoundingMode.HALF_UP"},
		{"removalPolicy: RemovalPolicy.RETAIN,", "RemovalPolicy.RETAIN", ""},
		{"MyRemovalPolicy.DESTROY", "RemovalPolicy.RETAIN", ""},
		{"RemovalPolicy.of(x)", "RemovalPolicy.RETAIN", ""},
		{"withContext(Dispatchers.Main)", "Dispatchers.IO", ""}, // Main is no CONSTANT: a class member may be anything
	} {
		if got := otherConstant(tc.code, tc.advised); got != tc.want {
			t.Errorf("otherConstant(%q, %q) = %q, want %q", tc.code, tc.advised, got, tc.want)
		}
	}
}

// A prohibition in Norwegian, Danish, Swedish, Greek or Hungarian makes
// the span after it prohibited.
func TestNegationsOfMoreLanguages(t *testing.T) {
	wantPolarity(t, "aldri `npm install` her.", map[string]bool{"npm install": true})
	wantPolarity(t, "brug ikke `git push --force` på main.", map[string]bool{"git push --force": true})
	wantPolarity(t, "kör inte `terraform apply` lokalt.", map[string]bool{"terraform apply": true})
	wantPolarity(t, "μην τρέχεις `kubectl delete` στο prod.", map[string]bool{"kubectl delete": true})
	wantPolarity(t, "soha ne futtasd a `make reset` parancsot.", map[string]bool{"make reset": true})
}

// The extractor rewrites the opening of the person's words ("no X" ->
// "Do not use X"); the complete lesson is still their words, with the
// instead-part the kept lesson lost.
func TestCompleteLessonAfterRewrittenLead(t *testing.T) {
	said := "no allowMainThreadQueries, ever. the crews use old tablets and a query on the UI thread freezes the app. make the DAO method suspend, or return a Flow<List<SampleEntity>> and collect it in a ViewModel."
	o := &observations.Observation{ID: "cor-x", Type: observations.TypeCorrection,
		Lesson:  "Do not use allowMainThreadQueries, ever. The crews use old tablets and a query on the UI thread freezes the app.",
		Excerpt: "Agent: Edit `FieldDatabase.kt` (refused)\nUser: " + said}
	if got := completeLesson(o); !strings.Contains(got, "Flow<List<SampleEntity>>") {
		t.Errorf("the instead-part is lost: %q", got)
	}
	for _, tc := range []struct {
		said, key string
		want      bool
	}{
		{"no rm -rf on the build dir, use make clean", "do not use rm -rf on the build dir, use", true},
		{"how about a feature flag for the new checkout", "consider a feature flag for the new chec", true},
		{"the build dir is shared with the ci cache", "do not use rm -rf on the build dir", false},
		{"no x", "do not use x", false}, // too short to tell
	} {
		if got := rewrittenLead(tc.said, tc.key); got != tc.want {
			t.Errorf("rewrittenLead(%q, %q) = %v", tc.said, tc.key, got)
		}
	}
}

// FuzzFitLesson: any words and any key cut to valid UTF-8 within the
// bound, and sentences never loses a byte of text but its spaces.
func FuzzFitLesson(f *testing.F) {
	f.Add("好的。这里有三点： 1、不要截断 2、不要降级。谢谢！", "2、不要降级", 40)
	f.Add("Two things: 1. use pnpm 2. never push. Thanks!", "never push", 30)
	f.Add("x", "", 10)
	f.Fuzz(func(t *testing.T, said, key string, max int) {
		if max < 8 || max > 2000 || !utf8.ValidString(said) {
			return
		}
		got := fitLesson(said, max, spelledOut(key))
		if !utf8.ValidString(got) {
			t.Fatalf("fitLesson(%q, %d, %q) = %q: not UTF-8", said, max, key, got)
		}
		if len(said) > max && len(got) > max+len(" …")*len(sentences(said)) {
			t.Fatalf("fitLesson(%q, %d) = %q: %d bytes", said, max, got, len(got))
		}
		if strings.Join(strings.Fields(strings.Join(sentences(said), " ")), "") != strings.Join(strings.Fields(said), "") {
			t.Fatalf("sentences(%q) = %q", said, sentences(said))
		}
	})
}
