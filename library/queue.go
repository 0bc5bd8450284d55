package library

import (
	"fmt"
	"strings"

	"github.com/kbmem/kb/internal/textutil"
	"github.com/kbmem/kb/observations"
)

// The graduation queue: which candidates a promotion considers, given what
// earlier promotions proposed on their review branches and what the
// library already says; and the commit message that lets a later run find
// what a promotion branch proposed.

// Trailers of a promotion commit.
const (
	TrailerPromoted = "Kb-Promoted:" // the observation ids the commit graduates
	TrailerNotes    = "Kb-Notes:"    // the notes it adds, relative to the project root
)

// Proposal is a promotion branch and what its commit proposed.
type Proposal struct {
	Branch   string
	Tip      string   // the tip commit
	Promoted []string // observation ids
	Notes    []string // project-relative note paths
	Landed   bool     // merged into HEAD (or its notes reached HEAD); set by the caller
}

// ParseProposal reads the trailers of a promotion branch's tip commit.
func ParseProposal(branch, tip, message string) Proposal {
	p := Proposal{Branch: branch, Tip: tip}
	for _, line := range strings.Split(message, "\n") {
		if v, ok := strings.CutPrefix(line, TrailerPromoted); ok {
			p.Promoted = strings.Fields(v)
		}
		if v, ok := strings.CutPrefix(line, TrailerNotes); ok {
			p.Notes = strings.Fields(v)
		}
	}
	return p
}

// CommitMessage is the message of a promotion commit: the graduations for
// the reviewer, and the trailers ParseProposal reads back.
func CommitMessage(grads []Graduation, ids, notePaths []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "kb promote: %d graduation(s) for review\n\n", len(grads))
	for _, g := range grads {
		fmt.Fprintf(&b, "- %s %s: %s\n  %s\n", g.Kind, g.ID, g.Title, g.Why)
	}
	b.WriteString("\nDelete a note in review to reject it; 'kb promote sync' records that.\n\n")
	fmt.Fprintf(&b, "%s %s\n%s %s\n", TrailerPromoted, strings.Join(ids, " "), TrailerNotes, strings.Join(notePaths, " "))
	return b.String()
}

// Covered is a candidate that met its rule but that an existing library
// note already says: it does not become a second note.
type Covered struct {
	Observation string `json:"observation"`
	Type        string `json:"type"`
	Text        string `json:"text"`
	Note        string `json:"note"` // the covering note's id
	Path        string `json:"path"` // and its path, relative to the KB root
}

// QueueInput is what the queue is drawn from.
type QueueInput struct {
	Observations []*observations.Observation
	Proposals    []Proposal      // the promotion branches
	Derived      map[string]bool // observation ids the notes kb promoted derive from
	Notes        []Note          // every library note, for coverage
	Rules        Rules
}

// Queue is what a promotion considers.
type Queue struct {
	Observations []*observations.Observation // everything but the candidates already proposed or covered
	Pending      []string                    // candidates on an open promotion branch
	Branches     []string                    // open promotion branches
	Covered      []Covered                   // eligible candidates a library note already says
}

// BuildQueue drops the candidates already proposed: those on an open
// promotion branch (pending review), on a landed one, or derived into a
// promoted note the library holds; and the eligible ones a library note
// already covers.
func BuildQueue(in QueueInput) Queue {
	q := Queue{Pending: []string{}, Branches: []string{}}
	pending, handled := map[string]bool{}, map[string]bool{}
	for _, p := range in.Proposals {
		if !p.Landed {
			q.Branches = append(q.Branches, p.Branch)
		}
		for _, id := range p.Promoted {
			if p.Landed {
				handled[id] = true
			} else {
				pending[id] = true
			}
		}
	}
	for id := range in.Derived {
		handled[id] = true
	}
	cover := NewCoverage(in.Notes)
	for _, o := range in.Observations {
		switch {
		case IsCandidate(o) && pending[o.ID]:
			q.Pending = append(q.Pending, o.ID)
		case IsCandidate(o) && handled[o.ID]:
		case len(in.Notes) > 0 && Explain(o, in.Rules).Eligible:
			if n := cover.Covering(o); n != nil {
				q.Covered = append(q.Covered, Covered{Observation: o.ID, Type: o.Type,
					Text: textutil.Truncate(o.Summary(), 120), Note: n.ID, Path: n.Path})
				continue
			}
			q.Observations = append(q.Observations, o)
		default:
			q.Observations = append(q.Observations, o)
		}
	}
	return q
}
