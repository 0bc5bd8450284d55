package observations

import (
	"encoding/json"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/kbmem/kb/internal/lexicon"
	"github.com/kbmem/kb/traces"
)

// Session is one agent session's records, in Seq order.
type Session struct {
	ID      string
	Records []traces.Record
}

// Extractor is one narrow, schema-constrained extractor for one
// observation type.
type Extractor interface {
	Type() string
	Extract(s *Session) []*Observation
}

// Extractors returns the per-session extractors for types (all per-session
// types when types is empty), using taxonomy tax (the default when nil).
// Procedures are mined across sessions by Procedures, not here.
func Extractors(tax *Taxonomy, types []string) []Extractor {
	if tax == nil {
		tax = defaultTaxonomy()
	}
	all := []Extractor{
		&correctionExtractor{tax}, &preferenceExtractor{tax}, &decisionExtractor{tax},
		&negativeExtractor{tax}, &discoveryExtractor{tax}, &questionExtractor{tax},
	}
	if len(types) == 0 {
		return all
	}
	var out []Extractor
	for _, e := range all {
		for _, t := range types {
			if e.Type() == t {
				out = append(out, e)
			}
		}
	}
	return out
}

// MaxPerRecords bounds extraction: a session yields at most one observation
// per this many records (but at least minCap), the most important kept.
const (
	MaxPerRecords = 10
	minCap        = 6
)

// Extract runs the narrow extractors for types (all when empty) over s,
// merges near-duplicates, fills the common fields (ID, lifecycle, status,
// sessions, first/last seen) and caps the count at one observation per
// MaxPerRecords records. Corrections are never dropped by the cap.
func Extract(s *Session, tax *Taxonomy, types []string) []*Observation {
	if s == nil || len(s.Records) == 0 {
		return nil
	}
	var obs []*Observation
	for _, e := range Extractors(tax, types) {
		obs = append(obs, e.Extract(s)...)
	}
	for _, o := range obs {
		finish(o)
	}
	obs = Dedupe(obs)
	limit := max(minCap, (len(s.Records)+MaxPerRecords-1)/MaxPerRecords)
	if len(obs) > limit {
		sort.SliceStable(obs, func(i, j int) bool {
			ci, cj := obs[i].Type == TypeCorrection, obs[j].Type == TypeCorrection
			if ci != cj {
				return ci
			}
			return obs[i].Importance*obs[i].Confidence > obs[j].Importance*obs[j].Confidence
		})
		keep := limit
		for keep < len(obs) && obs[keep].Type == TypeCorrection {
			keep++
		}
		obs = obs[:keep]
		sort.SliceStable(obs, func(i, j int) bool { return firstFrom(obs[i]) < firstFrom(obs[j]) })
	}
	return obs
}

func firstFrom(o *Observation) int {
	if len(o.Sources) == 0 {
		return 0
	}
	return o.Sources[0].From
}

// finish fills the fields every observation shares.
func finish(o *Observation) {
	if o.Lifecycle == "" {
		o.Lifecycle = LifecycleOf(o.Type)
	}
	if o.Status == "" {
		o.Status = StatusCandidate
	}
	o.Sessions = distinctSessions(o.Sources)
	for _, s := range o.Sources {
		o.FirstSeen = minTime(o.FirstSeen, s.Time)
		o.LastSeen = maxTime(o.LastSeen, s.Time)
	}
	if len(o.ActionTypes) > 0 && o.ActionType == "" {
		o.ActionType = o.ActionTypes[0]
	}
	o.Confidence = clamp01(o.Confidence)
	o.Importance = clamp01(o.Importance)
	if o.ID == "" {
		o.ID = o.MakeID()
	}
}

// ---------------------------------------------------------------------------
// The session timeline: what the person said and did, and what the agent did
// in between.

// utterance is text the person produced: a message they typed, or the
// reason they gave when refusing a tool call.
type utterance struct {
	idx    int // record index
	text   string
	reason bool // typed as a tool-call rejection reason

	// what happened since the previous utterance
	calls       []int // agent tool calls
	rejected    []int // indexes of rejected tool calls
	interrupted bool
	assistant   []int // agent text messages
	prev        int   // index of the previous utterance in the list, -1 if none
}

type timeline struct {
	s     *Session
	utts  []utterance
	byID  map[string]int // call id -> record index
	after map[int][]int  // utterance i -> records until the next utterance
}

var (
	harnessTextRE = lazyRegexp(`^(<command-|<local-command|<bash-|<system-reminder>|Caveat: |\[Request interrupted|This session is being continued)`)
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

func buildTimeline(s *Session) *timeline {
	tl := &timeline{s: s, byID: map[string]int{}, after: map[int][]int{}}
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
		case r.Human() && !r.Has(traces.MarkSlash) && !r.Has(traces.MarkCompaction):
			text := cleanHuman(r.Text)
			if text == "" || harnessTextRE.MatchString(text) {
				continue
			}
			tl.push(&cur, i, text, false)
		case isAgentText(r):
			cur.assistant = append(cur.assistant, i)
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
	u.idx, u.text, u.reason = idx, prose(cleanHuman(text)), reason
	u.prev = len(tl.utts) - 1
	if u.text == "" {
		return
	}
	if reason && len(u.rejected) == 0 && len(u.calls) > 0 {
		u.rejected = []int{u.calls[len(u.calls)-1]}
	}
	tl.utts = append(tl.utts, u)
	*cur = utterance{prev: len(tl.utts) - 1}
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

// lastAgentText returns the text of the last agent message before u.
func (tl *timeline) lastAgentText(u *utterance) string {
	if len(u.assistant) == 0 {
		return ""
	}
	return tl.rec(u.assistant[len(u.assistant)-1]).Text
}

// ---------------------------------------------------------------------------
// Cues.

var (
	// Leading interjections and fillers that carry no instruction.
	leadRE = lazyRegexp(`(?i)^\s*(oh|ah|hmm+|hm+|ugh|argh|wait( a (sec|second|minute))?|ok(ay)?|well|so|sorry|actually|uh|um|err|hey|look|listen|nope|nah|no+|wrong|incorrect|absolutely not|definitely not|certainly not|not like that|not that|stop( it)?|again|seriously|come on|please no|fgs|ffs|(as )?i (told you|said)( (before|already|earlier|last (week|time)|twice))?)\b\s*[,.!:;—–-]*\s*`)
	// A strong redirect at the start of a message.
	strongStartRE = lazyRegexp(`(?i)^\s*((oh|hmm+|ugh|wait|well|sorry|actually)[,.! ]+)?(no+\b|nope\b|nah\b|don'?t\b|do not\b|never\b|stop\b|wrong\b|incorrect\b|not like that|not that\b|absolutely not|definitely not|please (don'?t|do not|stop|never|no)\b|that'?s (wrong|not (what|right|it|how))|this is (wrong|not (what|right|how))|that is (wrong|not)|this isn'?t|that isn'?t|undo (that|this|it)|revert (that|this|it)|why (did|would|are) you|i (said|told you|asked( you)?)\b|as i said|you (should(n'?t)?|forgot|missed|didn'?t|broke)\b|instead\b|rather\b|use \S+( \S+)? (instead|not)\b)`)
	// Conversation closers and acknowledgements after "no".
	closerRE        = lazyRegexp(`(?i)^\s*(no+|nope|nah)\b[,.! ]*(thanks|thank you|that'?s (all|it|fine|great|everything)|worries|problem|prob|need|rush|all good|looks good|it'?s (fine|ok|okay|good|all good)|more|further|other|i'?m good|we'?re good|questions?|not (now|yet|really)|just curious|that'?s (ok|okay))\b`)
	imperativeNegRE = lazyRegexp(`(?i)(^|[,;:.!]\s*|\b(and|but|please|so|just|we|you)\s+)(don'?t|do not|never|always)\s+\w+`)
	ohNoRE          = lazyRegexp(`(?i)^\s*(oh|uh|ah)[,]?\s+no+\b`)
	holdOnRE        = lazyRegexp(`(?i)^\s*(wait|hold on|hang on)\b`)
	neverMindRE     = lazyRegexp(`(?i)^\s*(never ?mind|nvm|forget (it|that|about it)|scratch that)\b`)
	// Redirect cues anywhere in a message.
	moderateRE = lazyRegexp(`(?i)\binstead\b|\brather than\b|\bi (said|told you)\b|\bnot what i (asked|wanted|meant)\b|\bthat'?s not (what|how)\b|\byou (should(n'?t)?|forgot|missed)\b|(^|[.!;:,]\s*|\b(and|but|please|so|just)\s+)(don'?t|do not|never|always|stop)\s+\w+|\bi don'?t (want|like)\b|\bwe don'?t (need|want|use)\b|\bdo we (even|really) need\b|\bwhy (not|did you|would you)\b`)
	// Yes/no answer at the start of a message.
	yesNoRE = lazyRegexp(`(?i)^\s*(no+|nope|nah|yes|yeah|yep|sure|correct|right)\b`)
	// The agent asking the person something.
	askedRE = lazyRegexp(`(?i)(\?\s*$|\b(would you like|do you want|should i|shall i|want me to|let me know if|which (one|option) would you)\b)`)
	// Instruction shapes.
	directiveStartRE   = lazyRegexp(`(?i)^\s*((please|just|first|then|also|and|but|so|instead|now|ok(ay)?|always|never|only)[,]?\s+)*(use|run|add|remove|delete|change|keep|put|make|call|read|write|fix|move|rename|stage|commit|push|check|try|set|install|update|revert|undo|stop|go|do|don'?t|avoid|leave|skip|wait|switch|follow|replace|create|save|drop|split|merge|test|look|ask|start|restore|copy|include|exclude|pass|return|store|load|wrap|handle|log|pin|bump|upgrade|downgrade|edit|modify|open|close|prefer|consider|stick|take|pick|choose|print|show|hide|ignore|mark|point|import|export|define|implement|refactor|simplify|extract|inline|combine|reuse|group|sort|order|limit|format|document|annotate|let'?s|lets|read|verify|ensure|make sure|remember|no\s+\w+|never|always|only|build|deploy|generate|regenerate|clean|lint|mock|separate|batch|retry|cache|fetch|send|parse|validate|escape|quote|sanitize|use)\b`)
	directiveAnyRE     = lazyRegexp(`(?i)\b(instead|rather than|should|shouldn'?t|need to|needs to|have to|has to|must|i want|i'?d like|i would like|i'?d love|i'?d prefer|i'?d rather|i prefer|i don'?t want|we use|we don'?t|we never|we always|let'?s|please|do we (even |really )?need|why not|can'?t we|could we|can we|how about|what about|avoid|from now on|going forward|you can|you could|you might want to|we can|i think we should|which is (less|more|simpler|easier|better))\b`)
	frustrationRE      = lazyRegexp(`(?i)(\bagain\b|\bi told you\b|\bi (already )?said\b|\balready (told|said|asked)\b|\bhow many times\b|\bfor the last time\b|\bseriously\b|\bffs\b|\bfgs\b|\bwtf\b|\bcome on\b|\bugh\b|\bannoying\b|!!|\?!|:\()`)
	severityRE         = lazyRegexp(`(?i)\b(never|always|absolutely|critical|dangerous|data loss|lose data|security|insecure|vulnerab\w*|injection|production|prod|under no circumstances|corrupt\w*|leak\w*|outage|irreversible|destroy\w*|must)\b`)
	markerRE           = lazyRegexp(`(?i)\b(write this down|note (that|to self)|TIL|today i learned|turns out|it turns out|interesting|good to know|remember (that|this)|keep in mind|worth remembering|important:|this is important|good to keep|make a note)\b`)
	reasonCueRE        = lazyRegexp(`(?i)\b(because|since|otherwise|so that|it breaks|that breaks|will break|breaks|causes|caused|takes \d+|leads to|results in|which means|security|injection|data loss)\b`)
	becauseRE          = lazyRegexp(`(?i)[,;]?\s*\b(because|since|as otherwise|otherwise)\b\s+(.+)$`)
	consequenceStartRE = lazyRegexp(`(?i)^(that'?s|this is|it'?s|it is|that is|that would|this would|it would|that will|this will|it will|it breaks|that breaks|this breaks|the (full|whole) \w+)\b`)
)

// firstWords returns the first n words of s, lower-cased.
func firstWords(s string, n int) []string {
	f := strings.Fields(strings.ToLower(s))
	if len(f) > n {
		f = f[:n]
	}
	return f
}

func isDirective(text string) bool {
	if directiveAnyRE.MatchString(text) || imperativeNegRE.MatchString(text) {
		return true
	}
	for _, s := range sentences(text) {
		if directiveStartRE.MatchString(s) || directiveStartRE.MatchString(strings.TrimSpace(leadRE.ReplaceAllString(s, ""))) {
			return true
		}
	}
	return false
}

// ---------------------------------------------------------------------------
// Corrections.

type correctionExtractor struct{ tax *Taxonomy }

func (*correctionExtractor) Type() string { return TypeCorrection }

// correctionStrength judges whether utterance u redirects what the agent
// just did. It returns 0 when it does not, otherwise the confidence.
func correctionStrength(tl *timeline, u *utterance, tax *Taxonomy) (float64, []string) {
	text := u.text
	if len(strings.Fields(text)) < 2 && !u.reason {
		return 0, nil
	}
	if closerRE.MatchString(text) || neverMindRE.MatchString(text) {
		return 0, nil
	}
	hadAction := len(u.calls) > 0 || len(u.assistant) > 0
	if !hadAction && !u.reason {
		return 0, nil
	}
	var signals []string
	if len(u.rejected) > 0 || u.reason {
		signals = append(signals, SignalRejection)
	}
	if u.interrupted {
		signals = append(signals, SignalInterrupt)
	}
	refused := len(signals) > 0
	strong := strongStartRE.MatchString(text) && !ohNoRE.MatchString(text)
	directive := isDirective(text)
	if strong {
		signals = append(signals, SignalExplicitCorrection)
	}
	// Answering a question the agent asked is not a correction.
	if !refused && yesNoRE.MatchString(text) && askedRE.MatchString(strings.TrimSpace(tl.lastAgentText(u))) &&
		len(u.calls) == 0 {
		return 0, nil
	}
	switch {
	case refused && (strong || directive):
		return 0.9, signals
	case refused && len(strings.Fields(text)) >= 3 && !strings.HasSuffix(strings.TrimSpace(text), "?") && relevant(tl, u, tax):
		return 0.7, signals
	case strong && directive:
		return 0.8, signals
	case strong && len(u.calls) > 0 && relevant(tl, u, tax):
		return 0.7, signals
	case holdOnRE.MatchString(text) && directive && len(u.calls) > 0:
		return 0.65, append(signals, SignalExplicitCorrection)
	case moderateRE.MatchString(text) && directive && len(u.calls) > 0 &&
		!requestRE.MatchString(stripLead(text, true)) && relevant(tl, u, tax):
		return 0.65, append(signals, SignalExplicitCorrection)
	}
	return 0, nil
}

// relevant reports whether u talks about what the agent just did: shared
// action types, or words shared with the last calls' commands and paths.
func relevant(tl *timeline, u *utterance, tax *Taxonomy) bool {
	tt := tax.ClassifyText(u.text)
	ws := contentStems(u.text)
	calls := u.calls
	if len(calls) > 3 {
		calls = calls[len(calls)-3:]
	}
	for _, c := range calls {
		r := tl.rec(c)
		for _, t := range tax.ClassifyCall(r.Tool, r.Input) {
			if slices.Contains(tt, t) {
				return true
			}
		}
		cw := contentStems(callWords(r))
		for w := range ws {
			if len(w) >= 4 && cw[w] {
				return true
			}
		}
	}
	return false
}

// callWords returns the command, paths and short string arguments of a call
// as text.
func callWords(r *traces.Record) string {
	var m map[string]any
	if json.Unmarshal(r.Input, &m) != nil {
		return r.Tool + " " + shorten(string(r.Input), 200)
	}
	var b strings.Builder
	b.WriteString(r.Tool)
	for _, k := range []string{"command", "cmd", "file_path", "path", "pattern", "url", "query", "description"} {
		switch v := m[k].(type) {
		case string:
			b.WriteString(" " + shorten(v, 300))
		case []any:
			for _, x := range v {
				if s, ok := x.(string); ok {
					b.WriteString(" " + s)
				}
			}
		}
	}
	return b.String()
}

func (e *correctionExtractor) Extract(s *Session) []*Observation {
	tl := buildTimeline(s)
	var out []*Observation
	for k := range tl.utts {
		u := &tl.utts[k]
		conf, signals := correctionStrength(tl, u, e.tax)
		if conf == 0 {
			continue
		}
		lesson, consequence := lessonFrom(u.text)
		if len(strings.Fields(lesson)) < 2 {
			continue
		}
		call := correctedCall(tl, u, e.tax)
		var types []string
		trigger := ""
		from := u.idx
		if call >= 0 {
			r := tl.rec(call)
			types = e.tax.ClassifyCall(r.Tool, r.Input)
			trigger = describeCall(r, types, e.tax)
			from = call
		} else if u.prev >= 0 {
			trigger = "when asked to " + shorten(lowerFirst(tl.utts[u.prev].text), 90)
		}
		types = unionStrings(types, e.tax.ClassifyText(lesson+" "+consequence))
		if len(types) > 8 {
			types = types[:8]
		}
		if frustrationRE.MatchString(u.text) {
			signals = append(signals, SignalFrustration)
		}
		if severityRE.MatchString(u.text) {
			signals = append(signals, SignalSeverity)
		}
		if markerRE.MatchString(u.text) {
			signals = append(signals, SignalMarker)
		}
		rework := reworkCount(tl, k)
		if rework >= 4 {
			signals = append(signals, SignalRework)
		}
		o := &Observation{
			Type:        TypeCorrection,
			Title:       shorten(lesson, 80),
			Trigger:     trigger,
			ActionTypes: types,
			Lesson:      lesson,
			Consequence: consequence,
			Confidence:  conf,
			Importance:  correctionImportance(signals, rework),
			Signals:     signals,
			Sources:     []SourceRef{tl.sourceRef(from, u.idx)},
			Excerpt:     correctionExcerpt(tl, call, u),
		}
		if trigger != "" {
			o.Description = "Correction after " + trigger
		} else {
			o.Description = "Correction: " + shorten(lesson, 100)
		}
		out = append(out, o)
	}
	return out
}

// correctedCall picks the tool call a correction is about: the refused one,
// else the last call that does something classifiable, else the last call.
func correctedCall(tl *timeline, u *utterance, tax *Taxonomy) int {
	if len(u.rejected) > 0 {
		return u.rejected[len(u.rejected)-1]
	}
	for i := len(u.calls) - 1; i >= 0 && i >= len(u.calls)-5; i-- {
		r := tl.rec(u.calls[i])
		if len(tax.ClassifyCall(r.Tool, r.Input)) > 0 {
			return u.calls[i]
		}
	}
	if len(u.calls) > 0 {
		return u.calls[len(u.calls)-1]
	}
	return -1
}

// lastChange picks the call a failure report is about: the last edit, else
// the last classifiable call, else the last call.
func lastChange(tl *timeline, u *utterance, tax *Taxonomy) int {
	for i := len(u.calls) - 1; i >= 0; i-- {
		if editTools[strings.ToLower(tl.rec(u.calls[i]).Tool)] || strings.EqualFold(tl.rec(u.calls[i]).Tool, "apply_patch") {
			return u.calls[i]
		}
	}
	return correctedCall(tl, u, tax)
}

// reworkCount counts the agent's tool calls and messages after utterance k
// until the person speaks again.
func reworkCount(tl *timeline, k int) int {
	n := 0
	for _, j := range tl.after[k] {
		r := tl.rec(j)
		if isToolCall(r) || isAgentText(r) {
			n++
		}
	}
	return n
}

func correctionImportance(signals []string, rework int) float64 {
	imp := 0.45
	for _, s := range signals {
		switch s {
		case SignalRejection:
			imp += 0.15
		case SignalInterrupt:
			imp += 0.1
		case SignalExplicitCorrection:
			imp += 0.1
		case SignalFrustration:
			imp += 0.1
		case SignalSeverity:
			imp += 0.1
		case SignalMarker:
			imp += 0.05
		}
	}
	imp += min(0.1, 0.02*float64(rework))
	return clamp01(imp)
}

func correctionExcerpt(tl *timeline, call int, u *utterance) string {
	var b strings.Builder
	if call >= 0 {
		r := tl.rec(call)
		b.WriteString("Agent: " + callSummary(r))
		if len(u.rejected) > 0 {
			b.WriteString(" (refused)")
		}
		b.WriteString("\n")
	}
	b.WriteString("User: " + shorten(u.text, 400))
	return b.String()
}

// callSummary renders a tool call in a few words: the command, or the tool
// and the path it touches.
func callSummary(r *traces.Record) string {
	var m map[string]any
	_ = json.Unmarshal(r.Input, &m)
	switch v := m["command"].(type) {
	case string:
		return "`" + shorten(v, 100) + "`"
	case []any:
		var parts []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				parts = append(parts, s)
			}
		}
		if n := len(parts); n >= 3 && shells[path.Base(parts[0])] {
			return "`" + shorten(parts[n-1], 100) + "`"
		}
		return "`" + shorten(strings.Join(parts, " "), 100) + "`"
	}
	if s, ok := m["cmd"].(string); ok {
		return "`" + shorten(s, 100) + "`"
	}
	for _, k := range pathKeys {
		if p, ok := m[k].(string); ok && p != "" {
			return r.Tool + " `" + shortPath(p) + "`"
		}
	}
	if r.Tool != "" {
		return r.Tool
	}
	return "a tool call"
}

// shortPath keeps the last three segments of a path.
func shortPath(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	parts := strings.Split(strings.Trim(p, "/"), "/")
	if len(parts) > 3 {
		parts = parts[len(parts)-3:]
	}
	return strings.Join(parts, "/")
}

// describeCall phrases the corrected action for a trigger: the most specific
// action type's description and the concrete call.
func describeCall(r *traces.Record, types []string, tax *Taxonomy) string {
	sum := callSummary(r)
	if len(types) > 0 {
		return tax.Describe(types[0]) + ": " + sum
	}
	lt := strings.ToLower(r.Tool)
	switch {
	case shellTools[lt]:
		return "running " + sum
	case editTools[lt]:
		return "editing " + strings.TrimPrefix(sum, r.Tool+" ")
	}
	return "calling " + sum
}

var lowerFirst = lexicon.LowerFirst

// ---------------------------------------------------------------------------
// Lesson wording.

var ackTailRE = lazyRegexp(`(?i)[,;]?\s*(otherwise|but otherwise|else)\s+(gtg|good to go|lgtm|all good|looks good|fine|ok|okay|good)\W*$`)

var likeToBeRE = lazyRegexp(`(?i)^i'?d\s+(actually\s+|really\s+)?(like|love|prefer)\s+(.{3,60}?)\s+to\s+be\s+`)

type rewrite struct {
	re  *lazyRE
	out string
}

var lessonRewrites = []rewrite{
	{lazyRegexp(`(?i)^(please\s+)?(don'?t|do not)\s+(ever\s+)?`), "Do not "},
	{lazyRegexp(`(?i)^(please\s+)?never\s+(ever\s+)?`), "Never "},
	{lazyRegexp(`(?i)^(please\s+)?always\s+`), "Always "},
	{lazyRegexp(`(?i)^we\s+(always\s+)?use\s+`), "Use "},
	{lazyRegexp(`(?i)^we\s+always\s+`), "Always "},
	{lazyRegexp(`(?i)^we\s+never\s+`), "Never "},
	{lazyRegexp(`(?i)^we\s+(don'?t|do not)\s+`), "Do not "},
	{lazyRegexp(`(?i)^i\s+(don'?t|do not)\s+think\s+we\s+need\s+(to\s+)?`), "Do not "},
	{lazyRegexp(`(?i)^(we|you)\s+(don'?t|do not)\s+need\s+(to\s+)?`), "Do not "},
	{lazyRegexp(`(?i)^i\s+(don'?t|do not)\s+want\s+(you\s+)?to\s+`), "Do not "},
	{lazyRegexp(`(?i)^i\s+(don'?t|do not)\s+want\s+`), "Avoid "},
	{lazyRegexp(`(?i)^(you|we)\s+(should|must|need to|have to|can|could)\s+(just\s+)?`), ""},
	{lazyRegexp(`(?i)^(could|can|couldn'?t|can'?t)\s+we\s+(just\s+)?`), ""},
	{lazyRegexp(`(?i)^why\s+not\s+(just\s+)?`), ""},
	{lazyRegexp(`(?i)^(how|what)\s+about\s+`), "Consider "},
	{lazyRegexp(`(?i)^do\s+we\s+(even|really)\s+need\s+`), "Check whether we need "},
	{lazyRegexp(`(?i)^i'?d\s+(actually\s+|really\s+)?(like|love|prefer|want)\s+(you\s+)?(to\s+)?`), ""},
	{lazyRegexp(`(?i)^i\s+think\s+(we|you)\s+(should|need to|must)\s+`), ""},
	{lazyRegexp(`(?i)^i\s+(would\s+)?(prefer|want)\s+(you\s+)?(to\s+)?`), ""},
	{lazyRegexp(`(?i)^let'?s\s+`), ""},
	{lazyRegexp(`(?i)^(please|just|instead)[,]?\s+`), ""},
	{lazyRegexp(`(?i)^no\s+`), "Do not use "},
}

// lessonFrom turns what the person said into an instruction (the corrected
// direction) and, when they said why, a consequence.
func lessonFrom(text string) (lesson, consequence string) {
	text = cleanHuman(text)
	var parts, reasons, context, questions []string
	for i, s := range sentences(text) {
		if i > 4 {
			break // what follows the first sentences is usually pasted material
		}
		orig := s
		s = stripLead(s, i == 0)
		s = ackTailRE.ReplaceAllString(s, "")
		if s == "" {
			continue
		}
		if m := becauseRE.FindStringSubmatch(s); m != nil && len(strings.Fields(m[2])) >= 3 && isDirective(s[:len(s)-len(m[0])]) {
			reasons = append(reasons, strings.TrimRight(m[2], "."))
			s = strings.TrimSpace(s[:len(s)-len(m[0])])
		}
		question := strings.HasSuffix(strings.TrimSpace(orig), "?")
		switch {
		case isDirective(s) && !(consequenceStartRE.MatchString(s) && !directiveAnyRE.MatchString(s)) &&
			!(question && requestRE.MatchString(s) && len(parts) > 0):
			parts = append(parts, phrase(s))
		case question:
			questions = append(questions, phrase(s))
		case (reasonCueRE.MatchString(s) || consequenceStartRE.MatchString(s)) && len(strings.Fields(s)) >= 3:
			reasons = append(reasons, strings.TrimRight(s, "."))
		case i <= 1:
			// Context the person gave ("This project is managed with uv")
			// stays with the instruction it explains.
			context = append(context, phrase(s))
			parts = append(parts, phrase(s))
		}
	}
	if len(parts) == len(context) {
		// No instruction at all: a question the person asked, else the
		// first statement, is the lesson.
		switch {
		case len(questions) > 0:
			parts = questions[:1]
		case len(context) > 0:
			parts = context[:1]
		}
	}
	lesson = joinLimited(parts, 320)
	consequence = joinLimited(reasons, 200)
	return lesson, strings.TrimRight(consequence, ".")
}

// stripLead removes interjections ("no,", "ugh,", "absolutely not,") at the
// start of a sentence. "no" is kept when it starts a noun phrase ("no
// hardcoded hosts").
func stripLead(s string, first bool) string {
	for range 4 {
		m := leadRE.FindStringSubmatchIndex(s)
		if m == nil {
			break
		}
		word := strings.ToLower(s[m[2]:m[3]])
		rest := s[m[1]:]
		if strings.HasPrefix(word, "no") && word != "nope" && !strings.ContainsAny(s[m[3]:m[1]], ",.!:;—–-") {
			// "no X": a prohibition unless X is a pronoun or verb.
			nw := firstWords(rest, 1)
			if len(nw) == 1 && !isPronounOrVerb(nw[0]) {
				break
			}
		}
		if word == "so" || word == "well" || word == "actually" || word == "again" {
			// Only as an interjection: "so," / "actually,".
			if !strings.ContainsAny(s[m[3]:m[1]], ",") && !first {
				break
			}
		}
		if word == "stop" && !strings.ContainsAny(s[m[3]:m[1]], ",.!:;—–-") {
			break // "stop doing X" is the instruction itself
		}
		s = rest
	}
	return strings.TrimSpace(s)
}

func isPronounOrVerb(w string) bool {
	switch strings.Trim(w, ",.!?") {
	case "i", "you", "we", "that", "this", "it", "they", "don't", "dont", "do", "never", "use", "please", "not", "stop",
		"just", "the", "a", "an", "need", "way", "thanks", "worries", "problem", "wait", "actually", "absolutely":
		return true
	}
	return false
}

// phrase rewrites one sentence as an imperative instruction.
func phrase(s string) string {
	s = strings.TrimSpace(s)
	if m := likeToBeRE.FindStringSubmatch(s); m != nil {
		s = m[3] + " should be " + s[len(m[0]):]
	}
	for _, rw := range lessonRewrites {
		if loc := rw.re.FindStringIndex(s); loc != nil {
			s = rw.out + s[loc[1]:]
			break
		}
	}
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "?") {
		s = strings.TrimRight(s, "?") + "."
	}
	s = strings.TrimSuffix(s, " then.")
	s = capitalize(s)
	if s != "" && !strings.ContainsAny(s[len(s)-1:], ".!)`\"'") {
		s += "."
	}
	return s
}

func joinLimited(parts []string, n int) string {
	var b strings.Builder
	for _, p := range parts {
		if b.Len() > 0 && b.Len()+len(p) > n {
			break
		}
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		b.WriteString(p)
	}
	return shorten(b.String(), n)
}

// ---------------------------------------------------------------------------
// Preferences.

type preferenceExtractor struct{ tax *Taxonomy }

func (*preferenceExtractor) Type() string { return TypePreference }

var prefRE = lazyRegexp(`(?i)\b(i (really )?prefer|i'?d (much )?rather|i'?d prefer|we prefer|we always|we never|we (don'?t|do not) use|our (convention|style|standard|rule) is|please always|please never|from now on|going forward|in (the )?future|as a rule|make sure (to|you) always|i (really )?(like|hate|dislike|don'?t like) (it )?when|by convention|we use)\b`)

// constraintRE finds a standing constraint stated inside a request ("...
// and, while keeping it simple and dependency free, propose a plan?"): the
// person's words about how the work must be done, whatever the task.
var constraintRE = lazyRegexp(`(?i)\bkeep(?:ing)?\s+(?:it|things|everything|this|them|the code(?:base)?)\s+((?:as\s+)?(?:simple|minimal|small|lean|light(?:weight)?|dependency[- ]free|compilation[- ]free|build[- ]free|framework[- ]free|vanilla|plain|self[- ]contained|in (?:one|a single) file|backwards?[- ]compatible)\b[^,;:?!\n]{0,100})`)

// noDepsRE finds "without (adding) any new dependencies".
var noDepsRE = lazyRegexp(`(?i)\bwithout\s+(?:adding|introducing|pulling in|installing)?\s*(?:any\s+)?(?:new|extra|external|additional|third[- ]party)?\s*(?:dependencies|deps|libraries|packages|frameworks)\b`)

// constraint returns the preference a sentence states as a constraint on a
// request, or "".
func constraint(sent string) string {
	if m := constraintRE.FindStringSubmatch(sent); m != nil {
		// "Keep it simple." alone says too little to be worth recalling.
		if st := phrase("Keep it " + strings.TrimSpace(m[1])); len(strings.Fields(st)) >= 4 {
			return st
		}
	}
	if noDepsRE.MatchString(sent) {
		return "Do not add new dependencies."
	}
	return ""
}

func (e *preferenceExtractor) Extract(s *Session) []*Observation {
	tl := buildTimeline(s)
	var out []*Observation
	for k := range tl.utts {
		u := &tl.utts[k]
		if c, _ := correctionStrength(tl, u, e.tax); c > 0 {
			continue // the correction carries it
		}
		for _, sent := range sentences(u.text) {
			var st string
			switch {
			case prefRE.MatchString(sent) && !strings.HasSuffix(sent, "?"):
				st = phrase(stripLead(sent, true))
			default:
				st = constraint(sent)
			}
			if len(strings.Fields(st)) < 3 {
				continue
			}
			types := e.tax.ClassifyText(sent)
			signals := []string{}
			if severityRE.MatchString(sent) {
				signals = append(signals, SignalSeverity)
			}
			if markerRE.MatchString(sent) {
				signals = append(signals, SignalMarker)
			}
			imp := 0.4
			if len(signals) > 0 {
				imp += 0.1
			}
			out = append(out, &Observation{
				Type: TypePreference, Title: shorten(st, 80), Description: "Stated preference",
				Statement: st, Domain: domainOf(sent, types), ActionTypes: types,
				Accepts: 1, Consistency: 1, Confidence: 0.7, Importance: imp, Signals: signals,
				Sources: []SourceRef{tl.sourceRef(u.idx, u.idx)}, Excerpt: "User: " + shorten(u.text, 300),
			})
			break
		}
	}
	return out
}

// domainOf names the area a preference is about.
func domainOf(text string, types []string) string {
	for _, t := range types {
		d, _, _ := strings.Cut(t, ":")
		switch d {
		case "git":
			return "git"
		case "test":
			return "testing"
		case "pkg":
			return "deps"
		case "style", "lint", "js", "ts", "py":
			return "style"
		case "docs":
			return "docs"
		case "sql", "db":
			return "database"
		case "deploy", "infra", "k8s", "docker":
			return "infra"
		case "code":
			return "code"
		}
	}
	w := contentStems(text)
	switch {
	case w["name"] || w["nam"] || w["naming"] || w["camelcas"] || w["snake"]:
		return "naming"
	case w["comment"] || w["readm"] || w["doc"] || w["docs"]:
		return "docs"
	case w["format"] || w["indent"] || w["style"] || w["emoji"]:
		return "style"
	case w["test"]:
		return "testing"
	case w["commit"] || w["branch"]:
		return "git"
	}
	return "general"
}

// ---------------------------------------------------------------------------
// Decisions.

type decisionExtractor struct{ tax *Taxonomy }

func (*decisionExtractor) Type() string { return TypeDecision }

var (
	choiceRE      = lazyRegexp(`(?i)\b(let'?s|we'?ll|i'?ll|we should|i want to|i'?d like to)\s+(go with|use|do|pick|choose|stick with|try|take|keep)\s+(the\s+)?([^.,!;?\n]{2,60})`)
	optionRE      = lazyRegexp(`(?i)\b(option|approach|choice|alternative|solution)\s*#?\s*([0-9]+|[a-d])\b`)
	ordinalRE     = lazyRegexp(`(?i)\b(the\s+)?(first|second|third|fourth|last)\s+(one|option|approach|choice)\b`)
	altLineRE     = lazyRegexp(`(?m)^\s*(?:#{1,4}\s*)?(?:\d+[.)]|[-*•]|(?:Option|Approach|Alternative)\s+[0-9A-Za-z]+[:.)]?)\s*(?:\*\*)?(?:(?:Option|Approach)\s+[0-9A-Za-z]+[:.)]?\s*)?([^*:\n]{2,70}?)(?:\*\*)?\s*(?:[:\-–—(]\s*(.*))?$`)
	optionLineRE  = lazyRegexp(`(?m)^\s*(?:#{1,4}\s*)?\**\s*(?:Option|Approach|Alternative|Choice)\s+[0-9A-Za-z]+\s*[:.)\-–—]\s*\**\s*([^*\n(:]{2,60}?)\s*\**\s*(?:[:\-–—(]\s*(.*?)\)?)?\s*$`)
	optionsWordRE = lazyRegexp(`(?i)\b(options?|approach(es)?|alternatives?|either|could (use|go|do)|recommend|trade-?offs?|pros|cons|choices?)\b`)
)

func (e *decisionExtractor) Extract(s *Session) []*Observation {
	tl := buildTimeline(s)
	var out []*Observation
	for k := range tl.utts {
		u := &tl.utts[k]
		if len(u.assistant) == 0 {
			continue
		}
		choice, idx := "", -1
		if m := choiceRE.FindStringSubmatch(u.text); m != nil {
			choice = strings.TrimSpace(m[4])
		}
		if m := optionRE.FindStringSubmatch(u.text); m != nil {
			idx = optionIndex(m[2])
		} else if m := ordinalRE.FindStringSubmatch(u.text); m != nil {
			idx = map[string]int{"first": 0, "second": 1, "third": 2, "fourth": 3, "last": -2}[strings.ToLower(m[2])]
		}
		if choice == "" && idx == -1 {
			continue
		}
		// Alternatives the agent laid out since the previous utterance.
		var alts []Alternative
		var question string
		for _, a := range u.assistant {
			txt := tl.rec(a).Text
			if !optionsWordRE.MatchString(txt) {
				continue
			}
			var found []Alternative
			lines := optionLineRE.FindAllStringSubmatch(txt, 12)
			if len(lines) < 2 {
				lines = altLineRE.FindAllStringSubmatch(txt, 12)
			}
			for _, m := range lines {
				name := strings.Trim(strings.TrimSpace(m[1]), "`*_ ")
				if name == "" || len(strings.Fields(name)) > 10 {
					continue
				}
				found = append(found, Alternative{Name: name, Reasoning: shorten(strings.Trim(m[2], "* "), 160)})
			}
			if len(found) >= 2 && len(found) <= 8 {
				alts = found
			}
		}
		if len(alts) < 2 {
			continue
		}
		chosen := -1
		switch {
		case idx == -2:
			chosen = len(alts) - 1
		case idx >= 0 && idx < len(alts):
			chosen = idx
		case choice != "":
			cw := contentStems(choice)
			best := 0.0
			for i, a := range alts {
				if sc := overlap(cw, contentStems(a.Name)); sc > best {
					best, chosen = sc, i
				}
			}
			if best < 0.5 {
				chosen = -1
			}
		}
		if chosen < 0 {
			continue
		}
		if u.prev >= 0 {
			question = shorten(tl.utts[u.prev].text, 160)
		}
		reasons := []string{}
		if alts[chosen].Reasoning != "" {
			reasons = append(reasons, alts[chosen].Reasoning)
		}
		if m := becauseRE.FindStringSubmatch(u.text); m != nil {
			reasons = append(reasons, shorten(m[2], 160))
		}
		out = append(out, &Observation{
			Type: TypeDecision, Title: shorten("Chose "+alts[chosen].Name, 80), Description: "Decision among " + itoa(len(alts)) + " alternatives",
			Question: question, Alternatives: alts, Chosen: alts[chosen].Name, Reasons: reasons,
			ActionTypes: e.tax.ClassifyText(alts[chosen].Name + " " + u.text),
			Confidence:  0.6, Importance: 0.45,
			Sources: []SourceRef{tl.sourceRef(u.assistant[0], u.idx)}, Excerpt: "User: " + shorten(u.text, 300),
		})
	}
	return out
}

func optionIndex(s string) int {
	s = strings.ToLower(s)
	if len(s) == 1 && s[0] >= 'a' && s[0] <= 'd' {
		return int(s[0] - 'a')
	}
	n := 0
	for _, r := range s {
		n = n*10 + int(r-'0')
	}
	return n - 1
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

// ---------------------------------------------------------------------------
// Negative results.

type negativeExtractor struct{ tax *Taxonomy }

func (*negativeExtractor) Type() string { return TypeNegativeResult }

var (
	userFailRE  = lazyRegexp(`(?i)\b((still\s+)?(doesn'?t|does not|didn'?t|did not|isn'?t|is not)\s+(work|help|fix)|not working|still (fails|failing|broken|broke)|(that|this|it) (broke|failed)|we lost|made it worse|doesn'?t seem to work)\b`)
	agentFailRE = lazyRegexp(`(?i)\b((that|this|the) (approach|fix|change|attempt|workaround|solution|idea) (didn'?t|doesn'?t|did not|does not|won'?t|will not) work|(didn'?t|did not) work (because|since|due to)|reverting (the|my|this|that)|let me revert|i'?ll revert|that didn'?t help)\b`)
)

func (e *negativeExtractor) Extract(s *Session) []*Observation {
	tl := buildTimeline(s)
	var out []*Observation
	for k := range tl.utts {
		u := &tl.utts[k]
		if c, _ := correctionStrength(tl, u, e.tax); c > 0 {
			continue
		}
		sent := matchSentence(u.text, userFailRE)
		if sent == "" || len(u.calls) == 0 {
			continue
		}
		call := lastChange(tl, u, e.tax)
		r := tl.rec(call)
		types := e.tax.ClassifyCall(r.Tool, r.Input)
		approach := describeCall(r, types, e.tax)
		o := &Observation{
			Type: TypeNegativeResult, Title: shorten("Did not work: "+approach, 80), Description: "Reported failure",
			Approach: approach, Failure: shorten(sent, 200), FollowedBy: followedBy(tl, k),
			ActionTypes: types, Confidence: 0.55, Importance: 0.4,
			Sources: []SourceRef{tl.sourceRef(call, u.idx)}, Excerpt: "User: " + shorten(u.text, 300),
		}
		if frustrationRE.MatchString(u.text) {
			o.Signals = append(o.Signals, SignalFrustration)
			o.Importance += 0.1
		}
		out = append(out, o)
	}
	// The agent saying its own approach failed.
	for i := range s.Records {
		r := &s.Records[i]
		if !isAgentText(r) {
			continue
		}
		sent := matchSentence(r.Text, agentFailRE)
		if sent == "" {
			continue
		}
		prev := -1
		for j := i - 1; j >= 0 && j >= i-20; j-- {
			if isToolCall(&s.Records[j]) {
				prev = j
				break
			}
		}
		approach := "the previous attempt"
		var types []string
		if prev >= 0 {
			types = e.tax.ClassifyCall(s.Records[prev].Tool, s.Records[prev].Input)
			approach = describeCall(&s.Records[prev], types, e.tax)
		}
		from := i
		if prev >= 0 {
			from = prev
		}
		out = append(out, &Observation{
			Type: TypeNegativeResult, Title: shorten("Did not work: "+approach, 80), Description: "Abandoned approach",
			Approach: approach, Failure: shorten(sent, 200), ActionTypes: types, Confidence: 0.35, Importance: 0.3,
			Author: AuthorAgent, Origin: OriginAssistantText,
			Sources: []SourceRef{tl.sourceRef(from, i)}, Excerpt: "Agent: " + shorten(sent, 300),
		})
	}
	return out
}

func matchSentence(text string, re *lazyRE) string {
	for _, s := range sentences(text) {
		if re.MatchString(s) {
			return s
		}
	}
	return ""
}

// statementOf returns the first informative sentence of an agent message:
// at least five words, not an exclamation ("Done!", "Excellent!").
func statementOf(s string) string {
	for _, x := range sentences(cleanHuman(s)) {
		x = strings.TrimLeft(x, "#*- ")
		if len(strings.Fields(x)) >= 5 && !strings.HasSuffix(x, "!") {
			return x
		}
	}
	return firstSentence(s)
}

func firstSentence(s string) string {
	ss := sentences(cleanHuman(s))
	if len(ss) == 0 {
		return ""
	}
	return ss[0]
}

// followedBy summarizes what came after utterance k: the agent's next
// message or call.
func followedBy(tl *timeline, k int) string {
	for _, j := range tl.after[k] {
		r := tl.rec(j)
		if isAgentText(r) {
			return shorten(firstSentence(r.Text), 140)
		}
		if isToolCall(r) {
			return callSummary(r)
		}
	}
	return ""
}

// ---------------------------------------------------------------------------
// Discoveries.

type discoveryExtractor struct{ tax *Taxonomy }

func (*discoveryExtractor) Type() string { return TypeDiscovery }

var (
	agentDiscoveryRE  = lazyRegexp(`(?i)\b(it turns out|turns out|TIL|found the (root )?cause|the root cause (is|was)|the (real )?(issue|problem) (is|was) that)\b`)
	discoveryMarkerRE = lazyRegexp(`(?i)\b(write this down|note (that|to self)|TIL|today i learned|turns out|it turns out|(that'?s|this is|very|really|how) interesting|good to know|remember (that|this)|keep in mind|worth remembering|important:|this is important|good to keep|make a note)\b|^interesting\b`)
	backRefRE         = lazyRegexp(`(?i)\b(this|that|the above|these|it)\b`)
)

const maxAgentDiscoveries = 2

// markerPhraseRE matches what a discovery sentence says about itself rather
// than about the project: markers, back-references and fillers.
var markerPhraseRE = lazyRegexp(`(?i)\b(write (this|that|it) down|note (that|to self)|TIL|today i learned|it turns out|turns out|(that'?s|this is|very|really|how) interesting|interesting|good to know|remember (that|this)|keep in mind|worth remembering|important|this is important|good to keep|make a note( of (this|that|it))?|please|so|ok(ay)?|wow|oh|nice|great|cool|good catch|thanks|thank you|perfect|awesome|exactly|yes|yeah|yep|right|really|very|this|that|these|the above|it|is|was|a|an|and|of|to)\b`)

// ownFact reports whether a sentence the person marked holds a fact of its
// own once its markers, back-references and fillers are taken out: at
// least two content words.
func ownFact(sent string) bool {
	return len(contentStems(markerPhraseRE.ReplaceAllString(sent, " "))) >= 2
}

func (e *discoveryExtractor) Extract(s *Session) []*Observation {
	tl := buildTimeline(s)
	var out []*Observation
	for k := range tl.utts {
		u := &tl.utts[k]
		if c, _ := correctionStrength(tl, u, e.tax); c > 0 {
			continue
		}
		sent := matchSentence(u.text, discoveryMarkerRE)
		if sent == "" || requestRE.MatchString(sent) {
			continue
		}
		marker := discoveryMarkerRE.FindString(sent)
		o := &Observation{
			Type: TypeDiscovery, Title: shorten(sent, 80), Description: "Marked by the user as worth keeping",
			Claim: sent, Marker: strings.ToLower(marker), Signals: []string{SignalMarker},
			ActionTypes: e.tax.ClassifyText(sent), Confidence: 0.35, Importance: 0.35,
			Sources: []SourceRef{tl.sourceRef(u.idx, u.idx)}, Excerpt: "User: " + shorten(u.text, 300),
		}
		if !ownFact(sent) {
			// "Interesting, write that down": the fact is the agent's last
			// statement, marked by the person. It stays the agent's words,
			// for the person to review; their own sentence, when it holds a
			// fact ("TIL the CI cache lives in /var/cache/ci, write this
			// down"), is always what is kept.
			if len(u.assistant) == 0 {
				continue
			}
			a := u.assistant[len(u.assistant)-1]
			claim := shorten(statementOf(tl.rec(a).Text), 200)
			o.Title, o.Claim, o.ActionTypes = shorten(claim, 80), claim, e.tax.ClassifyText(claim)
			o.Description = "The agent's statement, marked by the user as worth keeping"
			o.Author, o.Origin = AuthorAgent, OriginAssistantText
			o.Sources = []SourceRef{tl.sourceRef(a, u.idx)}
			o.Excerpt = "Agent: " + shorten(claim, 300) + "\nUser: " + shorten(u.text, 300)
		}
		out = append(out, o)
	}
	n := 0
	for i := range s.Records {
		r := &s.Records[i]
		if n >= maxAgentDiscoveries || !isAgentText(r) {
			continue
		}
		sent := matchSentence(r.Text, agentDiscoveryRE)
		if sent == "" {
			continue
		}
		n++
		out = append(out, &Observation{
			Type: TypeDiscovery, Title: shorten(sent, 80), Description: "Surfaced during work",
			Claim: shorten(sent, 240), Marker: strings.ToLower(agentDiscoveryRE.FindString(sent)),
			ActionTypes: e.tax.ClassifyText(sent), Confidence: 0.2, Importance: 0.2,
			Author: AuthorAgent, Origin: OriginAssistantText,
			Sources: []SourceRef{tl.sourceRef(i, i)}, Excerpt: "Agent: " + shorten(sent, 300),
		})
	}
	return out
}

// ---------------------------------------------------------------------------
// Questions.

type questionExtractor struct{ tax *Taxonomy }

func (*questionExtractor) Type() string { return TypeQuestion }

var (
	questionStartRE = lazyRegexp(`(?i)^(what|why|how|where|when|which|who|whose|is|are|does|do|did|was|were|has|have|should|shall|will|would|can|could|may|might|isn'?t|aren'?t|doesn'?t|don'?t|am)\b`)
	requestRE       = lazyRegexp(`(?i)^(can|could)\s+we\b|^(can|could|would|will)\s+(you|u)\s+(please\s+|also\s+|maybe\s+)*(?:(help|add|make|fix|change|update|create|write|run|remove|delete|check|look|read|do|implement|refactor|move|rename|set|install|commit|push|explain|show|give|list|tell|summari[sz]e|review|find|search|use|try|test|clean|build|deploy|generate|convert|rewrite|replace|put|send|open|take)\b)`)
)

func (e *questionExtractor) Extract(s *Session) []*Observation {
	tl := buildTimeline(s)
	var out []*Observation
	for k := range tl.utts {
		u := &tl.utts[k]
		if u.reason {
			continue
		}
		if c, _ := correctionStrength(tl, u, e.tax); c > 0 {
			continue
		}
		var q string
		for _, sent := range sentences(u.text) {
			sent = stripLead(sent, true)
			if strings.HasSuffix(sent, "?") && questionStartRE.MatchString(sent) && !requestRE.MatchString(sent) &&
				len(strings.Fields(sent)) >= 3 {
				q = sent
				break
			}
		}
		if q == "" {
			continue
		}
		answered := false
		next := k + 1
		for _, j := range tl.after[k] {
			if isAgentText(tl.rec(j)) {
				answered = true
				break
			}
		}
		if next < len(tl.utts) && (len(tl.utts[next].rejected) > 0 || tl.utts[next].interrupted) && !answered {
			answered = false
		}
		out = append(out, &Observation{
			Type: TypeQuestion, Title: shorten(q, 80), Description: "Asked by the user",
			Question: shorten(q, 300), Answered: answered, ActionTypes: e.tax.ClassifyText(q),
			Confidence: 0.8, Importance: 0.2,
			Sources: []SourceRef{tl.sourceRef(u.idx, u.idx)}, Excerpt: "User: " + shorten(u.text, 300),
		})
	}
	return out
}
