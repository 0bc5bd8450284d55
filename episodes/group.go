package episodes

import (
	"encoding/json"
	"fmt"
	"github.com/kbmem/kb/internal/textutil"
	"path"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/kbmem/kb/internal/lexicon"
	"github.com/kbmem/kb/observations"
	"github.com/kbmem/kb/traces"
)

// SessionSummary is what grouping needs of a session.
type SessionSummary struct {
	ID         string
	Start, End time.Time
	Branch     string
	Prompts    []string // what the person typed, in order (injected text and slash commands excluded)
	Files      []string // paths from tool-call inputs, relative to the session's cwd when inside it
	Commits    []string // commit messages of git commit commands that ran
}

// FirstPrompt is the session's first prompt, "" if none.
func (s *SessionSummary) FirstPrompt() string {
	if len(s.Prompts) == 0 {
		return ""
	}
	return s.Prompts[0]
}

// GoalPrompt is the prompt that states what the session set out to do:
// the first of its first five prompts with two content words ("please fix
// these" or "continue" says nothing), else the first prompt.
func (s *SessionSummary) GoalPrompt() string {
	for i, p := range s.Prompts {
		if i == 5 {
			break
		}
		if contentWords(p) >= 2 {
			return p
		}
	}
	return s.FirstPrompt()
}

// vagueWords carry no goal: politeness, pointers, acknowledgements.
var vagueWords = lexicon.NewSet(`please fix these this that those it them can you could would the a an and ok okay yes no go on
	continue now do again thanks thank try same for to me what about is of in with let lets let's`)

func contentWords(s string) int {
	n := 0
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '\'')
	}) {
		if len(w) > 1 && !vagueWords.Has(w) {
			n++
		}
	}
	return n
}

// pathKeys are tool-input keys holding a file path.
var pathKeys = []string{"file_path", "path", "notebook_path", "filePath", "filename", "absolute_path"}

var commitMsgRE = textutil.Lazy(`git\s+commit\b[^|;&]*?\s-(?:a?m)\s+(?:"([^"]+)"|'([^']+)'|(\S+))`)

// Summarize reduces a session's records to a SessionSummary.
func Summarize(id string, recs []traces.Record) SessionSummary {
	s := SessionSummary{ID: id}
	cwd := ""
	files := map[string]bool{}
	rejected := map[string]bool{}
	for i := range recs {
		if recs[i].Has(traces.MarkRejected) && recs[i].CallID != "" {
			rejected[recs[i].CallID] = true
		}
	}
	for i := range recs {
		r := &recs[i]
		if !r.Time.IsZero() {
			if s.Start.IsZero() || r.Time.Before(s.Start) {
				s.Start = r.Time
			}
			if r.Time.After(s.End) {
				s.End = r.Time
			}
		}
		if r.Branch != "" {
			s.Branch = r.Branch
		}
		if cwd == "" && r.Cwd != "" {
			cwd = r.Cwd
		}
		switch r.Kind {
		case traces.KindMessage:
			if r.Human() && !r.Has(traces.MarkSlash) && !r.Has(traces.MarkInterrupt) && strings.TrimSpace(r.Text) != "" {
				s.Prompts = append(s.Prompts, strings.TrimSpace(r.Text))
			}
		case traces.KindToolCall:
			if len(r.Input) == 0 || (r.CallID != "" && rejected[r.CallID]) {
				continue
			}
			var in map[string]any
			if json.Unmarshal(r.Input, &in) != nil {
				continue
			}
			for _, k := range pathKeys {
				if p, ok := in[k].(string); ok && p != "" {
					files[relPath(p, cwd)] = true
				}
			}
			if cmd, ok := in["command"].(string); ok {
				for _, m := range commitMsgRE.FindAllStringSubmatch(cmd, -1) {
					if msg := firstOf(m[1], m[2], m[3]); msg != "" {
						s.Commits = append(s.Commits, msg)
					}
				}
			}
		}
	}
	for f := range files {
		s.Files = append(s.Files, f)
	}
	sort.Strings(s.Files)
	return s
}

func relPath(p, cwd string) string {
	p = path.Clean(strings.ReplaceAll(p, "\\", "/"))
	if cwd != "" {
		c := path.Clean(strings.ReplaceAll(cwd, "\\", "/"))
		if strings.HasPrefix(p, c+"/") {
			return strings.TrimPrefix(p, c+"/")
		}
	}
	return p
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// Options tune Group.
type Options struct {
	// Gap is the longest pause between two sessions of one episode without
	// a shared task reference; 0 means 48 hours.
	Gap time.Duration
	// Notes maps an observation id to the library notes derived from it.
	Notes map[string][]string
}

var (
	taskRE  = textutil.Lazy(`(?:^|[\s(\[])(#\d{1,6}|[A-Z][A-Z0-9]{1,9}-\d{1,6})\b`)
	startRE = textutil.Lazy(`(?i)\b(?:starting|start|begin(?:ning)?|let'?s start|kick(?:ing)? off)\s+(?:work(?:ing)?\s+on|on)\s+([^.!?\n]{3,80})`)
	doneRE  = textutil.Lazy(`(?i)\b(?:done with|finished with|wrapp(?:ed|ing) up|that'?s done|ship it|shipped|merged)\b`)
	abandRE = textutil.Lazy(`(?i)\b(?:abandon(?:ing)?|give up on|giving up|drop (?:this|it)|let'?s drop|not worth it|scrap (?:this|it)|forget (?:about )?(?:this|it))\b`)
	wordRE  = textutil.Lazy(`[a-z][a-z0-9_]{2,}`)
)

var topicStop = lexicon.NewSet(`the and for this that with please can you let lets now add fix make what how why does should from
	into our are use all then also need want some there have`)

// Tasks returns the task references in text: #123 and ABC-123.
func Tasks(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range taskRE.FindAllStringSubmatch(text, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}

func topicWords(text string) map[string]bool {
	w := map[string]bool{}
	for _, x := range wordRE.FindAllString(strings.ToLower(text), -1) {
		if !topicStop.Has(x) {
			w[x] = true
		}
	}
	return w
}

// overlap returns the shared words of a and b and the overlap
// coefficient: shared / the smaller size.
func overlap(a, b map[string]bool) (int, float64) {
	if len(a) == 0 || len(b) == 0 {
		return 0, 0
	}
	n := 0
	for x := range a {
		if b[x] {
			n++
		}
	}
	return n, float64(n) / float64(min(len(a), len(b)))
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	n := 0
	for x := range a {
		if b[x] {
			n++
		}
	}
	return float64(n) / float64(len(a)+len(b)-n)
}

// trunkBranches are shared by unrelated work and say nothing.
var trunkBranches = map[string]bool{"": true, "main": true, "master": true, "trunk": true, "develop": true, "dev": true, "HEAD": true}

type group struct {
	sessions []*SessionSummary
	files    map[string]bool
	tasks    map[string]bool
	branch   string
	words    map[string]bool
	last     time.Time
	closed   bool   // a done or abandon marker ended it
	title    string // from a start marker
}

// Group splits sessions into episodes. Sessions are taken oldest first; a
// session joins the open episode it scores best with, else starts one:
//
//   - a shared task reference (#123, ABC-123) joins at any distance in time;
//   - otherwise the episode's last session must have ended less than Gap
//     before, and the evidence must reach 2: shared files (2 for two or
//     more or a Jaccard overlap of 0.3, else 1), the same non-trunk branch
//     (2), similar first prompts (2 for three or more shared topic words
//     covering 60% of the shorter prompt, 1 for 30%);
//   - "starting work on X" always starts an episode titled X; "done with X"
//     (or an abandon marker) closes the episode it ends.
//
// Decisions, corrections, lessons and open threads come from the
// observations whose sources fall in the episode's sessions.
func Group(sessions []SessionSummary, obs []*observations.Observation, o Options) []Episode {
	gap := o.Gap
	if gap <= 0 {
		gap = 48 * time.Hour
	}
	ss := make([]*SessionSummary, 0, len(sessions))
	for i := range sessions {
		if sessions[i].ID != "" {
			ss = append(ss, &sessions[i])
		}
	}
	sort.SliceStable(ss, func(i, j int) bool {
		if !ss[i].Start.Equal(ss[j].Start) {
			return ss[i].Start.Before(ss[j].Start)
		}
		return ss[i].ID < ss[j].ID
	})
	var groups []*group
	byTask := map[string]*group{}
	for _, s := range ss {
		all := strings.Join(s.Prompts, "\n")
		tasks := Tasks(all)
		words := topicWords(s.FirstPrompt())
		files := map[string]bool{}
		for _, f := range s.Files {
			files[f] = true
		}
		startTitle := ""
		if m := startRE.FindStringSubmatch(s.FirstPrompt()); m != nil {
			startTitle = strings.TrimSpace(m[1])
		}
		var best *group
		bestScore := 0.0
		if startTitle == "" {
			for _, t := range tasks {
				if g := byTask[t]; g != nil && !g.closed {
					best, bestScore = g, 10
					break
				}
			}
			if best == nil {
				for i := len(groups) - 1; i >= 0; i-- {
					g := groups[i]
					if g.closed || (!s.Start.IsZero() && !g.last.IsZero() && s.Start.Sub(g.last) > gap) {
						continue
					}
					score := 0.0
					shared := 0
					for f := range files {
						if g.files[f] {
							shared++
						}
					}
					if shared >= 2 || jaccard(files, g.files) >= 0.3 {
						score += 2
					} else if shared == 1 {
						score++
					}
					if !trunkBranches[s.Branch] && s.Branch == g.branch {
						score += 2
					}
					switch n, ov := overlap(words, g.words); {
					case n >= 3 && ov >= 0.6:
						score += 2
					case ov >= 0.3:
						score++
					}
					if score >= 2 && score > bestScore {
						best, bestScore = g, score
					}
				}
			}
		}
		if best == nil {
			best = &group{files: map[string]bool{}, tasks: map[string]bool{}, words: map[string]bool{}, branch: s.Branch, title: startTitle}
			groups = append(groups, best)
		}
		best.sessions = append(best.sessions, s)
		for f := range files {
			best.files[f] = true
		}
		for w := range words {
			best.words[w] = true
		}
		for _, t := range tasks {
			best.tasks[t] = true
			if byTask[t] == nil || byTask[t].closed {
				byTask[t] = best
			}
		}
		if !trunkBranches[s.Branch] {
			best.branch = s.Branch
		}
		if end := maxTime(s.End, s.Start); end.After(best.last) {
			best.last = end
		}
		for _, p := range s.Prompts {
			if doneRE.MatchString(p) || abandRE.MatchString(p) {
				best.closed = true
			}
		}
	}
	bySession := map[string][]*observations.Observation{}
	for _, ob := range obs {
		if ob == nil {
			continue
		}
		seen := map[string]bool{}
		for _, src := range ob.Sources {
			if !seen[src.Session] {
				seen[src.Session] = true
				bySession[src.Session] = append(bySession[src.Session], ob)
			}
		}
	}
	out := make([]Episode, 0, len(groups))
	for _, g := range groups {
		out = append(out, build(g, bySession, o))
	}
	return out
}

// workTitle names an episode whose sessions hold no prompt (a session the
// agent ran alone, one whose prompts were all injected) by what was done:
// the first commit message, else the files touched, else the branch and
// the day; never by a session id, which tells a reader nothing.
func workTitle(e Episode, first *SessionSummary) string {
	if len(e.Artifacts.Commits) > 0 {
		return strings.TrimSpace(strings.SplitN(e.Artifacts.Commits[0], "\n", 2)[0])
	}
	if n := len(e.Artifacts.Files); n > 0 {
		names := make([]string, 0, 3)
		for _, f := range e.Artifacts.Files {
			if len(names) == 3 {
				break
			}
			names = append(names, path.Base(f))
		}
		t := "Work on " + strings.Join(names, ", ")
		if n > 3 {
			t += fmt.Sprintf(" and %d more", n-3)
		}
		return t
	}
	day := ""
	if !first.Start.IsZero() {
		day = " on " + first.Start.Format("2006-01-02")
	}
	if e.Scope.Branch != "" {
		return "Session on branch " + e.Scope.Branch + day
	}
	if day == "" {
		return "Session without prompts"
	}
	return "Session" + day
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func build(g *group, bySession map[string][]*observations.Observation, o Options) Episode {
	e := Episode{Outcome: OutcomeOpen}
	first, last := g.sessions[0], g.sessions[len(g.sessions)-1]
	for _, s := range g.sessions {
		e.Scope.Sessions = append(e.Scope.Sessions, s.ID)
		e.Artifacts.Commits = append(e.Artifacts.Commits, s.Commits...)
	}
	e.ID = MakeID(e.Scope.Sessions)
	e.Scope.From = first.Start
	e.Scope.To = maxTime(last.End, last.Start)
	if !trunkBranches[g.branch] {
		e.Scope.Branch = g.branch
	} else {
		e.Scope.Branch = last.Branch
	}
	for t := range g.tasks {
		e.Tasks = append(e.Tasks, t)
	}
	sort.Strings(e.Tasks)
	for f := range g.files {
		e.Artifacts.Files = append(e.Artifacts.Files, f)
	}
	sort.Strings(e.Artifacts.Files)
	if len(e.Artifacts.Files) > 50 {
		e.Artifacts.Files = e.Artifacts.Files[:50]
	}
	goal := first.GoalPrompt()
	e.Goal = shorten(goal, 240)
	if e.Goal == "" {
		e.Goal = "(no prompt recorded)"
	}
	switch {
	case g.title != "":
		e.Title = shorten(g.title, 80)
	case len(e.Tasks) > 0:
		e.Title = shorten(strings.Join(e.Tasks, " ")+": "+goal, 80)
	case goal != "":
		e.Title = shorten(goal, 80)
	default:
		e.Title = shorten(workTitle(e, first), 80)
	}
	// Outcome: the last session's markers decide; a commit means done.
	abandoned, done := false, false
	for _, p := range last.Prompts {
		if abandRE.MatchString(p) {
			abandoned = true
		}
		if doneRE.MatchString(p) {
			done = true
		}
	}
	switch {
	case abandoned:
		e.Outcome = OutcomeAbandoned
	case done || len(last.Commits) > 0:
		e.Outcome = OutcomeAccomplished
	}
	seen := map[string]bool{}
	notes := map[string]bool{}
	var unansweredQ, unresolved []string
	for _, s := range g.sessions {
		for _, ob := range bySession[s.ID] {
			if seen[ob.ID] {
				continue
			}
			seen[ob.ID] = true
			for _, n := range o.Notes[ob.ID] {
				notes[n] = true
			}
			switch ob.Type {
			case observations.TypeDecision:
				e.Decisions = append(e.Decisions, ob.ID)
				if ob.Chosen != "" {
					e.Lessons = append(e.Lessons, shorten("Chose "+ob.Chosen+reasons(ob.Reasons), 200))
				}
			case observations.TypeCorrection:
				e.Corrections = append(e.Corrections, ob.ID)
				if ob.Lesson != "" {
					e.Lessons = append(e.Lessons, shorten(ob.Lesson, 200))
				}
			case observations.TypeNegativeResult:
				e.Lessons = append(e.Lessons, shorten("Did not work: "+firstOf(ob.Approach, ob.Title)+" ("+firstOf(ob.Failure, "failed")+")", 200))
				if ob.FollowedBy == "" {
					unresolved = append(unresolved, shorten("Unresolved: "+firstOf(ob.Approach, ob.Title), 200))
				}
			case observations.TypeDiscovery:
				if ob.Claim != "" {
					e.Lessons = append(e.Lessons, shorten(ob.Claim, 200))
				}
			case observations.TypeQuestion:
				if !ob.Answered && ob.Question != "" {
					unansweredQ = append(unansweredQ, shorten(ob.Question, 200))
				}
			}
		}
	}
	e.OpenThreads = append(unansweredQ, unresolved...)
	if e.Outcome == OutcomeOpen && len(last.Prompts) > 0 {
		e.OpenThreads = append(e.OpenThreads, shorten("Last asked: "+last.Prompts[len(last.Prompts)-1], 200))
	}
	if len(e.Lessons) > 12 {
		e.Lessons = e.Lessons[:12]
	}
	for n := range notes {
		e.Artifacts.Notes = append(e.Artifacts.Notes, n)
	}
	sort.Strings(e.Artifacts.Notes)
	return e
}

func reasons(rs []string) string {
	if len(rs) == 0 {
		return ""
	}
	return " because " + strings.Join(rs, "; ")
}
