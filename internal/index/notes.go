package index

import "errors"

// NoteQuery are the filters of `kb search`.
type NoteQuery struct {
	Query  string
	Layers []string // empty: every layer but the hidden one; ["all"]: every layer
	Types  []string
	Tags   []string
	Limit  int // 0: 10
}

// NoteHit is one ranked result as shown to users: its id is the document's
// note id when it has one.
type NoteHit struct {
	ID          string  `json:"id"`
	Path        string  `json:"path"`
	Layer       string  `json:"layer"`
	Type        string  `json:"type,omitempty"`
	Title       string  `json:"title"`
	Description string  `json:"description,omitempty"`
	Session     string  `json:"session,omitempty"`
	Seq         int     `json:"seq,omitempty"`
	Score       float64 `json:"score"`
	Snippet     string  `json:"snippet,omitempty"`
}

// NoteResult is the answer of SearchNotes.
type NoteResult struct {
	Query string    `json:"query"`
	Total uint64    `json:"total"`
	Hits  []NoteHit `json:"hits"`
}

// SearchNotes runs q with highlighted snippets, reading hidden (the traces
// layer) only when q names it or asks for all layers. A query that cannot
// be parsed is a *QueryError.
func (ix *Index) SearchNotes(q NoteQuery, hidden string) (*NoteResult, error) {
	layers, exclude := q.Layers, []string(nil)
	if len(layers) == 0 {
		exclude = []string{hidden}
	} else if len(layers) == 1 && layers[0] == "all" {
		layers = nil
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 10
	}
	res, err := ix.Search(Query{Text: q.Query, Layers: layers, ExcludeLayers: exclude, Types: q.Types, Tags: q.Tags,
		Limit: limit, Highlight: true, Fields: []string{"noteid"}})
	if err != nil {
		return nil, err
	}
	out := &NoteResult{Query: q.Query, Total: res.Total, Hits: []NoteHit{}}
	for _, h := range res.Hits {
		id := h.ID
		if v, ok := h.Fields["noteid"]; ok {
			if s := FieldString(v); s != "" {
				id = s
			}
		}
		out.Hits = append(out.Hits, NoteHit{ID: id, Path: h.Path, Layer: h.Layer, Type: h.Type, Title: h.Title,
			Description: h.Description, Session: h.Session, Seq: h.Seq, Score: h.Score, Snippet: h.Snippet})
	}
	return out, nil
}

// IsQueryError reports whether err is a query that cannot be parsed.
func IsQueryError(err error) bool {
	var qe *QueryError
	return errors.As(err, &qe)
}
