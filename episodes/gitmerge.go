package episodes

import (
	"fmt"
	"slices"
	"sort"

	"github.com/kbmem/kb/internal/doc"
)

// The git merge of an episode file (kb merge-driver). Lists (sessions,
// tasks, decisions, corrections, lessons, open threads, files, commits,
// notes) are three-way set merges; from is the earlier, to the later; the
// text (title, goal, outcome, branch) goes to the side that changed it,
// both changed: the side a person edited, both edited: ours with both in
// kb_conflicts, neither: the side whose episode started first. A merge of
// two kb-written versions is rendered as kb writes an episode; one with a
// person's edit keeps ours' bytes but the changed keys, the body merged
// line-wise.

// renderedKeys are the keys Render writes.
var renderedKeys = map[string]bool{"id": true, "type": true, "title": true, "description": true, "status": true, "outcome": true,
	"goal": true, "sessions": true, "from": true, "to": true, "branch": true, "tasks": true, "decisions": true, "corrections": true,
	"lessons": true, "open_threads": true, "files": true, "commits": true, "notes": true, "sources": true, "related": true}

// GitMerge merges two versions of the episode file at rel against their
// base (empty when both added it). When both sides parse, the result
// parses; conflicts are the fields both sides edited by hand, left in
// kb_conflicts with ours in the field. When one side is the base, the
// other side is the result as it is, parsed or not (git itself takes it
// so, without calling a driver). The error says why it cannot merge: a
// side that is no episode.
func GitMerge(rel string, base, ours, theirs []byte) ([]byte, []doc.Conflict, error) {
	if out, ok := doc.Trivial3(base, ours, theirs); ok {
		return out, nil, nil
	}
	fa, fb, fo, hasBase, err := doc.ParseSides(rel, base, ours, theirs, ParseFile)
	if err != nil {
		return nil, nil, err
	}
	eo := &Episode{}
	if hasBase {
		eo = fo.Episode
	}
	ea, eb := fa.Episode, fb.Episode
	var conflicts []doc.Conflict
	theirsFirst := eb.Scope.From.Before(ea.Scope.From) && !eb.Scope.From.IsZero()
	text := func(field string, o, a, b string) string {
		v, _, conflict := doc.Merge3Value(o, a, b, true, true, true)
		if !conflict {
			return v.(string)
		}
		switch {
		case fa.Edited && fb.Edited:
			conflicts = append(conflicts, doc.Conflict{Field: field, Ours: a, Theirs: b})
			return a
		case fb.Edited, !fa.Edited && (theirsFirst || eb.Scope.From.Equal(ea.Scope.From) && b < a):
			return b
		}
		return a
	}
	e := &Episode{
		ID:      text("id", eo.ID, ea.ID, eb.ID),
		Title:   text("title", eo.Title, ea.Title, eb.Title),
		Goal:    text("goal", eo.Goal, ea.Goal, eb.Goal),
		Outcome: text("outcome", eo.Outcome, ea.Outcome, eb.Outcome),
		Scope: Scope{
			Sessions: doc.MergeSet(eo.Scope.Sessions, ea.Scope.Sessions, eb.Scope.Sessions),
			From:     ea.Scope.From, To: ea.Scope.To,
			Branch: text("branch", eo.Scope.Branch, ea.Scope.Branch, eb.Scope.Branch),
		},
		Tasks:       doc.MergeSet(eo.Tasks, ea.Tasks, eb.Tasks),
		Decisions:   doc.MergeSet(eo.Decisions, ea.Decisions, eb.Decisions),
		Corrections: doc.MergeSet(eo.Corrections, ea.Corrections, eb.Corrections),
		Lessons:     doc.MergeSet(eo.Lessons, ea.Lessons, eb.Lessons),
		OpenThreads: doc.MergeSet(eo.OpenThreads, ea.OpenThreads, eb.OpenThreads),
		Artifacts: Artifacts{
			Files:   doc.MergeSet(eo.Artifacts.Files, ea.Artifacts.Files, eb.Artifacts.Files),
			Commits: doc.MergeSet(eo.Artifacts.Commits, ea.Artifacts.Commits, eb.Artifacts.Commits),
			Notes:   doc.MergeSet(eo.Artifacts.Notes, ea.Artifacts.Notes, eb.Artifacts.Notes),
		},
	}
	sort.Strings(e.Scope.Sessions)
	if f := eb.Scope.From; !f.IsZero() && (e.Scope.From.IsZero() || f.Before(e.Scope.From)) {
		e.Scope.From = f
	}
	if eb.Scope.To.After(e.Scope.To) {
		e.Scope.To = eb.Scope.To
	}
	fields := func(b []byte) map[string]any {
		d, err := doc.ParseFrontmatter(rel, b)
		if err != nil {
			return map[string]any{}
		}
		return doc.NormalizeFields(d.Fields)
	}
	ro, ra, rb := map[string]any{}, fields(ours), fields(theirs)
	if fo != nil {
		ro = fields(base)
	}
	extra := map[string]any{}
	for _, k := range doc.UnionKeys(ro, ra, rb) {
		if renderedKeys[k] || k == DigestKey || k == doc.ConflictsKey {
			continue
		}
		v, ok, conflict := doc.Merge3Value(ro[k], ra[k], rb[k], has(ro, k), has(ra, k), has(rb, k))
		if conflict {
			conflicts = append(conflicts, doc.Conflict{Field: k, Ours: doc.ShowValue(ra[k], has(ra, k)), Theirs: doc.ShowValue(rb[k], has(rb, k))})
		}
		if ok {
			extra[k] = v
		}
	}
	rendered, err := Render(e)
	if err != nil {
		return nil, nil, err
	}
	var out []byte
	if !fa.Edited && !fb.Edited {
		out = rendered
	} else {
		d, err := doc.ParseFrontmatter(rel, rendered)
		if err != nil {
			return nil, nil, err
		}
		want := d.Fields
		edited := ra
		if !fa.Edited {
			edited = rb
		}
		want[DigestKey] = edited[DigestKey]
		if want[DigestKey] == nil {
			delete(want, DigestKey)
		}
		var ob []string
		if fo != nil {
			ob = doc.SplitLines(fo.Body)
		}
		body, _ := doc.Merge3Lines(ob, doc.SplitLines(fa.Body), doc.SplitLines(fb.Body), func(h doc.Hunk) ([]string, bool) {
			if fb.Edited && !fa.Edited {
				return h.Theirs, true
			}
			if fa.Edited && fb.Edited {
				// Both people's words: ours, then theirs' other lines.
				out := slices.Clone(h.Ours)
				for _, l := range h.Theirs {
					if !slices.Contains(h.Ours, l) && !slices.Contains(h.Base, l) {
						out = append(out, l)
					}
				}
				return out, true
			}
			return h.Ours, true
		})
		joined := doc.JoinLines(body)
		for k, v := range extra {
			want[k] = v
		}
		extra = map[string]any{}
		if out, err = doc.UpdateTo(ours, want, &joined); err != nil {
			return nil, nil, err
		}
	}
	extra[doc.ConflictsKey] = doc.ConflictsValue(doc.ReadConflicts([]any{ra[doc.ConflictsKey], rb[doc.ConflictsKey]}, conflicts))
	if out, err = doc.Update(out, extra, nil); err != nil {
		return nil, nil, err
	}
	if _, p := ParseFile(rel, out); p != nil {
		return nil, nil, fmt.Errorf("the merged episode would not parse: %s", p)
	}
	return out, conflicts, nil
}

func has(m map[string]any, k string) bool { _, ok := m[k]; return ok }
