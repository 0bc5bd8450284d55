package observations

import (
	"strings"
	"time"

	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/textutil"
)

// AgentNote is an observation the agent wrote (assistant text, MCP
// remember), as `kb status` and `kb review` list it.
type AgentNote struct {
	ID       string    `json:"id"`
	Type     string    `json:"type"`
	Origin   string    `json:"origin,omitempty"`
	Text     string    `json:"text"`
	Path     string    `json:"path"`
	Reviewed time.Time `json:"reviewed,omitzero"`
}

// NoteOf is the observation of f as an agent note.
func (f *File) NoteOf() AgentNote {
	o := f.Obs
	return AgentNote{ID: o.ID, Type: o.Type, Origin: o.Origin, Text: textutil.Truncate(o.Summary(), 160), Path: f.Path}
}

// AgentNotes lists the agent-authored observations that wait for a
// person's review, oldest first as the files are ordered by path.
func AgentNotes(files []*File) []AgentNote {
	out := []AgentNote{}
	for _, f := range files {
		o := f.Obs
		if !o.NeedsReview() || o.Status == StatusRejected || o.Status == StatusSuperseded {
			continue
		}
		out = append(out, f.NoteOf())
	}
	return out
}

// RejectedRaw is the file content raw with status: rejected set
// surgically (rejected_at, and rejected_why when why is not blank).
func RejectedRaw(raw []byte, why string, now time.Time) ([]byte, error) {
	set := map[string]any{"status": StatusRejected, "rejected_at": now.UTC().Format(time.RFC3339)}
	if why = strings.TrimSpace(why); why != "" {
		set["rejected_why"] = why
	}
	return doc.Update(raw, set, nil)
}
