package learn

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/kbmem/kb/internal/doc"
)

// GitMergeIndex merges two versions of the continual-learning index
// (IndexFile) against their base, for kb merge-driver. Entries are a set
// by their fact and source session: what either side added is in, what
// either removed from the base is out, ours' order first; an entry both
// sides hold under one identity with different fields keeps ours. Other
// top-level keys go to the side that changed them; "updated" (and any key
// ending in "_at" or "updated") both changed is the later time; any other
// key both changed keeps ours. Notes name what kept ours. The result is
// indented as a tick writes it; the error says why it cannot merge (a side
// that is not an index). When one side is the base, the other side is the
// result as it is, parsed or not (git itself takes it so, without calling
// a driver).
func GitMergeIndex(base, ours, theirs []byte) (out []byte, notes []string, err error) {
	if out, ok := doc.Trivial3(base, ours, theirs); ok {
		return out, nil, nil
	}
	a, err := parseIndex(ours)
	if err != nil {
		return nil, nil, fmt.Errorf("ours: %w", err)
	}
	b, err := parseIndex(theirs)
	if err != nil {
		return nil, nil, fmt.Errorf("theirs: %w", err)
	}
	o := &index{vals: map[string]json.RawMessage{}}
	if len(bytes.TrimSpace(base)) > 0 {
		if ix, err := parseIndex(base); err == nil {
			o = ix
		}
	}
	// Entries.
	id := func(ix *index, i int) string { return ix.facts[i].Fact + "\x00" + ix.facts[i].SourceSession }
	ids := func(ix *index) []string {
		var s []string
		for i := range ix.entries {
			s = append(s, id(ix, i))
		}
		return s
	}
	rawOf := map[string]json.RawMessage{}
	for _, ix := range []*index{b, a} { // ours last: ours wins a clash
		for i, e := range ix.entries {
			k := id(ix, i)
			if prev, ok := rawOf[k]; ok && ix == a && !doc.Same(doc.Normalize(prev), doc.Normalize(e)) {
				notes = append(notes, fmt.Sprintf("entry %q: both sides changed it; ours kept", ix.facts[i].Fact))
			}
			rawOf[k] = e
		}
	}
	merged := &index{exists: true, vals: map[string]json.RawMessage{}}
	for _, k := range doc.MergeSet(ids(o), ids(a), ids(b)) {
		merged.entries = append(merged.entries, rawOf[k])
	}
	// Top-level keys: ours' order, then theirs' new ones.
	seen := map[string]bool{}
	for _, ix := range []*index{a, b} {
		for _, k := range ix.keys {
			if seen[k] {
				continue
			}
			seen[k] = true
			if k == "entries" {
				merged.keys = append(merged.keys, k)
				merged.vals[k] = nil
				continue
			}
			vo, okO := o.vals[k]
			va, okA := a.vals[k]
			vb, okB := b.vals[k]
			v, ok, conflict := doc.Merge3Value(decode(vo), decode(va), decode(vb), okO, okA, okB)
			raw := va
			switch {
			case conflict && isTimeKey(k) && later(vb, va):
				raw = vb
			case conflict && isTimeKey(k):
			case conflict:
				notes = append(notes, fmt.Sprintf("%q: both sides changed it; ours kept", k))
			case !ok:
				continue
			case doc.Same(v, decode(vb)) && okB:
				raw = vb
			}
			merged.keys = append(merged.keys, k)
			merged.vals[k] = raw
		}
	}
	out, err = merged.render(nil)
	if err != nil {
		return nil, nil, err
	}
	if _, err := parseIndex(out); err != nil {
		return nil, nil, fmt.Errorf("the merged index would not parse: %w", err)
	}
	return out, notes, nil
}

func decode(raw json.RawMessage) any {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return nil
	}
	return v
}

func isTimeKey(k string) bool {
	return k == "updated" || k == "updated_at" || len(k) > 3 && k[len(k)-3:] == "_at"
}

// later reports whether the time in x is after the one in y (RFC 3339
// strings; what does not parse is never later).
func later(x, y json.RawMessage) bool {
	var sx, sy string
	if json.Unmarshal(x, &sx) != nil {
		return false
	}
	tx, err := time.Parse(time.RFC3339Nano, sx)
	if err != nil {
		return false
	}
	if json.Unmarshal(y, &sy) != nil {
		return true
	}
	ty, err := time.Parse(time.RFC3339Nano, sy)
	return err != nil || tx.After(ty)
}
