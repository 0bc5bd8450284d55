package observations

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Observation types.
const (
	TypeCorrection     = "correction"
	TypePreference     = "preference"
	TypeProcedure      = "procedure"
	TypeDecision       = "decision"
	TypeNegativeResult = "negative-result"
	TypeDiscovery      = "discovery"
	TypeQuestion       = "question"
)

// AllTypes lists the observation types in extraction order.
var AllTypes = []string{TypeCorrection, TypePreference, TypeProcedure, TypeDecision, TypeNegativeResult, TypeDiscovery, TypeQuestion}

// Lifecycle spaces (design: "Lifecycle separation through tagging").
const (
	LifecycleKnowledge   = "knowledge"   // facts about the project: decisions, discoveries, questions
	LifecycleSelf        = "self"        // how the agent should behave: corrections, preferences
	LifecycleOperational = "operational" // how work gets done: procedures, negative results
)

// Statuses of an observation.
const (
	StatusCandidate  = "candidate"
	StatusPromoted   = "promoted"
	StatusSuperseded = "superseded"
	StatusRejected   = "rejected"
)

// Authors of an observation: whose words it holds. The person's (the
// default, left out of the file) come from what they typed and did; the
// agent's come from assistant text or the MCP remember tool and are
// labelled so everywhere, recalled only as the agent's note, and never
// promoted, learned, put in a new session's standing context or turned
// into a PreToolUse decision until a person reviews them (Reviewed).
const (
	AuthorPerson = "person"
	AuthorAgent  = "agent"
)

// Origins of an agent-authored observation.
const (
	OriginAssistantText = "assistant-text" // a sentence of the agent's reply
	OriginMCPRemember   = "mcp-remember"   // the agent called the MCP remember tool
)

// Composite-oracle signals an observation was scored with.
const (
	SignalExplicitCorrection = "explicit-correction"
	SignalRejection          = "rejection"
	SignalInterrupt          = "interrupt"
	SignalFrustration        = "frustration"
	SignalSeverity           = "severity"
	SignalRework             = "rework"
	SignalMarker             = "marker"
	SignalRecurrence         = "recurrence"
	SignalReturn             = "return"
	// The agent's reply granted the person's point (lexicon.CueConcede).
	SignalConceded = "conceded"
	// A preference the person stated in the message a correction was
	// taken from: the correction brings it back at its moment (it has the
	// trigger), the preference stands in a new session's context.
	SignalCorrecting = "correcting"
)

// SourceRef points at the records of a session an observation came from.
type SourceRef struct {
	Session string    `json:"session" yaml:"session"`
	From    int       `json:"from" yaml:"from"` // record Seq range, inclusive
	To      int       `json:"to" yaml:"to"`
	Time    time.Time `json:"time,omitzero" yaml:"time,omitempty"`
}

// Alternative is one option weighed in a decision.
type Alternative struct {
	Name      string `json:"name" yaml:"name"`
	Reasoning string `json:"reasoning,omitempty" yaml:"reasoning,omitempty"`
}

// Observation is one atomic, typed fact extracted from traces.
type Observation struct {
	ID          string
	Type        string
	Title       string
	Description string
	Lifecycle   string
	Confidence  float64
	Importance  float64
	Status      string
	Sources     []SourceRef
	Sessions    int
	FirstSeen   time.Time
	LastSeen    time.Time
	Signals     []string
	// Projects are the working directories of the sessions the
	// observation comes from: recall keeps a one-off lesson to its project.
	Projects []string

	// Author is AuthorAgent for what the agent wrote (empty: the person);
	// Origin says how the agent wrote it; Reviewed is when a person
	// reviewed an agent-authored observation and let it count as theirs.
	Author   string
	Origin   string
	Reviewed time.Time

	// Supersedes are the ids of earlier observations of the same person
	// and scope this one contradicts (supersede.go); SupersededBy is the id
	// of the later one that contradicts this one (its Status is then
	// StatusSuperseded, and recall no longer shows it).
	Supersedes   []string
	SupersededBy string

	// correction
	Trigger     string
	ActionType  string // the primary (most specific) action type
	ActionTypes []string
	Lesson      string
	Consequence string

	// preference
	Domain      string
	Statement   string
	Accepts     int
	Rejects     int
	Consistency float64

	// procedure
	Goal  string
	Steps []string

	// decision (Question is shared with question)
	Question     string
	Alternatives []Alternative
	Chosen       string
	Reasons      []string

	// negative-result
	Approach   string
	Failure    string
	FollowedBy string

	// discovery
	Claim      string
	Marker     string
	References []string

	// question
	Answered bool

	Excerpt string
}

// AgentAuthored reports whether the observation holds the agent's words,
// not the person's.
func (o *Observation) AgentAuthored() bool { return o != nil && o.Author == AuthorAgent }

// NeedsReview reports whether the observation is the agent's and no person
// has reviewed it yet: it may be recalled as the agent's note, and nothing
// more.
func (o *Observation) NeedsReview() bool { return o.AgentAuthored() && o.Reviewed.IsZero() }

// LifecycleOf returns the lifecycle space of an observation type.
func LifecycleOf(typ string) string {
	switch typ {
	case TypeCorrection, TypePreference:
		return LifecycleSelf
	case TypeProcedure, TypeNegativeResult:
		return LifecycleOperational
	default:
		return LifecycleKnowledge
	}
}

// mainText is the human text that identifies an observation of its type.
func (o *Observation) mainText() string {
	switch o.Type {
	case TypeCorrection:
		return o.Lesson
	case TypePreference:
		return o.Statement
	case TypeProcedure:
		return strings.Join(o.Steps, " ")
	case TypeDecision:
		return o.Chosen + " " + o.Question
	case TypeNegativeResult:
		return o.Approach
	case TypeDiscovery:
		return o.Claim
	case TypeQuestion:
		return o.Question
	}
	return o.Title
}

// Summary is the one line that says what an observation is: its lesson,
// statement, claim, approach, question, goal, title or description,
// whitespace collapsed; a decision's title ("Chose X") when it has a
// chosen option.
func (o *Observation) Summary() string {
	if o.Type == TypeDecision && o.Chosen != "" && o.Title != "" {
		// "Chose two function approach" says what was decided; the
		// question that led to it does not.
		return strings.Join(strings.Fields(o.Title), " ")
	}
	for _, s := range []string{o.Lesson, o.Statement, o.Claim, o.Approach, o.Question, o.Goal, o.Title, o.Description} {
		if s = strings.Join(strings.Fields(s), " "); s != "" {
			return s
		}
	}
	return ""
}

// WithText returns an observation of type typ whose main text (lesson,
// statement, steps, chosen option, approach, claim or question) is text:
// the shape Similar compares, for text that is not an observation (a
// tombstone's key, a library note). It is nil for an unknown type.
func WithText(typ, text string, actionTypes []string) *Observation {
	o := &Observation{Type: typ, ActionTypes: actionTypes}
	switch typ {
	case TypeCorrection:
		o.Lesson = text
	case TypePreference:
		o.Statement = text
	case TypeProcedure:
		o.Steps = []string{text}
	case TypeDecision:
		o.Chosen = text
	case TypeNegativeResult:
		o.Approach = text
	case TypeDiscovery:
		o.Claim = text
	case TypeQuestion:
		o.Question = text
	default:
		return nil
	}
	return o
}

// Key is the deduplication identity of an observation: its type, its
// normalized action types and the sorted content stems of its main text
// (lesson, statement, steps, approach, claim or question).
func (o *Observation) Key() string {
	at := append([]string(nil), o.ActionTypes...)
	if len(at) == 0 && o.ActionType != "" {
		at = []string{o.ActionType}
	}
	for i := range at {
		at[i] = strings.ToLower(strings.TrimSpace(at[i]))
	}
	sort.Strings(at)
	at = compactStrings(at)
	var ws []string
	for w := range contentStems(o.mainText()) {
		ws = append(ws, w)
	}
	sort.Strings(ws)
	key := o.Type + "|" + strings.Join(at, ",") + "|" + strings.Join(ws, " ")
	if o.AgentAuthored() {
		// The agent saying what the person said is not the person saying it
		// again: the two never share an identity.
		key += "|" + AuthorAgent
	}
	return key
}

// MakeID returns the stable ID derived from Key: a short type prefix and a
// hash, so extraction reruns produce the same IDs.
func (o *Observation) MakeID() string {
	sum := sha256.Sum256([]byte(o.Key()))
	prefix := map[string]string{TypeCorrection: "cor", TypePreference: "pref", TypeProcedure: "proc", TypeDecision: "dec",
		TypeNegativeResult: "neg", TypeDiscovery: "disc", TypeQuestion: "q"}[o.Type]
	if prefix == "" {
		prefix = "obs"
	}
	return prefix + "-" + hex.EncodeToString(sum[:])[:10]
}

// SimilarityThreshold is the minimum text similarity for Similar.
const SimilarityThreshold = 0.3

// Similar reports whether a and b are near-duplicates: same type,
// overlapping action types (when both have any), and similar main text
// (Jaccard over content stems, or high coverage of the shorter text).
func Similar(a, b *Observation) bool {
	if a == nil || b == nil || a.Type != b.Type {
		return false
	}
	return Prepare(a).Similar(Prepare(b))
}

// Comparable is an observation prepared for many Similar comparisons: its
// key, action types and content stems computed once.
type Comparable struct {
	typ   string
	agent bool
	key   string
	types []string
	stems map[string]bool
	// report: a failure report's stems of what the person reported
	// (failureReport); nil for other observations.
	report map[string]bool
	// own: the stems of what was said that the trigger does not say.
	own map[string]bool
	// from, question: a decision's one source and its question. Two
	// decisions taken in one message on different questions (answers
	// to the agent's numbered questions) are two, however alike their
	// words.
	from     SourceRef
	question string
	// replyLang: the language a preference asks to be answered in
	// (askedReplyLanguage), "" for others.
	replyLang string
}

// Prepare computes what Similar compares of o.
func Prepare(o *Observation) *Comparable {
	if o == nil {
		return nil
	}
	// The stems of what was said, and of it with the trigger: each text's
	// stems once.
	own, trig := contentStems(o.mainText()), contentStems(o.Trigger)
	stems := maps.Clone(own)
	for w := range trig {
		stems[w] = true
		delete(own, w)
	}
	c := &Comparable{typ: o.Type, agent: o.AgentAuthored(), key: o.Key(), types: o.actionTypes(), stems: stems,
		report: failureReport(o), own: own}
	if o.Type == TypeDecision && len(o.Sources) == 1 {
		c.from, c.question = o.Sources[0], o.Question
	}
	if o.Type == TypePreference {
		// The language named last in the person's first words, as asked
		// for ("หยุดตอบภาษาอังกฤษ! ... ตอบภาษาไทย": Thai; what follows may
		// be a pasted reply that names another), else in the statement.
		if c.replyLang = askedReplyLanguage(headOf(o.Excerpt, 240)); c.replyLang == "" {
			c.replyLang = askedReplyLanguage(o.Statement)
		}
	}
	return c
}

// Similar is Similar on prepared observations.
func (a *Comparable) Similar(b *Comparable) bool {
	if a == nil || b == nil || a.typ != b.typ || a.agent != b.agent {
		return false
	}
	if a.key == b.key {
		return true
	}
	if a.replyLang != "" && a.replyLang == b.replyLang {
		// "Always respond in Thai." and "หยุดตอบภาษาอังกฤษ! ... ตอบภาษาไทย":
		// one preference, however worded, so that it recurs.
		return true
	}
	if a.question != b.question && a.from.Session != "" && a.from == b.from {
		return false
	}
	if a.report != nil || b.report != nil {
		return sameReport(a, b)
	}
	ta, tb := a.types, b.types
	shared := 0
	for _, x := range ta {
		for _, y := range tb {
			if x == y {
				shared++
			}
		}
	}
	if len(ta) > 0 && len(tb) > 0 && shared == 0 {
		return false
	}
	if len(a.own) >= 4 && len(b.own) >= 4 && overlap(a.own, b.own) < 0.2 {
		// Two corrections of the same call (the same file, the same
		// trigger words) that say different things: "never ${} in mapper
		// XML" and "Oracle has no LIMIT, use FETCH FIRST" are two lessons.
		return false
	}
	sa, sb := a.stems, b.stems
	j, cov := jaccard(sa, sb), overlap(sa, sb)
	switch {
	case len(ta) > 0 && len(tb) > 0:
		// The most specific type agreeing is strong evidence already.
		if ta[0] == tb[0] && (j >= SimilarityThreshold*0.6 || cov >= 0.4) {
			return true
		}
		return j >= SimilarityThreshold || cov >= 0.6
	default:
		return j >= 0.5 || (cov >= 0.8 && min(len(sa), len(sb)) >= 4)
	}
}

func (o *Observation) actionTypes() []string {
	if len(o.ActionTypes) > 0 {
		return o.ActionTypes
	}
	if o.ActionType != "" {
		return []string{o.ActionType}
	}
	return nil
}

// Merge folds n into existing: sources, sessions, first/last seen, signals,
// counts and importance. Human text fields of existing are never rewritten;
// only empty ones are filled.
func Merge(existing, n *Observation) {
	if existing == nil || n == nil {
		return
	}
	seen := map[SourceRef]bool{}
	for _, s := range existing.Sources {
		seen[s] = true
	}
	for _, s := range n.Sources {
		if !seen[s] {
			existing.Sources = append(existing.Sources, s)
			seen[s] = true
		}
	}
	sort.SliceStable(existing.Sources, func(i, j int) bool {
		a, b := existing.Sources[i], existing.Sources[j]
		if !a.Time.Equal(b.Time) {
			return a.Time.Before(b.Time)
		}
		if a.Session != b.Session {
			return a.Session < b.Session
		}
		return a.From < b.From
	})
	before := existing.Sessions
	existing.Sessions = distinctSessions(existing.Sources)
	existing.FirstSeen = minTime(existing.FirstSeen, n.FirstSeen)
	existing.LastSeen = maxTime(existing.LastSeen, n.LastSeen)
	existing.Signals = unionStrings(existing.Signals, n.Signals)
	if len(n.Projects) > 0 {
		existing.Projects = unionStrings(existing.Projects, n.Projects)
		sort.Strings(existing.Projects)
	}
	if existing.Sessions >= 2 {
		existing.Signals = unionStrings(existing.Signals, []string{SignalRecurrence})
		if !existing.FirstSeen.IsZero() && existing.LastSeen.Sub(existing.FirstSeen) >= 24*time.Hour {
			existing.Signals = unionStrings(existing.Signals, []string{SignalReturn})
		}
	}
	existing.ActionTypes = unionStrings(existing.ActionTypes, n.ActionTypes)
	if existing.ActionType == "" {
		existing.ActionType = n.ActionType
	}
	existing.References = unionStrings(existing.References, n.References)
	existing.Accepts += n.Accepts
	existing.Rejects += n.Rejects
	if existing.Accepts+existing.Rejects > 0 && existing.Type == TypePreference {
		maj := max(existing.Accepts, existing.Rejects)
		existing.Consistency = float64(maj) / float64(existing.Accepts+existing.Rejects)
	}
	existing.Answered = existing.Answered || n.Answered
	existing.Confidence = clamp01(max(existing.Confidence, n.Confidence) + 0.05*float64(existing.Sessions-max(before, 1)))
	imp := max(existing.Importance, n.Importance)
	if existing.Sessions > before && before > 0 {
		imp += 0.1 * float64(existing.Sessions-before)
	}
	existing.Importance = clamp01(imp)
	fill := func(dst *string, src string) {
		if strings.TrimSpace(*dst) == "" {
			*dst = src
		}
	}
	fill(&existing.Title, n.Title)
	fill(&existing.Description, n.Description)
	fill(&existing.Trigger, n.Trigger)
	fill(&existing.Lesson, n.Lesson)
	fill(&existing.Consequence, n.Consequence)
	fill(&existing.Statement, n.Statement)
	fill(&existing.Domain, n.Domain)
	fill(&existing.Goal, n.Goal)
	fill(&existing.Approach, n.Approach)
	fill(&existing.Failure, n.Failure)
	fill(&existing.FollowedBy, n.FollowedBy)
	fill(&existing.Claim, n.Claim)
	fill(&existing.Question, n.Question)
	fill(&existing.Chosen, n.Chosen)
	fill(&existing.Excerpt, n.Excerpt)
	fill(&existing.Lifecycle, n.Lifecycle)
	fill(&existing.Status, n.Status)
	fill(&existing.Author, n.Author)
	fill(&existing.Origin, n.Origin)
	if len(existing.Steps) == 0 {
		existing.Steps = n.Steps
	}
	if len(existing.Alternatives) == 0 {
		existing.Alternatives = n.Alternatives
	}
	if len(existing.Reasons) == 0 {
		existing.Reasons = n.Reasons
	}
}

// Dedupe merges near-duplicates (Similar) in obs, keeping the first of each
// group, and returns the survivors in their original order.
func Dedupe(obs []*Observation) []*Observation {
	var out []*Observation
	for _, o := range obs {
		merged := false
		for _, e := range out {
			if Similar(e, o) {
				Merge(e, o)
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, o)
		}
	}
	return out
}

func distinctSessions(src []SourceRef) int {
	m := map[string]bool{}
	for _, s := range src {
		m[s.Session] = true
	}
	return len(m)
}

func minTime(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func unionStrings(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, x := range b {
		found := false
		for _, y := range out {
			if x == y {
				found = true
				break
			}
		}
		if !found {
			out = append(out, x)
		}
	}
	return out
}

func compactStrings(s []string) []string {
	var out []string
	for i, x := range s {
		if x != "" && (i == 0 || x != s[i-1]) {
			out = append(out, x)
		}
	}
	return out
}

func clamp01(f float64) float64 {
	if f < 0 {
		return 0
	}
	if f > 1 {
		return 1
	}
	return f
}

// ToMap returns the observation as YAML-friendly front-matter fields with
// snake_case keys; empty fields are left out.
func (o *Observation) ToMap() map[string]any {
	m := map[string]any{}
	put := func(k string, v any) {
		switch x := v.(type) {
		case string:
			if x == "" {
				return
			}
		case []string:
			if len(x) == 0 {
				return
			}
		case int:
			if x == 0 {
				return
			}
		case float64:
			if x == 0 {
				return
			}
		case bool:
			if !x {
				return
			}
		case time.Time:
			if x.IsZero() {
				return
			}
			v = x.UTC().Format(time.RFC3339)
		}
		m[k] = v
	}
	put("id", o.ID)
	put("type", o.Type)
	put("title", o.Title)
	put("description", o.Description)
	put("lifecycle", o.Lifecycle)
	put("confidence", round2(o.Confidence))
	put("importance", round2(o.Importance))
	put("status", o.Status)
	if len(o.Sources) > 0 {
		src := make([]string, 0, len(o.Sources))
		for _, s := range o.Sources {
			src = append(src, s.String())
		}
		m["sources"] = src
	}
	put("sessions", o.Sessions)
	put("first_seen", o.FirstSeen)
	put("last_seen", o.LastSeen)
	put("signals", o.Signals)
	put("projects", o.Projects)
	if o.Author != AuthorPerson {
		put("author", o.Author)
	}
	put("origin", o.Origin)
	put("reviewed", o.Reviewed)
	put("supersedes", o.Supersedes)
	put("superseded_by", o.SupersededBy)
	put("trigger", o.Trigger)
	put("action_type", o.ActionType)
	put("action_types", o.ActionTypes)
	put("lesson", o.Lesson)
	put("consequence", o.Consequence)
	put("domain", o.Domain)
	put("statement", o.Statement)
	put("accepts", o.Accepts)
	put("rejects", o.Rejects)
	put("consistency", round2(o.Consistency))
	put("goal", o.Goal)
	put("steps", o.Steps)
	put("question", o.Question)
	if len(o.Alternatives) > 0 {
		var alts []map[string]any
		for _, a := range o.Alternatives {
			e := map[string]any{"name": a.Name}
			if a.Reasoning != "" {
				e["reasoning"] = a.Reasoning
			}
			alts = append(alts, e)
		}
		m["alternatives"] = alts
	}
	put("chosen", o.Chosen)
	put("reasons", o.Reasons)
	put("approach", o.Approach)
	put("failure", o.Failure)
	put("followed_by", o.FollowedBy)
	put("claim", o.Claim)
	put("marker", o.Marker)
	put("references", o.References)
	put("answered", o.Answered)
	put("excerpt", o.Excerpt)
	return m
}

func round2(f float64) float64 { return float64(int(f*100+0.5)) / 100 }

// FieldError reports a front-matter field of the wrong shape.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return fmt.Sprintf("observation field %q: %s", e.Field, e.Msg) }

// FromMap builds an observation from front-matter fields as ToMap writes
// them (and as a YAML decoder returns them: numbers may be int or float,
// times strings or time.Time, lists []any). Unknown keys are ignored; a
// known key of the wrong shape is a *FieldError.
func FromMap(m map[string]any) (*Observation, error) {
	o := &Observation{}
	var err error
	str := func(k string, dst *string) {
		if v, ok := m[k]; ok && v != nil && err == nil {
			s, ok := v.(string)
			if !ok {
				s = fmt.Sprint(v)
			}
			*dst = s
		}
	}
	num := func(k string, dst *float64) {
		if v, ok := m[k]; ok && v != nil && err == nil {
			switch x := v.(type) {
			case float64:
				*dst = x
			case float32:
				*dst = float64(x)
			case int:
				*dst = float64(x)
			case int64:
				*dst = float64(x)
			case uint64:
				*dst = float64(x)
			default:
				err = &FieldError{k, fmt.Sprintf("want a number, got %T", v)}
			}
		}
	}
	integer := func(k string, dst *int) {
		var f float64
		num(k, &f)
		*dst = int(f)
	}
	tm := func(k string, dst *time.Time) {
		if v, ok := m[k]; ok && v != nil && err == nil {
			*dst, err = parseTime(k, v)
		}
	}
	list := func(k string, dst *[]string) {
		if v, ok := m[k]; ok && v != nil && err == nil {
			switch x := v.(type) {
			case []string:
				*dst = append([]string(nil), x...)
			case []any:
				for _, e := range x {
					*dst = append(*dst, fmt.Sprint(e))
				}
			case string:
				*dst = []string{x}
			default:
				err = &FieldError{k, fmt.Sprintf("want a list, got %T", v)}
			}
		}
	}
	str("id", &o.ID)
	str("type", &o.Type)
	str("title", &o.Title)
	str("description", &o.Description)
	str("lifecycle", &o.Lifecycle)
	num("confidence", &o.Confidence)
	num("importance", &o.Importance)
	str("status", &o.Status)
	integer("sessions", &o.Sessions)
	tm("first_seen", &o.FirstSeen)
	tm("last_seen", &o.LastSeen)
	list("signals", &o.Signals)
	list("projects", &o.Projects)
	str("author", &o.Author)
	str("origin", &o.Origin)
	tm("reviewed", &o.Reviewed)
	list("supersedes", &o.Supersedes)
	str("superseded_by", &o.SupersededBy)
	str("trigger", &o.Trigger)
	str("action_type", &o.ActionType)
	list("action_types", &o.ActionTypes)
	str("lesson", &o.Lesson)
	str("consequence", &o.Consequence)
	str("domain", &o.Domain)
	str("statement", &o.Statement)
	integer("accepts", &o.Accepts)
	integer("rejects", &o.Rejects)
	num("consistency", &o.Consistency)
	str("goal", &o.Goal)
	list("steps", &o.Steps)
	str("question", &o.Question)
	str("chosen", &o.Chosen)
	list("reasons", &o.Reasons)
	str("approach", &o.Approach)
	str("failure", &o.Failure)
	str("followed_by", &o.FollowedBy)
	str("claim", &o.Claim)
	str("marker", &o.Marker)
	list("references", &o.References)
	str("excerpt", &o.Excerpt)
	if v, ok := m["answered"]; ok && err == nil {
		b, isBool := v.(bool)
		if !isBool && v != nil {
			err = &FieldError{"answered", fmt.Sprintf("want true or false, got %T", v)}
		}
		o.Answered = b
	}
	if err == nil && o.Author != "" && o.Author != AuthorPerson && o.Author != AuthorAgent {
		err = &FieldError{"author", fmt.Sprintf("want %s or %s, got %q", AuthorPerson, AuthorAgent, o.Author)}
	}
	if err != nil {
		return nil, err
	}
	if o.Author == AuthorPerson {
		o.Author = ""
	}
	if v, ok := m["sources"]; ok && v != nil {
		items, ok := v.([]any)
		if ss, isStrings := v.([]string); isStrings {
			ok = true
			for _, x := range ss {
				items = append(items, x)
			}
		}
		if !ok {
			if mm, isMaps := v.([]map[string]any); isMaps {
				for _, x := range mm {
					items = append(items, x)
				}
			} else {
				return nil, &FieldError{"sources", fmt.Sprintf("want a list, got %T", v)}
			}
		}
		for i, it := range items {
			var s SourceRef
			var err error
			switch x := it.(type) {
			case string:
				s, err = ParseSourceRef(x)
			case map[string]any:
				s, err = FromMapSource(x)
			default:
				err = fmt.Errorf("want a string or mapping, got %T", it)
			}
			if err != nil {
				return nil, &FieldError{"sources", fmt.Sprintf("item %d: %v", i+1, err)}
			}
			o.Sources = append(o.Sources, s)
		}
	}
	if v, ok := m["alternatives"]; ok && v != nil {
		items, ok := v.([]any)
		if !ok {
			return nil, &FieldError{"alternatives", fmt.Sprintf("want a list, got %T", v)}
		}
		for i, it := range items {
			switch x := it.(type) {
			case string:
				o.Alternatives = append(o.Alternatives, Alternative{Name: x})
			case map[string]any:
				a := Alternative{}
				if s, ok := x["name"].(string); ok {
					a.Name = s
				}
				if s, ok := x["reasoning"].(string); ok {
					a.Reasoning = s
				}
				o.Alternatives = append(o.Alternatives, a)
			default:
				return nil, &FieldError{"alternatives", fmt.Sprintf("item %d: want a mapping, got %T", i+1, it)}
			}
		}
	}
	return o, nil
}

// String renders a source reference as "session#from-to", the form kb
// documents use in their sources field.
func (s SourceRef) String() string {
	if s.From == s.To {
		return fmt.Sprintf("%s#%d", s.Session, s.From)
	}
	return fmt.Sprintf("%s#%d-%d", s.Session, s.From, s.To)
}

// ParseSourceRef parses "session#from-to" (or "session#seq", or a bare
// session).
func ParseSourceRef(s string) (SourceRef, error) {
	s = strings.TrimSpace(s)
	i := strings.LastIndexByte(s, '#')
	if i < 0 {
		if s == "" {
			return SourceRef{}, fmt.Errorf("empty source")
		}
		return SourceRef{Session: s}, nil
	}
	ref := SourceRef{Session: s[:i]}
	rng := s[i+1:]
	from, to, isRange := strings.Cut(rng, "-")
	var err error
	if ref.From, err = strconv.Atoi(from); err != nil {
		return ref, fmt.Errorf("source %q: bad record number %q", s, from)
	}
	ref.To = ref.From
	if isRange {
		if ref.To, err = strconv.Atoi(to); err != nil {
			return ref, fmt.Errorf("source %q: bad record number %q", s, to)
		}
	}
	return ref, nil
}

// FromMapSource decodes one source reference.
func FromMapSource(m map[string]any) (SourceRef, error) {
	var s SourceRef
	if v, ok := m["session"]; ok && v != nil {
		s.Session = fmt.Sprint(v)
	}
	for _, k := range []string{"from", "to"} {
		v, ok := m[k]
		if !ok || v == nil {
			continue
		}
		var n int
		switch x := v.(type) {
		case int:
			n = x
		case int64:
			n = int(x)
		case uint64:
			n = int(x)
		case float64:
			n = int(x)
		default:
			return s, fmt.Errorf("%s: want an integer, got %T", k, v)
		}
		if k == "from" {
			s.From = n
		} else {
			s.To = n
		}
	}
	if v, ok := m["time"]; ok && v != nil {
		t, err := parseTime("time", v)
		if err != nil {
			return s, err
		}
		s.Time = t
	}
	return s, nil
}

func parseTime(k string, v any) (time.Time, error) {
	switch x := v.(type) {
	case time.Time:
		return x, nil
	case string:
		for _, layout := range []string{time.RFC3339Nano, time.RFC3339, "2006-01-02T15:04:05", "2006-01-02"} {
			if t, err := time.Parse(layout, x); err == nil {
				return t, nil
			}
		}
		return time.Time{}, &FieldError{k, fmt.Sprintf("bad time %q", x)}
	}
	return time.Time{}, &FieldError{k, fmt.Sprintf("want a time, got %T", v)}
}

// Body renders the short human summary of an observation as Markdown, with
// the key trace excerpt quoted.
func (o *Observation) Body() string {
	var b strings.Builder
	line := func(label, v string) {
		if strings.TrimSpace(v) != "" {
			fmt.Fprintf(&b, "**%s:** %s\n\n", label, strings.TrimSpace(v))
		}
	}
	if o.AgentAuthored() {
		b.WriteString(o.AuthorLabel() + ": the agent's words, not the person's.\n\n")
	}
	if o.SupersededBy != "" {
		b.WriteString("Superseded by " + o.SupersededBy + ": the person later said otherwise.\n\n")
	}
	if len(o.Supersedes) > 0 {
		b.WriteString("Supersedes " + strings.Join(o.Supersedes, ", ") + ": what the person said before.\n\n")
	}
	switch o.Type {
	case TypeCorrection:
		if o.Trigger != "" {
			fmt.Fprintf(&b, "**When:** %s\n\n", o.Trigger)
		}
		line("Do", o.Lesson)
		line("Why", o.Consequence)
	case TypePreference:
		line("Preference", o.Statement)
		line("Domain", o.Domain)
	case TypeProcedure:
		line("Goal", o.Goal)
		for i, s := range o.Steps {
			fmt.Fprintf(&b, "%d. %s\n", i+1, s)
		}
		if len(o.Steps) > 0 {
			b.WriteString("\n")
		}
	case TypeDecision:
		line("Question", o.Question)
		for _, a := range o.Alternatives {
			if a.Reasoning != "" {
				fmt.Fprintf(&b, "- %s: %s\n", a.Name, a.Reasoning)
			} else {
				fmt.Fprintf(&b, "- %s\n", a.Name)
			}
		}
		if len(o.Alternatives) > 0 {
			b.WriteString("\n")
		}
		line("Chosen", o.Chosen)
		if len(o.Reasons) > 0 {
			line("Because", strings.Join(o.Reasons, "; "))
		}
	case TypeNegativeResult:
		line("Tried", o.Approach)
		line("Failed", o.Failure)
		line("Then", o.FollowedBy)
	case TypeDiscovery:
		line("Claim", o.Claim)
	case TypeQuestion:
		line("Question", o.Question)
		if o.Answered {
			b.WriteString("Answered in the session.\n\n")
		} else {
			b.WriteString("Not answered in the session.\n\n")
		}
	default:
		line("Note", o.Description)
	}
	if ex := strings.TrimSpace(o.Excerpt); ex != "" {
		for _, l := range strings.Split(ex, "\n") {
			b.WriteString("> " + l + "\n")
		}
		b.WriteString("\n")
	}
	if len(o.Sources) > 0 {
		b.WriteString("Sources: ")
		for i, s := range o.Sources {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(s.String())
		}
		b.WriteString("\n")
	}
	return b.String()
}

// AuthorLabel names who wrote an agent-authored observation and whether a
// person reviewed it: "Written by the agent (unreviewed)". It is empty for
// the person's own.
func (o *Observation) AuthorLabel() string {
	if !o.AgentAuthored() {
		return ""
	}
	how := "Written by the agent"
	switch o.Origin {
	case OriginMCPRemember:
		how = "Written by the agent (MCP remember)"
	case OriginAssistantText:
		how = "Written by the agent (its own reply)"
	}
	if o.NeedsReview() {
		return how + ", unreviewed"
	}
	return how + ", reviewed " + o.Reviewed.UTC().Format("2006-01-02")
}
