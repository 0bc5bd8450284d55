package recall

import (
	"encoding/binary"
	"errors"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/kbmem/kb/internal/config"
)

// The candidate record's binary form: a hook decodes up to a thousand of
// them (a SessionStart's standing candidates), and encoding/json spent
// most of such a hook decoding. Fields in a fixed order; a string is a
// uvarint length and its bytes, a list a uvarint count and its items, a
// number 8 bytes, a flag one byte.

var errRecord = errors.New("activation index: a damaged candidate record")

func (r *candRecord) marshal() []byte {
	var e recEncoder
	for _, s := range []string{r.ID, r.Title, r.Description, r.Status, r.Text, r.Lesson, r.Trigger, r.Excerpt, r.Author, r.Said} {
		e.str(s)
	}
	for _, l := range [][]string{r.Types, r.Phrases, r.Projects, r.TrigTypes, r.OwnTypes} {
		e.strs(l)
	}
	e.uint(uint64(len(r.Files)))
	for _, f := range r.Files {
		e.str(f[0])
		e.str(f[1])
	}
	e.f64(r.Importance)
	e.f64(r.Sessions)
	e.flag(r.FromSession)
	e.flag(r.Pasted)
	for _, sigs := range [][]sigRecord{r.SigsSaid, r.SigsLesson} {
		e.uint(uint64(len(sigs)))
		for _, g := range sigs {
			e.str(g.S)
			e.flag(g.P)
			e.flag(g.W)
		}
	}
	return e.b
}

func (r *candRecord) unmarshal(b []byte) error {
	// The strings are cut from one copy of the record: one allocation,
	// not one per field (a SessionStart decodes a thousand records).
	d := recDecoder{b: b, s: string(b)}
	for _, p := range []*string{&r.ID, &r.Title, &r.Description, &r.Status, &r.Text, &r.Lesson, &r.Trigger, &r.Excerpt, &r.Author, &r.Said} {
		*p = d.str()
	}
	for _, p := range []*[]string{&r.Types, &r.Phrases, &r.Projects, &r.TrigTypes, &r.OwnTypes} {
		*p = d.strs()
	}
	if n := d.count(); n > 0 {
		r.Files = make([][2]string, n)
		for i := range r.Files {
			r.Files[i] = [2]string{d.str(), d.str()}
		}
	}
	r.Importance = d.f64()
	r.Sessions = d.f64()
	r.FromSession = d.flag()
	r.Pasted = d.flag()
	for _, p := range []*[]sigRecord{&r.SigsSaid, &r.SigsLesson} {
		if n := d.count(); n > 0 {
			*p = make([]sigRecord, n)
			for i := range *p {
				(*p)[i] = sigRecord{S: d.str(), P: d.flag(), W: d.flag()}
			}
		}
	}
	if d.bad || len(d.b) != 0 {
		return errRecord
	}
	return nil
}

type recEncoder struct{ b []byte }

func (e *recEncoder) uint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *recEncoder) str(s string)  { e.uint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *recEncoder) strs(l []string) {
	e.uint(uint64(len(l)))
	for _, s := range l {
		e.str(s)
	}
}
func (e *recEncoder) f64(v float64) { e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(v)) }
func (e *recEncoder) flag(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

// recDecoder reads what recEncoder wrote; past an error (bad) it reads
// zero values. s, when set, is b as a string, which the strings read are
// cut from.
type recDecoder struct {
	b   []byte
	s   string
	bad bool
}

func (d *recDecoder) uint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count is a list's length, bounded by the bytes left (each item takes
// at least one).
func (d *recDecoder) count() int {
	n := d.uint()
	if n > uint64(len(d.b)) {
		d.bad, d.b = true, nil
		return 0
	}
	return int(n)
}

func (d *recDecoder) str() string {
	n := d.count()
	var s string
	if d.s != "" {
		at := len(d.s) - len(d.b) // d.b is the end of the record s copies
		s = d.s[at : at+n]
	} else {
		s = string(d.b[:n])
	}
	d.b = d.b[n:]
	return s
}

func (d *recDecoder) strs() []string {
	n := d.count()
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.str()
	}
	return out
}

func (d *recDecoder) f64() float64 {
	if len(d.b) < 8 {
		d.bad, d.b = true, nil
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
	d.b = d.b[8:]
	return v
}

func (d *recDecoder) flag() bool {
	if len(d.b) < 1 {
		d.bad = true
		return false
	}
	v := d.b[0] != 0
	d.b = d.b[1:]
	return v
}

// The header's binary form (docs/format.md): the meta, the names the doc
// table numbers, the counts and the sections' offsets. A hook reads it
// once a call; as JSON, building encoding/json's decoders for it was most
// of opening the index.

func (h *compiledHeader) marshal() []byte {
	var e recEncoder
	m := &h.Meta
	e.int(m.Compiled.UnixNano())
	dirs := slices.Sorted(maps.Keys(m.Dirs))
	e.uint(uint64(len(dirs)))
	for _, d := range dirs {
		e.str(d)
		e.int(m.Dirs[d])
	}
	e.int(int64(m.Docs))
	e.str(m.TaxonomyKey)
	e.int(int64(m.Unloaded))
	e.flag(m.Config != nil)
	if m.Config != nil {
		e.str(m.Config.Stamp)
		e.str(m.Config.Key)
		e.str(string(m.Config.Config))
	}
	e.strs(h.Layers)
	e.strs(h.Types)
	e.int(int64(h.Docs))
	e.int(int64(h.Terms))
	e.f64(h.AvgLen)
	for _, off := range []int64{h.DocTable, h.TermTable, h.Text, h.Keys, h.Posts, h.Records, h.End} {
		e.int(off)
	}
	return e.b
}

func (h *compiledHeader) unmarshal(b []byte) error {
	d := recDecoder{b: b}
	m := &h.Meta
	m.Compiled = time.Unix(0, d.int()).UTC()
	if n := d.count(); n > 0 {
		m.Dirs = make(map[string]int64, n)
		for range n {
			k := d.str()
			m.Dirs[k] = d.int()
		}
	}
	m.Docs = int(d.int())
	m.TaxonomyKey = d.str()
	m.Unloaded = int(d.int())
	if d.flag() {
		m.Config = &config.Snapshot{Stamp: d.str(), Key: d.str()}
		if raw := d.str(); raw != "" {
			m.Config.Config = []byte(raw)
		}
	}
	h.Layers = d.strs()
	h.Types = d.strs()
	h.Docs = int(d.int())
	h.Terms = int(d.int())
	h.AvgLen = d.f64()
	for _, p := range []*int64{&h.DocTable, &h.TermTable, &h.Text, &h.Keys, &h.Posts, &h.Records, &h.End} {
		*p = d.int()
	}
	if d.bad || len(d.b) != 0 {
		return errors.New("a damaged header")
	}
	return nil
}

// int and its decoder are a signed number, zigzag-encoded as a uvarint
// (as binary.AppendVarint writes it).
func (e *recEncoder) int(v int64) { e.uint(uint64(v<<1) ^ uint64(v>>63)) }

func (d *recDecoder) int() int64 {
	u := d.uint()
	return int64(u>>1) ^ -int64(u&1)
}
