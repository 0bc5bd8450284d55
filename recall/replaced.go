package recall

import (
	"slices"
	"strings"
	"sync"

	"github.com/kbmem/kb/internal/textutil"
)

// What a project moved away from.
//
// "we moved apps/api from jest to vitest", "jest is gone", "forget what I
// said about jest", "kapt artık yok", "ya no usamos moment": the person
// names a library, tool or file the project no longer has. Code written
// later that still uses it (jest.mock(...), import moment from 'moment',
// a dependency "moment": "^2") is what the lesson turns down, whatever
// else the lesson is about, and whichever call it was said after.

// replacedSentences are the sentences that say a name was replaced or
// removed, in English and a few more languages; each expression's one
// group is the name. codeish marks those as often said of a plain thing
// ("the error is gone", "replaced the links with a button"): their name
// must be written as code.
var replacedSentences = []struct {
	expr    string
	codeish bool
}{
	// moved/migrated/switched ... from X to Y
	{`\b(?:moved|migrated|switched|ported|swapped)\b[^.;:!?\n]{0,40}?\b(?:from|off(?:\s+of)?|away\s+from)\s+` + oldName + `\s+(?:to|over\s+to|onto|for|in\s+favou?r\s+of)\b`, false},
	// replaced X with Y, swapped X for Y, dropped X for Y
	{`\b(?:replaced|swapped(?:\s+out)?|dropped|ditched|removed|ripped\s+out)\s+` + oldName + `\s+(?:with|by|for|in\s+favou?r\s+of)\b`, true},
	// X is gone / was removed / is deprecated / no longer exists
	{oldName + genericNoun + `\s+(?:is|are|was|were|has\s+been|have\s+been|got|is\s+now|are\s+now)\s+(?:gone|removed|dropped|deprecated|retired|dead|history|replaced|ripped\s+out|no\s+longer\s+(?:used|there|in\s+use))\b`, true},
	{oldName + `\s+(?:no\s+longer\s+exists?|doesn'?t\s+exist\s+any\s*more|isn'?t\s+(?:used|there)\s+any\s*more)`, true},
	// no longer use X, don't use X anymore, not on X anymore
	{`\bno\s+longer\s+(?:use|uses|using|need|on|with|have|ship)\s+` + oldName, false},
	{`\b(?:don'?t|do\s+not|doesn'?t|aren'?t|are\s+not|we'?re\s+not|not)\s+(?:use|using|on)\s+` + oldName + `\s+any\s*more\b`, false},
	// forget (what I said) about X
	{`\bforget\s+(?:what\s+i\s+(?:said|told\s+you)\s+)?about\s+` + oldName, false},
	// es, pt, it, fr, de, tr
	{`\b(?:migramos|pasamos|cambiamos|movimos|mudamos|trocamos|passamos|migrato|passati|siamo\s+passati|on\s+est\s+passés?|nous\s+sommes\s+passés?|migré|umgestellt|gewechselt|migriert)\s+(?:\S+\s+){0,3}?(?:de|da|von|dal)\s+` + oldName + `\s+(?:a|para|pra|à|auf|zu|al)\b`, false},
	{`\b(?:von|vom)\s+` + oldName + `\s+(?:auf|zu)\s+\S+\s+(?:umgestellt|gewechselt|migriert)`, false},
	{`\b(?:ya\s+no\s+(?:usamos|se\s+usa|existe|hay)|não\s+(?:usamos|existe|tem)\s+mais|non\s+(?:usiamo|c'è)\s+più|n'utilise\s+plus|n'existe\s+plus|nicht\s+mehr)\s+` + oldName, false},
	{oldName + `\s+(?:ya\s+no\s+existe|não\s+existe\s+mais|n'existe\s+plus|gibt\s+es\s+nicht\s+mehr|ist\s+(?:raus|weg)|non\s+esiste\s+più|artık\s+yok|kaldırıldı|kalktı)`, true},
}

// replacedRE is replacedSentences as one expression: group i+1 is the
// name of sentence i.
var replacedRE = textutil.LazyOf(func() string {
	alts := make([]string, len(replacedSentences))
	for i, r := range replacedSentences {
		alts[i] = r.expr
	}
	return `(?i)(?:` + strings.Join(alts, "|") + `)`
}).WithHint(mayName)

// codeish reports whether a name is written as code: a dot, an
// underscore, a dash, an @, a slash, a digit or a capital after its first
// letter.
func codeish(name string) bool {
	return strings.ContainsAny(name, "._-@/0123456789") || strings.ContainsAny(name[1:], "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
}

// oldName is the name a replacement sentence turns down: a package, a
// tool, a file or a scoped package, written as code would write it.
const oldName = "`?" + `(@?[A-Za-z][\w.+/@-]{1,40}?)\b` + "`?"

// genericNoun is a word after the name that says what kind of thing it
// is ("the ObservableObject/@Published rule is gone"): the name is the
// word before.
const genericNoun = `(?:\s+(?:rule|approach|setup|config|configuration|way|pattern|plugin|library|lib|package|dependency|module|style|api|syntax|macro|wrapper|integration|stuff|thing))?`

// mayName is replacedRE's hint: text in which one of replacedSentences
// may match, holding a literal of each of its requirements
// (textutil.RequiredLiterals: "moved" and "from" and "to"...). A word
// list (from, any, de) let almost every note through to the expression,
// which, case-insensitive with no literal to start from, was a tenth of
// a full compile's time.
func mayName(s string) bool {
	h := textutil.NewHaystack(s, strings.ToLower(s))
	return slices.ContainsFunc(replacedReqs(), h.MayMatch)
}

// replacedReqs are the requirements of each of replacedSentences, as the
// combined expression reads them (case-insensitive).
var replacedReqs = sync.OnceValue(func() [][][]string {
	out := make([][][]string, len(replacedSentences))
	for i, r := range replacedSentences {
		out[i] = textutil.RequiredLiterals(`(?i)(?:` + r.expr + `)`)
	}
	return out
})

// notNames are words a replacement sentence holds where a name would be,
// that name nothing: "moved it from there to ...".
var notNames = map[string]bool{"it": true, "that": true, "this": true, "them": true, "those": true, "these": true, "there": true,
	"here": true, "the": true, "a": true, "an": true, "our": true, "my": true, "your": true, "its": true, "all": true, "one": true,
	"what": true, "which": true, "main": true, "master": true, "prod": true, "production": true, "staging": true, "dev": true,
	"local": true, "now": true, "then": true, "before": true, "scratch": true, "zero": true, "cero": true, "null": true,
	"rule": true, "approach": true, "setup": true, "config": true, "way": true, "thing": true, "stuff": true, "script": true,
	"file": true, "step": true, "plugin": true, "library": true, "package": true, "dependency": true, "version": true,
	"option": true, "flag": true, "setting": true, "code": true, "folder": true, "table": true, "column": true, "service": true,
	"old": true, "new": true, "previous": true, "legacy": true, "current": true, "whole": true,
	"command": true, "workflow": true, "branch": true, "server": true, "database": true, "repo": true, "project": true}

// replacedNames are the names text says were replaced or removed.
func replacedNames(text string) []string {
	var out []string
	for _, m := range replacedRE.FindAllStringSubmatchIndex(text, -1) {
		for k := 2; k+1 < len(m); k += 2 {
			if m[k] < 0 {
				continue
			}
			if rest := strings.TrimLeft(text[m[k+1]:], " `"); rest != "" && rest[0] >= '0' && rest[0] <= '9' {
				// "forget what I said about iOS 16": a version of it.
				continue
			}
			if g := text[m[k]:m[k+1]]; replacedSentences[k/2-1].codeish && !codeish(g) && !(m[k] > 0 && text[m[k]-1] == '`') {
				// "the links are gone", "replaced the errors with a
				// toast": a plain word, in a sentence a bug report writes.
				continue
			}
			for _, g := range nameParts(strings.TrimRight(text[m[k]:m[k+1]], ".,/-")) {
				if len(g) >= 2 && !notNames[strings.ToLower(g)] && strings.ContainsFunc(g, func(r rune) bool { return r < 128 && isASCIILetter(byte(r)) }) {
					out = append(out, g)
				}
			}
		}
	}
	return out
}

// nameParts splits "ObservableObject/@Published" into its names: parts of
// code (a capital, an @) joined by a slash are two names; a path
// (apps/api) or a scoped package (@tanstack/query) is one.
func nameParts(name string) []string {
	parts := strings.Split(name, "/")
	if len(parts) < 2 || strings.HasPrefix(name, "@") && len(parts) == 2 {
		return []string{name}
	}
	for _, p := range parts {
		if p == "" || !(p[0] == '@' || p[0] >= 'A' && p[0] <= 'Z') {
			return []string{name}
		}
	}
	return parts
}

// replacedForms are the forms code uses a replaced name in: a selector or
// a call (jest.mock, moment()), or a string (import ... from 'moment', a
// dependency "moment": "^2", require("request")); a name no prose writes
// (a capital inside, an @, a dash) is also itself. A name with a dot is a
// file (jest.config.ts): itself.
func replacedForms(name string) []string {
	if strings.Contains(name, ".") || strings.Contains(name, "/") && !strings.HasPrefix(name, "@") {
		return []string{name}
	}
	forms := []string{name + ".", name + "()", "'" + name + "'", `"` + name + `"`}
	if name[0] == '@' || strings.ContainsAny(name[1:], "ABCDEFGHIJKLMNOPQRSTUVWXYZ_-") {
		// ObservableObject, @Published, kotlin-kapt: no word of prose.
		forms = append(forms, name)
	}
	return forms
}
