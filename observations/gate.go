package observations

import (
	"github.com/kbmem/kb/internal/textutil"
	"strings"

	"github.com/kbmem/kb/internal/lexicon"
)

// The one gate for what is worth keeping. Extraction (Merger), `kb promote`
// (library.PlanPromotions) and `kb learn` ask it the same question of an
// observation, so that promote never proposes what learn rejects and
// extraction never writes what neither would keep. It lives here, in the
// lowest layer the three share, because everything it judges is the
// observation itself plus, for derivability, the project's own files
// (Repo): no library data is needed.
//
// Three reasons to drop:
//   - obvious: what any agent does anyway ("run the tests", "be careful",
//     a mined tool-call sequence such as Read -> Edit -> TodoWrite), or no
//     statement at all (a question, one content word);
//   - one-off: tied to the task at hand and seen in one session only (it
//     points at "this/that/it", starts as a request, or is a long fix of the
//     code at hand rather than a rule); a second session lifts it;
//   - derivable: the project already says it (a file's line or sentence, a
//     path that exists, a command its Makefile or package.json declares).
//
// Obvious and derivable are final: no number of sessions changes them, so
// extraction drops them. One-off is a verdict on the evidence so far:
// extraction keeps a first sighting (it may recur), promote and learn drop
// it.

// Gate reasons.
const (
	GateObvious   = "obvious"
	GateOneOff    = "one-off"
	GateDerivable = "derivable"
)

// Verdict is the gate's answer: an empty Reason keeps the observation.
type Verdict struct {
	Reason string
	Detail string // derivable: the project file or command that says it
}

// Keep reports whether the observation passes.
func (v Verdict) Keep() bool { return v.Reason == "" }

// Final reports whether more evidence could not change the verdict.
func (v Verdict) Final() bool { return v.Reason == GateObvious || v.Reason == GateDerivable }

// String is "gate: obvious", "gate: derivable (Makefile)", or "".
func (v Verdict) String() string {
	switch {
	case v.Reason == "":
		return ""
	case v.Detail != "":
		return "gate: " + v.Reason + " (" + v.Detail + ")"
	}
	return "gate: " + v.Reason
}

// Gate judges observations; Repo, when set, is the project derivability is
// checked against. A nil *Gate judges without a project.
type Gate struct {
	Repo *Repo
}

// Judge returns the verdict on o with the evidence it carries (its
// sessions): obvious first, then one-off, then derivable.
func (g *Gate) Judge(o *Observation) Verdict {
	if o == nil {
		return Verdict{Reason: GateObvious}
	}
	if Obvious(o) {
		return Verdict{Reason: GateObvious}
	}
	if OneOff(o) {
		return Verdict{Reason: GateOneOff}
	}
	return g.derivable(o)
}

// JudgeFinal returns only a final verdict (obvious or derivable): what
// extraction drops, since a first sighting cannot show recurrence yet.
func (g *Gate) JudgeFinal(o *Observation) Verdict {
	if o == nil || Obvious(o) {
		return Verdict{Reason: GateObvious}
	}
	return g.derivable(o)
}

func (g *Gate) derivable(o *Observation) Verdict {
	if g == nil || g.Repo == nil {
		return Verdict{}
	}
	if p := g.Repo.Derivable(o); p != "" {
		return Verdict{Reason: GateDerivable, Detail: p}
	}
	return Verdict{}
}

// standingText is what an observation would say as a standing rule or
// fact: its main text, a procedure's goal with its steps, a decision's
// option with what it was chosen over and why.
func standingText(o *Observation) string {
	switch o.Type {
	case TypeProcedure:
		g := strings.TrimSpace(o.Goal)
		if g == "" {
			g = o.Title
		}
		return g + ": " + strings.Join(o.Steps, ", ")
	case TypeDecision:
		parts := []string{o.Chosen}
		for _, a := range o.Alternatives {
			if !strings.EqualFold(strings.TrimSpace(a.Name), strings.TrimSpace(o.Chosen)) {
				parts = append(parts, a.Name)
			}
		}
		parts = append(parts, o.Reasons...)
		parts = append(parts, strings.TrimRight(o.Question, "?")) // the question names the topic
		return strings.Join(parts, " ")
	}
	return o.mainText()
}

var (
	// explicitRuleRE: wording that makes a rule of one sentence.
	explicitRuleRE = textutil.Lazy(`(?i)\b(always|never|we use|we always|we never|we don't|we do not|from now on|every time|whenever)\b`)
	// taskBoundRE and taskStartRE spot instructions about the task at
	// hand rather than rules for future work: references to
	// "this/that/it", requests, investigation verbs.
	taskBoundRE = textutil.Lazy(`(?i)\b(this|that|these|those|it|them|here|above|previous|earlier|again|now)\b`)
	taskStartRE = textutil.Lazy(`(?i)^(i|i'm|i've|i'd|we'll|let's|check|find|look|see|try|investigate|first|please|can you|could you)\b`)
)

// gateNegations mark a rule as a prohibition: "do not X" is never what an
// agent does anyway.
var gateNegations = map[string]bool{"not": true, "never": true, "no": true, "avoid": true, "cannot": true, "without": true, "stop": true}

// factStems are the content stems of a rule as `kb learn` compares facts
// (negations apart), and whether it is negated.
func factStems(s string) (map[string]bool, bool) {
	out := map[string]bool{}
	neg := false
	for _, w := range words(lexicon.Straighten(s)) {
		if gateNegations[w] {
			neg = true
			continue
		}
		if lexicon.StopFacts.Has(w) {
			continue
		}
		out[lexicon.Stem(w)] = true
	}
	return out, neg
}

// genericPractice are the stems of what every coding agent does on any
// task: a rule made only of them (and naming nothing concrete) is obvious.
var genericPractice = lexicon.NewSet(`run test tests read file files edit edits check look code chang changes fix
	make sure care careful carefully todo todos plan verifi verify first write updat update good work job thing things
	step steps befor before after done finish properli properly correct correctli correctly right again continu continue
	go ahead proceed keep tri try pleas think review doubl double`).WithStems(lexicon.Stem)

// concreteRE: something a generic rule would not name: a path, a flag, a
// command in backticks, a dotted or slashed identifier, a CamelCase or
// snake_case name, a version.
var concreteRE = textutil.Lazy("`[^`]+`|(^|\\s)--?[a-zA-Z]|[\\w-]+/[\\w./-]+|~/[\\w.-]+|\\b\\w+\\.\\w{1,5}\\b|\\b[a-z]+[A-Z]\\w*|\\b\\w+_\\w+|\\bv?\\d+\\.\\d+")

// genericTools are the agents' own tools: a sequence of them is how agents
// work, not how the project is worked on.
var genericTools = map[string]bool{"read": true, "edit": true, "write": true, "multiedit": true, "todowrite": true,
	"grep": true, "glob": true, "ls": true, "task": true, "apply_patch": true, "update_plan": true, "read_file": true,
	"write_file": true, "replace": true, "list_directory": true, "search_file_content": true, "notebookedit": true,
	"webfetch": true, "websearch": true, "exitplanmode": true, "bashoutput": true}

// Obvious reports whether o says what any agent does anyway, or nothing.
func Obvious(o *Observation) bool {
	if o.Type == TypeQuestion {
		return false // kept as questions, never as facts
	}
	if o.Type == TypeProcedure {
		goal := strings.TrimSpace(o.Goal)
		if goal == "" || strings.HasPrefix(goal, "Recurring workflow") || len(o.Steps) == 0 {
			return true
		}
		generic := true
		for _, s := range o.Steps {
			if !genericTools[strings.ToLower(strings.Fields(s + " x")[0])] {
				generic = false
			}
		}
		// A goal and steps that name a command: the steps are concrete.
		return generic
	}
	text := strings.TrimSpace(standingText(o))
	stems, neg := factStems(text)
	size := len(stems)
	if strings.ContainsFunc(text, isCJK) {
		size = max(size, gateWords(text)) // unspaced scripts: one token is a whole clause
	}
	if size < 2 && !(neg && concreteRE.MatchString(text)) || strings.HasSuffix(text, "?") || strings.HasSuffix(text, "？") {
		// One content word says nothing, but for a path or a name of
		// code said not to be ("I don't have ~/vim"): a fact of the
		// person's machine the agent had wrong.
		return true
	}
	if neg || concreteRE.MatchString(text) {
		return false
	}
	for s := range stems {
		if !genericPractice.Has(s) {
			return false
		}
	}
	return true
}

// ExplicitRule reports whether o's wording makes it a rule ("always", "never",
// "we use").
func ExplicitRule(o *Observation) bool {
	switch o.Type {
	case TypeCorrection, TypePreference:
		return explicitRuleRE.MatchString(standingText(o))
	}
	return false
}

// oneOffMinImportance: below it a decision or negative result seen once is
// the task at hand; a discovery needs less.
const (
	oneOffMinImportance    = 0.6
	discoveryMinImportance = 0.5
	ruleMinImportance      = 0.7
	ruleMaxWords           = 8
)

// TaskBound reports whether a lesson's text reads as an instruction about
// the task at hand rather than a rule for future work: it points at
// "this/that/it" or starts as a request or an investigation ("can you",
// "check whether"), without the wording of a rule ("always", "from now
// on"). English only, as the gate's other word rules.
func TaskBound(text string) bool {
	text = strings.TrimSpace(text)
	return (taskStartRE.MatchString(text) || taskBoundRE.MatchString(text)) && !explicitRuleRE.MatchString(text)
}

// RequestsTask reports whether text opens by asking for work on the task at
// hand ("can you replace them with one link", "check whether we need X",
// "let's split it"): narrower than TaskBound, which any "it" or "now"
// makes true.
func RequestsTask(text string) bool {
	text = strings.TrimSpace(text)
	return taskStartRE.MatchString(text) && !explicitRuleRE.MatchString(text)
}

// Guesses reports whether the person's words open with a guess at what is
// going on ("I think the library is setting it, there's no data-groupid",
// "maybe the cache", "我觉得是缓存"): a diagnosis of the task at hand, and
// its negations describe rather than prohibit. A guess that states a rule
// ("I think we should never ...") is no guess.
func Guesses(text string) bool {
	low := lower(strings.TrimSpace(text))
	return lexicon.CueGuess.AtStart(low) && !explicitRuleRE.MatchString(low) && !ruleModalRE.MatchString(low)
}

// ruleModalRE: words that make a guess an instruction.
var ruleModalRE = textutil.Lazy(`(?i)\b(should|shouldn'?t|must|mustn'?t|need to|have to|don'?t|do not|please)\b`)

// Asks reports whether the person's words open by asking: their first
// sentence is a question (a question mark, or the particle Chinese,
// Japanese and Korean end one with) or holds an interrogative of a
// language that asks without a question mark (lexicon.CueAsk: 怎么, 是不是,
// 對吧, どうして, 어떻게). "Please don't edit X. Could you fix it in Y instead?" opens by
// instructing.
func Asks(text string) bool {
	ss := sentences(text)
	if len(ss) == 0 {
		return false
	}
	return questionLike(ss[0]) || lexicon.CueAsk.In(lower(ss[0]))
}

// OneOff reports whether o, with the sessions it was seen in so far, is
// tied to the task at hand. Recurrence (two sessions) lifts it.
func OneOff(o *Observation) bool {
	if o.Sessions >= 2 || distinctSessions(o.Sources) >= 2 {
		return false
	}
	switch o.Type {
	case TypeCorrection, TypePreference:
		if ExplicitRule(o) {
			return false
		}
		text := strings.TrimSpace(standingText(o))
		if TaskBound(text) {
			return true
		}
		// Seen once, without "always/never/we use": only an important,
		// short, single-clause rule reads as a convention; longer ones on
		// real transcripts were fixes of the code at hand.
		return o.Importance < ruleMinImportance || gateWords(text) > ruleMaxWords ||
			strings.ContainsAny(strings.TrimRight(text, "."), ",;，；、")
	case TypeProcedure:
		return true
	case TypeDecision, TypeNegativeResult:
		return o.Importance < oneOffMinImportance
	case TypeDiscovery:
		return o.Importance < discoveryMinImportance
	}
	return false
}

// gateWords counts words as a reader does for the gate's thresholds: a
// space-separated word, or each Han or kana character with two of them
// counting as one word (a Chinese or Japanese word is one to three
// characters; segment.go's wordCount counts each as one, for the
// extractors' cue rules). Korean spaces its words, so it counts by words.
func gateWords(s string) int {
	n, cjk := 0, 0
	for _, w := range strings.Fields(s) {
		han := 0
		for _, r := range w {
			if lexicon.IsCJK(r) {
				han++
			}
		}
		if han == 0 {
			n++
		}
		cjk += han
	}
	return n + (cjk+1)/2
}
