package observations

import (
	"github.com/kbmem/kb/internal/textutil"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/kbmem/kb/traces"
)

// ---------------------------------------------------------------------------
// The session timeline: what the person said and did, and what the agent did
// in between.

// utterance is text the person produced: a message they typed, or the
// reason they gave when refusing a tool call.
type utterance struct {
	idx    int // record index
	text   string
	reason bool   // typed as a tool-call rejection reason
	pasted string // output the person pasted (logs, errors), apart from their words

	// what happened since the previous utterance
	calls       []int // agent tool calls
	rejected    []int // indexes of rejected tool calls
	interrupted bool
	undone      bool  // the person undid the agent's last change (aider /undo)
	cleared     bool  // the person cleared the conversation since (/clear)
	assistant   []int // agent text messages
	prev        int   // index of the previous utterance in the list, -1 if none
	// edited are the files the agent's log says it changed, where the
	// change is no tool call (aider applies the model's edits itself:
	// traces.AiderTurn); shown: the person had a command's output added to
	// the conversation (aider's "Added 11 lines of output to the chat").
	edited []string
	shown  bool
	// command: the words came with a command the person ran (the
	// arguments of an expanded template): a new task, no report on the
	// work before it.
	command bool
}

type timeline struct {
	s     *Session
	utts  []utterance
	byID  map[string]int // call id -> record index
	after map[int][]int  // utterance i -> records until the next utterance
	first *traces.Record // the session's first record, to tell a reused Session apart

	// strength memoizes correctionStrength per utterance: the correction,
	// preference, discovery, negative-result and question extractors all
	// ask it of every utterance.
	strength    map[*utterance]strengthOf
	strengthTax *Taxonomy
}

type strengthOf struct {
	conf    float64
	signals []string
}

// corrected is correctionStrength(tl, u, tax), computed once per
// utterance and taxonomy.
func (tl *timeline) corrected(u *utterance, tax *Taxonomy) (float64, []string) {
	if tl.strength == nil || tl.strengthTax != tax {
		tl.strength, tl.strengthTax = map[*utterance]strengthOf{}, tax
	}
	if m, ok := tl.strength[u]; ok {
		return m.conf, m.signals
	}
	c, sig := correctionStrength(tl, u, tax)
	sig = slices.Clip(sig) // a caller appending never writes into the memo
	tl.strength[u] = strengthOf{c, sig}
	return c, sig
}

var (
	// A command that takes back the agent's last change.
	undoCommandRE = textutil.Lazy(`^/(undo|rewind|revert)\b`)
	// A command that clears the conversation (aider /clear and /reset,
	// Claude Code and Gemini /clear, Codex /new).
	clearCommandRE = textutil.Lazy(`^/(clear|reset|new)\b`)
	harnessTextRE  = textutil.Lazy(`^(<command-|<local-command|<bash-|<system-reminder>|Caveat: |\[Request interrupted|This session is being continued)`)
)

func isToolCall(r *traces.Record) bool {
	return r.Kind == traces.KindToolCall && !r.Has(traces.MarkSidechain)
}

func isAgentText(r *traces.Record) bool {
	return r.Role == traces.RoleAssistant && r.Kind == traces.KindMessage && !r.Has(traces.MarkThinking) &&
		!r.Has(traces.MarkSidechain) && strings.TrimSpace(r.Text) != ""
}

// isRejection reports whether r records the person refusing a tool call.
// Only the parser's mark counts: it reads the refusal from the field the
// agent writes for it (traces/ccrefusal.go), while refusal words in a
// tool's output are that tool's text, whoever they claim to be from.
func isRejection(r *traces.Record) bool {
	return !r.Has(traces.MarkSidechain) && r.Kind == traces.KindToolResult && r.Has(traces.MarkRejected)
}

// lastTimeline keeps the timeline of the session extracted last: every
// extractor of Extract reads the same session's timeline, and building it
// (reading pasted material out of the person's messages) is most of the
// cost of extraction. Extractors only read a timeline.
var lastTimeline struct {
	sync.Mutex
	s  *Session
	n  int
	tl *timeline
}

func buildTimeline(s *Session) *timeline {
	lastTimeline.Lock()
	defer lastTimeline.Unlock()
	if lastTimeline.s == s && lastTimeline.n == len(s.Records) && len(s.Records) > 0 && lastTimeline.tl.first == &s.Records[0] {
		return lastTimeline.tl
	}
	tl := newTimeline(s)
	lastTimeline.s, lastTimeline.n, lastTimeline.tl = s, len(s.Records), tl
	return tl
}

func newTimeline(s *Session) *timeline {
	tl := &timeline{s: s, byID: map[string]int{}, after: map[int][]int{}}
	if len(s.Records) > 0 {
		tl.first = &s.Records[0]
	}
	cur := utterance{prev: -1}
	for i := range s.Records {
		r := &s.Records[i]
		switch {
		case isToolCall(r):
			cur.calls = append(cur.calls, i)
			if r.CallID != "" {
				tl.byID[r.CallID] = i
			}
		case isRejection(r):
			call := tl.callFor(r, cur.calls)
			if call >= 0 {
				cur.rejected = append(cur.rejected, call)
			} else {
				cur.interrupted = true
			}
		case r.Has(traces.MarkInterrupt) && !r.Has(traces.MarkSidechain):
			cur.interrupted = true
		case r.Role == traces.RoleUser && r.Kind == traces.KindMessage && r.Has(traces.MarkRejected) && r.Human():
			// The reason the person typed when refusing a call.
			tl.push(&cur, i, r.Text, true)
		case r.Human() && r.Has(traces.MarkSlash):
			switch {
			case undoCommandRE.MatchString(r.Text):
				cur.undone = true
			case clearCommandRE.MatchString(r.Text):
				// A cleared conversation starts over: what was refused,
				// undone or interrupted before it is what the next message
				// answers only if it speaks of it (correctionStrength).
				cur.cleared = true
			}
		case r.Human() && !r.Has(traces.MarkCompaction):
			text := cleanHuman(r.Text)
			if text == "" || harnessTextRE.MatchString(text) {
				continue
			}
			tl.push(&cur, i, text, false)
		case r.Role == traces.RoleUser && r.Kind == traces.KindMessage && r.Who() == traces.AuthorTemplate && !r.Has(traces.MarkSidechain):
			// An expanded template is injected, but the words the person
			// gave it are theirs. They start a task (a command the person
			// ran): they may pick from what the agent offered, but report
			// nothing about the work before them. What the agent said
			// before the command still stands before the person's next
			// message ("2" may pick from it).
			if args := traces.TemplateArguments(r.Text); args != "" {
				offered := cur.assistant
				cur.command = true
				tl.push(&cur, i, args, false)
				cur.command = false
				cur.assistant = append([]int(nil), offered...)
			}
		case isAgentText(r):
			cur.assistant = append(cur.assistant, i)
		case r.Kind == traces.KindToolResult && !r.Has(traces.MarkSidechain):
			edited, shown := traces.AiderTurn(r)
			cur.edited = append(cur.edited, edited...) // changedFiles drops repeats
			cur.shown = cur.shown || shown
		}
	}
	// Records after each utterance, up to the next one.
	for k, u := range tl.utts {
		end := len(s.Records)
		if k+1 < len(tl.utts) {
			end = tl.utts[k+1].idx
		}
		for j := u.idx + 1; j < end; j++ {
			tl.after[k] = append(tl.after[k], j)
		}
	}
	return tl
}

func (tl *timeline) push(cur *utterance, idx int, text string, reason bool) {
	u := *cur
	words, pasted := splitPasted(cleanHuman(text))
	kept, dropped := proseSplit(words)
	if kept == "" && pasted == "" && bareLabelRE.MatchString(strings.TrimSpace(labelLetters(foldWidth(dropped)))) {
		// "B", "2", "２": a reply that is only an option's label is the
		// person's words, too short to read as prose.
		kept, dropped = strings.TrimSpace(dropped), ""
	}
	u.idx, u.text, u.reason, u.pasted = idx, kept, reason, strings.TrimSpace(pasted+"\n"+dropped)
	u.prev = len(tl.utts) - 1
	if u.text == "" && u.pasted == "" {
		return
	}
	if n := len(tl.utts); n > 0 && completes(&tl.utts[n-1], &u) {
		// "I don'", interrupted before the agent said a word, then "I
		// don't have ~/vim": the person cut their own message short and
		// wrote it again in full. The full one answers what the cut one
		// did (the refused call, the agent's work before it).
		last := tl.utts[n-1]
		tl.utts = tl.utts[:n-1]
		last.idx, last.text, last.reason, last.pasted = u.idx, u.text, last.reason || u.reason, u.pasted
		u = last
	}
	if reason && len(u.rejected) == 0 && len(u.calls) > 0 {
		u.rejected = []int{u.calls[len(u.calls)-1]}
	}
	tl.utts = append(tl.utts, u)
	*cur = utterance{prev: len(tl.utts) - 1}
}

// completes reports whether next is the person writing last again in
// full: last is a few words cut off inside a word ("I don'"), only an
// interrupt lies between them (no call, no word of the agent's), and next
// opens with all of last's words. A short message next goes on from
// after a whole word ("2" / "2, and add tests") is one the person sent.
func completes(last, next *utterance) bool {
	if !next.interrupted || len(next.calls) > 0 || len(next.assistant) > 0 || len(next.rejected) > 0 || len(next.edited) > 0 ||
		next.command || last.command || last.text == "" || wordCount(last.text) > 4 {
		return false
	}
	cut, full := lower(strings.TrimSpace(last.text)), lower(strings.TrimSpace(next.text))
	if len(cut) >= len(full) || !strings.HasPrefix(full, cut) {
		return false
	}
	// Cut inside a word: the full message goes on with the same word
	// ("I do" / "I don't"), or the cut ends in an apostrophe ("I don'").
	last1, _ := utf8.DecodeLastRuneInString(cut)
	next1, _ := utf8.DecodeRuneInString(full[len(cut):])
	return last1 == '\'' || last1 == '’' || (unicode.IsLetter(last1) || unicode.IsDigit(last1)) && (unicode.IsLetter(next1) || unicode.IsDigit(next1))
}

// callFor finds the tool call a result belongs to.
func (tl *timeline) callFor(r *traces.Record, calls []int) int {
	if r.CallID != "" {
		if i, ok := tl.byID[r.CallID]; ok {
			return i
		}
	}
	if len(calls) > 0 {
		return calls[len(calls)-1]
	}
	return -1
}

func (tl *timeline) rec(i int) *traces.Record { return &tl.s.Records[i] }

// sourceRefs are records from..to of the session less the messages
// between them that the person did not type (the harness's markers,
// notices and command output, expanded templates): the corrected call and
// the person's words that answer it. One ref when nothing lies between.
func (tl *timeline) sourceRefs(from, to int) []SourceRef {
	if from < 0 || from >= to {
		return []SourceRef{tl.sourceRef(from, to)}
	}
	var out []SourceRef
	start := from
	for i := from + 1; i < to; i++ {
		if r := tl.rec(i); r.Role == traces.RoleUser && r.Kind == traces.KindMessage && !r.Human() {
			if start < i {
				out = append(out, tl.sourceRef(start, i-1))
			}
			start = i + 1
		}
	}
	return append(out, tl.sourceRef(start, to))
}

// sourceRef spans records from..to of the session.
func (tl *timeline) sourceRef(from, to int) SourceRef {
	if from < 0 || from > to {
		from = to
	}
	a, b := tl.rec(from), tl.rec(to)
	sess := tl.s.ID
	if sess == "" {
		sess = b.Session
	}
	fs, ts := a.Seq, b.Seq
	if fs == 0 && ts == 0 {
		fs, ts = from, to
	}
	t := b.Time
	if t.IsZero() {
		t = a.Time
	}
	return SourceRef{Session: sess, From: fs, To: ts, Time: t}
}

// nextAgentText returns the text of the agent's first message after u,
// before the person speaks again ("" when it said nothing).
func (tl *timeline) nextAgentText(u *utterance) string {
	k := u.prev + 1 // u's place in tl.utts
	if k >= len(tl.utts) || tl.utts[k].idx != u.idx {
		return ""
	}
	for _, j := range tl.after[k] {
		if r := tl.rec(j); isAgentText(r) {
			return r.Text
		}
	}
	return ""
}

// lastAgentText returns the text of the last agent message before u.
func (tl *timeline) lastAgentText(u *utterance) string {
	if len(u.assistant) == 0 {
		return ""
	}
	return tl.rec(u.assistant[len(u.assistant)-1]).Text
}
