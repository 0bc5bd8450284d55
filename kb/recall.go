package kb

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/index"
	"github.com/kbmem/kb/internal/llm"
	"github.com/kbmem/kb/library"
	"github.com/kbmem/kb/observations"
)

// RecallQuery describes the moment kb recalls for: what the agent is asked
// to do (Task), what it is about to do (Action, or a tool call Tool+Input),
// and the files involved. Every part is optional; an empty query recalls
// nothing unless Standing is set.
type RecallQuery struct {
	Task   string          `json:"task,omitempty"`
	Action string          `json:"action,omitempty"` // a shell command or a description of the action
	Tool   string          `json:"tool,omitempty"`
	Input  json.RawMessage `json:"input,omitempty"`
	Files  []string        `json:"files,omitempty"`
	Budget int             `json:"budget,omitempty"` // tokens (about 4 characters each); 0 = recall.budget
	// Cwd is the agent's working directory; paths under it are shown and
	// matched relative to it.
	Cwd string `json:"cwd,omitempty"`
	// Project is the directory of the project the agent works in (hooks
	// set it from the event's cwd). In a standalone KB, which holds the
	// sessions of many projects, a one-off lesson of another project is
	// left out; a KB inside a project is that project's memory.
	Project string `json:"project,omitempty"`
	// Standing asks for the standing context of a new session: the top
	// conventions, preferences and active corrections, whatever the cue.
	Standing bool `json:"standing,omitempty"`
}

// Budget classes: each kind of item has its own reserved share of the budget.
const (
	KindCorrections = "corrections"
	KindPreferences = "preferences"
	KindProcedures  = "procedures"
	KindPrecedents  = "precedents"
	KindLibrary     = "library"
)

var recallKinds = []string{KindCorrections, KindPreferences, KindProcedures, KindPrecedents, KindLibrary}

// RecallItem is one recalled piece of knowledge.
type RecallItem struct {
	ID      string   `json:"id"`
	Type    string   `json:"type"`
	Kind    string   `json:"kind"`
	Score   float64  `json:"score"`
	Reasons []string `json:"reasons"`
	Text    string   `json:"text"`
	Path    string   `json:"path"`
	// Lesson is the bare instruction (for a PreToolUse decision reason).
	Lesson string `json:"lesson,omitempty"`
	// ActionType is the action type of the proposed action that matched.
	ActionType string `json:"action_type,omitempty"`
	// HighConsequence is set when ActionType is listed in recall.high_consequence.
	HighConsequence bool `json:"high_consequence,omitempty"`
	// Author is "agent" for an observation the agent wrote (assistant text,
	// MCP remember); Unreviewed is set while no person has reviewed it. Its
	// Text says so, and it never decides a PreToolUse call.
	Author     string `json:"author,omitempty"`
	Unreviewed bool   `json:"unreviewed,omitempty"`
}

// RecallResult is what Recall surfaces, best first, within the budget.
type RecallResult struct {
	ActionTypes []string     `json:"action_types"` // classification of the proposed action
	Items       []RecallItem `json:"items"`
	Tokens      int          `json:"tokens"` // estimated tokens of Markdown()
	Budget      int          `json:"budget"`
	Dropped     int          `json:"dropped"` // relevant items left out for lack of budget
	Standing    bool         `json:"standing,omitempty"`
}

// Tokens estimates the tokens of s: about four characters a token.
func Tokens(s string) int { return (len(s) + 3) / 4 }

// recallHeader opens the markdown block given to agents.
const recallHeader = "## kb: lessons from earlier sessions that apply now\n"
const recallFooter = "(Full note: kb show ID.)\n"

// standingHeader opens the standing context of a new session; it is no
// longer than recallHeader, so budgets hold for both.
const standingHeader = "## kb: standing lessons and conventions\n"

// Markdown renders the items as an imperative block for an agent's
// context, or "" when there is nothing.
func (r *RecallResult) Markdown() string {
	if r == nil || len(r.Items) == 0 {
		return ""
	}
	var b strings.Builder
	if r.Standing {
		b.WriteString(standingHeader)
	} else {
		b.WriteString(recallHeader)
	}
	for _, it := range r.Items {
		b.WriteString("- ")
		b.WriteString(it.Text)
		b.WriteString("\n")
	}
	b.WriteString(recallFooter)
	return b.String()
}

// candidate is one indexed document considered for recall.
type candidate struct {
	path, id, layer, typ string
	title, description   string
	status               string
	types                []string // action types, primary first
	phrases              []string // trigger phrases (library triggers that are not action types)
	text                 string   // the fields lexical matching looks at
	lesson               string   // text without the trigger (which quotes the corrected action)
	trigger              string
	files                []fileRef // files the candidate names
	projects             []string  // working directories of its sessions (observations)
	otherProject         bool      // from another project, kept as a general lesson
	importance           float64
	sessions             float64
	bm25                 float64
	prelim               float64 // rough rank, before the file is read

	// matching
	typeScore  float64
	matchedAT  string // the proposed action's type that matched
	candAT     string // the candidate's type it matched
	phraseHit  string
	fileHit    string // a file both the cue and the candidate name
	overlap    []string
	relevance  float64
	lexicalHit bool
	rejected   bool    // a type match that was ruled out: nothing rescues it
	semantic   float64 // cosine similarity, when the embeddings layer matched
}

// cueFields are the stored fields recall reads from hits.
var cueFields = []string{"noteid", "status", "action_type", "action_types", "triggers", "importance", "sessions", "projects",
	"trigger", "lesson", "consequence", "statement", "goal", "approach", "failure", "claim", "chosen", "description"}

var actionTypeRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*:[a-z0-9][a-z0-9-]*(:[a-z0-9][a-z0-9.-]*)?$`)

// cueTaxonomy is the action-type taxonomy of this KB: the built-in rules
// plus kb.yaml's action_types.
func (k *KB) cueTaxonomy() (*observations.Taxonomy, error) {
	if len(k.Config.ActionTypes) == 0 {
		return observations.Default(), nil
	}
	return k.Taxonomy()
}

// Recall finds the knowledge that applies to q and returns it ranked and
// cut to the budget. Matching composes action-type classification of the
// proposed action (strong evidence on its own) with lexical similarity
// (lexical retrieval from the index, then token overlap as a precision filter: weak overlap
// alone never fires). Items are ranked by relevance x recency x
// consequence x frequency and packed into per-kind budgets.
func (k *KB) Recall(ctx context.Context, q RecallQuery) (*RecallResult, error) {
	x, err := k.openRecallIndex(ctx)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	return x.Recall(ctx, q)
}

// openRecallIndex opens the index for a read. When no file changed since
// the last sync (the usual case for a hook) it opens it read-only, which is
// cheaper and lets concurrent hooks read side by side; otherwise it opens it
// for writing and syncs.
func (k *KB) openRecallIndex(ctx context.Context) (*Index, error) {
	dir, err := k.indexDir()
	if err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	ro, err := index.OpenReadOnly(dir)
	if errors.Is(err, index.ErrBusy) {
		// A writer holds it: waiting twice would take two BusyTimeouts.
		return nil, fmt.Errorf("recall: %w", err)
	}
	if err == nil {
		// Fast path: no directory recall reads changed since the last
		// sync (a few stats instead of one per file).
		if k.dirsUnchanged() {
			return &Index{ix: ro, k: k}, nil
		}
		if files, err := k.scan(); err == nil && indexUpToDate(files, ro.Stamps()) {
			return &Index{ix: ro, k: k}, nil
		}
		ro.Close()
	}
	x, _, err := k.OpenIndex(ctx, nil)
	return x, err
}

func indexUpToDate(files []fileInfo, stamps map[string]index.Stamp) bool {
	if len(files) != len(stamps) {
		return false
	}
	for _, f := range files {
		if st, ok := stamps[f.rel]; !ok || st != f.stamp {
			return false
		}
	}
	return true
}

// Recall is KB.Recall over an index already open.
func (x *Index) Recall(ctx context.Context, q RecallQuery) (*RecallResult, error) {
	k := x.k
	tax, err := k.cueTaxonomy()
	if err != nil {
		return nil, err
	}
	budget := q.Budget
	if budget <= 0 {
		budget = k.Config.Recall.Budget
	}
	if budget <= 0 {
		budget = 1200
	}
	res := &RecallResult{Budget: budget, Items: []RecallItem{}, ActionTypes: []string{}, Standing: q.Standing}
	cue := buildCue(tax, q)
	res.ActionTypes = append(res.ActionTypes, cue.types...)
	var cands []*candidate
	if q.Standing {
		cands, err = x.standingCandidates()
	} else {
		cands, err = x.cueCandidates(cue)
	}
	if err != nil {
		return nil, err
	}
	semantic := k.Config.Embeddings.Enabled && !q.Standing && !cue.readOnly && !cue.question && cue.text != ""
	if semantic {
		cands = x.semanticPool(cands)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	high := map[string]bool{}
	for _, t := range k.Config.Recall.HighConsequence {
		high[t] = true
	}
	now := time.Now()
	// Match on the index's fields, rank roughly (without recency, which
	// needs the file), and read only the files of the best few per kind.
	var relevant, unmatched []*candidate
	scoped := q.Project != "" && k.ProjectRoot == k.Root // a standalone KB holds many projects
	for _, c := range cands {
		if c.status == observations.StatusSuperseded || c.status == observations.StatusRejected || kindOf(c.layer, c.typ) == "" {
			continue
		}
		if q.Standing {
			if c.layer == LayerObservations && c.sessions < 2 && situational(c) && !(len(c.types) > 0 && high[c.types[0]]) {
				continue // comes back at its moment, through the action's own cue
			}
			c.relevance = 1
		} else if cue.match(c); c.relevance <= 0 {
			if semantic && !c.rejected {
				unmatched = append(unmatched, c)
			}
			continue
		}
		if scoped && len(c.projects) > 0 && !inProject(c.projects, q.Project) {
			// A lesson of another project travels only when it is general:
			// seen in two projects, or about a high-consequence action.
			if len(c.projects) < 2 && !(c.typeScore >= 0.9 && high[c.matchedAT]) {
				continue
			}
			c.otherProject = true
		}
		c.prelim = c.relevance * (0.5 + math.Max(c.importance, 0.1)) * (1 + math.Log(math.Max(1, c.sessions)))
		relevant = append(relevant, c)
	}
	if len(unmatched) > 0 {
		if err := x.matchSemantic(ctx, cue, unmatched); err != nil {
			k.logf("embeddings: %v (semantic matching skipped)", err)
		}
	}
	for _, c := range unmatched {
		if c.relevance <= 0 {
			continue
		}
		c.prelim = c.relevance * (0.5 + math.Max(c.importance, 0.1)) * (1 + math.Log(math.Max(1, c.sessions)))
		relevant = append(relevant, c)
	}
	sort.SliceStable(relevant, func(i, j int) bool { return relevant[i].prelim > relevant[j].prelim })
	perKind := map[string]int{}
	var items []RecallItem
	skipped := 0
	for _, c := range relevant {
		kd := kindOf(c.layer, c.typ)
		if perKind[kd] >= maxReadPerKind {
			skipped++
			continue
		}
		if it, ok := k.renderItem(c, cue, q, high, now); ok {
			perKind[kd]++
			items = append(items, it)
		}
	}
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].Score != items[j].Score {
			return items[i].Score > items[j].Score
		}
		return items[i].ID < items[j].ID
	})
	byPath := make(map[string]*candidate, len(relevant))
	for _, c := range relevant {
		byPath[c.path] = c
	}
	items = foldCovered(items, byPath)
	before := len(items)
	items = k.judge(ctx, q, items)
	res.Items, res.Dropped = packBudget(items, budget, k.Config.Recall.Budgets)
	res.Dropped += before - len(items)
	res.Dropped += skipped
	res.Tokens = Tokens(res.Markdown())
	return res, nil
}

// foldCovered spends one line, not two, on a lesson that an observation
// and a library note both give (library.Covering: the note's title and
// description say the observation's lesson, with a shared action-type
// trigger). The observation's line stays: it is the person's own words,
// tied to the action at hand and to its sessions; the note is named on it
// ("[cor-..., stage-files-by-name]") so the agent can open it, and its
// budget goes to the next item.
func foldCovered(items []RecallItem, byPath map[string]*candidate) []RecallItem {
	var notes []library.Note
	var at []int
	for i, it := range items {
		if c := byPath[it.Path]; c != nil && c.layer == LayerLibrary {
			notes = append(notes, library.Note{ID: it.ID, Path: it.Path, Type: c.typ, Title: c.title, Text: c.description,
				Triggers: append(slices.Clone(c.types), c.phrases...)})
			at = append(at, i)
		}
	}
	if len(notes) == 0 {
		return items
	}
	cov := library.NewCoverage(notes)
	drop := map[int]bool{}
	for i := range items {
		c := byPath[items[i].Path]
		if c == nil || c.layer != LayerObservations {
			continue
		}
		o := observations.WithText(c.typ, c.lesson, c.types)
		if o == nil {
			continue
		}
		o.Trigger = c.trigger
		n := cov.Covering(o)
		if n == nil {
			continue
		}
		j := at[slices.IndexFunc(notes, func(x library.Note) bool { return x.Path == n.Path })]
		drop[j] = true
		it := &items[i]
		if ref := "[" + it.ID + "]"; strings.HasSuffix(it.Text, ref) {
			it.Text = strings.TrimSuffix(it.Text, ref) + "[" + it.ID + ", " + n.ID + "]"
		} else {
			it.Text += " [" + n.ID + "]"
		}
		it.Score = math.Max(it.Score, items[j].Score)
		it.Reasons = append(it.Reasons, "library note "+n.ID+" says the same")
	}
	if len(drop) == 0 {
		return items
	}
	out := items[:0]
	for i, it := range items {
		if !drop[i] {
			out = append(out, it)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// situational reports whether a correction belongs to one moment rather
// than to every session: it was given on an edit of one file ("BEFORE
// editing `timeline.html`"), on a one-off request ("when asked to add a
// paginate param") or on one proposed plan ("calling ExitPlanMode"). Seen once, it is left out of the standing context of a new
// session; the hook recalls it when that file or request comes up.
func situational(c *candidate) bool {
	return c.typ == observations.TypeCorrection &&
		(strings.HasPrefix(c.trigger, "editing `") && len(c.files) > 0 || strings.HasPrefix(c.trigger, "when asked to ") ||
			c.trigger == "calling ExitPlanMode")
}

// typedCandidates bounds the documents an action-type query loads. Loading a
// hit's stored fields is most of a hook's time (200 took 15-17 ms a hook
// over 10,000 observations, 100 about 12); recurrences merge into one
// observation, so a hundred distinct lessons on one action type is already
// more than a budget shows (maxReadPerKind).
const typedCandidates = 100

// maxReadPerKind bounds the files read per kind of item: a budget holds
// far fewer items than this.
const maxReadPerKind = 16

// cue is a query analysed once: its action types and content tokens.
type cue struct {
	types   []string
	text    string            // the cue as text, for the embeddings layer
	tokens  map[string]bool   // stems
	wordOf  map[string]string // stem -> first word seen, for reasons
	words   []string          // distinct raw words, for the lexical query
	action  string            // short description of the proposed action, for "You are about to ..."
	hasCall bool
	program string // the program a proposed shell command runs ("pnpm")
	kind    string // "shell" or "edit" for a tool call, "" for words
	// question is a prompt asking about something rather than asking for
	// an action ("what does the commit hook do?"): a type match then needs
	// a word of the lesson besides the type's own.
	question bool
	tax      *observations.Taxonomy
	// readOnly is a call that changes nothing (Read, Grep...): lexical
	// overlap with what it reads is no cue.
	readOnly bool
	files    []fileRef // files the proposal names
}

var readOnlyTools = map[string]bool{"read": true, "grep": true, "glob": true, "ls": true, "webfetch": true, "websearch": true,
	"todowrite": true, "todoread": true, "bashoutput": true, "view_image": true, "read_file": true, "list_directory": true,
	"search_file_content": true, "web_fetch": true, "google_web_search": true, "notebookread": true, "exitplanmode": true}

func buildCue(tax *observations.Taxonomy, q RecallQuery) *cue {
	c := &cue{tokens: map[string]bool{}, wordOf: map[string]string{}, tax: tax}
	// The task is free text (word cues); the action is a shell command.
	a := observations.Action{Tool: q.Tool, Input: q.Input, Paths: q.Files, Command: q.Action, Text: q.Task}
	if q.Tool != "" || len(q.Input) > 0 || q.Action != "" || q.Task != "" || len(q.Files) > 0 {
		c.types = tax.Classify(a)
	}
	// Word cues match within a small window: identifiers and filler words
	// ("drop the unused coupon_code column") can push the words of a cue
	// apart. Classify the condensed text too.
	if q.Task != "" {
		if dense := rcCondense(q.Task); dense != "" && dense != strings.ToLower(strings.TrimSpace(q.Task)) {
			for _, t := range tax.ClassifyText(dense) {
				if !slices.Contains(c.types, t) {
					c.types = append(c.types, t)
				}
			}
		}
	}
	c.readOnly = q.Tool != "" && readOnlyTools[strings.ToLower(q.Tool)]
	if c.types == nil {
		c.types = []string{}
	}
	var parts []string
	parts = append(parts, q.Task, q.Action)
	parts = append(parts, q.Files...)
	if q.Tool != "" || len(q.Input) > 0 {
		parts = append(parts, rcInputText(q.Input)...)
		c.hasCall = true
	}
	all := strings.Join(parts, "\n")
	if q.Cwd != "" {
		all = strings.ReplaceAll(all, strings.TrimRight(q.Cwd, "/")+"/", "")
	}
	c.text = truncate(strings.TrimSpace(all), maxEmbedText)
	reduced, files := reducePaths(all)
	c.files = files
	seen := map[string]bool{}
	// The file names first, whole: the index holds "timeline.html" as one
	// word, so lessons about the file are retrieved and then matched as
	// the same file.
	for _, f := range files {
		if q := `"` + f.base + `"`; !seen[q] && len(c.words) < 8 {
			seen[q] = true
			c.words = append(c.words, q)
		}
	}
	for _, w := range cueWords(reduced) {
		s := cueStem(w)
		if s == "" {
			continue
		}
		c.tokens[s] = true
		if _, ok := c.wordOf[s]; !ok {
			c.wordOf[s] = w
		}
		if !seen[w] && len(c.words) < 40 {
			seen[w] = true
			c.words = append(c.words, w)
		}
	}
	c.action = describeAction(q)
	c.program = programOf(q)
	c.question = !c.hasCall && q.Action == "" && rcIsQuestion(q.Task)
	if c.hasCall {
		c.kind = "edit"
		if c.program != "" {
			c.kind = "shell"
		}
	}
	return c
}

// condense keeps the plain words of a text: no identifiers (snake_case,
// camelCase, words with digits or dots), no stop words.
func rcCondense(s string) string {
	var keep []string
	for _, f := range strings.Fields(s) {
		w := strings.Trim(f, ".,;:!?()[]{}\"'`")
		if w == "" || strings.ContainsAny(w, "_./\\0123456789=") || (w != strings.ToLower(w) && w != strings.ToUpper(w[:1])+strings.ToLower(w[1:])) {
			continue
		}
		lw := strings.ToLower(w)
		if cueStop[lw] && !cueKeep[lw] {
			continue
		}
		keep = append(keep, lw)
	}
	return strings.Join(keep, " ")
}

// cueKeep are stop words that word cues use ("add dependency", "new package", "run test").
var cueKeep = map[string]bool{"add": true, "new": true, "run": true, "all": true, "file": true, "files": true, "code": true,
	"no": true, "not": true, "use": true, "make": true, "get": true, "out": true, "up": true, "down": true, "off": true}

// inputText returns the strings of a tool input that describe what it does:
// the command, the path, the content written, the pattern searched.
func rcInputText(raw json.RawMessage) []string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return []string{s}
		}
		return []string{string(raw)}
	}
	var out []string
	for _, key := range []string{"command", "cmd", "file_path", "path", "notebook_path", "new_string", "content",
		"new_str", "file_text", "new_source", "pattern", "query", "url", "prompt", "description", "input", "patch"} {
		switch v := m[key].(type) {
		case string:
			out = append(out, v)
		case []any:
			for _, e := range v {
				if s, ok := e.(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	if edits, ok := m["edits"].([]any); ok {
		for _, e := range edits {
			if em, ok := e.(map[string]any); ok {
				if s, ok := em["new_string"].(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// describeAction is the proposed action in a few words: "run `go test ./...`".
func describeAction(q RecallQuery) string {
	var m map[string]any
	_ = json.Unmarshal(q.Input, &m)
	str := func(keys ...string) string {
		for _, k := range keys {
			if s, ok := m[k].(string); ok && s != "" {
				return s
			}
		}
		return ""
	}
	rel := func(p string) string {
		if q.Cwd != "" {
			if r, err := filepath.Rel(q.Cwd, p); err == nil && !strings.HasPrefix(r, "..") {
				return filepath.ToSlash(r)
			}
		}
		return p
	}
	if cmd := str("command", "cmd"); cmd != "" {
		return "run `" + truncate(rcOneLine(cmd), 100) + "`"
	}
	if arr, ok := m["command"].([]any); ok && len(arr) > 0 {
		var argv []string
		for _, a := range arr {
			if s, ok := a.(string); ok {
				argv = append(argv, s)
			}
		}
		return "run `" + truncate(rcOneLine(strings.Join(argv, " ")), 100) + "`"
	}
	if p := str("file_path", "path", "notebook_path"); p != "" {
		verb := "edit"
		if strings.EqualFold(q.Tool, "Write") {
			verb = "write"
		}
		return verb + " `" + truncate(rel(p), 100) + "`"
	}
	if q.Action != "" {
		return "run `" + truncate(rcOneLine(q.Action), 100) + "`"
	}
	return ""
}

// isQuestion reports whether a prompt asks about something ("what does
// X do?", "explain Y") rather than asking for an action. Requests phrased
// as questions ("can you commit this?") are not questions here.
func rcIsQuestion(s string) bool {
	f := strings.Fields(strings.ToLower(s))
	if len(f) == 0 {
		return false
	}
	switch strings.Trim(f[0], ",.:;!?") {
	case "what", "what's", "whats", "how", "how's", "why", "where", "when", "which", "who", "explain", "summarise",
		"summarize", "describe", "does", "is", "are", "was", "were", "did":
		return true
	}
	return false
}

// programOf is the program a proposed shell command runs: its first word
// after sudo/env and VAR=value assignments, lower-cased.
func programOf(q RecallQuery) string {
	cmd := q.Action
	if q.Tool != "" || len(q.Input) > 0 {
		var m map[string]any
		if json.Unmarshal(q.Input, &m) != nil {
			return ""
		}
		switch v := m["command"].(type) {
		case string:
			cmd = v
		case []any:
			var argv []string
			for _, a := range v {
				if s, ok := a.(string); ok {
					argv = append(argv, s)
				}
			}
			cmd = strings.Join(argv, " ")
		default:
			return ""
		}
	}
	for _, f := range strings.Fields(cmd) {
		if f == "sudo" || f == "env" || f == "time" || f == "nice" || strings.Contains(f, "=") || strings.HasPrefix(f, "-") {
			continue
		}
		return strings.ToLower(filepath.Base(f))
	}
	return ""
}

func rcOneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// cueCandidates retrieves the documents that may apply: those whose action
// types or triggers share a type with the cue, and the best lexical matches of
// the cue's words.
func (x *Index) cueCandidates(c *cue) ([]*candidate, error) {
	byPath := map[string]*candidate{}
	var order []*candidate
	add := func(hits []index.Hit, bm25 bool) {
		for _, h := range hits {
			cd, ok := byPath[h.Path]
			if !ok {
				cd = candidateOf(h)
				byPath[h.Path] = cd
				order = append(order, cd)
			}
			if bm25 && h.Score > cd.bm25 {
				cd.bm25 = h.Score
			}
		}
	}
	layers := []string{LayerObservations, LayerLibrary, LayerEpisodes}
	if len(c.types) > 0 {
		var terms []string
		seen := map[string]bool{}
		for _, t := range c.types {
			for _, v := range []string{t, domainVerb(t)} {
				if seen[v] {
					continue
				}
				seen[v] = true
				for _, f := range []string{"action_types", "action_type", "triggers"} {
					terms = append(terms, f+`:"`+v+`"`)
				}
			}
		}
		res, err := x.ix.Search(index.Query{Text: strings.Join(terms, " "), Layers: layers, Limit: typedCandidates, Fields: cueFields})
		if err != nil {
			return nil, fmt.Errorf("recall: %w", err)
		}
		add(res.Hits, false)
	}
	if len(c.words) > 0 {
		res, err := x.ix.Search(index.Query{Text: strings.Join(c.words, " "), Layers: layers, Limit: 60, Fields: cueFields})
		if err != nil {
			return nil, fmt.Errorf("recall: %w", err)
		}
		add(res.Hits, true)
	}
	// Library notes with trigger phrases are few; they are cues too, even
	// when the lexical score ranks them low.
	res, err := x.ix.Search(index.Query{Text: "triggers:*", Layers: []string{LayerLibrary}, Limit: 200, Fields: cueFields})
	if err == nil {
		add(res.Hits, false)
	}
	return order, nil
}

// standingCandidates are the corrections, preferences and conventions a new
// session starts with.
func (x *Index) standingCandidates() ([]*candidate, error) {
	var out []*candidate
	for _, s := range []struct {
		layer string
		types []string
	}{
		{LayerObservations, []string{observations.TypeCorrection, observations.TypePreference}},
		{LayerLibrary, []string{"convention", "preference"}},
	} {
		res, err := x.ix.Search(index.Query{Layers: []string{s.layer}, Types: s.types, Limit: 1000, Fields: cueFields})
		if err != nil {
			return nil, fmt.Errorf("recall: %w", err)
		}
		for _, h := range res.Hits {
			out = append(out, candidateOf(h))
		}
	}
	return out, nil
}

func candidateOf(h index.Hit) *candidate {
	str := func(k string) string { return fieldString(h.Fields[k]) }
	list := func(k string) []string {
		switch v := h.Fields[k].(type) {
		case string:
			return []string{v}
		case []string:
			return v
		case []any:
			var out []string
			for _, e := range v {
				if s, ok := e.(string); ok {
					out = append(out, s)
				}
			}
			return out
		}
		return nil
	}
	num := func(k string) float64 {
		switch v := h.Fields[k].(type) {
		case float64:
			return v
		case []float64:
			if len(v) > 0 {
				return v[0]
			}
		case []any:
			if len(v) > 0 {
				f, _ := v[0].(float64)
				return f
			}
		}
		return 0
	}
	c := &candidate{path: h.Path, id: str("noteid"), layer: h.Layer, typ: h.Type, title: h.Title,
		description: h.Description, status: str("status"), importance: num("importance"), sessions: num("sessions")}
	if c.id == "" {
		c.id = h.ID
	}
	seen := map[string]bool{}
	for _, t := range append(list("action_type"), list("action_types")...) {
		t = strings.ToLower(strings.TrimSpace(t))
		if t != "" && !seen[t] {
			seen[t] = true
			c.types = append(c.types, t)
		}
	}
	for _, t := range list("triggers") {
		lt := strings.ToLower(strings.TrimSpace(t))
		if actionTypeRE.MatchString(lt) {
			if !seen[lt] {
				seen[lt] = true
				c.types = append(c.types, lt)
			}
		} else if lt != "" {
			c.phrases = append(c.phrases, t)
		}
	}
	var parts []string
	for _, k := range []string{"trigger", "lesson", "consequence", "statement", "goal", "approach", "failure", "claim", "chosen"} {
		if s := str(k); s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 || c.layer != LayerObservations {
		parts = append(parts, c.title, c.description)
	}
	c.text = strings.Join(parts, "\n")
	c.projects = list("projects")
	c.trigger = str("trigger")
	if t := c.trigger; t != "" {
		c.lesson = strings.TrimSpace(strings.Replace(c.text, t, "", 1))
	} else {
		c.lesson = c.text
	}
	// Paths count as their file names (see recallpaths.go).
	c.text, c.files = reducePaths(c.text)
	c.lesson, _ = reducePaths(c.lesson)
	return c
}

func domainVerb(t string) string {
	p := strings.SplitN(t, ":", 3)
	if len(p) < 2 {
		return t
	}
	return p[0] + ":" + p[1]
}

// Matching thresholds. An action-type match fires on its own; lexical
// overlap fires only when it is substantial.
const (
	minOverlap       = 3    // distinct shared content stems that fire alone
	minOverlapCov    = 2    // ... or this many, covering minCoverage of the candidate's stems
	minCoverage      = 0.3  //
	typedMismatchMin = 4    // shared stems needed when both sides have action types and none agree
	lexicalWeight    = 0.12 // relevance per shared stem
	// minGeneralOverlap is the word overlap a match on a broader type of
	// the candidate's own domain needs.
	minGeneralOverlap = 2
	// sameFileScore is the relevance of a candidate naming the file the
	// proposal touches.
	sameFileScore = 0.85
)

// lessonOverlap counts the cue's stems in the lesson text.
// Words of the matched action type itself ("git", "push" for git:push)
// are no extra support.
func lessonOverlap(cu *cue, lesson, matched string) int {
	typeWords := stemSet(strings.NewReplacer(":", " ", "-", " ").Replace(matched))
	n := 0
	for s := range stemSet(lesson) {
		if cu.tokens[s] && !typeWords[s] {
			n++
		}
	}
	return n
}

// follows reports whether the proposal only matches c through a type the
// lesson's own advice brought in, while running the program the lesson
// prescribes: "use pnpm run clean" classifies as pkg:npm, and "pnpm test"
// follows that advice rather than repeating the mistake. Types of the
// corrected action itself (those its trigger classifies as) always count.
func (cu *cue) follows(c *candidate) bool {
	if cu.program == "" || cu.tax == nil || c.candAT == "" || c.candAT == c.types[0] {
		return false
	}
	if !stemSet(c.lesson)[cueStem(cu.program)] {
		return false
	}
	for _, t := range cu.tax.ClassifyText(c.trigger) {
		if domainVerb(t) == domainVerb(c.candAT) {
			return false
		}
	}
	return true
}

// advised reports whether the proposal is what a positive lesson asks
// for, matched only through a type the lesson's own words brought in: the
// corrected moment had no action type of its own ("calling ExitPlanMode",
// "when asked to ..."), and the lesson says to do the thing ("First commit
// the changes, then proceed with the plan"), so the agent committing is
// following it. A lesson with a negation ("do not commit the lockfile")
// still fires.
func (cu *cue) advised(c *candidate) bool {
	if c.candAT == "" || cu.tax == nil || c.typ != observations.TypeCorrection || rcCallKind(c.trigger) != "" {
		return false
	}
	for _, t := range cu.tax.ClassifyText(c.trigger) {
		if domainVerb(t) == domainVerb(c.candAT) {
			return false // the corrected moment itself was of this type
		}
	}
	return !negationRE.MatchString(c.lesson)
}

var negationRE = regexp.MustCompile(`(?i)\b(?:not|no|never|don'?t|doesn'?t|didn'?t|won'?t|shouldn'?t|avoid|stop|without|instead)\b`)

// incidental reports whether the only type match is an incidental type of
// the candidate: a secondary type outside the primary type's domain that
// either came with the corrected call (npx made a snapshot correction
// pkg:npm) without the lesson naming it, or came from the lesson's words
// ("committed code" makes git:commit) while the proposal is another kind
// of action than the corrected one (a shell command, not an edit).
func (cu *cue) incidental(c *candidate) bool {
	if c.candAT == "" || len(c.types) == 0 || c.candAT == c.types[0] || typeDomain(c.candAT) == typeDomain(c.types[0]) || cu.tax == nil {
		return false
	}
	fromCall := false
	for _, t := range cu.tax.ClassifyText(c.trigger) {
		if domainVerb(t) == domainVerb(c.candAT) {
			fromCall = true
			break
		}
	}
	if fromCall {
		named := stemSet(strings.NewReplacer(":", " ", "-", " ").Replace(c.candAT))
		for st := range stemSet(c.lesson) {
			if named[st] {
				return false
			}
		}
		return true
	}
	corrected := rcCallKind(c.trigger)
	return cu.kind != "" && corrected != "" && cu.kind != corrected
}

// callKind tells a trigger that quotes an edit ("Edit `path`") from one
// that quotes a shell command; "" when it quotes neither.
func rcCallKind(trigger string) string {
	for _, t := range []string{"Edit `", "Write `", "MultiEdit `", "NotebookEdit `", "apply_patch `"} {
		if strings.Contains(trigger, t) {
			return "edit"
		}
	}
	if strings.Contains(trigger, "`") {
		return "shell"
	}
	return ""
}

func typeDomain(t string) string { d, _, _ := strings.Cut(t, ":"); return d }

func (cu *cue) hasType(t string) bool {
	for _, x := range cu.types {
		if x == t || domainVerb(x) == domainVerb(t) {
			return true
		}
	}
	return false
}

// match scores how well candidate c applies to the cue.
func (cu *cue) match(c *candidate) {
	// (1) action types: exact, or the same domain:verb.
	generalized := false
	for i, pt := range cu.types {
		for j, ct := range c.types {
			s := 0.0
			switch {
			case pt == ct:
				s = 1
			case domainVerb(pt) == domainVerb(ct):
				s = 0.9
			default:
				continue
			}
			gen := false
			if j > 0 {
				s *= 0.85 // a secondary type of the candidate
				// A broader type of the same domain as the candidate's
				// primary one ("running tests" for a lesson about "running
				// the whole suite") is weaker evidence: the proposal is the
				// general case of what was corrected, not the case itself.
				if typeDomain(ct) == typeDomain(c.types[0]) && !cu.hasType(c.types[0]) {
					s *= 0.6
					gen = true
				}
			}
			if i > 0 {
				s *= 0.95
			}
			if s > c.typeScore {
				c.typeScore, c.matchedAT, c.candAT, generalized = s, pt, ct, gen
			}
		}
	}
	// Trigger phrases: every content word of the phrase is in the cue.
	for _, p := range c.phrases {
		st := stemSet(p)
		if len(st) == 0 {
			continue
		}
		all := true
		for s := range st {
			if !cu.tokens[s] {
				all = false
				break
			}
		}
		if all && c.typeScore < 0.9 {
			c.typeScore, c.phraseHit = 0.9, p
		}
	}
	// The same file, named by the proposal and by the candidate's trigger
	// or lesson: a lesson about that file.
	if f := sameFile(c.files, cu.files); f != "" && !cu.readOnly && c.typeScore < sameFileScore {
		c.typeScore, c.fileHit = sameFileScore, f
	}
	// (2) lexical overlap, as a precision check on lexical retrieval. The
	// trigger of a typed candidate quotes the corrected command: its
	// words (flags, program names) are what the action type already
	// compared, so only the lesson's words count.
	cs := stemSet(c.text)
	if len(c.types) > 0 && c.trigger != "" {
		cs = stemSet(c.lesson)
	}
	for s := range cs {
		if cu.tokens[s] {
			c.overlap = append(c.overlap, s)
		}
	}
	sort.Strings(c.overlap)
	n := len(c.overlap)
	cov := 0.0
	if len(cs) > 0 {
		cov = float64(n) / float64(len(cs))
	}
	if c.typeScore > 0 && (generalized && lessonOverlap(cu, c.lesson, c.matchedAT) < minGeneralOverlap || cu.follows(c) || cu.incidental(c) || cu.advised(c) ||
		cu.question && lessonOverlap(cu, c.lesson, c.matchedAT) == 0) {
		// A rejected type match is not rescued by the words the
		// proposal shares with the quoted command of the trigger.
		c.typeScore, c.matchedAT, c.candAT = 0, "", ""
		c.rejected = true
		return
	}
	need := minOverlap
	if len(cu.types) > 0 && len(c.types) > 0 && c.typeScore == 0 {
		need = typedMismatchMin
	}
	c.lexicalHit = !cu.readOnly && n >= need || (!cu.readOnly && n >= minOverlapCov && cov >= minCoverage && need == minOverlap)
	switch {
	case c.typeScore > 0:
		c.relevance = c.typeScore + lexicalWeight*math.Min(float64(n), 4)
	case c.lexicalHit:
		c.relevance = math.Min(0.8, lexicalWeight*float64(n)+0.5*cov)
	}
}

// renderItem loads the candidate's file and writes its imperative line.
func (k *KB) renderItem(c *candidate, cu *cue, q RecallQuery, high map[string]bool, now time.Time) (RecallItem, bool) {
	it := RecallItem{ID: c.id, Type: c.typ, Path: c.path}
	abs, err := k.Path(c.path)
	if err != nil {
		return it, false
	}
	var (
		o        *observations.Observation
		d        *doc.Document
		lastSeen time.Time
	)
	if c.layer == LayerObservations {
		f, prob := readObsFile(abs, c.path)
		if prob != nil {
			return it, false
		}
		o = f.Obs
		if o.AgentAuthored() {
			if q.Standing && o.NeedsReview() {
				return it, false // a new session starts with the person's lessons only
			}
			it.Author, it.Unreviewed = observations.AuthorAgent, o.NeedsReview()
			it.Reasons = append(it.Reasons, strings.ToLower(o.AuthorLabel()[:1])+o.AuthorLabel()[1:])
		}
		lastSeen = o.LastSeen
		if lastSeen.IsZero() {
			lastSeen = o.FirstSeen
		}
	} else {
		b, err := fsx.ReadFileNoFollow(abs) // abs passed k.Path: no link out on the way
		if err != nil {
			return it, false
		}
		if d, err = doc.ParseFrontmatter(c.path, b); err != nil {
			return it, false
		}
		if t, err := d.UpdatedTime(); err == nil {
			lastSeen = t
		} else if t, err := d.CreatedTime(); err == nil {
			lastSeen = t
		}
	}
	it.Kind = kindOf(c.layer, c.typ)
	if it.Kind == "" {
		return it, false
	}
	// Reasons.
	if c.matchedAT != "" {
		if c.matchedAT == c.candAT {
			it.Reasons = append(it.Reasons, "action type "+c.matchedAT+" matches")
		} else {
			it.Reasons = append(it.Reasons, "action type "+c.matchedAT+" matches "+c.candAT)
		}
		it.ActionType = c.matchedAT
		it.HighConsequence = high[c.matchedAT] || high[c.candAT]
	}
	if c.fileHit != "" {
		it.Reasons = append(it.Reasons, "same file: "+c.fileHit)
	}
	if c.otherProject {
		it.Reasons = append(it.Reasons, "from another project: "+strings.Join(c.projects, ", "))
	}
	if c.phraseHit != "" {
		it.Reasons = append(it.Reasons, fmt.Sprintf("trigger %q matches", c.phraseHit))
	}
	if c.semantic > 0 {
		it.Reasons = append(it.Reasons, fmt.Sprintf("semantic similarity %.2f", c.semantic))
	}
	if len(c.overlap) > 0 && !q.Standing {
		var w []string
		for _, s := range c.overlap {
			if len(w) < 6 {
				w = append(w, cu.wordOf[s])
			}
		}
		it.Reasons = append(it.Reasons, "trigger words: "+strings.Join(w, ", "))
	}
	sessions := c.sessions
	if o != nil && o.Sessions > 0 {
		sessions = float64(o.Sessions)
	}
	if sessions > 1 {
		it.Reasons = append(it.Reasons, fmt.Sprintf("seen in %d sessions", int(sessions)))
	}
	if q.Standing {
		it.Reasons = append(it.Reasons, "standing "+strings.TrimSuffix(it.Kind, "s"))
	}
	// Priority: relevance x recency x consequence x frequency.
	recency := 1.0
	if !lastSeen.IsZero() {
		age := now.Sub(lastSeen).Hours() / 24
		if age < 0 {
			age = 0
		}
		recency = 0.5 + 0.5*math.Exp(-age/90)
	}
	imp := c.importance
	if o != nil && o.Importance > 0 {
		imp = o.Importance
	}
	if imp <= 0 {
		imp = 0.5
	}
	consequence := 0.5 + imp
	if it.HighConsequence {
		consequence *= 1.3
		it.Reasons = append(it.Reasons, "high-consequence action")
	}
	freq := 1 + math.Log(math.Max(1, sessions))
	it.Score = math.Round(c.relevance*recency*consequence*freq*1000) / 1000
	it.Text, it.Lesson = itemText(c, o, d, cu, q)
	if it.Text == "" {
		return it, false
	}
	it.Text += " [" + c.id + "]"
	return it, true
}

func kindOf(layer, typ string) string {
	switch layer {
	case LayerObservations:
		switch typ {
		case observations.TypeCorrection:
			return KindCorrections
		case observations.TypePreference:
			return KindPreferences
		case observations.TypeProcedure:
			return KindProcedures
		case observations.TypeNegativeResult:
			return KindPrecedents
		}
		return "" // decisions, discoveries, questions: searched, not pushed
	case LayerEpisodes:
		return KindPrecedents
	case LayerLibrary:
		return KindLibrary
	}
	return ""
}

// itemText is the imperative line of an item and its bare lesson.
func itemText(c *candidate, o *observations.Observation, d *doc.Document, cu *cue, q RecallQuery) (string, string) {
	clip := func(s string, n int) string { return truncate(rcOneLine(s), n) }
	if o.AgentAuthored() {
		// The agent's words, never phrased as the person's correction or
		// preference, and no lesson a hook could act on.
		state := "reviewed"
		if o.NeedsReview() {
			state = "unreviewed"
		}
		what := clip(o.Summary(), 300)
		if what == "" {
			return "", ""
		}
		return fmt.Sprintf("The agent noted (%s, not the person's words): %s", state, what), ""
	}
	if o != nil {
		switch o.Type {
		case observations.TypeCorrection:
			lesson := clip(o.Lesson, 300)
			if lesson == "" {
				return "", ""
			}
			if o.Consequence != "" && !strings.Contains(strings.ToLower(lesson), strings.ToLower(o.Consequence)) {
				lesson = strings.TrimRight(lesson, ".") + " (" + clip(o.Consequence, 120) + ")."
			}
			where := correctedIn(o)
			if c.matchedAT != "" && cu.action != "" && !q.Standing {
				return fmt.Sprintf("You are about to %s. %s this was corrected: %s", cu.action, rcCapitalize(where), lesson), lesson
			}
			trig := clip(o.Trigger, 140)
			if trig == "" {
				trig = "this kind of change"
			} else if d, ex, ok := strings.Cut(trig, ": "); ok && strings.HasPrefix(strings.TrimLeft(ex, "EditWrt "), "`") {
				trig = d + " (like " + ex + ")" // "committing (like `git commit -m x`)"
			}
			return fmt.Sprintf("BEFORE %s: %s (corrected %s)", trig, lesson, where), lesson
		case observations.TypePreference:
			if o.Statement == "" {
				return "", ""
			}
			return "PREFER: " + clip(o.Statement, 250), clip(o.Statement, 250)
		case observations.TypeProcedure:
			if len(o.Steps) == 0 {
				return "", ""
			}
			goal := clip(o.Goal, 100)
			if goal == "" {
				goal = clip(o.Title, 100)
			}
			return fmt.Sprintf("TO %s: %s", goal, clip(strings.Join(o.Steps, " → "), 250)), ""
		case observations.TypeNegativeResult:
			if o.Approach == "" {
				return "", ""
			}
			s := "AVOID: " + clip(o.Approach, 160)
			if o.Failure != "" {
				s += " (failed: " + clip(o.Failure, 120) + ")"
			}
			if o.FollowedBy != "" {
				s += "; instead: " + clip(o.FollowedBy, 120)
			}
			return s, ""
		}
		return "", ""
	}
	if d == nil {
		return "", ""
	}
	title := clip(d.Title, 100)
	if title == "" {
		title = c.id
	}
	desc := clip(d.Description, 250)
	if desc == "" {
		desc = clip(rcFirstParagraph(d.Body), 250)
	}
	label := strings.ToUpper(d.Type)
	switch d.Type {
	case "convention":
		label = "CONVENTION"
	case "procedure":
		label = "PROCEDURE"
	case "preference":
		label = "PREFER"
	case "adr":
		label = "DECISION"
	case "":
		label = "NOTE"
	}
	if c.layer == LayerEpisodes {
		label = "PRECEDENT"
	}
	if desc == "" {
		return label + ": " + title, title
	}
	return label + " " + title + ": " + desc, desc
}

func rcFirstParagraph(body string) string {
	for _, p := range strings.Split(strings.TrimSpace(body), "\n\n") {
		p = strings.TrimSpace(p)
		if p != "" && !strings.HasPrefix(p, "#") {
			return p
		}
	}
	return ""
}

// correctedIn says where a correction came from: "in session 6f1c0d3e…, 2 times".
func correctedIn(o *observations.Observation) string {
	var sess []string
	seen := map[string]bool{}
	for _, s := range o.Sources {
		if !seen[s.Session] {
			seen[s.Session] = true
			sess = append(sess, s.Session)
		}
	}
	n := max(o.Sessions, len(sess))
	switch {
	case len(sess) == 0:
		return "before"
	case n <= 1:
		return "in session " + rcShortSession(sess[len(sess)-1])
	default:
		return fmt.Sprintf("in session %s, %d times", rcShortSession(sess[len(sess)-1]), n)
	}
}

func rcShortSession(s string) string {
	if len(s) > 8 {
		return s[:8] + "…"
	}
	return s
}

func rcCapitalize(s string) string {
	for i, r := range s {
		return string(unicode.ToUpper(r)) + s[i+len(string(r)):]
	}
	return s
}

// packBudget keeps the best items within the total budget: each kind first
// fills its reserved share (recall.budgets, scaled to the total), then the
// remaining tokens go to the best leftover items of any kind. The header and
// footer of the markdown block are counted.
func packBudget(items []RecallItem, budget int, shares map[string]int) ([]RecallItem, int) {
	if len(items) == 0 {
		return []RecallItem{}, 0
	}
	limit := budget*4 - len(recallHeader) - len(recallFooter) // characters
	sum := 0
	for _, kd := range recallKinds {
		sum += max(0, shares[kd])
	}
	reserved := map[string]int{}
	for _, kd := range recallKinds {
		if sum > 0 {
			reserved[kd] = max(0, shares[kd]) * limit / max(sum, 1)
			if sum < budget { // shares smaller than the total: keep them as written
				reserved[kd] = max(0, shares[kd]) * 4
			}
		}
	}
	cost := func(it RecallItem) int { return len(it.Text) + 3 }
	used, total := map[string]int{}, 0
	take := make([]bool, len(items))
	for i, it := range items {
		c := cost(it)
		if used[it.Kind]+c <= reserved[it.Kind] && total+c <= limit {
			take[i] = true
			used[it.Kind] += c
			total += c
		}
	}
	for i, it := range items {
		if take[i] {
			continue
		}
		if c := cost(it); total+c <= limit {
			take[i] = true
			total += c
		}
	}
	out := []RecallItem{}
	dropped := 0
	for i, it := range items {
		if take[i] {
			out = append(out, it)
		} else {
			dropped++
		}
	}
	return out, dropped
}

// ---------------------------------------------------------------------------
// Tokens for lexical matching: lower-cased words, stop words dropped, light
// stemming. The index's own analyzer and scoring (bleve tf-idf) do retrieval; these decide precision.

func cueWords(s string) []string {
	if len(s) > 20000 {
		s = s[:20000]
	}
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r))
	})
	out := f[:0]
	for _, w := range f {
		if len(w) < 2 || len(w) > 40 || cueStop[w] {
			continue
		}
		if rcDigits(w) && len(w) < 3 {
			continue
		}
		out = append(out, w)
	}
	return out
}

func rcDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func cueStem(w string) string {
	n := len(w)
	switch {
	case n > 6 && strings.HasSuffix(w, "ations"):
		w = w[:n-6] + "ate"
	case n > 5 && strings.HasSuffix(w, "ation"):
		w = w[:n-5] + "ate"
	case n > 6 && strings.HasSuffix(w, "ings"):
		w = w[:n-4]
	case n > 5 && strings.HasSuffix(w, "ing"):
		w = w[:n-3]
	case n > 4 && (strings.HasSuffix(w, "ies") || strings.HasSuffix(w, "ied")):
		w = w[:n-3] + "y"
	case n > 4 && strings.HasSuffix(w, "ed"):
		w = w[:n-2]
	case n > 4 && (strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "xes") ||
		strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "zes")):
		w = w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:n-1]
	}
	if len(w) > 4 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}

func stemSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range cueWords(s) {
		if st := cueStem(w); st != "" {
			out[st] = true
		}
	}
	return out
}

var cueStop = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if then else of to in on at by for with from into onto as is are was were be been being
		it its this that these those there here we you your our us i me my he she they them their do does did done doing not no nor
		so than too very can could should would will shall may might must just also only about after before again all any both
		each few more most other some such own same what which who whom when where why how up down out over under off
		go md go's let lets use used using make made get got run ran need needs want wants please thanks ok okay
		new add adds added file files code thing things way like instead never always don doesn didn won isn aren wasn
		s t d ll re ve m www http https com org net home tmp usr etc`) {
		m[w] = true
	}
	return m
}()

// ---------------------------------------------------------------------------
// The optional embeddings layer (embeddings.enabled in kb.yaml): candidates
// no cue matched are compared with the cue by cosine similarity of their
// embeddings. Vectors are cached under .index/embeddings/, one file per
// text, so each text is embedded once per model.

const (
	// semanticThreshold is the cosine similarity that counts as a match.
	semanticThreshold = 0.75
	// maxSemanticPool bounds the extra candidates the layer considers
	// besides those the cue retrieved.
	maxSemanticPool = 300
	maxEmbedText    = 2000
	embedTimeout    = 3 * time.Second
	embeddingsDir   = "embeddings"
)

// semanticPool adds the observations and library notes of the kinds recall
// surfaces, up to maxSemanticPool, to the cue's candidates.
func (x *Index) semanticPool(cands []*candidate) []*candidate {
	seen := map[string]bool{}
	for _, c := range cands {
		seen[c.path] = true
	}
	res, err := x.ix.Search(index.Query{Layers: []string{LayerObservations, LayerLibrary},
		Types: []string{observations.TypeCorrection, observations.TypePreference, observations.TypeProcedure, observations.TypeNegativeResult,
			"convention", "procedure", "preference", "pattern"}, Limit: maxSemanticPool, Fields: cueFields})
	if err != nil {
		return cands
	}
	for _, h := range res.Hits {
		if !seen[h.Path] {
			seen[h.Path] = true
			cands = append(cands, candidateOf(h))
		}
	}
	return cands
}

// matchSemantic sets the relevance of the candidates whose text embeds
// close to the cue.
func (x *Index) matchSemantic(ctx context.Context, cu *cue, cands []*candidate) error {
	cfg := x.k.Config.Embeddings
	emb, err := llm.NewEmbedder(llm.EmbedConfig{BaseURL: cfg.BaseURL, Model: cfg.Model, APIKeyEnv: cfg.APIKeyEnv, Timeout: embedTimeout})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, embedTimeout)
	defer cancel()
	texts := []string{cu.text}
	for _, c := range cands {
		texts = append(texts, truncate(c.text, maxEmbedText))
	}
	vecs, err := x.k.embedCached(ctx, emb, cfg.Model, texts)
	if err != nil {
		return err
	}
	for i, c := range cands {
		sim := llm.Cosine(vecs[0], vecs[i+1])
		if sim >= semanticThreshold {
			c.semantic = math.Round(sim*100) / 100
			c.relevance = sim - 0.25
		}
	}
	return nil
}

// embedCached returns one vector per text, embedding only the texts whose
// vector is not cached yet.
func (k *KB) embedCached(ctx context.Context, emb llm.Embedder, model string, texts []string) ([][]float32, error) {
	mh := sha256.Sum256([]byte(model))
	dir := filepath.Join(k.Root, IndexDir, embeddingsDir, hex.EncodeToString(mh[:])[:12])
	out := make([][]float32, len(texts))
	var missing []int
	paths := make([]string, len(texts))
	for i, t := range texts {
		h := sha256.Sum256([]byte(t))
		paths[i] = filepath.Join(dir, hex.EncodeToString(h[:])[:32]+".f32")
		if v, ok := rcReadVector(paths[i]); ok {
			out[i] = v
		} else {
			missing = append(missing, i)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	batch := make([]string, len(missing))
	for j, i := range missing {
		batch[j] = texts[i]
	}
	vecs, err := emb.Embed(ctx, batch)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(batch) {
		return nil, fmt.Errorf("%d vectors for %d texts", len(vecs), len(batch))
	}
	if err := k.files().MkdirAll(dir); err != nil {
		return nil, err
	}
	for j, i := range missing {
		out[i] = vecs[j]
		buf := make([]byte, 4*len(vecs[j]))
		for d, f := range vecs[j] {
			binary.LittleEndian.PutUint32(buf[4*d:], math.Float32bits(f))
		}
		if err := k.files().WriteFile(paths[i], buf, 0o644); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func rcReadVector(p string) ([]float32, bool) {
	b, err := fsx.ReadFileNoFollow(p)
	if err != nil || len(b) == 0 || len(b)%4 != 0 {
		return nil, false
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, true
}
