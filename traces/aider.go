package traces

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/kbmem/kb/internal/textutil"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Aider parses an aider chat history (.aider.chat.history.md), the Markdown
// file aider appends to. One file holds many sessions; each starts with
// "# aider chat started at YYYY-MM-DD HH:MM:SS" (local time, no zone).
//
// Within a session the text is cut into blocks:
//
//   - user: consecutive lines "#### text" that end with aider's two-space
//     hard break; "#### <blank>" is an empty input. A line starting "/" or
//     "!" is marked as a slash command; prompts aider writes itself ("# Fix
//     any errors below", "# Question:") are marked injected;
//   - tool: consecutive "> " lines (aider's tool output, warnings, confirm
//     prompts, lint and test output), one tool_result record (tool "aider")
//     per run. An older aider prefixed only the first line of a multi-line
//     message: a "> " line without the hard break continues up to the line
//     that ends with it. A confirm prompt answered "n" is marked rejected;
//   - assistant: everything else, up to the next user, tool or header line,
//     with its blank lines, trailing blank lines trimmed.
//
// A "#### " line without the hard break is assistant Markdown (a heading),
// not user input. The history has no message timestamps: every record
// carries its session's start time. The "Model:"/"Models:" tool line sets
// Model on the assistant records after it. When the file is the default
// .aider.chat.history.md, its directory (the repository root) is the Cwd.
//
// The session id is "aider-<start as 20060102T150405>-<8 hex of the file
// path>" — deterministic for a file, distinct across repositories that
// started aider in the same second. A second header with the same time in
// one file adds "-L<line>". Text before the first header (a history cut at
// the front) goes to session "aider-unknown-<8 hex>".
//
// Parse is resumable at block boundaries: every block is complete once its
// last line is read, and the position after the last complete line is
// returned with the session, start time and model in Pos.State. If the file
// later grows by more lines of the same block (aider still printing), they
// become a new record starting at their own line.
type Aider struct{}

// NewAider returns the parser for aider chat histories.
func NewAider() *Aider { return &Aider{} }

// Format returns AgentAider.
func (*Aider) Format() string { return AgentAider }

// Resumable reports true.
func (*Aider) Resumable() bool { return true }

var (
	aiderHeader = textutil.Lazy(`^# aider chat started at (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})\s*$`)
	aiderModel  = textutil.Lazy(`^(?:Main model|Models?): (\S+)`)
	// aiderRejected: a confirm prompt answered no. Aider before 0.50
	// logged the question and the answer alone ("Allow creation of new
	// file src/x.ts? n", "Run pip install? n"); later versions list the
	// options ("(Y)es/(N)o [Yes]: n", "(y/n/instructions) n").
	aiderRejected = textutil.Lazy(`(?i)(` + aiderOptions + `|\?)\s*(n|no)\s*$`)
	// aiderOwnOffer is a confirm prompt about aider's own chores, not
	// about something the model proposed to do: declining to open the
	// docs, to add .aider* to .gitignore, to see the release notes, to add
	// a URL, a file or a command's output to the chat, or to have the
	// linter's errors fixed refuses nothing the agent did.
	aiderOwnOffer = textutil.Lazy(`(?i)^\s*>?\s*(open documentation|no files matched|add \.aider|would you like to see what|add url|add https?:|add (the |command )?output|add file|add files|add .* to the chat|attempt to fix|fix test errors|fix lint|create a git repo|update git name|allow git to|commit before)`)
)

// The parts of aider's confirm prompts: the options it lists before the
// answer ("(Y)es/(N)o/(D)on't ask again [Yes]:", "(y/n/instructions)"),
// and the question of its offer to add a command's output to the chat.
const (
	aiderOptions  = `\(y\)es/\(n\)o[^\]\n]*\]:?|\(y/n[^)\n]*\):?`
	aiderOutputQ  = `add (?:the |command |[\d.]+k tokens of command )?output to the chat\?`
	aiderYesAfter = `\s*y(?:es)?\s*$`
)

// aiderInjected are user-block openings aider writes itself.
var aiderInjected = []string{"# Fix any errors below", "# Question:"}

const (
	aiderNone = iota
	aiderUser
	aiderTool
	aiderAssistant
)

type aiderState struct {
	file    string
	hash    string
	session string
	start   time.Time
	stamp   string
	model   string
	cwd     string

	kind  int
	first int      // line of the block's first line
	lines []string // the block's lines, raw
	raw   []bool   // lines[i] continues an old-style tool message: no prefix
	cont  bool     // an old-style multi-line tool message is open

	// The architect's hand-off: aider's architect mode logs the architect
	// model's answer, then passes it to the editor model as that model's
	// input, which aider logs with the "#### " marker of the person's
	// messages (Coder.run(with_message=...) -> io.user_input). assist is
	// the hash of the normalized assistant text since the last user block;
	// editAsked records an "Edit the files?" prompt accepted since then.
	assist    string
	assistBuf []string
	editAsked bool

	// afterUser: the last block flushed was the person's message, so a
	// Ctrl-C aider reports next stopped the model's reply to it.
	afterUser bool

	// bare: this session logs the person's input without the two-space
	// hard break (seen in aider 0.50 on Windows: "#### /add x.md" and the
	// "> " lines end at the text). The hard break then tells nothing: a
	// "#### " line outside an assistant reply is input, and no "> " line
	// continues past its own line.
	bare bool
	// broke: this session has logged input with the hard break, so a
	// "#### " line without one is the model's Markdown.
	broke bool
}

// Parse implements Parser.
func (a *Aider) Parse(r io.Reader, file string, start Pos, emit func(Record) error) (Pos, []Problem, error) {
	sum := sha256.Sum256([]byte(file))
	st := &aiderState{file: file, hash: hex.EncodeToString(sum[:4])}
	st.session = start.State["session"]
	st.assist = start.State["assist"]
	st.editAsked = start.State["edit"] == "1"
	st.afterUser = start.State["after"] == "user"
	st.bare = start.State["bare"] == "1"
	st.broke = start.State["broke"] == "1"
	st.stamp = start.State["stamp"]
	st.model = start.State["model"]
	if t, err := time.Parse(time.RFC3339Nano, start.State["start"]); err == nil {
		st.start = t
	}
	if st.session == "" {
		st.session = "aider-unknown-" + st.hash
	}
	if filepath.Base(file) == ".aider.chat.history.md" {
		st.cwd = filepath.Dir(file)
	}
	ls := newLineScan(r, start)
	var emitErr error
	flush := func() {
		if emitErr == nil {
			emitErr = st.flush(emit)
		}
		st.kind, st.lines, st.raw, st.cont = aiderNone, st.lines[:0], st.raw[:0], false
	}
	for emitErr == nil {
		b, num, ok, err := ls.next()
		if err != nil {
			return ls.pos(st.state()), nil, fmt.Errorf("%s: %w", file, err)
		}
		if !ok {
			break
		}
		line := string(b)
		if st.kind == aiderTool && st.cont {
			if !aiderHeader.MatchString(line) && !aiderIsUser(line) && !st.bareUser(line) {
				st.lines = append(st.lines, line)
				st.raw = append(st.raw, true)
				if aiderHardBreak(line) {
					st.cont = false
				}
				continue
			}
		}
		switch {
		case aiderHeader.MatchString(line):
			flush()
			st.newSession(aiderHeader.FindStringSubmatch(line)[1], num)
		case aiderIsUser(line) || st.bareUser(line):
			if aiderIsUser(line) {
				st.broke = st.broke || strings.TrimSpace(line[4:]) != ""
			} else {
				st.bare = true
			}
			if st.kind != aiderUser {
				flush()
				st.kind, st.first = aiderUser, num
			}
			st.lines = append(st.lines, line)
		case aiderIsTool(line):
			if st.kind != aiderTool {
				flush()
				st.kind, st.first = aiderTool, num
			}
			st.lines = append(st.lines, line)
			st.raw = append(st.raw, false)
			if !st.bare && !strings.HasSuffix(line, "  ") && strings.TrimSpace(line[1:]) != "" {
				st.cont = true
			}
		case strings.TrimSpace(line) == "":
			if st.kind == aiderAssistant {
				st.lines = append(st.lines, line)
			} else if st.kind != aiderNone {
				flush()
			}
		default:
			if st.kind != aiderAssistant {
				flush()
				st.kind, st.first = aiderAssistant, num
			}
			st.lines = append(st.lines, line)
		}
	}
	if emitErr == nil {
		flush()
	}
	if emitErr != nil {
		// The store stops at an emit error and keeps its old checkpoint.
		return start, nil, emitErr
	}
	return ls.pos(st.state()), nil, nil
}

func (st *aiderState) state() map[string]string {
	m := map[string]string{"session": st.session}
	if !st.start.IsZero() {
		m["start"] = st.start.Format(time.RFC3339Nano)
	}
	if st.stamp != "" {
		m["stamp"] = st.stamp
	}
	if st.model != "" {
		m["model"] = st.model
	}
	if h := st.assistHash(); h != "" {
		m["assist"] = h
	}
	if st.editAsked {
		m["edit"] = "1"
	}
	if st.afterUser {
		m["after"] = "user"
	}
	if st.bare {
		m["bare"] = "1"
	}
	if st.broke {
		m["broke"] = "1"
	}
	return m
}

// assistHash is the hash of the normalized assistant text since the last
// user block ("" when there is none).
func (st *aiderState) assistHash() string {
	if len(st.assistBuf) > 0 {
		return textHash(normTurn(strings.Join(st.assistBuf, "\n")))
	}
	return st.assist
}

// aiderEditPrompt is the confirm prompt of aider's architect mode before it
// hands the architect's answer to the editor model.
const aiderEditPrompt = "Edit the files?"

func (st *aiderState) newSession(stamp string, line int) {
	t, err := time.ParseInLocation("2006-01-02 15:04:05", stamp, time.Local)
	if err != nil {
		t = time.Time{}
	}
	id := "aider-" + strings.NewReplacer("-", "", ":", "", " ", "T").Replace(stamp) + "-" + st.hash
	if stamp == st.stamp {
		id += fmt.Sprintf("-L%d", line)
	}
	st.session, st.start, st.stamp, st.model = id, t, stamp, ""
	st.assist, st.assistBuf, st.editAsked, st.afterUser, st.bare, st.broke = "", st.assistBuf[:0], false, false, false, false
}

// aiderIsUser reports a user-input line: "####" then a space or the end,
// ending with the two-space hard break aider writes after every input line.
func aiderIsUser(line string) bool {
	if !strings.HasPrefix(line, "####") {
		return false
	}
	rest := line[4:]
	if rest != "" && rest[0] != ' ' {
		return false
	}
	return strings.HasSuffix(line, "  ") || strings.TrimSpace(rest) == ""
}

// bareUser reports a "#### " line without the hard break that is the
// person's input all the same: it does not stand inside an assistant
// reply (where it is a Markdown heading), nor right after the person's
// message in a session that writes the hard break (where it opens the
// reply), and the session has not logged input with the hard break: a
// session is one or the other. It continues an input block, follows the
// session header or tool output (where aider's prompt comes back), or the
// session is bare.
func (st *aiderState) bareUser(line string) bool {
	if !strings.HasPrefix(line, "#### ") || strings.TrimSpace(line[5:]) == "" || st.kind == aiderAssistant || st.broke && !st.bare {
		return false
	}
	if st.kind == aiderUser || st.bare {
		return true
	}
	return !st.afterUser
}

// aiderIsTool reports a tool-output line: ">" then a space or the end. A
// ">>>>>>> REPLACE" marker is not one.
func aiderIsTool(line string) bool {
	return line == ">" || strings.HasPrefix(line, "> ")
}

// aiderHardBreak reports that a line ends a message: text, then the two
// spaces aider appends after stripping trailing whitespace.
func aiderHardBreak(line string) bool {
	n := len(line)
	return n >= 3 && line[n-1] == ' ' && line[n-2] == ' ' && line[n-3] != ' ' && line[n-3] != '\t'
}

func (st *aiderState) flush(emit func(Record) error) error {
	if st.kind == aiderNone || len(st.lines) == 0 {
		return nil
	}
	afterUser := st.afterUser
	st.afterUser = false
	rec := Record{
		Session: st.session,
		Time:    st.start,
		Agent:   AgentAider,
		Cwd:     st.cwd,
		Source:  Source{File: st.file, Line: st.first},
	}
	if st.kind == aiderUser && aiderPromptBlock(st.lines) {
		// Aider logged its own confirm prompt and the answer with the
		// person's "#### " marker ("#### Add file to the chat?
		// (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: skip"): the
		// text is aider's, the choice the person's, as in its "> " lines.
		for i, l := range st.lines {
			st.lines[i] = ">" + strings.TrimPrefix(l, "####")
		}
		st.raw = make([]bool, len(st.lines))
		st.kind = aiderTool
	}
	switch st.kind {
	case aiderUser:
		parts := make([]string, len(st.lines))
		for i, l := range st.lines {
			l = strings.TrimSuffix(l, "  ")
			l = strings.TrimPrefix(l, "####")
			parts[i] = strings.TrimPrefix(l, " ")
		}
		text := strings.Join(parts, "\n")
		if text == "<blank>" {
			text = ""
		}
		rec.Role, rec.Kind, rec.Text = RoleUser, KindMessage, text
		if h := st.assistHash(); text != "" && (st.editAsked || h != "" && h == textHash(normTurn(text))) {
			// The architect's answer handed to the editor model.
			rec.Author = AuthorModel
		}
		st.assist, st.assistBuf, st.editAsked = "", st.assistBuf[:0], false
		for _, p := range aiderInjected {
			if strings.HasPrefix(text, p) {
				rec.Marks = append(rec.Marks, MarkInjected)
				break
			}
		}
		if strings.HasPrefix(text, "/") || strings.HasPrefix(text, "!") {
			rec.Marks = append(rec.Marks, MarkSlash)
		} else {
			st.afterUser = text != "" // a message the model answers
		}
	case aiderTool:
		parts := make([]string, len(st.lines))
		rejected := false
		for i, l := range st.lines {
			if !st.raw[i] {
				l = strings.TrimSuffix(l, "  ")
				l = strings.TrimPrefix(strings.TrimPrefix(l, ">"), " ")
			} else if aiderHardBreak(l) {
				l = strings.TrimSuffix(l, "  ")
			}
			parts[i] = l
			if m := aiderModel.FindStringSubmatch(l); m != nil {
				st.model = m[1]
			}
			if aiderRejected.MatchString(l) && aiderPromptLine(st.raw, parts, i) && !aiderOwnOffer.MatchString(aiderQuestion(parts, i)) {
				rejected = true
			}
		}
		rec.Role, rec.Kind, rec.Tool = RoleTool, KindToolResult, "aider"
		rec.Output = strings.TrimRight(strings.Join(parts, "\n"), "\n")
		if rejected {
			rec.Marks = []string{MarkRejected}
		} else if afterUser && aiderCtrlC(parts) {
			rec.Marks = []string{MarkInterrupt}
		}
		if strings.Contains(rec.Output, aiderEditPrompt) {
			st.editAsked = !rejected
		}
	case aiderAssistant:
		rec.Role, rec.Kind, rec.Model = RoleAssistant, KindMessage, st.model
		rec.Text = strings.TrimRight(strings.Join(st.lines, "\n"), " \t\n")
		st.assistBuf = append(st.assistBuf, rec.Text)
	}
	setAuthor(&rec)
	return emit(rec)
}

// aiderCtrlC reports whether a tool block is only aider's report of a
// Ctrl-C: "^C again to exit" (Coder.keyboard_interrupt, the first press)
// or "^C KeyboardInterrupt" (the second, which exits). Right after the
// person's message it is the person stopping the model's reply (aider then
// logs the reply cut where it stopped: chat-history.md:2267-2290 of the
// shared aider history); after aider's own output (a file added, a
// linter's report) it is a Ctrl-C at the input prompt, which stops
// nothing the agent did, and is not an interrupt.
func aiderCtrlC(lines []string) bool {
	seen := false
	for _, l := range lines {
		switch strings.TrimSpace(l) {
		case "":
		case "^C again to exit", "^C KeyboardInterrupt":
			seen = true
		default:
			return false
		}
	}
	return seen
}

// aiderQuestion is the question a prompt answered on line i asked: the
// line itself, or the line before when the answer stands alone ("> Add
// the output to the chat?" then "(y/n/instructions) n").
func aiderQuestion(lines []string, i int) string {
	if q := strings.TrimSpace(lines[i]); !strings.HasPrefix(q, "(") || i == 0 {
		return q
	}
	return lines[i-1]
}

// aiderPromptLine reports whether line i of a tool block is where aider
// wrote a confirm prompt and its answer: the first line of a message of its
// own ("> Run shell command? (Y)es/(N)o [Yes]: n"), or the line right after
// a message's first line that asks the question ("> Add the output to the
// chat?" then "(y/n/instructions) n", chat-history.md:19187-19188 of the
// shared aider history). A prompt-like line deeper inside a message is a
// command's or a linter's output (old-style messages carry it unprefixed)
// and never the person's refusal. Newer aider prefixes every output line,
// so a command printing a whole prompt line on its own is indistinguishable
// in the history file; such a "refusal" carries no text of its own.
func aiderPromptLine(raw []bool, lines []string, i int) bool {
	if !raw[i] {
		return true
	}
	return i > 0 && !raw[i-1] && strings.HasSuffix(strings.TrimSpace(lines[i-1]), "?")
}

var (
	aiderAppliedEdit = textutil.Lazy(`^Applied edit to (\S.*?)\s*$`)
	// aiderOutputAdded: aider's report that a command's output went into
	// the chat ("Added 11 lines of output to the chat."), or the person's
	// yes to its offer ("Add command output to the chat? (Y)es/(N)o...
	// [Yes]: y", "Add 0.2k tokens of command output to the chat? ...: y";
	// older: "Add the output to the chat?" then "(y/n/instructions) y").
	aiderOutputAdded = textutil.Lazy(`(?i)^(?:added \d+ lines? of output to the chat\.?\s*$|` + aiderOutputQ + `\s*(?:` + aiderOptions + `)` + aiderYesAfter + `)`)
	aiderOutputOffer = textutil.Lazy(`(?i)^` + aiderOutputQ + `\s*$`)
	aiderYes         = textutil.Lazy(`(?i)^(?:` + aiderOptions + `)` + aiderYesAfter)
)

// AiderTurn reads what one of aider's tool records (its "> " lines
// between the model's reply and the person's next message) tells of the
// turn: the files aider applied the model's edits to ("Applied edit to
// X"), and whether the person had a command's output added to the chat,
// which is aider's way of pasting it: the person ran the program or the
// tests (aider's suggested command, /run, /test) and showed the model
// what came out. The output itself is not in the history file. Nothing
// for another record.
func AiderTurn(r *Record) (edited []string, outputShown bool) {
	if r.Agent != AgentAider || r.Kind != KindToolResult || r.Has(MarkRejected) {
		return nil, false
	}
	lines := strings.Split(r.Output, "\n")
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if m := aiderAppliedEdit.FindStringSubmatch(l); m != nil {
			if !slices.Contains(edited, m[1]) {
				edited = append(edited, m[1])
			}
			continue
		}
		if aiderOutputAdded.MatchString(l) || i > 0 && aiderYes.MatchString(l) && aiderOutputOffer.MatchString(strings.TrimSpace(lines[i-1])) {
			outputShown = true
		}
	}
	return edited, outputShown
}

// aiderConfirmLine is one of aider's confirm prompts with its answer:
// the question, its options, the answer ("Add file to the chat?
// (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: skip", "Run shell
// command? (y/n) y").
var aiderConfirmLine = textutil.Lazy(`(?i)^[^\n]*\?\s*(?:` + aiderOptions + `)\s*\S+\s*$`)

// aiderPromptBlock reports whether the lines of a "#### " block are all
// aider's confirm prompts and their answers (aiderConfirmLine).
func aiderPromptBlock(lines []string) bool {
	n := 0
	for _, l := range lines {
		t := strings.TrimSpace(strings.TrimPrefix(l, "####"))
		if t == "" {
			continue
		}
		if !aiderConfirmLine.MatchString(t) {
			return false
		}
		n++
	}
	return n > 0
}
