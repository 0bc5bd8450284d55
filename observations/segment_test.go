package observations

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kbmem/kb/internal/lexicon"
)

func TestWordCountUnicode(t *testing.T) {
	for s, want := range map[string]int{
		"don't use npm":            3,
		"nicht die Datei ändern":   4,  // de
		"no uses la versión vieja": 5,  // es
		"n'utilise pas ça":         3,  // fr
		"не меняй этот файл":       4,  // ru
		"不要改这个文件":                  7,  // zh: every Han character counts
		"このファイルを変えないで":             12, // ja: kana and kanji count
		"이 파일은 건드리지 마":             4,  // ko: Hangul words are space-separated
		"修改main.go文件":              6,  // zh with a Latin name: 修 改 main go 文 件
		"":                         0,
	} {
		if got := wordCount(s); got != want {
			t.Errorf("wordCount(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestSentencesFullWidth(t *testing.T) {
	got := sentences("不要改配置。用环境变量！可以吗？好")
	want := []string{"不要改配置。", "用环境变量！", "可以吗？", "好"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("zh: %q", got)
	}
	got = sentences("設定は変えないで。環境変数を使って。")
	if len(got) != 2 {
		t.Errorf("ja: %q", got)
	}
	if got := sentences("Nein. Nimm go.mod!"); len(got) != 2 {
		t.Errorf("de: %q", got)
	}
}

func TestWordsSplitCJK(t *testing.T) {
	if got := strings.Join(words("修改main.go文件"), " "); got != "修 改 main go 文 件" {
		t.Errorf("words: %q", got)
	}
	if got := strings.Join(words("Ändere die Datei"), " "); got != "ändere die datei" {
		t.Errorf("words: %q", got)
	}
}

func TestCuesMultilingual(t *testing.T) {
	for _, s := range []string{"no, not that", "nein, nicht so", "no, así no", "non, pas ça", "нет, не так", "不要这样", "それじゃなくて", "아니, 하지 마"} {
		if !lexicon.CueNegation.In(lower(s)) {
			t.Errorf("negation not found in %q", s)
		}
	}
	for _, s := range []string{"use pnpm instead", "nimm stattdessen pnpm", "usa pnpm en vez de npm", "utilise plutôt pnpm", "используй pnpm вместо npm", "改成 pnpm", "代わりに pnpm を使って", "대신 pnpm 써"} {
		if !lexicon.CueInstead.In(lower(s)) {
			t.Errorf("instead not found in %q", s)
		}
	}
	// Whole words in spaced scripts: "no" is not in "note", "не" not in "нее".
	for _, s := range []string{"note this", "a nonce", "нее"} {
		if lexicon.CueNegation.In(lower(s)) {
			t.Errorf("negation matched inside a word: %q", s)
		}
	}
}

func TestSplitPasted(t *testing.T) {
	for name, c := range map[string]struct{ in, words, pastedHas string }{
		"python trace": {"it fails:\nTraceback (most recent call last):\n  File \"a.py\", line 1\nKeyError: 'x'", "it fails:", "KeyError"},
		"inline es":    {"mira el error que sale: Error: listen EADDRINUSE :::8080", "mira el error que sale:", "EADDRINUSE"},
		"ja":           {"エラーが出ます：\nTypeError: x is undefined\n    at main (app.js:3:5)", "エラーが出ます：", "app.js:3"},
		"go compiler":  {"build broke\n./main.go:12:3: undefined: foo", "build broke", "main.go:12"},
		"shell":        {"I ran\n$ npm run build\nnpm ERR! missing script: build", "I ran", "npm ERR!"},
		"prose stays":  {"Please keep the config in .env.local and never commit it.", "Please keep the config in .env.local and never commit it.", ""},
		// An exception type the person names is no output (a traceback's
		// last line has its colon).
		"error type named": {"no unwrap() in the library. add a CoreError variant and return it with ?.", "no unwrap() in the library. add a CoreError variant and return it with ?.", ""},
		"error type ja":    {"unwrap() は使わないでください。thiserror の CoreError にバリアントを追加してください。", "unwrap() は使わないでください。thiserror の CoreError にバリアントを追加してください。", ""},
		"error type last":  {"the import fails now:\nModuleNotFoundError: No module named 'x'", "the import fails now:", "ModuleNotFoundError"},
		// A code frame (line numbers in a gutter), a dotted exception
		// name, a bare shell prompt, the source lines of a traceback, and
		// an error's own prose between its log lines are output.
		"code frame":         {"the page is blank\n[plugin:vite:import-analysis] Failed to resolve import \"react-day-picker\"\n10 | import { DayPicker } from \"react-day-picker\";\n   |                          ^\n11 | import { cn } from \"@/lib/utils\";", "the page is blank", "10 | import"},
		"dotted exception":   {"upgrade fails\nres = self._obj.execute(query, params)\npsycopg2.errors.UndefinedColumn: column crm_lead.submission_done does not exist", "upgrade fails", "psycopg2.errors.UndefinedColumn"},
		"bare prompt":        {"still broken\n⚡ ~ scripts/model_server.sh serve-fp8\nvllm: error: unrecognized arguments: --enable-reasoning", "still broken", "serve-fp8"},
		"codespaces prompt":  {"it hangs\n@ArkMaster123 ➜ /workspaces/clientdemoNISTAI (loopli) $ npm run dev", "it hangs", "npm run dev"},
		"error code line":    {"the save fails\nRPC_ERROR\nlead on 2026-05-05 04:29:52 GMT\nTraceback (most recent call last):\n  File \"/usr/lib/odoo/http.py\", line 2166, in _transactioning\nValueError: bad view\nCaused by:\n  File \"/usr/lib/odoo/model.py\", line 157", "the save fails", "RPC_ERROR"},
		"all output":         {"RPC_ERROR\n\nOdoo Server Error\nTraceback (most recent call last):\n  File \"/usr/lib/odoo/convert.py\", line 601, in _tag_root\nodoo.tools.convert.ParseError: while parsing views.xml:3\nField \"x\" does not exist in model \"crm.lead\"\nView error context:\n{'file': 'views.xml',\n 'line': 9,\n 'name': 'crm.lead.kanban',\n 'view.model': 'crm.lead'}\nThe above server error caused the following client error:\nRPC_ERROR: Odoo Server Error\n    at makeErrorFromResponse (https://odoo.local/web.js:3174:165)", "", "does not exist"},
		"agent ui":           {"Why did this step get stuck. ● Read(/home/z/.claude/agents/tdd-test-writer.md)\n  ⎿  Read 120 lines", "Why did this step get stuck.", "● Read("},
		"traceback source":   {"Odoo Server Error\nTraceback (most recent call last):\n  File \"/usr/lib/odoo/http.py\", line 2166, in _transactioning\n    return service_model.retrying(func, env=self.env)\n  File \"/usr/lib/odoo/model.py\", line 157, in retrying\n    result = func()\nValueError: bad view", "Odoo Server Error", "service_model.retrying"},
		"error prose inside": {"login is broken again\n[Nest] 94042 - 04/23/2026, 10:18:58 AM ERROR [ExceptionHandler] UndefinedModuleException [Error]: Nest cannot create the FileModule instance.\nThe module at index [0] of the FileModule \"imports\" array is undefined.\nPotential causes:\n- A circular dependency between modules. Use forwardRef() to avoid it.\n    at DependenciesScanner.scanForModules (/app/node_modules/@nestjs/core/scanner.js:88:19)", "login is broken again", "array is undefined"},
		// An editor's or compiler's diagnostics: a location header ending
		// in a path and a colon, "line N:", a diagnostic code ("E1043: ",
		// "CS0246: "); the person's words after them are theirs.
		"diagnostics": {"Error detected while processing /root/.vim/plugged/coc.nvim/plugin/coc.vim[737]..function <SNR>47_Enable[10]..script /root/.vim/plugged/coc.nvim/autoload/coc/api.vim:\nline  644:\nE1043: Invalid command after :export\n\nMy vim suddenly broke...\nis it because I did a apt upgrade?", "My vim suddenly broke...\nis it because I did a apt upgrade?", "E1043"},
		// A program's warning sentences go on from its output with no
		// blank line; the person's words follow after one.
		"warning prose": {"Error detected while processing /root/.vim/plugged/vim-colortemplate/plugin/colortemplate.vim:\nline   11:\nE1070: Missing \"from\"\nvim-go requires at least Vim 8.2.5072 or Neovim 0.4.0, but you're using an older version.\nPlease update your Vim for the best vim-go experience.\n\nMy vim suddenly broke...\nis it because I did a apt upgrade?", "My vim suddenly broke...\nis it because I did a apt upgrade?", "Please update your Vim"},
		"diag code":     {"the build fails\nCS0246: The type or namespace name 'Foo' could not be found", "the build fails", "CS0246"},
		// A diff or an apply_patch envelope is a file's lines, whatever
		// its "+" lines say; prose after it is the person's again.
		"apply_patch": {"*** Begin Patch\n\n*** Add File: docs/WORKFLOW.md\n\n+# Workflow\n\n+- Use `docker compose` (never `docker-compose`).\n*** End Patch\nwhat do you think of this runbook?", "what do you think of this runbook?", "never `docker-compose`"},
		"git diff":    {"apply this:\ndiff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -1,2 +1,2 @@\n-always use fmt\n+always use log\n context line", "apply this:", "always use log"},
		// Code the person quotes in backticks is theirs, whatever it names.
		"quoted code": {"Option は `.ok_or(ApiError::BadRequest(\"...\".into()))` で変換してください。テストは unwrap のままで大丈夫です。", "Option は `.ok_or(ApiError::BadRequest(\"...\".into()))` で変換してください。テストは unwrap のままで大丈夫です。", ""},
	} {
		w, p := splitPasted(c.in)
		if w != c.words || c.pastedHas != "" && !strings.Contains(p, c.pastedHas) || c.pastedHas == "" && p != "" {
			t.Errorf("%s: words %q pasted %q", name, w, p)
		}
	}
}

func TestCleanMarkup(t *testing.T) {
	for in, want := range map[string]string{
		"Tests:** All 40 tests pass":     "Tests: All 40 tests pass",
		"## Use pnpm":                    "Use pnpm",
		"- **Never** push to main":       "Never push to main",
		"Run `go test ./...":             "Run go test ./...",
		"Nutze `pnpm` statt **npm**.":    "Nutze `pnpm` statt npm.",
		"**不要**直接改 `main`":               "不要直接改 `main`",
		"no `__all__` - list the fields": "no `__all__` - list the fields",
		"no __all__ in serializers":      "no __all__ in serializers",
		"keep `**kwargs` and **bold**":   "keep `**kwargs` and bold",
	} {
		if got := cleanMarkup(in); got != want {
			t.Errorf("cleanMarkup(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLessonResolvesReferent: "revert that" names what it points at.
func TestLessonResolvesReferent(t *testing.T) {
	s := (&ccFixture{}).user("tidy the config").
		call("toolu_1", "Edit", editInput).refuse("toolu_1", "").
		user("no, revert that and keep the port as it was").say("OK.").session(t)
	cs := ofType(Extract(s, nil, nil), TypeCorrection)
	if len(cs) != 1 || !strings.Contains(cs[0].Lesson, "config.ts") {
		t.Fatalf("referent not resolved: %+v", cs)
	}
}

func FuzzSplitPasted(f *testing.F) {
	for _, s := range []string{"it fails:\nTraceback (most recent call last):", "エラー：TypeError: x", "plain words.", "", "::\n$ x\n", "*** Begin Patch\n+x\n-y\n\tz\nthen words", "diff --git a/x b/x\n@@ -1 +1 @@\n+\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, p := splitPasted(s)
		if utf8.ValidString(s) && (!utf8.ValidString(w) || !utf8.ValidString(p)) {
			t.Fatalf("invalid UTF-8 out of valid input: %q -> %q / %q", s, w, p)
		}
		if len(w)+len(p) > len(s)+1 {
			t.Fatalf("output longer than input: %q", s)
		}
		_ = wordCount(s)
		_ = cleanMarkup(s)
		_ = sentences(s)
	})
}
