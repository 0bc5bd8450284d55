package observations

import (
	"github.com/kbmem/kb/internal/textutil"
	"strings"
	"unicode"

	"github.com/kbmem/kb/internal/lexicon"
	"unicode/utf8"
)

// Pasted material in a person's message: a log, a compiler error, a stack
// trace, a shell session. It is evidence that something failed and context
// for the observation, never the lesson: splitPasted keeps it apart from
// the person's own words.

// logStartRE finds where pasted output begins inside a line: a shell
// prompt, a log level, an exception, a file:line position, an HTTP status.
const logStartPat = `(Traceback \(most recent call last\)|\b[A-Z][A-Za-z]*(Error|Exception|Warning)\b(:|\s*$)|\b(INFO|WARN|WARNING|ERROR|DEBUG|FATAL|CRITICAL)\b[:\s]|\bpanic: |\bgoroutine \d+|npm (ERR|error)!?|\[plugin:|\bE\s{2,}\S|(^|\s)\$ \S|^PS [A-Za-z]:\\|^\([\w.-]+\) |\b[\w./\\-]+\.(py|go|js|jsx|ts|tsx|rs|java|rb|c|cc|cpp|h|php|cs|kt|swift|vue|mjs|cjs):\d+|HTTP/\d(\.\d)?"?\s+\d{3}\b|^\s*at [\w.$<>]+ ?\(|^\s*File "|\bFile "[^"]+", line \d+|\b\d{2}:\d{2}:\d{2}(\.\d+)?\b|^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|^\s*[│├└┌╭╰|>]\s|^\s*\^+\s*$|\busage: \S|^[_=~-]{3,}|^\s*(//|/\*|\*/|#include\b|@@ )|^\s*(import|export|const|let|var|function|def|class|return|package|func|public|private|static|async|await|from)\b[^.!?]*[{}();=:,\]]\s*$|^\s*[{}\[\]()<>;,]+\s*$|^\s*<\/?[a-zA-Z][\w-]*[\s>/]|^\[[\w:./ -]{1,30}\]\s|^(Error|ERROR|error|Fatal|FATAL|fatal|Warning|WARN|warning)(\[\w+\])?: |\b(Error|ERROR|FATAL)(\[\w+\])?: |^\s*at \S+.*\(.*:\d+|^\s*[{\[(][^ ]*[}\])]\s*(\.\.\.)?\s*$|^[\w./-]+: (.*\b(error|fatal|not found|denied|No such file)\b)|^(?:Failed to compile|Compiled (?:successfully|with warnings)|Unhandled Runtime Error|Module not found|Type error: |(?:Info|Warn|Error)\s+-\s|Linting and checking validity|Creating an optimized production build|webpack compiled|Build (?:failed|error)\b)|^[✓⨯×○▲✘]\s|\S+\(\d+,\d+\): error TS\d+:|error TS\d+:|\b[a-z_]\w*(?:\.[a-z_]\w*)+\.[A-Z]\w+: |^Caused by\b|^\s*[●⏺⎿✻✶✳✽]\s|[●⏺]\s[A-Z]\w+\(|^[A-Z][A-Z0-9]*_[A-Z0-9_]+(?:\s|$)|^[A-Z]{1,4}\d{2,5}: \S|^line\s+\d+:\s*$|^(?:.*\s)?/[\w.-]+(?:/[\w.-]+){2,}\.[A-Za-z]\w*\S*:\s*$|^\s*[\w.]+\s*[-+*/|&]?=\s*[\w.]+\((?:[^()]*\)\s*)?$)`

var logStartRE = textutil.Lazy(logStartPat)

// logStartAtRE is logStartRE at the start of a line only: the whole-line
// test asks no more, and an anchored pattern fails at once where the
// unanchored one tries every position of a long line.
var logStartAtRE = textutil.Lazy(`^(?:` + logStartPat + `)`)

// cmdLineRE is a command line typed at a shell: a program and a few
// arguments, one of them a flag, a path or a dotted name.
var cmdLineRE = textutil.Lazy(`^(\$ )?(python3?|node|npm|npx|pnpm|yarn|go|cargo|pip3?|uv|uvx|make|docker|kubectl|bash|sh|zsh|deno|bun|java|mvn|gradle|dotnet|php|ruby|rails|pytest|git|curl)(\s+\S+){1,6}\s*$`)
var cmdArgRE = textutil.Lazy(`\s-{1,2}\w|\S[./\\]\S`)

// promptRE is a shell prompt with its user and host or its virtual
// environment: what follows it is a terminal session.
var promptRE = textutil.Lazy(`^\s*(\([\w.-]+\)\s+(\([\w.-]+\)\s+)?(\S+@[\w.-]+:|⚡|[^\s$]*\$ )|[\w.-]+@[\w.-]+:[~/][^\s$]*\$ |[⚡➜❯]\s+[~/.]\S*\s|➜\s+\S+\s+git:\(|@?[\w.-]+ ➜ \S.*\$ )`)

// isPrompt reports whether line t starts with a shell prompt: with a user
// and host, a virtual environment, or the mark of a themed shell before a
// path (zsh's "⚡ ~/app", "➜  app git:(main)", starship's "❯ ~/app", a
// codespace's "@user ➜ /workspaces/x $"); a mark before words ("⚡ Power
// & System Control") is a heading.
func isPrompt(t string) bool {
	return strings.ContainsAny(t, "$⚡➜❯") && promptRE.MatchString(t)
}

// promptInRE finds a shell prompt anywhere in a line.
var promptInRE = textutil.Lazy(`\([\w.-]+\)\s+(\([\w.-]+\)\s+)?(\S+@[\w.-]+:|⚡|[^\s$]*\$ )|\b[\w.-]+@[\w.-]+:[~/][^\s$]*\$ `)

// bareStampRE is a line that is only a time or position stamp: build
// logs copied from a web console put the stamp on a line of its own and
// the message on the next.
var bareStampRE = textutil.Lazy(`^(\d{4}-\d{2}-\d{2}[T ])?\d{1,2}:\d{2}:\d{2}([.,]\d+)?(Z|[+-]\d{2}:?\d{2})?$`)

// patchHeadRE is a line that opens or frames a diff: "diff --git",
// "--- a/x", "@@ -1,3 +1,4 @@", or apply_patch's "*** Begin Patch" and
// "*** Update File: x".
var patchHeadRE = textutil.Lazy(`^(?:\*\*\* (?:Begin Patch|End Patch|End of File|(?:Add|Update|Delete) File: |Move to: )|diff --git |index [0-9a-f]{7,}\.\.[0-9a-f]{7,}|(?:---|\+\+\+) (?:a/|b/|/dev/null)|@@ )`)

// isLogLine reports whether a whole line reads as program output.
func isLogLine(t string) bool {
	t = strings.TrimSpace(t)
	if t == "" {
		return false
	}
	if logStartAtRE.MatchString(t) {
		return true
	}
	if isPrompt(t) {
		return true
	}
	return cmdLineRE.MatchString(t) && cmdArgRE.MatchString(t) && !isSentenceEnd(rune(t[len(t)-1]))
}

// maxPastedScan bounds how much of a message splitPasted reads.
const maxPastedScan = 4 * maxProse

// splitPasted separates the person's words from pasted output. A line
// that starts as output, and the tail of a line after "...:" where output
// begins, go to the pasted part; so does everything after the first
// output line except later lines that read as prose again.
func splitPasted(s string) (words, pasted string) {
	var seq []pastedSeg // the lines in order, each the person's or pasted
	cut := false
	inLog, stamped, shell, patch := false, false, false, false
	if len(s) > maxPastedScan {
		// The person's words come first; past the scanned part everything
		// is material they pasted, and reading it line by line would cost
		// more than the whole extraction of a session.
		at := maxPastedScan
		for at > 0 && !utf8.RuneStart(s[at]) {
			at--
		}
		defer func() { pasted = strings.TrimSpace(pasted + "\n" + s[at:]) }()
		s, cut = s[:at], true
	}
	lines := strings.Split(s, "\n")
	repeated := repeatedLines(lines)
	para := 0
	add := func(t string, pasted bool) { seq = append(seq, pastedSeg{t, pasted, para}) }
	for i, line := range lines {
		t := strings.TrimSpace(line)
		if t == "" {
			para++
			continue
		}
		if repeated[i] {
			// A line a program printed again with another name in it
			// ("'x' is not recognized as an internal or external
			// command", "'x' 不是内部或外部命令"): output, in any
			// language.
			add(t, true)
			inLog = true
			stamped = bareStampRE.MatchString(t)
			continue
		}
		if stamped {
			// The message of a stamp on the line before.
			add(t, true)
			stamped = bareStampRE.MatchString(t)
			continue
		}
		if shell {
			// Past a shell prompt the rest is that terminal's output.
			add(t, true)
			continue
		}
		if patchHeadRE.MatchString(t) || patch && strings.ContainsRune("+- @\\\t", rune(line[0])) {
			// A diff or an apply_patch envelope: its lines, whatever they
			// say ("+- Use `docker compose` (never ...)"), are a file's.
			add(t, true)
			patch = true
			continue
		}
		patch = false
		if isLogLine(t) {
			add(t, true)
			inLog = true
			stamped = bareStampRE.MatchString(t)
			shell = isPrompt(t)
			continue
		}
		var loc []int
		if strings.ContainsAny(t, ":：?!.。？！") {
			// Output inside a line counts only after such a mark (below),
			// and never inside code the person quotes in backticks
			// ("use `.ok_or(ApiError::BadRequest(...))`").
			loc = logStartRE.FindStringIndex(maskQuoted(t))
		}
		if strings.Contains(t, "$ ") || strings.Contains(t, "⚡") {
			// A shell prompt inside the line (checked only where one can
			// be: the pattern is costly on every line).
			if pl := promptInRE.FindStringIndex(t); pl != nil && (loc == nil || pl[0] < loc[0]) {
				loc = pl
			}
		}
		if loc != nil && loc[0] > 0 {
			// "look at the error: Traceback ...": the words before the
			// colon are the person's, the rest is output.
			c := strings.LastIndexAny(maskQuoted(t[:loc[0]]), ":：?!.。？！")
			if c >= 0 && c < loc[0]-40 {
				// "look at the error: vLLM exited. Full stderr: /x.py:110":
				// a colon after words that announce an error starts the paste.
				c = -1
				if i := strings.IndexAny(t[:loc[0]], ":："); i >= 0 && wordCount(t[:i]) <= 8 && lexicon.CueErrorWord.In(lower(t[:i])) {
					c = i
				}
			}
			if c >= 0 {
				_, size := utf8.DecodeRuneInString(t[c:])
				end := c + size
				if head := strings.TrimSpace(t[:end]); wordCount(head) > 0 {
					add(head, false)
				}
				add(strings.TrimSpace(t[end:]), true)
				inLog = true
				shell = isPrompt(t[end:])
				continue
			}
		}
		if inLog && !readsAsProse(t) {
			add(t, true)
			continue
		}
		inLog = false
		add(t, false)
	}
	enclosed(seq, cut)
	outputParagraph(seq)
	var w, p []string
	for _, l := range seq {
		if l.pasted {
			p = append(p, l.text)
		} else {
			w = append(w, l.text)
		}
	}
	return strings.Join(w, "\n"), strings.Join(p, "\n")
}

// pastedSeg is one line of a message, or one part of a line, and whether
// it is pasted output.
type pastedSeg struct {
	text   string
	pasted bool
	para   int // the paragraph (blank-line separated) the line is in
}

// maxEnclosed bounds the run of prose lines enclosed taken for output.
const maxEnclosed = 4

// enclosed marks as pasted a short run of prose lines between two pasted
// lines, the first of them an error: an error's own sentences ("The
// module at index [0] ... is undefined.", "Potential causes:", "- A
// circular dependency ...") sit between its log line and its stack; a
// person writes before or after what they paste, not inside it. Prose
// inside pasted data (a JSON example's strings) stays the person's to
// judge. In a message that opens with output, every run between two
// output lines is output too, however long. closed: what follows seq is
// output (the part past the scan), which closes its last run.
func enclosed(seq []pastedSeg, closed bool) {
	for i := 0; i < len(seq); {
		if seq[i].pasted {
			i++
			continue
		}
		j := i
		for j < len(seq) && !seq[j].pasted {
			j++
		}
		// A message that opens with output and goes on with it is all
		// output: the person did not begin to write.
		if i > 0 && (j < len(seq) || closed) && (seq[0].pasted || j-i <= maxEnclosed && errorOutputRE.MatchString(seq[i-1].text)) {
			for k := i; k < j; k++ {
				seq[k].pasted = true
			}
		}
		i = j
	}
}

// outputParagraph marks as pasted the prose lines that go on, with no
// blank line, from the output a message opens with, when the person wrote
// a paragraph of their own after it: a program's warning sentences ("Please
// update your Vim for the best vim-go experience.") are part of what it
// printed; the person's words come after the blank line ("My vim
// suddenly broke...").
func outputParagraph(seq []pastedSeg) {
	if len(seq) == 0 || !seq[0].pasted {
		return
	}
	last := seq[len(seq)-1]
	if last.pasted || last.para == seq[0].para {
		return
	}
	for i := 1; i < len(seq); i++ {
		if seq[i].pasted || !seq[i-1].pasted || seq[i].para != seq[i-1].para || seq[i].para == last.para {
			continue
		}
		for k := i; k < len(seq) && !seq[k].pasted && seq[k].para == seq[i-1].para; k++ {
			seq[k].pasted = true
		}
	}
}

// repeatedLines marks the lines of a message that a program printed: a
// line that recurs in the message, whole or but for one word (the name
// that changes from one line of output to the next: "'x' is not
// recognized as an internal or external command", "Der Befehl \"x\" ist
// ..."). People rarely type one sentence twice in a message; programs
// print the same line for every item they report. Lines under 4
// characters ("ok"), markup rows, and lines past the first 200 do not
// count; a line equal but for one word needs 10 characters besides it, at
// most 40 words, a word with letters (not a list's marker) and not to read
// as an instruction.
func repeatedLines(lines []string) map[int]bool {
	if len(lines) < 2 {
		return nil
	}
	const maxLines, maxWords, minWhole, minRunes = 200, 40, 4, 10
	keys := map[string][]int{} // a line, or a line with one word blanked -> the lines
	for i, l := range lines {
		if i >= maxLines {
			break
		}
		t := strings.TrimSpace(l)
		if utf8.RuneCountInString(t) < minWhole || strings.Trim(t, "|-=*#:_ ") == "" {
			continue
		}
		keys[t] = append(keys[t], i)
		ws := strings.Fields(t)
		if len(ws) < 2 || len(ws) > maxWords || isDirective(t) {
			// A person's parallel requests ("add tests for a.go", "add
			// tests for b.go") differ by one word too.
			continue
		}
		for j := range ws {
			w := ws[j]
			if utf8.RuneCountInString(t)-utf8.RuneCountInString(w) < minRunes || !strings.ContainsFunc(w, unicode.IsLetter) {
				// A name has letters; a list marker or number ("-", "#",
				// "2.") changing from line to line is the person's list.
				continue
			}
			ws[j] = "\x00"
			k := strings.Join(ws, " ")
			ws[j] = w
			if n := keys[k]; len(n) == 0 || n[len(n)-1] != i {
				keys[k] = append(n, i)
			}
		}
	}
	var out map[int]bool
	for _, is := range keys {
		if len(is) < 2 {
			continue
		}
		if out == nil {
			out = map[int]bool{}
		}
		for _, i := range is {
			out[i] = true
		}
	}
	return out
}

// readsAsProse reports whether a line after pasted output is the person
// speaking again: mostly words, ending like a sentence or short.
func readsAsProse(t string) bool {
	n := wordCount(t)
	if n < 3 || codeLineRE.MatchString(t) {
		return false
	}
	letters, other := 0, 0
	for _, r := range t {
		switch {
		case r == ' ':
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f:
			letters++
		default:
			other++
		}
	}
	return letters > 4*other
}

// codeLineRE is a line of source a traceback or a code frame prints: a
// statement that returns or raises, a method call, an assignment of a
// call, a call alone, a line cut after "(" or "," ("return
// service_model.retrying(func, env=self.env)", "result = func()",
// "convert_xml_import(env, module, fp)").
var codeLineRE = textutil.Lazy(`^\s*(?:return|raise|await|yield|throw)\b|\w\.\w+\(|^\s*[\w.\[\]'"]+\s*[-+*/|&]?=\s*[\w.]+\(|[(,]\s*$|^\s*[\w.]+\([^()]*\)\s*$`)

// maskQuoted blanks what a line quotes in backticks, byte for byte, so
// that offsets stay those of the line.
func maskQuoted(t string) string {
	if !strings.Contains(t, "`") {
		return t
	}
	b := []byte(t)
	in := false
	for i, c := range b {
		switch {
		case c == '`':
			in = !in
		case in:
			b[i] = ' '
		}
	}
	return string(b)
}
