package learn

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/kbmem/kb/internal/jsonx"
)

// index is index.json as read: its top-level keys in order with their
// raw values (unknown keys are written back as they were), and the entries.
type index struct {
	exists  bool
	raw     []byte
	keys    []string
	vals    map[string]json.RawMessage
	entries []json.RawMessage
	facts   []Entry // decoded known fields of entries, same order
}

// parseIndex reads index.json. The error names what is wrong.
func parseIndex(b []byte) (*index, error) {
	ix := &index{exists: true, raw: b, vals: map[string]json.RawMessage{}}
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonErr(b, dec, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, jsonErr(b, dec, err)
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, jsonErr(b, dec, err)
		}
		if _, dup := ix.vals[key]; !dup {
			ix.keys = append(ix.keys, key)
		}
		ix.vals[key] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, jsonErr(b, dec, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("unexpected data after the JSON object")
	}
	raw, ok := ix.vals["entries"]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return ix, nil
	}
	if err := json.Unmarshal(raw, &ix.entries); err != nil {
		return nil, fmt.Errorf(`"entries" is not an array`)
	}
	for i, e := range ix.entries {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(e, &m); err != nil || m == nil {
			return nil, fmt.Errorf("entry %d is not an object", i+1)
		}
		var f Entry
		for key, dst := range map[string]*string{"fact": &f.Fact, "source_session": &f.SourceSession, "date": &f.Date, "category": &f.Category} {
			v, ok := m[key]
			if !ok || string(v) == "null" {
				continue
			}
			if err := json.Unmarshal(v, dst); err != nil {
				return nil, fmt.Errorf("entry %d: %q is not a string", i+1, key)
			}
		}
		ix.facts = append(ix.facts, f)
	}
	return ix, nil
}

func jsonErr(b []byte, dec *json.Decoder, err error) error {
	off := dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	line := 1 + bytes.Count(b[:min(int(off), len(b))], []byte("\n"))
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("line %d: unexpected end of JSON", line)
	}
	return fmt.Errorf("line %d: %v", line, err)
}

// render returns index.json with entries appended: the top-level keys in
// their order, unknown keys and unknown entry fields kept, indented with two
// spaces.
func (ix *index) render(add []Entry) ([]byte, error) {
	entries := append([]json.RawMessage(nil), ix.entries...)
	for _, e := range add {
		b, err := jsonx.Marshal(e)
		if err != nil {
			return nil, err
		}
		entries = append(entries, b)
	}
	keys := ix.keys
	if _, ok := ix.vals["entries"]; !ok {
		keys = append(append([]string(nil), keys...), "entries")
	}
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, key := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		kj, _ := jsonx.Marshal(key)
		buf.Write(kj)
		buf.WriteByte(':')
		if key == "entries" {
			buf.WriteByte('[')
			for j, e := range entries {
				if j > 0 {
					buf.WriteByte(',')
				}
				buf.Write(e)
			}
			buf.WriteByte(']')
			continue
		}
		buf.Write(ix.vals[key])
	}
	buf.WriteByte('}')
	var compact, out bytes.Buffer
	if err := json.Compact(&compact, buf.Bytes()); err != nil {
		return nil, err
	}
	if err := json.Indent(&out, compact.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}
