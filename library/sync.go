package library

import (
	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/observations"
)

// SyncChange is one observation `kb promote sync` updated.
type SyncChange struct {
	ID     string `json:"id"`
	Note   string `json:"note"`
	Branch string `json:"branch"`
}

// SyncResult reports `kb promote sync`.
type SyncResult struct {
	Promoted []SyncChange `json:"promoted"` // their note landed: status promoted
	Rejected []SyncChange `json:"rejected"` // their note was deleted in review
}

// SyncInput is what Sync reconciles and how it reaches the files.
type SyncInput struct {
	Proposals []Proposal
	// At reads the project file p at rev ("HEAD" or a commit).
	At func(rev, p string) ([]byte, error)
	// Find returns the observation an id names.
	Find func(id string) (*observations.File, error)
	// Reject marks f rejected, reporting whether it changed; Promote marks
	// it promoted. Both update f.
	Reject  func(f *observations.File, why string) (bool, error)
	Promote func(f *observations.File) error
}

// Sync reconciles the proposals that landed in HEAD (merged or
// squash-merged) with the observation files: a note HEAD holds marks the
// candidates it derives from promoted (the commit could not carry their
// status when their files were untracked); a note HEAD lacks was deleted
// in review, so they are marked rejected and never proposed again.
func Sync(in SyncInput) (*SyncResult, error) {
	out := &SyncResult{Promoted: []SyncChange{}, Rejected: []SyncChange{}}
	for _, b := range in.Proposals {
		if !b.Landed {
			continue
		}
		for _, p := range b.Notes {
			_, headErr := in.At("HEAD", p)
			content, err := in.At(b.Tip, p)
			if err != nil {
				continue
			}
			d, err := doc.ParseFrontmatter(p, content)
			if err != nil {
				continue
			}
			for _, id := range d.Relations["derived_from"] {
				f, err := in.Find(id)
				if err != nil {
					continue
				}
				ch := SyncChange{ID: f.Obs.ID, Note: p, Branch: b.Branch}
				if headErr != nil {
					changed, err := in.Reject(f, "note "+p+" deleted in review of "+b.Branch)
					if err != nil {
						return out, err
					}
					if changed {
						out.Rejected = append(out.Rejected, ch)
					}
					continue
				}
				if !IsCandidate(f.Obs) {
					continue
				}
				if err := in.Promote(f); err != nil {
					return out, err
				}
				out.Promoted = append(out.Promoted, ch)
			}
		}
	}
	return out, nil
}
