package kb

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/index"
	"github.com/kbmem/kb/internal/textutil"
	"github.com/kbmem/kb/traces"
)

// The trace layer's search documents: the index knows nothing of traces,
// and traces nothing of the index (a hook links neither bleve nor the
// trace reader's index types); this glue is the facade's.

// partLimits bound one part of traceIndexParts: its docs, the bytes of their
// text, and the longest record line held in memory (a longer record is
// not indexed, the file keeps it, and it is reported).
type partLimits struct {
	Docs, Bytes, Line int
}

// traceIndexParts indexes the dialogue turns of a session file (kb sync), one document per
// message record, so retrieval works at the granularity of a turn while every
// hit still points back to its session. Records are streamed: the turns are
// handed to emit in parts of at most lim.Docs docs or lim.Bytes of text,
// each part recording how far into the file it reaches. Session files are
// append-only, so when the index already holds the file up to some offset
// (prev) and the bytes before it are unchanged (Follow), only what follows
// is read: a growing session costs what it appended, and an interrupted
// sync continues where it stopped.
func traceIndexParts(f index.File, prev index.Progress, lim partLimits, emit func(index.Part) bool) bool {
	unreadable := func(err error) bool {
		return emit(index.Part{Change: index.Change{Path: f.Rel, Stamp: f.Stamp}, FileBytes: f.Stamp.Size,
			Problems: []traces.Problem{{Path: f.Rel, Msg: err.Error(), Rule: "unreadable"}}})
	}
	fh, err := fsx.OpenNoFollow(f.Abs) // scanned: no symlink on the way
	if err != nil {
		return unreadable(err)
	}
	defer fh.Close()
	var m traces.Mark
	if prev.Done > 0 && prev.Done <= f.Stamp.Size {
		m = traces.Mark{Offset: prev.Done, Lines: prev.Lines, Tail: prev.Tail}
	}
	fo, err := traces.Follow(fh, f.Rel, m)
	if err != nil {
		return unreadable(err)
	}
	var (
		docs      []index.Doc
		probs     []traces.Problem
		text      int
		cur       = fo.Start()
		from      = cur.Offset // where the current part starts
		appending = fo.Resumed()
	)
	part := func(last bool) bool {
		p := index.Part{
			Change: index.Change{Path: f.Rel, Stamp: f.Stamp, Docs: docs, Append: appending, Partial: !last,
				Progress: index.Progress{Done: cur.Offset, Lines: cur.Lines, Tail: cur.Tail}},
			Problems: probs, Bytes: text, FileBytes: cur.Offset - from,
		}
		docs, probs, text, appending, from = nil, nil, 0, true, cur.Offset
		return emit(p)
	}
	stopped, err := fo.Lines(lim.Line, func(l traces.Line) bool {
		cur = l.After
		if l.Prob != nil {
			probs = append(probs, *l.Prob)
		} else if l.Rec != nil {
			if d, ok := indexDoc(f, l.Rec); ok {
				docs = append(docs, d)
				text += len(d.Body) + len(d.Title)
			}
		}
		return len(docs) < lim.Docs && text < lim.Bytes || part(false)
	})
	if stopped {
		return false
	}
	var p *traces.Problem
	if errors.As(err, &p) {
		probs = append(probs, *p)
	}
	return part(true)
}

// indexDoc is the search document of one record: its text, a tool call's
// name and input, a tool result's output; none for meta records, empty
// text and what kb injected.
func indexDoc(f index.File, r *traces.Record) (index.Doc, bool) {
	if r.Kind == traces.KindMeta {
		return index.Doc{}, false
	}
	text := r.Text
	switch r.Kind {
	case traces.KindToolCall:
		text = r.Tool + " " + string(r.Input)
	case traces.KindToolResult:
		text = r.Output
	}
	if strings.TrimSpace(text) == "" || r.Has(traces.MarkInjected) {
		return index.Doc{}, false
	}
	const maxBody = 8 << 10 // tool output can be huge; the head is what search needs
	var truncated int64
	if len(text) > maxBody {
		n := maxBody
		for n > maxBody-4 && !utf8.RuneStart(text[n]) {
			n--
		}
		text, truncated = text[:n], int64(len(text))
	}
	title := traceTitle(text, 80)
	return index.Doc{
		ID: fmt.Sprintf("%s#%d", r.Session, r.Seq), Path: f.Rel, Layer: LayerTraces,
		Type: r.Kind, Title: title, Body: text, Truncated: truncated, Session: r.Session, Seq: r.Seq,
		Created: r.Time, Updated: r.Time,
		Keywords: map[string][]string{"role": {r.Role}, "agent": {r.Agent}},
	}, true
}

// traceTitle is the first line of s, cut to n bytes.
func traceTitle(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > n {
		s = textutil.Truncate(s, n)
	}
	return s
}
