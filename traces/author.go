package traces

import (
	"regexp"
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

// textAuthor is the author a person-role message's text alone implies.
func textAuthor(text string) string {
	switch {
	case harnessWrapped(text):
		return AuthorHarness
	case TemplateShape(text):
		return AuthorTemplate
	}
	return AuthorPerson
}

var harnessTag = regexp.MustCompile(`^<([a-z][a-z0-9]*(?:[-_][a-z0-9]+)+)(?:\s[^>]*)?>`)

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
// file's body, spec-kit's commands, a copied "system prompt") is written
// for a model, not to one: it is long, divided by Markdown headings or
// numbered execution steps, and speaks in the voice of a specification —
// placeholders for the arguments it is expanded with ($ARGUMENTS, {{args}},
// $1), emphasised imperatives (**MUST**, **NEVER**, IMPORTANT:), YAML
// front matter, a section holding "the user input". A person's own long
// message may be structured too (a pasted plan, a bug report), so
// structure alone is not enough: the template voice must be there.
var (
	tplHeading     = regexp.MustCompile(`(?m)^#{1,6}\s+\S`)
	tplStep        = regexp.MustCompile(`(?m)^\s{0,3}\d{1,2}[.)]\s+\S`)
	tplPlaceholder = regexp.MustCompile(`\$ARGUMENTS\b|\$\{?ARGS\}?|\{\{\s*[A-Za-z_][A-Za-z0-9_.]*\s*\}\}|\$[1-9]\b|\[\$?ARGUMENTS\]|<ARGUMENTS>`)
	tplEmphasis    = regexp.MustCompile(`\*\*(?:MUST|MUST NOT|NEVER|ALWAYS|DO NOT|SHALL|REQUIRED|IMPORTANT|CRITICAL)\b[^*]{0,40}\*\*|\b(?:MUST NOT|MUST|NEVER|SHALL)\b|(?m)^(?:IMPORTANT|CRITICAL|NOTE)\s*:`)
	tplFront       = regexp.MustCompile(`\A---\r?\n(?:[A-Za-z_-]+:.*\r?\n){1,20}---`)
	tplInputHead   = regexp.MustCompile(`(?im)^#{1,6}\s+(?:user\s+input|input|arguments|context|goal|outline|execution\s+(?:steps|flow)|instructions|operating\s+constraints|behavior\s+rules)\s*$`)
)

// tplMinRunes is how long a turn must be to be judged a template by its
// shape: a short message is never one.
const tplMinRunes = 600

// TemplateShape reports whether text is shaped like an expanded prompt
// template: at least tplMinRunes long, structured (two or more headings,
// or three or more numbered steps), and in a template's voice (at least
// two of: a placeholder, emphasised or capitalised imperatives (twice), YAML front
// matter, a section heading of a template's kind).
func TemplateShape(text string) bool {
	if len(text) < tplMinRunes || utf8.RuneCountInString(text) < tplMinRunes {
		return false
	}
	headings := len(tplHeading.FindAllStringIndex(text, -1))
	steps := len(tplStep.FindAllStringIndex(text, -1))
	if headings < 2 && steps < 3 {
		return false
	}
	voice := 0
	if tplPlaceholder.MatchString(text) {
		voice += 2
	}
	if n := len(tplEmphasis.FindAllStringIndex(text, 8)); n >= 2 {
		voice++
		if n >= 4 {
			voice++
		}
	}
	if tplFront.MatchString(text) {
		voice++
	}
	if n := len(tplInputHead.FindAllStringIndex(text, -1)); n > 0 {
		voice++
		if n >= 2 {
			voice++
		}
	}
	return voice >= 2
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
