package recall

import (
	"fmt"
	"strings"
	"time"

	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/lexicon"
	"github.com/kbmem/kb/internal/textutil"
	"github.com/kbmem/kb/observations"
)

// header opens the markdown block given to agents.
const header = "## kb: lessons from earlier sessions that apply now\n"
const footer = "(Full note: kb show ID.)\n"

// standingHeader opens the standing context of a new session; it is no
// longer than header, so budgets hold for both.
const standingHeader = "## kb: standing lessons and conventions\n"

// Markdown renders the items as an imperative block for an agent's
// context, or "" when there is nothing.
func (r *Result) Markdown() string {
	if r == nil || len(r.Items) == 0 {
		return ""
	}
	var b strings.Builder
	if r.Standing {
		b.WriteString(standingHeader)
	} else {
		b.WriteString(header)
	}
	for _, it := range r.Items {
		b.WriteString("- ")
		b.WriteString(it.Text)
		b.WriteString("\n")
	}
	b.WriteString(footer)
	return b.String()
}

// item reads the candidate's file and makes its item: why it applies, its
// priority and its imperative line. false: the file is gone or unreadable,
// or it says nothing recall can show.
func (e *Engine) item(c *candidate, cu *cue, q Query, high map[string]bool, now time.Time) (Item, bool) {
	it := Item{ID: c.id, Type: c.typ, Path: c.path}
	var (
		o        *observations.Observation
		d        *doc.Document
		lastSeen time.Time
		err      error
	)
	if c.layer == LayerObservations {
		if o, err = e.Files.Observation(c.path); err != nil {
			return it, false
		}
		if o.Status == observations.StatusSuperseded || o.SupersededBy != "" || o.Status == observations.StatusRejected {
			return it, false // the file says so, whatever an index not yet synced holds
		}
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
		if d, err = e.Files.Document(c.path); err != nil {
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
	if o != nil {
		it.Established = o.Status == observations.StatusPromoted || !o.Reviewed.IsZero() || o.Sessions >= 2
		if q.Standing && !it.Established && o.Type == observations.TypeCorrection {
			return it, false // a one-off correction comes back at its moment
		}
	} else {
		it.Established = true
	}
	it.Specific = c.sigHit != ""
	if c.matchedAT != "" {
		it.ActionType = c.matchedAT
		it.HighConsequence = high[c.matchedAT] || high[c.candAT]
	}
	sessions := c.sessions
	if o != nil && o.Sessions > 0 {
		sessions = float64(o.Sessions)
	}
	it.Reasons = append(it.Reasons, reasons(c, cu, q, sessions, it.Kind)...)
	if it.HighConsequence {
		it.Reasons = append(it.Reasons, "high-consequence action")
	}
	it.Score = priority(c, o, lastSeen, now, sessions, it.HighConsequence)
	it.Text, it.Lesson = itemText(c, o, d, cu, q)
	if it.Text == "" {
		return it, false
	}
	it.Text += " [" + c.id + "]"
	return it, true
}

// reasons says why the candidate applies.
func reasons(c *candidate, cu *cue, q Query, sessions float64, kind string) []string {
	var out []string
	if c.matchedAT != "" {
		if c.matchedAT == c.candAT {
			out = append(out, "action type "+c.matchedAT+" matches")
		} else {
			out = append(out, "action type "+c.matchedAT+" matches "+c.candAT)
		}
	}
	if c.fileHit != "" {
		out = append(out, "same file: "+c.fileHit)
	}
	if c.cmdHit != "" {
		out = append(out, "same command: "+c.cmdHit)
	}
	if c.otherProject {
		out = append(out, "from another project: "+strings.Join(c.projects, ", "))
	}
	if c.phraseHit != "" {
		out = append(out, fmt.Sprintf("trigger %q matches", c.phraseHit))
	}
	if c.semantic > 0 {
		out = append(out, fmt.Sprintf("semantic similarity %.2f", c.semantic))
	}
	if len(c.overlap) > 0 && !q.Standing {
		var w []string
		for _, s := range c.overlap {
			if len(w) < 6 {
				w = append(w, cu.wordOf[s])
			}
		}
		out = append(out, "trigger words: "+strings.Join(w, ", "))
	}
	if sessions > 1 {
		out = append(out, fmt.Sprintf("seen in %d sessions", int(sessions)))
	}
	if q.Standing {
		out = append(out, "standing "+strings.TrimSuffix(kind, "s"))
	}
	return out
}

// itemText is the imperative line of an item and its bare lesson.
func itemText(c *candidate, o *observations.Observation, d *doc.Document, cu *cue, q Query) (string, string) {
	clip := func(s string, n int) string { return textutil.Truncate(textutil.OneLine(s), n) }
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
			lesson := clip(completeLesson(o), maxLessonText+40)
			if lesson == "" {
				return "", ""
			}
			if o.Consequence != "" && !strings.Contains(strings.ToLower(lesson), strings.ToLower(o.Consequence)) {
				lesson = strings.TrimRight(lesson, ".") + " (" + clip(o.Consequence, 120) + ")."
			}
			where := correctedIn(o)
			if c.matchedAT != "" && cu.action != "" && !q.Standing {
				return fmt.Sprintf("You are about to %s. %s this was corrected: %s", cu.action, lexicon.Capitalize(where), lesson), lesson
			}
			trig := clip(o.Trigger, 140)
			if trig == "" {
				trig = "this kind of change"
			} else if d, ex, ok := strings.Cut(trig, ": "); ok && strings.HasPrefix(strings.TrimLeft(ex, "EditWrt "), "`") {
				trig = d + " (like " + ex + ")" // "committing (like `git commit -m x`)"
			}
			if lead, ok := triggerLead(trig); ok {
				// "when asked to ...", "after the agent's answer ...": the
				// trigger is a moment of the conversation, not an action.
				return fmt.Sprintf("%s: %s (corrected %s)", lead, lesson, where), lesson
			}
			return fmt.Sprintf("BEFORE %s: %s (corrected %s)", trig, lesson, where), lesson
		case observations.TypePreference:
			if o.Statement == "" {
				return "", ""
			}
			st := clip(completeStatement(o), maxStatementText+40)
			return "PREFER: " + st, st
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
		desc = clip(firstParagraph(d.Body), 250)
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

func firstParagraph(body string) string {
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
		return "in session " + shortSession(sess[len(sess)-1])
	default:
		return fmt.Sprintf("in session %s, %d times", shortSession(sess[len(sess)-1]), n)
	}
}

func shortSession(s string) string {
	if len(s) > 8 {
		return s[:8] + "…"
	}
	return s
}

// triggerLead renders a trigger that names a moment of the conversation
// (observations.MomentTrigger: "when asked to ...", "after the agent's
// answer ...") with its first word in capitals as the item's lead, in
// place of "BEFORE ...", which reads only before an action.
func triggerLead(trig string) (string, bool) {
	if !observations.MomentTrigger(trig) {
		return "", false
	}
	w, rest, _ := strings.Cut(trig, " ")
	return strings.ToUpper(w) + " " + rest, true
}
