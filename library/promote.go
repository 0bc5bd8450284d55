package library

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/lexicon"
	"github.com/kbmem/kb/internal/textutil"
	"github.com/kbmem/kb/observations"
)

// Promotion: the pure half of the pipeline (design: "The promotion
// pipeline", "Graduation pathways", "The reach heuristic"). It decides
// which candidate observations earned graduation under the kb.yaml rules
// and renders the notes, skills and routing entries they graduate to. The
// kb package does the I/O: loading observations, committing to a branch or
// writing the work tree.

// Rules are the graduation thresholds of kb.yaml's promote section.
type Rules struct {
	CorrectionMinSessions    int     `json:"correction_min_sessions"`
	PreferenceMinDecisions   int     `json:"preference_min_decisions"`
	PreferenceMinSessions    int     `json:"preference_min_sessions"`
	PreferenceMinConsistency float64 `json:"preference_min_consistency"`
	ProcedureMinSessions     int     `json:"procedure_min_sessions"`
	DecisionMinImportance    float64 `json:"decision_min_importance"`
	DiscoveryMinReferences   int     `json:"discovery_min_references"`
	PatternMinCluster        int     `json:"pattern_min_cluster"`
}

// DefaultRules are the kb.yaml defaults.
func DefaultRules() Rules {
	return Rules{CorrectionMinSessions: 2, PreferenceMinDecisions: 5, PreferenceMinSessions: 3, PreferenceMinConsistency: 0.8,
		ProcedureMinSessions: 3, DecisionMinImportance: 0.8, DiscoveryMinReferences: 1, PatternMinCluster: 3}
}

// Rule names, as they appear in a note's promoted_by key and in explain.
const (
	RuleCorrection = "correction"
	RulePreference = "preference"
	RuleProcedure  = "procedure"
	RuleDecision   = "decision"
	RuleDiscovery  = "discovery"
	RulePattern    = "pattern"
)

// Check is one threshold of a rule, measured on one observation.
type Check struct {
	Rule   string  `json:"rule"`
	Metric string  `json:"metric"` // the kb.yaml key
	Have   float64 `json:"have"`
	Need   float64 `json:"need"`
	Met    bool    `json:"met"`
}

// Explanation tells how close an observation is to graduating.
type Explanation struct {
	ID       string  `json:"id"`
	Type     string  `json:"type"`
	Status   string  `json:"status"`
	Checks   []Check `json:"checks"`
	Eligible bool    `json:"eligible"` // every check of its rule met and still a candidate
	Note     string  `json:"note,omitempty"`
}

// Sessions returns the distinct sessions of an observation's sources,
// sorted.
func Sessions(o *observations.Observation) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range o.Sources {
		if s.Session != "" && !seen[s.Session] {
			seen[s.Session] = true
			out = append(out, s.Session)
		}
	}
	sort.Strings(out)
	return out
}

func sessionCount(o *observations.Observation) int { return max(len(Sessions(o)), o.Sessions) }

// references counts the later sessions that came back to a discovery: its
// explicit references plus every session after the first it recurred in.
func references(o *observations.Observation) int {
	return len(o.References) + max(sessionCount(o)-1, 0)
}

func consistency(o *observations.Observation) float64 {
	n := o.Accepts + o.Rejects
	if n == 0 {
		return o.Consistency
	}
	return float64(max(o.Accepts, o.Rejects)) / float64(n)
}

// IsCandidate reports whether an observation may still be proposed: its
// status is candidate (or unset), and it is the person's or a person
// reviewed it (the agent's own words never graduate on their own).
func IsCandidate(o *observations.Observation) bool {
	return (o.Status == "" || o.Status == observations.StatusCandidate) && !o.NeedsReview()
}

// Explain measures o against the rule of its type.
func Explain(o *observations.Observation, r Rules) Explanation {
	if o == nil {
		return Explanation{Note: "no observation"}
	}
	e := Explanation{ID: o.ID, Type: o.Type, Status: o.Status}
	if e.Status == "" {
		e.Status = observations.StatusCandidate
	}
	chk := func(rule, metric string, have, need float64) {
		e.Checks = append(e.Checks, Check{Rule: rule, Metric: metric, Have: have, Need: need, Met: have >= need})
	}
	switch o.Type {
	case observations.TypeCorrection:
		chk(RuleCorrection, "correction_min_sessions", float64(sessionCount(o)), float64(r.CorrectionMinSessions))
	case observations.TypePreference:
		chk(RulePreference, "preference_min_decisions", float64(o.Accepts+o.Rejects), float64(r.PreferenceMinDecisions))
		chk(RulePreference, "preference_min_sessions", float64(sessionCount(o)), float64(r.PreferenceMinSessions))
		chk(RulePreference, "preference_min_consistency", round2(consistency(o)), r.PreferenceMinConsistency)
	case observations.TypeProcedure:
		chk(RuleProcedure, "procedure_min_sessions", float64(sessionCount(o)), float64(r.ProcedureMinSessions))
	case observations.TypeDecision:
		chk(RuleDecision, "decision_min_importance", round2(o.Importance), r.DecisionMinImportance)
	case observations.TypeDiscovery:
		chk(RuleDiscovery, "discovery_min_references", float64(references(o)), float64(r.DiscoveryMinReferences))
	default:
		e.Note = "no direct graduation rule for " + o.Type + "; it can only graduate inside a pattern (pattern_min_cluster)"
	}
	e.Eligible = len(e.Checks) > 0 && IsCandidate(o)
	for _, c := range e.Checks {
		e.Eligible = e.Eligible && c.Met
	}
	switch {
	case o.NeedsReview():
		e.Note = "written by the agent, not the person: proposed only after a person reviews it (kb review " + o.ID + ")"
	case !IsCandidate(o):
		e.Note = "status is " + o.Status + ": never proposed again"
	}
	return e
}

func round2(f float64) float64 { return float64(int(f*100+0.5)) / 100 }

// Skill is a Claude Code skill generated from a parameterizable procedure.
type Skill struct {
	Name    string `json:"name"`
	Path    string `json:"path"` // relative to the project root: .claude/skills/<name>/SKILL.md
	Content []byte `json:"-"`
}

// Graduation is one library artifact a promotion produces.
type Graduation struct {
	Rule         string   `json:"rule"`
	Kind         string   `json:"kind"` // library note type
	ID           string   `json:"id"`
	Title        string   `json:"title"`
	Path         string   `json:"path"` // relative to the KB root
	Why          string   `json:"why"`
	Observations []string `json:"observations"`
	Sessions     []string `json:"sessions"`
	// From are the people whose sessions the graduation rests on (filled
	// by the caller from git history: team.People), sorted.
	From     []string `json:"from"`
	Triggers []string `json:"triggers"`
	Routing  string   `json:"routing"` // the one-line entry compiled into AGENTS.md
	Skill    *Skill   `json:"skill,omitempty"`
	Content  []byte   `json:"-"`

	obs []*observations.Observation
}

// PlanInput is what PlanPromotions needs.
type PlanInput struct {
	Observations []*observations.Observation
	Rules        Rules
	Now          time.Time
	// NoteIDs are the ids of every existing document, for ADR numbering.
	NoteIDs []string
	// Taken reports whether a KB-relative path is already used; nil means none is.
	Taken func(rel string) bool
	// Gate is the one gate extraction and `kb learn` ask too: what it
	// drops (obvious, one-off, derivable from the project) never
	// graduates. Nil judges without a project (derivability unchecked).
	Gate *observations.Gate
}

// PlanPromotions returns the graduations the candidates earned, in a
// deterministic order: per rule (corrections, preferences, procedures,
// decisions, discoveries, patterns), then by observation id. Observations
// that are not candidates, or that the gate drops, never graduate.
func PlanPromotions(in PlanInput) []Graduation {
	r := in.Rules
	now := in.Now
	if now.IsZero() {
		now = time.Now()
	}
	used := map[string]bool{}
	taken := func(rel string) bool {
		return used[rel] || (in.Taken != nil && in.Taken(rel))
	}
	cands := make([]*observations.Observation, 0, len(in.Observations))
	for _, o := range in.Observations {
		if o != nil && IsCandidate(o) && o.ID != "" && in.Gate.JudgeFinal(o).Keep() {
			cands = append(cands, o)
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].ID < cands[j].ID })
	nextADR := NextADRNumber(in.NoteIDs)
	byRule := map[string][]*observations.Observation{}
	graduated := map[string]bool{}
	for _, o := range cands {
		// One-off is judged on the observation's own evidence; a pattern's
		// members recur as a cluster, so only the final verdicts
		// (obvious, derivable) keep them out of one.
		if e := Explain(o, r); e.Eligible && in.Gate.Judge(o).Keep() {
			byRule[e.Checks[0].Rule] = append(byRule[e.Checks[0].Rule], o)
			graduated[o.ID] = true
		}
	}
	var out []Graduation
	add := func(g Graduation) {
		g.Path = uniquePath(g.Path, taken)
		g.ID = strings.TrimSuffix(path.Base(g.Path), ".md")
		used[g.Path] = true
		g.Content = renderNote(g, now)
		out = append(out, g)
	}
	for _, o := range byRule[RuleCorrection] {
		n := sessionCount(o)
		lesson := firstNonEmpty(o.Lesson, o.Title, o.Description)
		g := base(RuleCorrection, TypeConvention, lesson, []*observations.Observation{o})
		g.Why = fmt.Sprintf("The same correction was given in %d sessions (%s); promote.correction_min_sessions is %d.",
			n, strings.Join(g.Sessions, ", "), r.CorrectionMinSessions)
		g.Routing = lesson
		add(g)
	}
	for _, o := range byRule[RulePreference] {
		st := firstNonEmpty(o.Statement, o.Title)
		g := base(RulePreference, TypePreference, st, []*observations.Observation{o})
		g.Why = fmt.Sprintf("Seen in %d decisions (%d accepted, %d rejected) across %d sessions at %.0f%% consistency; promote.preference_min_decisions is %d, preference_min_sessions %d, preference_min_consistency %.2f.",
			o.Accepts+o.Rejects, o.Accepts, o.Rejects, sessionCount(o), 100*consistency(o),
			r.PreferenceMinDecisions, r.PreferenceMinSessions, r.PreferenceMinConsistency)
		g.Routing = st
		add(g)
	}
	for _, o := range byRule[RuleProcedure] {
		title := procedureTitle(o)
		g := base(RuleProcedure, TypeProcedure, title, []*observations.Observation{o})
		g.Why = fmt.Sprintf("The same workflow ran in %d sessions (%s); promote.procedure_min_sessions is %d.",
			sessionCount(o), strings.Join(g.Sessions, ", "), r.ProcedureMinSessions)
		g.Routing = "To " + lowerFirst(strings.TrimPrefix(title, "Procedure: ")) + ", follow the documented procedure"
		if Parameterizable(o.Steps) {
			g.Skill = renderSkill(o, title)
			g.Routing += " (or the " + g.Skill.Name + " skill)"
		}
		add(g)
	}
	for _, o := range byRule[RuleDecision] {
		title := decisionTitle(o)
		g := base(RuleDecision, TypeADR, title, []*observations.Observation{o})
		num := nextADR
		for ; taken(path.Join(Dir(TypeADR), fmt.Sprintf("adr-%04d-%s.md", num, doc.Slug(title)))); num++ {
		}
		nextADR = num + 1
		g.Path = path.Join(Dir(TypeADR), fmt.Sprintf("adr-%04d-%s.md", num, doc.Slug(title)))
		g.Why = fmt.Sprintf("Decision importance %.2f reached promote.decision_min_importance %.2f.", o.Importance, r.DecisionMinImportance)
		g.Routing = "Decided: " + title
		add(g)
	}
	for _, o := range byRule[RuleDiscovery] {
		claim := firstNonEmpty(o.Claim, o.Title)
		g := base(RuleDiscovery, TypeNote, claim, []*observations.Observation{o})
		g.Why = fmt.Sprintf("Referenced again by %d later session(s); promote.discovery_min_references is %d.", references(o), r.DiscoveryMinReferences)
		g.Routing = claim
		add(g)
	}
	for _, cl := range Clusters(cands, graduated, r.PatternMinCluster) {
		title := "Pattern: " + cl.Label
		g := base(RulePattern, TypePattern, title, cl.Obs)
		g.Why = fmt.Sprintf("%d low-reach observations from %d sessions share %s; promote.pattern_min_cluster is %d. Reach revealed by accumulation: review whether they are one structural problem.",
			len(cl.Obs), len(g.Sessions), cl.Label, r.PatternMinCluster)
		g.Routing = fmt.Sprintf("Recurring trouble with %s (%d cases): check the pattern note first", cl.Label, len(cl.Obs))
		add(g)
	}
	return out
}

func base(rule, kind, title string, obs []*observations.Observation) Graduation {
	g := Graduation{Rule: rule, Kind: kind, Title: shorten(strings.TrimSpace(title), 90), obs: obs}
	if g.Title == "" {
		g.Title = kind
	}
	ss := map[string]bool{}
	tr := map[string]bool{}
	addTrig := func(s string) {
		s = strings.TrimSpace(s)
		if s != "" && !tr[s] {
			tr[s] = true
			g.Triggers = append(g.Triggers, s)
		}
	}
	for _, o := range obs {
		g.Observations = append(g.Observations, o.ID)
		for _, s := range Sessions(o) {
			if !ss[s] {
				ss[s] = true
				g.Sessions = append(g.Sessions, s)
			}
		}
		at := o.ActionTypes
		if o.ActionType != "" {
			at = append([]string{o.ActionType}, at...)
		}
		for _, a := range at {
			addTrig(a)
		}
	}
	for _, o := range obs {
		addTrig(shorten(o.Trigger, 80))
		if o.Type == observations.TypeNegativeResult {
			addTrig(shorten(o.Approach, 80))
		}
		if o.Type == observations.TypeProcedure {
			addTrig(shorten(strings.TrimPrefix(o.Goal, "Recurring workflow: "), 80))
			// Its commands activate it too.
			for _, st := range o.Steps {
				if strings.HasPrefix(st, "Bash: ") {
					addTrig(st)
				}
			}
		}
	}
	if len(obs) == 1 && primaryAction(obs[0]) == "" {
		// No action type to activate on: a few topic words instead.
		for _, w := range keyPhrases(obs[0]) {
			addTrig(w)
		}
	}
	sort.Strings(g.Sessions)
	g.Path = path.Join(Dir(kind), doc.Slug(g.Title)+".md")
	return g
}

// keyPhrases are a few content words of the observation's main text, so a
// note without action types still activates on its topic.
func keyPhrases(o *observations.Observation) []string {
	text := firstNonEmpty(o.Lesson, o.Statement, o.Claim, o.Chosen, o.Title)
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
	}) {
		w = strings.Trim(w, ".-_")
		if len(w) < 4 || stop[w] {
			continue
		}
		out = append(out, w)
		if len(out) == 4 {
			break
		}
	}
	return out
}

var stop = map[string]bool{"always": true, "never": true, "with": true, "that": true, "this": true, "from": true, "when": true,
	"before": true, "after": true, "instead": true, "should": true, "please": true, "there": true, "their": true, "them": true,
	"then": true, "than": true, "have": true, "into": true, "your": true, "files": false, "don't": true, "dont": true, "make": true, "sure": true}

func uniquePath(p string, taken func(string) bool) string {
	if !taken(p) {
		return p
	}
	stem := strings.TrimSuffix(p, ".md")
	for i := 2; ; i++ {
		q := fmt.Sprintf("%s-%d.md", stem, i)
		if !taken(q) {
			return q
		}
	}
}

func procedureTitle(o *observations.Observation) string {
	goal := strings.TrimPrefix(firstNonEmpty(o.Goal, o.Title), "Recurring workflow: ")
	goal = strings.TrimPrefix(goal, "Recurring: ")
	return shorten(goal, 80)
}

func decisionTitle(o *observations.Observation) string {
	if o.Chosen != "" {
		return "Use " + o.Chosen
	}
	return firstNonEmpty(o.Title, o.Question, "Decision")
}

// judgment words mark procedure steps a person has to decide: such a
// procedure is documented, not turned into a skill.
var judgment = textutil.Lazy(`(?i)\b(review|decide|ask|check with|approve|judge|choose|discuss|confirm with)\b`)

// Parameterizable reports whether procedure steps can run as a skill with
// parameters: every step is a tool action (a command or a file edit), at
// least one step runs a command, and none needs a person's judgment.
func Parameterizable(steps []string) bool {
	if len(steps) == 0 {
		return false
	}
	cmd := false
	for _, s := range steps {
		if judgment.MatchString(s) {
			return false
		}
		tool, _, _ := strings.Cut(s, " ")
		tool = strings.TrimSuffix(tool, ":")
		switch tool {
		case "Bash", "shell", "exec_command", "run_shell_command", "local_shell":
			cmd = true
		case "Edit", "Write", "MultiEdit", "apply_patch", "NotebookEdit", "edit_file", "write_file", "replace", "Read", "Grep", "Glob":
		default:
			if !strings.Contains(s, ":") {
				return false
			}
		}
	}
	return cmd
}

func renderSkill(o *observations.Observation, title string) *Skill {
	name := doc.Slug(title)
	if len(name) > 48 {
		name = strings.TrimRight(name[:48], "-")
	}
	desc := fmt.Sprintf("%s. Use when you need to %s; learned from %d sessions.", title, lowerFirst(title), sessionCount(o))
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", title)
	b.WriteString("Run these steps in order. `$ARGUMENTS` names the files or target to work on;\nsubstitute it wherever a step touches a path.\n\n")
	for i, s := range o.Steps {
		fmt.Fprintf(&b, "%d. %s\n", i+1, s)
	}
	fmt.Fprintf(&b, "\nGenerated by kb from procedure observation %s (sessions: %s). Edit freely: kb never overwrites it.\n",
		o.ID, strings.Join(Sessions(o), ", "))
	content, err := doc.Render([]doc.Field{{Key: "name", Value: name}, {Key: "description", Value: desc}}, b.String())
	if err != nil {
		content = []byte("---\nname: " + name + "\n---\n\n" + b.String())
	}
	return &Skill{Name: name, Path: path.Join(".claude", "skills", name, "SKILL.md"), Content: content}
}

// renderNote writes the note of a graduation: frontmatter with provenance
// (derived_from, sources, promoted_by, triggers, routing) and a body that
// states the rule, why it graduated and where it came from.
func renderNote(g Graduation, now time.Time) []byte {
	date := now.UTC().Format("2006-01-02")
	lifecycle := "knowledge"
	switch g.Kind {
	case TypeConvention, TypePreference:
		lifecycle = "self"
	case TypeProcedure:
		lifecycle = "operational"
	}
	status := "active"
	if g.Kind == TypeADR {
		status = "proposed"
	}
	if g.Kind == TypePattern {
		status = "candidate"
	}
	fields := []doc.Field{
		{Key: "id", Value: g.ID}, {Key: "type", Value: g.Kind}, {Key: "title", Value: g.Title},
		{Key: "description", Value: shorten(g.Why, 200)}, {Key: "tags", Value: []string{"promoted", g.Rule}},
		{Key: "lifecycle", Value: lifecycle}, {Key: "status", Value: status},
		{Key: "created", Value: date}, {Key: "updated", Value: date},
		{Key: "promoted_by", Value: g.Rule}, {Key: "triggers", Value: g.Triggers},
		{Key: "routing", Value: g.Routing}, {Key: "derived_from", Value: g.Observations},
		{Key: "sources", Value: g.Sessions},
	}
	out, err := doc.Render(fields, noteBody(g))
	if err != nil {
		// Values are plain strings and lists: Render does not fail on them.
		return []byte(fmt.Sprintf("---\nid: %s\ntype: %s\n---\n\n# %s\n", g.ID, g.Kind, g.Title))
	}
	return out
}

func noteBody(g Graduation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", g.Title)
	para := func(label, v string) {
		if v = strings.TrimSpace(v); v != "" {
			fmt.Fprintf(&b, "**%s:** %s\n\n", label, v)
		}
	}
	o := g.obs[0]
	switch g.Kind {
	case TypeConvention:
		b.WriteString("## Rule\n\n")
		b.WriteString(firstNonEmpty(o.Lesson, o.Title) + "\n\n")
		para("When", o.Trigger)
		para("Why", o.Consequence)
	case TypePreference:
		b.WriteString("## Preference\n\n")
		b.WriteString(firstNonEmpty(o.Statement, o.Title) + "\n\n")
		para("Domain", o.Domain)
	case TypeProcedure:
		b.WriteString("## Steps\n\n")
		for i, s := range o.Steps {
			fmt.Fprintf(&b, "%d. %s\n", i+1, s)
		}
		b.WriteString("\n")
		if g.Skill != nil {
			fmt.Fprintf(&b, "Automated as the skill `%s` (%s).\n\n", g.Skill.Name, g.Skill.Path)
		}
	case TypeADR:
		b.WriteString(adrSections(g.obs, nil))
	case TypeNote:
		b.WriteString("## Claim\n\n")
		b.WriteString(firstNonEmpty(o.Claim, o.Title) + "\n\n")
	case TypePattern:
		b.WriteString("## Cases\n\n")
		for _, x := range g.obs {
			fmt.Fprintf(&b, "- [[%s]] (%s): %s\n", x.ID, x.Type, shorten(mainText(x), 160))
		}
		b.WriteString("\n## Question for the reviewer\n\nIs this one structural problem? If so, state the rule it reveals above and\nchange the status to active; if not, delete this note.\n\n")
	}
	b.WriteString("## Why it graduated\n\n")
	b.WriteString(g.Why + "\n\n")
	b.WriteString("## Provenance\n\n")
	for _, x := range g.obs {
		var refs []string
		for _, s := range x.Sources {
			refs = append(refs, s.String())
		}
		fmt.Fprintf(&b, "- Observation [[%s]]: %s\n", x.ID, strings.Join(refs, ", "))
		if ex := strings.TrimSpace(x.Excerpt); ex != "" && len(g.obs) == 1 {
			for _, l := range strings.Split(shorten(ex, 400), "\n") {
				b.WriteString("  > " + l + "\n")
			}
		}
	}
	return b.String()
}

func mainText(o *observations.Observation) string {
	switch o.Type {
	case observations.TypeCorrection:
		return firstNonEmpty(o.Lesson, o.Title)
	case observations.TypeNegativeResult:
		return firstNonEmpty(o.Approach+" failed: "+o.Failure, o.Title)
	case observations.TypeDiscovery:
		return firstNonEmpty(o.Claim, o.Title)
	case observations.TypeDecision:
		return firstNonEmpty(o.Chosen, o.Title)
	}
	return firstNonEmpty(o.Title, o.Description)
}

// adrSections renders the body sections of an ADR from decisions and the
// negative results that informed them: context, options with reasoning,
// decision, consequences.
func adrSections(decisions, negatives []*observations.Observation) string {
	var b strings.Builder
	b.WriteString("## Context\n\n")
	wrote := false
	for _, d := range decisions {
		if q := strings.TrimSpace(d.Question); q != "" {
			fmt.Fprintf(&b, "%s\n\n", q)
			wrote = true
		}
	}
	if !wrote {
		b.WriteString("(Fill in: the problem and constraints that made a decision necessary.)\n\n")
	}
	b.WriteString("## Options considered\n\n")
	n := 0
	for _, d := range decisions {
		for _, a := range d.Alternatives {
			n++
			mark := ""
			if strings.EqualFold(a.Name, d.Chosen) {
				mark = " (chosen)"
			}
			if a.Reasoning != "" {
				fmt.Fprintf(&b, "%d. **%s**%s: %s\n", n, a.Name, mark, a.Reasoning)
			} else {
				fmt.Fprintf(&b, "%d. **%s**%s\n", n, a.Name, mark)
			}
		}
	}
	for _, x := range negatives {
		n++
		fmt.Fprintf(&b, "%d. **%s** (tried, abandoned): %s\n", n, firstNonEmpty(x.Approach, x.Title), firstNonEmpty(x.Failure, "failed"))
	}
	if n == 0 {
		b.WriteString("(No alternatives were recorded.)\n")
	}
	b.WriteString("\n## Decision\n\n")
	for _, d := range decisions {
		line := "We chose " + firstNonEmpty(d.Chosen, d.Title)
		if len(d.Reasons) > 0 {
			line += " because " + strings.Join(d.Reasons, "; ")
		}
		b.WriteString(strings.TrimRight(line, ".") + ".\n")
	}
	if len(decisions) == 0 {
		b.WriteString("(Fill in: what was decided.)\n")
	}
	b.WriteString("\n## Consequences\n\n")
	wrote = false
	for _, x := range negatives {
		if x.FollowedBy != "" {
			fmt.Fprintf(&b, "- After %s failed: %s\n", firstNonEmpty(x.Approach, x.Title), x.FollowedBy)
			wrote = true
		}
	}
	if !wrote {
		b.WriteString("(Fill in: what becomes easier or harder; review after some use.)\n")
	}
	b.WriteString("\n")
	return b.String()
}

// ADRSources are what an ADR draft of the observation o is assembled
// from: o, a decision or a negative result, and the other negative
// results of its sessions among all.
func ADRSources(o *observations.Observation, all []*observations.Observation) (decisions, negatives []*observations.Observation, err error) {
	switch o.Type {
	case observations.TypeDecision:
		decisions = append(decisions, o)
	case observations.TypeNegativeResult:
		negatives = append(negatives, o)
	default:
		return nil, nil, fmt.Errorf("%s is a %s, not a decision or negative result", o.ID, o.Type)
	}
	sessions := map[string]bool{}
	for _, s := range Sessions(o) {
		sessions[s] = true
	}
	for _, g := range all {
		if g.Type == observations.TypeNegativeResult && g.ID != o.ID && fromSession(g, func(s string) bool { return sessions[s] }) {
			negatives = append(negatives, g)
		}
	}
	return decisions, negatives, nil
}

// ADRSourcesOfSession are the decisions and negative results among all
// with a source in session (an id, or a prefix of one).
func ADRSourcesOfSession(session string, all []*observations.Observation) (decisions, negatives []*observations.Observation) {
	match := func(s string) bool { return s == session || strings.HasPrefix(s, session) }
	for _, g := range all {
		if !fromSession(g, match) {
			continue
		}
		switch g.Type {
		case observations.TypeDecision:
			decisions = append(decisions, g)
		case observations.TypeNegativeResult:
			negatives = append(negatives, g)
		}
	}
	return decisions, negatives
}

func fromSession(o *observations.Observation, match func(string) bool) bool {
	for _, s := range o.Sources {
		if match(s.Session) {
			return true
		}
	}
	return false
}

// DraftADR pre-assembles an ADR from decisions and negative results (kb adr
// draft): numbered num, with context, alternatives and their reasoning,
// the decision, consequences and sources.
func DraftADR(num int, decisions, negatives []*observations.Observation, now time.Time) *Created {
	title := "Decision"
	if len(decisions) > 0 {
		title = decisionTitle(decisions[0])
	} else if len(negatives) > 0 {
		title = "Do not " + lowerFirst(firstNonEmpty(negatives[0].Approach, negatives[0].Title))
	}
	title = shorten(title, 90)
	id := fmt.Sprintf("adr-%04d-%s", max(num, 1), doc.Slug(title))
	all := append(append([]*observations.Observation{}, decisions...), negatives...)
	var ids, sess []string
	seen := map[string]bool{}
	for _, o := range all {
		ids = append(ids, o.ID)
		for _, s := range Sessions(o) {
			if !seen[s] {
				seen[s] = true
				sess = append(sess, s)
			}
		}
	}
	sort.Strings(sess)
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", title)
	b.WriteString(adrSections(decisions, negatives))
	b.WriteString("## Sources\n\n")
	for _, o := range all {
		var refs []string
		for _, s := range o.Sources {
			refs = append(refs, s.String())
		}
		fmt.Fprintf(&b, "- [[%s]] (%s): %s\n", o.ID, o.Type, strings.Join(refs, ", "))
	}
	date := now.UTC().Format("2006-01-02")
	content, err := doc.Render([]doc.Field{
		{Key: "id", Value: id}, {Key: "type", Value: TypeADR}, {Key: "title", Value: title},
		{Key: "tags", Value: []string{"decision"}}, {Key: "lifecycle", Value: "knowledge"}, {Key: "status", Value: "proposed"},
		{Key: "created", Value: date}, {Key: "updated", Value: date},
		{Key: "derived_from", Value: ids}, {Key: "sources", Value: sess},
	}, b.String())
	if err != nil {
		content = []byte("# " + title + "\n\n" + b.String())
	}
	return &Created{ID: id, RelPath: path.Join(Dir(TypeADR), id+".md"), Content: content}
}

// Cluster is a group of low-reach observations sharing an action type or a
// failure class (design: "The reach heuristic").
type Cluster struct {
	Key   string                      `json:"key"` // "action:<type>" or "failure:<class>"
	Label string                      `json:"label"`
	Obs   []*observations.Observation `json:"-"`
}

// Clusters groups the low-reach candidates (corrections, negative results,
// discoveries and decisions seen in one session, not graduating on their
// own) by primary action type and by failure class. A cluster needs at
// least min observations from at least two sessions; each observation joins
// at most one cluster, the largest.
func Clusters(obs []*observations.Observation, skip map[string]bool, min int) []Cluster {
	if min < 2 {
		min = 2
	}
	groups := map[string][]*observations.Observation{}
	for _, o := range obs {
		if o == nil || skip[o.ID] || !IsCandidate(o) || sessionCount(o) > 1 {
			continue
		}
		switch o.Type {
		case observations.TypeCorrection, observations.TypeNegativeResult, observations.TypeDiscovery, observations.TypeDecision:
		default:
			continue
		}
		if at := primaryAction(o); at != "" {
			groups["action:"+at] = append(groups["action:"+at], o)
		}
		if o.Type == observations.TypeNegativeResult || o.Type == observations.TypeCorrection {
			if fc := FailureClass(o.Failure + " " + o.Consequence); fc != "" {
				groups["failure:"+fc] = append(groups["failure:"+fc], o)
			}
		}
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(groups[keys[i]]) != len(groups[keys[j]]) {
			return len(groups[keys[i]]) > len(groups[keys[j]])
		}
		return keys[i] < keys[j]
	})
	used := map[string]bool{}
	var out []Cluster
	for _, k := range keys {
		var members []*observations.Observation
		sess := map[string]bool{}
		for _, o := range groups[k] {
			if !used[o.ID] {
				members = append(members, o)
				for _, s := range Sessions(o) {
					sess[s] = true
				}
			}
		}
		if len(members) < min || len(sess) < 2 {
			continue
		}
		for _, o := range members {
			used[o.ID] = true
		}
		kind, val, _ := strings.Cut(k, ":")
		label := "action type " + val
		if kind == "failure" {
			label = "failure class " + val
		}
		sort.SliceStable(members, func(i, j int) bool { return members[i].ID < members[j].ID })
		out = append(out, Cluster{Key: k, Label: label, Obs: members})
	}
	return out
}

func primaryAction(o *observations.Observation) string {
	if o.ActionType != "" {
		return o.ActionType
	}
	if len(o.ActionTypes) > 0 {
		return o.ActionTypes[0]
	}
	return ""
}

var failureClasses = []struct {
	class string
	re    *textutil.LazyRE
}{
	{"timeout", textutil.Lazy(`(?i)\b(time[sd]? ?out|timeout|deadline exceeded|hangs?|hung)\b`)},
	{"permission", textutil.Lazy(`(?i)\b(permission denied|forbidden|unauthori[sz]ed|access denied|EACCES|403|401)\b`)},
	{"not-found", textutil.Lazy(`(?i)\b(not found|no such file|ENOENT|404|missing)\b`)},
	{"concurrency", textutil.Lazy(`(?i)\b(race|deadlock|concurren\w*|lock contention)\b`)},
	{"memory", textutil.Lazy(`(?i)\b(out of memory|OOM|memory leak|heap)\b`)},
	{"network", textutil.Lazy(`(?i)\b(connection (refused|reset)|ECONNREFUSED|network|DNS|proxy|TLS|certificate)\b`)},
	{"flaky", textutil.Lazy(`(?i)\b(flaky|flakes?|intermittent\w*|non-?deterministic)\b`)},
	{"dependency", textutil.Lazy(`(?i)\b(version conflict|incompatible|dependency|peer dep\w*|breaking change)\b`)},
	{"build", textutil.Lazy(`(?i)\b(compile error|does not compile|build fail\w*|syntax error|type error)\b`)},
}

// FailureClass names the class of a failure text, "" if none is known.
func FailureClass(text string) string {
	for _, fc := range failureClasses {
		if fc.re.MatchString(text) {
			return fc.class
		}
	}
	return ""
}

// RoutingEntry is one line of the promoted block.
type RoutingEntry struct {
	Text string // the rule, one line
	Kind string // note type
	Path string // the note, relative to the file holding the block
}

// CompileBlock renders the routing entries (sorted, deduplicated) as the
// content between the markers.
func CompileBlock(entries []RoutingEntry) string {
	seen := map[string]bool{}
	var lines []string
	for _, e := range entries {
		t := strings.Join(strings.Fields(e.Text), " ")
		if t == "" {
			continue
		}
		l := fmt.Sprintf("- %s (%s: %s)", strings.TrimRight(t, "."), e.Kind, e.Path)
		if !seen[l] {
			seen[l] = true
			lines = append(lines, l)
		}
	}
	sort.Strings(lines)
	var b strings.Builder
	b.WriteString("## Learned conventions (kb promote)\n\n")
	b.WriteString("Maintained by `kb promote`: edit the linked notes, not these lines.\n\n")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	return b.String()
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

var lowerFirst = lexicon.LowerFirst

// shorten cuts text the way every layer does.
var shorten = textutil.Shorten
