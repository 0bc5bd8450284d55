package observations

import (
	"github.com/kbmem/kb/internal/lexicon"
	"github.com/kbmem/kb/internal/textutil"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/kbmem/kb/internal/diag"
	"github.com/kbmem/kb/internal/doc"
)

// ---------------------------------------------------------------------------
// Supersession: a change of mind. A later observation of the same person
// and scope (the same project, the same topic) that contradicts an earlier
// one supersedes it: the new one's file says `supersedes: [old id]`, the
// old one's `status: superseded` and `superseded_by: new id`, and recall
// stops showing the old one. A file a person edited is never changed by
// it: the contradiction is reported instead.

// Supersession is one observation superseding another.
type Supersession struct {
	Old, New         string // ids
	OldPath, NewPath string
	// Kept: the old observation was edited by a person, so it was left as
	// it is (and active); the person decides.
	Kept bool
}

// Supersede finds the observations that the ones this merge wrote
// contradict, among files (the merger's files, as the merge left them),
// and adds to r's writes the surgical edits that record it: the links and
// the old one's status. It returns what it found.
func (r *MergeResult) Supersede(files []*File) ([]Supersession, error) {
	byPath := map[string]*Write{}
	for _, w := range r.Writes {
		byPath[w.Path] = w
	}
	var fresh []*File
	for _, f := range files {
		if byPath[f.Path] != nil && active(f.Obs) {
			fresh = append(fresh, f)
		}
	}
	// The latest first: a statement is judged against what came before it.
	sort.SliceStable(fresh, func(i, j int) bool { return later(fresh[i].Obs, fresh[j].Obs) })
	var out []Supersession
	done := map[string]bool{}
	for _, nf := range fresh {
		if !active(nf.Obs) {
			continue // superseded by one still later in this run
		}
		var olds []*File
		for _, of := range files {
			if of == nf || done[of.Path] || !active(of.Obs) || !later(nf.Obs, of.Obs) || !supersedeScope(of.Obs, nf.Obs) {
				continue
			}
			if !Contradicts(of.Obs, nf.Obs) {
				continue
			}
			s := Supersession{Old: of.Obs.ID, New: nf.Obs.ID, OldPath: of.Path, NewPath: nf.Path}
			if of.Edited {
				s.Kept = true
				r.Problems = append(r.Problems, diag.Problem{Path: of.Path, Line: 1, Rule: "superseded",
					Msg: "contradicted by the later " + nf.Obs.ID + " (" + nf.Path + "), but left active: a person edited it; mark it superseded by hand if it no longer holds"})
				out = append(out, s)
				continue
			}
			olds = append(olds, of)
			out = append(out, s)
		}
		if len(olds) == 0 {
			continue
		}
		ids := slices.Clone(nf.Obs.Supersedes)
		for _, of := range olds {
			if !slices.Contains(ids, of.Obs.ID) {
				ids = append(ids, of.Obs.ID)
			}
			if err := r.edit(byPath, of, func(o *Observation) { o.Status, o.SupersededBy = StatusSuperseded, nf.Obs.ID },
				map[string]any{"status": StatusSuperseded, "superseded_by": nf.Obs.ID}); err != nil {
				return nil, err
			}
			done[of.Path] = true
		}
		if err := r.edit(byPath, nf, func(o *Observation) { o.Supersedes = ids }, map[string]any{"supersedes": ids}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// edit changes f and records the write, in place of one already planned:
// a file kb wrote and no person edited is rendered again with change
// applied (its body says what superseded what, and a re-run finds nothing
// to change); a file a person edited gets only the fields of set,
// surgically (doc.Update keeps every other byte).
func (r *MergeResult) edit(byPath map[string]*Write, f *File, change func(*Observation), set map[string]any) error {
	var out []byte
	var err error
	if f.Edited {
		out, err = doc.Update(f.Raw, set, nil)
	} else {
		o := *f.Obs
		change(&o)
		out, err = rerender(&o, f)
	}
	if err != nil {
		return err
	}
	nf, prob := ParseFile(f.Path, out)
	if prob != nil {
		return diag.Problem{Path: f.Path, Line: prob.Line, Msg: "would not parse back after supersession: " + prob.Msg, Rule: "observation"}
	}
	w := byPath[f.Path]
	if w == nil {
		w = &Write{Path: f.Path, Before: f.Raw}
		byPath[f.Path] = w
		r.Writes = append(r.Writes, w)
	}
	w.Content = out
	*f = *nf
	return nil
}

// active reports whether o still holds: not superseded, not rejected.
func active(o *Observation) bool {
	return o.Status != StatusSuperseded && o.Status != StatusRejected && o.SupersededBy == ""
}

// later reports whether a was said after b: by the time of its latest
// evidence, else (same session, no times) by record order.
func later(a, b *Observation) bool {
	if !a.LastSeen.IsZero() && !b.LastSeen.IsZero() {
		return a.LastSeen.After(b.LastSeen)
	}
	if len(a.Sources) > 0 && len(b.Sources) > 0 {
		sa, sb := a.Sources[len(a.Sources)-1], b.Sources[len(b.Sources)-1]
		if sa.Session == sb.Session {
			return sa.From > sb.To
		}
	}
	return false
}

// sameScope reports whether a and b are the same person's words about the
// same kind of thing in the same project: both the person's (or both the
// agent's), of kinds that can contradict each other (a preference, a
// correction; a decision), and sharing a project when both name one.
func supersedeScope(a, b *Observation) bool {
	if a.AgentAuthored() != b.AgentAuthored() {
		return false
	}
	kind := func(t string) int {
		switch t {
		case TypePreference, TypeCorrection:
			return 1
		case TypeDecision:
			return 2
		}
		return 0
	}
	if kind(a.Type) == 0 || kind(a.Type) != kind(b.Type) {
		return false
	}
	if len(a.Projects) == 0 || len(b.Projects) == 0 {
		return len(a.Projects) == len(b.Projects)
	}
	for _, p := range a.Projects {
		if slices.Contains(b.Projects, p) {
			return true
		}
	}
	return false
}

// stance is the text that says what an observation holds.
//
// Without the object extraction added to name what "this" or "that"
// pointed at ("(about the agent's proposal …)"): two reactions to the
// same idea quote the agent's words at different moments, and their
// stance is in the person's words.
func stance(o *Observation) string {
	var st string
	switch o.Type {
	case TypeDecision:
		return o.Chosen
	case TypeCorrection:
		st = o.Lesson
	case TypePreference:
		st = o.Statement
	default:
		return o.Summary()
	}
	if i := strings.LastIndex(st, " (about "); i > 0 && strings.HasSuffix(strings.TrimSpace(st), ").") {
		st = st[:i] + "."
	}
	return st
}

// minTopicOverlap is how much of the shorter statement's topic the other
// must share for the two to be about the same thing.
const minTopicOverlap = 0.6

// Contradicts reports whether the later observation b reverses a: the
// two are about the same thing (their topics overlap) and take opposite
// stances on it (one negates a shared topic word the other affirms), or b
// picks another option of the same choice.
func Contradicts(a, b *Observation) bool {
	if a.Type == TypeDecision && b.Type == TypeDecision {
		return otherPick(a, b)
	}
	if revokes(a, b) || adopts(a, b) {
		return true
	}
	ta, tb := stance(a), stance(b)
	ka, kb := topicTokens(ta), topicTokens(tb)
	if overlap(ka, kb) < minTopicOverlap {
		return false
	}
	for tok := range ka {
		if kb[tok] && negatedAt(ta, tok) != negatedAt(tb, tok) {
			return true
		}
	}
	return false
}

// revokes reports whether the later b takes back what a holds: b says it
// revokes ("we dropped rubocop for standard, forget the rubocop -a
// thing", lexicon.CueRevoke) and a is about one of the things b names.
func revokes(a, b *Observation) bool {
	ta, tb := stance(a), stance(b)
	// The revoking words may fall outside the lesson cut from the
	// person's message ("... redo it with ruff. forget the black/isort
	// thing I told you before"): the excerpt quotes the message.
	na := thingsNamed(ta)
	said := saidOf(b.Excerpt)
	for _, m := range forgetThingRE.FindAllStringSubmatch(tb+" "+said, -1) {
		// "forget bin/rspec, it's just bundle exec rspec again now": the
		// thing the earlier lesson named, revoked by name.
		if t := strings.ToLower(strings.Trim(m[2], "`'\".,;:")); na[t] && !lexicon.CueNegation.In(lower(m[1])) {
			return true
		}
	}
	if lexicon.CueRevoke.In(lower(ta)) {
		return false
	}
	// What is revoked is named in the clause that revokes it ("we
	// dropped rubocop for standard"), not anywhere in the message ("...,
	// the pre-commit hook runs it too").
	for _, cl := range revokeClauseRE.Split(tb+". "+said, -1) {
		if !lexicon.CueRevoke.In(lower(cl)) {
			continue
		}
		for t := range thingsNamed(cl) {
			if na[t] && len(t) >= 3 {
				return true
			}
		}
	}
	return false
}

// adopts reports whether the later b says the project uses now what a
// prohibited by name: "od zeszłego tygodnia jesteśmy na Pint (#412)"
// after "Do not use pint in this repo". The name is a tool kb knows, a
// code span or a proper noun ("Pint", "Vitest"; not "API") of a clause
// of b that adopts (lexicon.CueAdopt), and a negates it.
func adopts(a, b *Observation) bool {
	ta := stance(a)
	known := defaultTaxonomy().knownNames()
	for _, cl := range revokeClauseRE.Split(stance(b)+". "+saidOf(b.Excerpt), -1) {
		low := lower(cl)
		if !lexicon.CueAdopt.In(low) {
			continue // its negations ("we're not on", "no longer using") are no cue
		}
		for _, w := range wordPosRE.FindAllString(cl, -1) {
			lw := strings.ToLower(w)
			if len(lw) < 3 || !(known[lw] || properNoun(w) || strings.Contains(cl, "`"+w+"`")) {
				continue
			}
			if negatedAt(ta, stem(lw)) {
				return true
			}
		}
	}
	return false
}

// properNoun reports whether w is written as a name: a capital, then
// lower-case letters only ("Pint", "Vitest"; not "API", not "iOS").
func properNoun(w string) bool {
	rs := []rune(w)
	if len(rs) < 2 || !unicode.IsUpper(rs[0]) {
		return false
	}
	for _, r := range rs[1:] {
		if !unicode.IsLower(r) {
			return false
		}
	}
	return true
}

// revokeClauseRE ends the clause a revocation names its thing in.
var revokeClauseRE = textutil.Lazy(`[;.!?。；！？]\s|[，,]\s*(?:it'?s|that'?s|the|and|but|so)\b|\b(?:but|aber|pero|mais|но)\b|但|けど|하지만`)

// otherPick reports whether decision b chooses differently in the choice a
// made: the same options (or b's pick among a's), another one chosen.
func otherPick(a, b *Observation) bool {
	if strings.EqualFold(strings.TrimSpace(a.Chosen), strings.TrimSpace(b.Chosen)) {
		return false
	}
	names := func(o *Observation) map[string]bool {
		m := map[string]bool{}
		for _, alt := range o.Alternatives {
			m[strings.ToLower(strings.TrimSpace(alt.Name))] = true
		}
		return m
	}
	na, nb := names(a), names(b)
	if na[strings.ToLower(strings.TrimSpace(b.Chosen))] && nb[strings.ToLower(strings.TrimSpace(a.Chosen))] {
		return true
	}
	if a.Question != "" && b.Question != "" && overlap(topicTokens(a.Question), topicTokens(b.Question)) >= 0.8 {
		return overlap(na, nb) >= 0.5
	}
	return false
}

var wordPosRE = textutil.Lazy(`[\p{L}\p{N}'’]+`)

// clauseBreakRE ends the reach of a negation: punctuation or a "but".
var clauseBreakRE = textutil.Lazy(`(?i)[,;:.!?，。；：！？]|\b(but|aber|pero|mais|но)\b|但|けど|하지만`)

// negatedAt reports whether topic token tok (a stem, or a CJK bigram)
// stands under a negation in text: a negation cue earlier in its clause.
func negatedAt(text, tok string) bool {
	pos := -1
	if strings.IndexFunc(tok, isCJK) >= 0 {
		pos = strings.Index(text, tok)
	} else {
		for _, loc := range wordPosRE.FindAllStringIndex(text, -1) {
			w := strings.ToLower(text[loc[0]:loc[1]])
			if stem(w) == tok || strings.HasPrefix(stem(w), tok) {
				pos = loc[0]
				break
			}
		}
	}
	if pos < 0 {
		return false
	}
	start := 0
	for _, loc := range clauseBreakRE.FindAllStringIndex(text[:pos], -1) {
		start = loc[1]
	}
	clause := text[start:pos]
	return negationCues.match(clause)
}

// saidOf is the person's words an excerpt quotes (its "User:" lines).
func saidOf(excerpt string) string {
	var out []string
	for _, ln := range strings.Split(excerpt, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(ln), "User:"); ok {
			out = append(out, strings.TrimSpace(rest))
		}
	}
	return strings.Join(out, " ")
}

// forgetThingRE is "forget X" with the words before it (a "don't" there
// makes it a reminder, not a revocation).
var forgetThingRE = textutil.Lazy(`(?i)((?:\S+\s+){0,2})forget\s+(?:about\s+)?(\S+)`)
