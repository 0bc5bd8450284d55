package observations

import (
	"time"

	"github.com/kbmem/kb/internal/textutil"
	"github.com/kbmem/kb/traces"
)

// ProvenanceRecord is one trace record an observation came from.
type ProvenanceRecord struct {
	Seq  int       `json:"seq"`
	Time time.Time `json:"time,omitzero"`
	Role string    `json:"role"`
	Kind string    `json:"kind"`
	Tool string    `json:"tool,omitempty"`
	Text string    `json:"text"`
}

// ProvenanceSource is one source of an observation with its records.
type ProvenanceSource struct {
	Ref     string             `json:"ref"` // session#from-to
	Session string             `json:"session"`
	From    int                `json:"from"`
	To      int                `json:"to"`
	Path    string             `json:"path,omitempty"` // session file
	Records []ProvenanceRecord `json:"records"`
	Error   string             `json:"error,omitempty"` // the session could not be read
}

// Provenance is an observation and the trace records behind it.
type Provenance struct {
	ID      string             `json:"id"`
	Type    string             `json:"type"`
	Path    string             `json:"path"`
	Sources []ProvenanceSource `json:"sources"`
}

// ProvenanceOf reads, from the session store, the records each source of
// the observation in f points at. A source whose session cannot be read
// carries the error; the others are read.
func ProvenanceOf(f *File, store *traces.Store) *Provenance {
	p := &Provenance{ID: f.Obs.ID, Type: f.Obs.Type, Path: f.Path, Sources: []ProvenanceSource{}}
	for _, s := range f.Obs.Sources {
		ps := ProvenanceSource{Ref: s.String(), Session: s.Session, From: s.From, To: s.To, Records: []ProvenanceRecord{}}
		info, err := store.Find(s.Session)
		if err != nil {
			ps.Error = err.Error()
			p.Sources = append(p.Sources, ps)
			continue
		}
		ps.Path = info.Path
		_, _, err = store.ReadFile(info.Path, func(r traces.Record) error {
			if r.Seq < s.From || r.Seq > s.To || r.Kind == traces.KindMeta {
				return nil
			}
			text := r.Text
			switch r.Kind {
			case traces.KindToolCall:
				text = string(r.Input)
			case traces.KindToolResult:
				text = r.Output
			}
			ps.Records = append(ps.Records, ProvenanceRecord{Seq: r.Seq, Time: r.Time, Role: r.Role, Kind: r.Kind, Tool: r.Tool, Text: textutil.FirstRunes(text, 2000)})
			return nil
		})
		if err != nil {
			ps.Error = err.Error()
		}
		p.Sources = append(p.Sources, ps)
	}
	return p
}
