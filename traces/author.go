package traces

import (
	"github.com/kbmem/kb/internal/textutil"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Authorship at parse time.
//
// Every parser passes its records through authored before emitting them:
// a record without an Author gets DeriveAuthor's, and a user message the
// format gives to the person is checked against what no person types:
//
//   - a whole turn wrapped in one harness-style element (<task-notification>,
//     <environment_context>, <user_instructions>: a lower-case tag with "-"
//     or "_" in its name, which HTML does not use) is the harness's;
//   - a long turn structured like a prompt template (TemplateShape) is a
//     template's.
//
// What needs more than the record (the project's prompt files, the same
// turn in another session) is decided when the session is read, by
// Attribution (attribution.go).

// authored wraps emit so that every record leaves the parser with an Author.
func authored(emit func(Record) error) func(Record) error {
	return func(r Record) error {
		setAuthor(&r)
		return emit(r)
	}
}

// setAuthor fills r.Author when the parser left it empty.
func setAuthor(r *Record) {
	if r.Author != "" {
		return
	}
	r.Author = DeriveAuthor(r)
	if r.Author == AuthorPerson && r.Kind == KindMessage && !r.Has(MarkSlash) && !r.Has(MarkRejected) {
		r.Author = textAuthor(r.Text)
	}
}

// textAuthor is the author a person-role message's text alone implies,
// judged on its work form (WorkText): a huge paste costs no more than
// 256 KiB of regexp work.
func textAuthor(text string) string {
	text = WorkText(text)
	switch {
	case harnessWrapped(text):
		return AuthorHarness
	case TemplateShape(text):
		return AuthorTemplate
	}
	return AuthorPerson
}

var harnessTag = textutil.Lazy(`^<([a-z][a-z0-9]*(?:[-_][a-z0-9]+)+)(?:\s[^>]*)?>`)

// harnessWrapped reports a turn that opens with a harness-style element
// (a lower-case tag with "-" or "_" in its name) and closes it at its end.
func harnessWrapped(text string) bool {
	t := strings.TrimSpace(text)
	m := harnessTag.FindStringSubmatch(t)
	if m == nil {
		return false
	}
	return strings.HasSuffix(t, "</"+m[1]+">")
}

// Template structure. A prompt template (a slash command's or prompt
// file's body, spec-kit's commands) is written to be reused: it is long,
// divided by Markdown headings or numbered execution steps, and carries
// the marks of its reuse — placeholders for the arguments it is expanded
// with ($ARGUMENTS, {{args}}, $1), YAML front matter, a section that holds
// "the user input" or "the arguments". A person's own long message may be
// structured and written for a model too (a pasted plan, a prompt drafted
// elsewhere, with headings and MUSTs), so structure and an imperative
// voice are not enough: a mark of reuse must be there.
var (
	tplHeading     = textutil.Lazy(`(?m)^#{1,6}\s+\S`)
	tplStep        = textutil.Lazy(`(?m)^\s{0,3}\d{1,2}[.)]\s+\S`)
	tplPlaceholder = textutil.Lazy(`\$ARGUMENTS\b|\$\{?ARGS\}?|\{\{\s*[A-Za-z_][A-Za-z0-9_.]*\s*\}\}|\$[1-9]\b|\[\$?ARGUMENTS\]|<ARGUMENTS>`)
	tplEmphasis    = textutil.Lazy(`\*\*(?:MUST|MUST NOT|NEVER|ALWAYS|DO NOT|SHALL|REQUIRED|IMPORTANT|CRITICAL)\b[^*]{0,40}\*\*|\b(?:MUST NOT|MUST|NEVER|SHALL)\b|(?m)^(?:IMPORTANT|CRITICAL|NOTE)\s*:`)
	tplFront       = textutil.Lazy(`\A---\r?\n(?:[A-Za-z_-]+:.*\r?\n){1,20}---`)
	tplInputHead   = textutil.Lazy(`(?im)^#{1,6}\s+(?:the\s+)?(?:user(?:'s)?\s+(?:input|request|arguments?)|input|arguments?|parameters)\s*:?\s*$`)
	tplVoiceHead   = textutil.Lazy(`(?im)^#{1,6}\s+(?:goal|outline|execution\s+(?:steps|flow)|instructions|operating\s+constraints|behavior\s+rules|workflow|steps|process)\s*:?\s*$`)
)

// tplMinRunes is how long a turn must be to be judged a template by its
// shape: a short message is never one.
const tplMinRunes = 600

// TemplateShape reports whether text is shaped like an expanded prompt
// template: at least tplMinRunes long; structured (two or more headings,
// or three or more numbered steps); with a mark of reuse (a placeholder
// left unexpanded, YAML front matter, or a section for the user's input);
// and, unless that mark is a placeholder, the voice of a specification
// (two emphasised or capitalised imperatives, or a section heading of a
// template's kind: goal, outline, execution steps, ...).
func TemplateShape(text string) bool {
	text = WorkText(text)
	if len(text) < tplMinRunes || utf8.RuneCountInString(text) < tplMinRunes {
		return false
	}
	if len(tplHeading.FindAllStringIndex(text, 2)) < 2 && len(tplStep.FindAllStringIndex(text, 3)) < 3 {
		return false
	}
	if tplPlaceholder.MatchString(text) {
		return true
	}
	if !tplFront.MatchString(text) && !tplInputHead.MatchString(text) {
		return false
	}
	return len(tplEmphasis.FindAllStringIndex(text, 2)) >= 2 || tplVoiceHead.MatchString(text) ||
		tplFront.MatchString(text) && tplInputHead.MatchString(text)
}

// TemplateHint reports any one sign of a template's structure or voice:
// two headings, three numbered steps, a placeholder, two emphasised
// imperatives, YAML front matter. Alone it proves nothing (people write
// lists); with verbatim recurrence across sessions (Attribution) it tells
// an injected text from a person re-sending their own prose.
func TemplateHint(text string) bool {
	text = WorkText(text)
	return len(tplHeading.FindAllStringIndex(text, 2)) >= 2 ||
		len(tplStep.FindAllStringIndex(text, 3)) >= 3 ||
		tplPlaceholder.MatchString(text) ||
		len(tplEmphasis.FindAllStringIndex(text, 2)) >= 2 ||
		tplFront.MatchString(text) ||
		tplInputHead.MatchString(text) || tplVoiceHead.MatchString(text)
}

// normTurn normalizes a turn for comparison: lower case, every run of
// white space one space, trimmed.
func normTurn(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range strings.TrimSpace(s) {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// tplFence is a fenced block's opening or closing line.
var tplFence = textutil.Lazy("(?m)^\\s*(?:```|~~~)[\\w-]*\\s*$")

// tplHTMLInputHead is a user-input section headed in HTML: `<h2
// id="users-request">User's Request</h2>`.
var tplHTMLInputHead = textutil.Lazy(`(?im)^\s*<h[1-6][^>]*>\s*(?:the\s+)?(?:user(?:'s)?\s+(?:input|request|arguments?)|input|arguments?)\s*</h[1-6]>\s*$`)

// TemplateArguments returns the person's own words inside an expanded
// prompt template: what fills its user-input section ("## User Input"
// then a fenced block, as spec-kit expands $ARGUMENTS), or what the
// person typed after a placeholder the expansion left in place ("...
// $ARGUMENTS\nRename the command brall to lsbr"). The template is
// injected; these words are typed, and they are all of the turn a
// correction, preference or decision can be read from. "" when the
// template carries none: the section holds only a placeholder, or nothing
// follows it.
func TemplateArguments(text string) string {
	text = WorkText(text)
	if loc := tplInputHead.FindStringIndex(text); loc != nil {
		if args := sectionArguments(text[loc[1]:]); args != "" {
			return args
		}
	} else if loc := tplHTMLInputHead.FindStringIndex(text); loc != nil {
		if args := sectionArguments(text[loc[1]:]); args != "" {
			return args
		}
	}
	locs := tplPlaceholder.FindAllStringIndex(text, -1)
	if len(locs) == 0 {
		return ""
	}
	tail := strings.TrimSpace(text[locs[len(locs)-1][1]:])
	if tail == "" || tplHeading.MatchString(tail) || tplFence.MatchString(tail) || TemplateHint(tail) || tplEmphasis.MatchString(tail) {
		return ""
	}
	return tail
}

// sectionArguments is what fills a user-input section (rest is the text
// after its heading): the fenced block it opens with; "" when it opens
// with none, or the block is a placeholder or template text.
func sectionArguments(rest string) string {
	rest = strings.TrimLeft(rest, " \t\r\n")
	var body string
	if loc := tplFence.FindStringIndex(rest); loc != nil && loc[0] == 0 {
		inner := rest[loc[1]:]
		end := tplFence.FindStringIndex(inner)
		if end == nil {
			return ""
		}
		body = inner[:end[0]]
	} else {
		return "" // a paragraph under the heading is the template's own prose
	}
	body = strings.TrimSpace(body)
	if body == "" || tplPlaceholder.MatchString(body) || tplEmphasis.MatchString(body) {
		return ""
	}
	return body
}
