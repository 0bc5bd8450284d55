package recall

import (
	"context"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kbmem/kb/observations"
)

// The commitment stage (design: "Commitment"): what a session was shown
// is compared with what its agent did afterwards. A hook that injects
// items logs an Injection; once the session's trace is imported, each
// shown lesson is judged on the tool calls the agent made after it saw it:
//
//   - ignored: a later call holds a signature the lesson prohibits (the
//     code it bans, the flag it forbids), runs a program the lesson
//     prohibits, or repeats the corrected shell command itself;
//   - followed: a later call of the lesson's situation (matched by its
//     action type, file or trigger phrase with a specific signal, or
//     holding what the lesson advises) does none of that;
//   - untested: no later call was of the lesson's situation.
//
// The call that brought a PreToolUse injection is not judged: the
// context reaches the agent with the call already proposed.

// Outcomes of the commitment stage.
const (
	Followed = "followed"
	Ignored  = "ignored"
	Untested = "untested"
)

// Injection is one hook answer that showed items to a session.
type Injection struct {
	At       time.Time `json:"at"`
	Event    string    `json:"event"`
	Tool     string    `json:"tool,omitempty"`
	IDs      []string  `json:"ids"`
	Decision string    `json:"decision,omitempty"` // "ask" or "deny" when the answer decided the call
}

// Call is one tool call of a session's trace, as a PreToolUse query.
type Call struct {
	At    time.Time
	Query Query
}

// Verdict is how the session's agent acted on one lesson it was shown.
type Verdict struct {
	ID      string    `json:"id"`
	Outcome string    `json:"outcome"`
	Shown   time.Time `json:"shown"`          // first shown in the session
	At      time.Time `json:"at,omitzero"`    // the deciding call
	Call    string    `json:"call,omitempty"` // the deciding call, short
	Why     string    `json:"why,omitempty"`  // what in the call decided
}

// Commitment judges every lesson the injections showed against the calls
// made after it was first shown. Calls may come in any order.
func (e *Engine) Commitment(ctx context.Context, injected []Injection, calls []Call) ([]Verdict, error) {
	first := map[string]time.Time{}
	for _, in := range injected {
		for _, id := range in.IDs {
			if t, ok := first[id]; !ok || in.At.Before(t) {
				first[id] = in.At
			}
		}
	}
	if len(first) == 0 {
		return []Verdict{}, nil
	}
	calls = slices.Clone(calls)
	sort.SliceStable(calls, func(i, j int) bool { return calls[i].At.Before(calls[j].At) })
	tax := e.Taxonomy()
	verdicts := map[string]*Verdict{}
	for id, t := range first {
		verdicts[id] = &Verdict{ID: id, Outcome: Untested, Shown: t}
	}
	for _, call := range calls {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		open := false
		for id, v := range verdicts {
			if v.Outcome != Ignored && call.At.After(first[id]) {
				open = true
				break
			}
		}
		if !open {
			continue
		}
		cu := buildCueLex(tax, e.Config.Lexicon, call.Query)
		if !cu.hasCall || cu.readOnly {
			continue
		}
		cands, err := e.cueCandidates(cu)
		if err != nil {
			return nil, err
		}
		for _, c := range cands {
			v := verdicts[c.id]
			if v == nil || v.Outcome == Ignored || !call.At.After(first[c.id]) {
				continue
			}
			out, why := cu.commitment(c)
			if out == "" || out == Followed && v.Outcome == Followed {
				continue
			}
			v.Outcome, v.At, v.Call, v.Why = out, call.At, cu.action, why
		}
	}
	out := make([]Verdict, 0, len(verdicts))
	for _, v := range verdicts {
		out = append(out, *v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// commitment judges one call against one lesson the session was shown:
// Ignored, Followed, or "" when the call is not of the lesson's situation.
func (cu *cue) commitment(c *candidate) (string, string) {
	if c.pasted || c.status == observations.StatusRejected {
		return "", ""
	}
	cu.readSaid(c)
	lesson := c.said
	if lesson == "" {
		lesson = c.lesson
	}
	if cu.repeats(c) {
		return Ignored, "repeats the corrected command"
	}
	banned, advised := lessonPrograms(lesson, cu.programs)
	if banned != "" {
		return Ignored, "runs " + banned
	}
	// A lesson that prohibits (in words or by a code signature) can be
	// broken; one that only asks for something is judged only on its
	// advised signatures: "use conventional commits" cannot be checked on
	// the call that commits.
	prohibitive := negates(lesson) || c.prohibitsCode()
	cu.match(c)
	switch {
	case c.sigHit != "":
		return Ignored, "holds " + c.sigHit
	case c.follow != "":
		return Followed, "holds " + c.follow
	case !prohibitive || c.relevance <= 0:
		return "", ""
	case advised != "":
		// The instead-part's program ("use pnpm instead"), in the
		// lesson's situation.
		return Followed, "runs " + advised
	case c.typeScore >= 0.9 && len(c.types) > 0 && c.candAT == c.types[0]:
		// The corrected action itself, by its own type ("git:push-force"
		// for "never force-push main").
		return Ignored, "does " + c.matchedAT
	}
	return Followed, "the lesson's situation, without what it prohibits"
}

// repeats reports whether a shell call runs the command a correction's
// trigger quotes (the corrected call itself).
func (cu *cue) repeats(c *candidate) bool {
	if cu.command == "" || c.trigger == "" || callKind(c.trigger) != "shell" {
		return false
	}
	for _, s := range signatures(c.trigger) {
		if strings.ContainsAny(s.text, " ") && containsSpan(cu.command, s.text) {
			return true
		}
	}
	return false
}

// lessonPrograms are the program of programs a clause of the lesson
// prohibits ("do not use npm, use pnpm": npm) and no clause advises, and
// the one a clause advises and none prohibits (pnpm); "" when there is
// none.
func lessonPrograms(lesson string, programs []string) (banned, advised string) {
	if len(programs) == 0 || lesson == "" {
		return "", ""
	}
	text := insteadOfRE.ReplaceAllString(lesson, ". not ")
	no, yes := map[string]bool{}, map[string]bool{}
	for _, cl := range splitClauses(text) {
		set := yes
		if negates(cl) {
			set = no
		}
		// Everyday words that are programs too ("make sure") name the
		// program only in code.
		toolWords(cl, set)
	}
	for _, p := range programs {
		lp := strings.ToLower(p)
		switch {
		case no[lp] && !yes[lp] && banned == "":
			banned = p
		case yes[lp] && !no[lp] && advised == "":
			advised = p
		}
	}
	return banned, advised
}

// LessonCommitment is how agents acted on one lesson over the sessions
// that were shown it (`kb status`).
type LessonCommitment struct {
	ID       string `json:"id"`
	Title    string `json:"title,omitempty"`
	Sessions int    `json:"sessions"` // sessions shown it and judged
	Followed int    `json:"followed"`
	Ignored  int    `json:"ignored"`
	Untested int    `json:"untested"`
	// Reword is set when agents did what the lesson prohibits in two
	// sessions or more, and more often than not: the lesson as written
	// does not hold them back.
	Reword bool `json:"reword,omitempty"`
	// LastIgnored is the last call that did what the lesson prohibits.
	LastIgnored string `json:"last_ignored,omitempty"`
}

// RewordAfter is how many sessions that ignored a lesson flag it for
// rewording.
const RewordAfter = 2

// Tally sums the verdicts of each session per lesson, the lessons ignored
// most first.
func Tally(sessions map[string][]Verdict) []LessonCommitment {
	by := map[string]*LessonCommitment{}
	last := map[string]time.Time{}
	for _, vs := range sessions {
		for _, v := range vs {
			lc := by[v.ID]
			if lc == nil {
				lc = &LessonCommitment{ID: v.ID}
				by[v.ID] = lc
			}
			lc.Sessions++
			switch v.Outcome {
			case Followed:
				lc.Followed++
			case Ignored:
				lc.Ignored++
				if lc.LastIgnored == "" || v.At.After(last[v.ID]) {
					last[v.ID], lc.LastIgnored = v.At, v.Call
				}
			default:
				lc.Untested++
			}
		}
	}
	out := make([]LessonCommitment, 0, len(by))
	for _, lc := range by {
		lc.Reword = lc.Ignored >= RewordAfter && lc.Ignored > lc.Followed
		out = append(out, *lc)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Ignored != out[j].Ignored {
			return out[i].Ignored > out[j].Ignored
		}
		if out[i].Sessions != out[j].Sessions {
			return out[i].Sessions > out[j].Sessions
		}
		return out[i].ID < out[j].ID
	})
	return out
}
