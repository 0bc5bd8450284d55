package recall

import (
	"encoding/binary"
	"errors"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/kbmem/kb/internal/config"
	"github.com/kbmem/kb/observations"
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
	for _, l := range [][]string{r.Types, r.Phrases, r.Projects, r.TrigTypes, r.OwnTypes, r.TrigPrograms, r.SpecificTools, r.MatchStems, r.LessonStems, r.OwnStems} {
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
	e.flag(r.Negated)
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
	for _, p := range []*[]string{&r.Types, &r.Phrases, &r.Projects, &r.TrigTypes, &r.OwnTypes, &r.TrigPrograms, &r.SpecificTools, &r.MatchStems, &r.LessonStems, &r.OwnStems} {
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
	r.Negated = d.flag()
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

func (d *recDecoder) skipStr() { d.b = d.b[d.count():] }

func (d *recDecoder) skipStrs() {
	for n := d.count(); n > 0; n-- {
		d.skipStr()
	}
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

// The item record's binary form: a hook decodes one per item it shows,
// and encoding/json spent most of a PreToolUse's decoding on them (its
// reflection over Observation's fields). A kind byte (itemNone: tried,
// the hook reads the file; itemObs; itemDoc), then the fields in a fixed
// order, as the candidate record writes them; a time is its
// MarshalBinary form, as a string. TestItemRecordRoundTrip fills every
// field by reflection, so that a field added to Observation or docRecord
// and not written here fails it.

const (
	itemNone byte = iota
	itemObs
	itemDoc
)

func (r *itemRecord) marshal() ([]byte, error) {
	var e recEncoder
	switch {
	case r.Obs != nil:
		e.b = append(e.b, itemObs)
		if err := e.observation(r.Obs); err != nil {
			return nil, err
		}
	case r.Doc != nil:
		e.b = append(e.b, itemDoc)
		d := r.Doc
		for _, s := range []string{d.Type, d.Title, d.Description, d.Body, d.Created, d.Updated} {
			e.str(s)
		}
	default:
		e.b = append(e.b, itemNone)
	}
	return e.b, nil
}

func (r *itemRecord) unmarshal(b []byte) error {
	if len(b) == 0 {
		return errRecord
	}
	d := recDecoder{b: b[1:], s: string(b[1:])}
	*r = itemRecord{}
	switch b[0] {
	case itemNone:
	case itemObs:
		r.Obs = d.observation()
	case itemDoc:
		r.Doc = &docRecord{}
		for _, p := range []*string{&r.Doc.Type, &r.Doc.Title, &r.Doc.Description, &r.Doc.Body, &r.Doc.Created, &r.Doc.Updated} {
			*p = d.str()
		}
	default:
		return errRecord
	}
	if d.bad || len(d.b) != 0 {
		*r = itemRecord{}
		return errRecord
	}
	return nil
}

func (e *recEncoder) observation(o *observations.Observation) error {
	for _, s := range []string{o.ID, o.Type, o.Title, o.Description, o.Lifecycle, o.Status, o.Author, o.Origin,
		o.SupersededBy, o.Trigger, o.ActionType, o.Lesson, o.Consequence, o.Domain, o.Statement, o.Goal,
		o.Question, o.Chosen, o.Approach, o.Failure, o.FollowedBy, o.Claim, o.Marker, o.Excerpt} {
		e.str(s)
	}
	for _, l := range [][]string{o.Signals, o.Projects, o.Supersedes, o.ActionTypes, o.Steps, o.Reasons, o.References} {
		e.strs(l)
	}
	for _, v := range []float64{o.Confidence, o.Importance, o.Consistency} {
		e.f64(v)
	}
	for _, v := range []int{o.Sessions, o.Accepts, o.Rejects} {
		e.int(int64(v))
	}
	for _, t := range []time.Time{o.FirstSeen, o.LastSeen, o.Reviewed} {
		if err := e.time(t); err != nil {
			return err
		}
	}
	e.flag(o.Answered)
	e.uint(uint64(len(o.Sources)))
	for _, s := range o.Sources {
		e.str(s.Session)
		e.int(int64(s.From))
		e.int(int64(s.To))
		if err := e.time(s.Time); err != nil {
			return err
		}
	}
	e.uint(uint64(len(o.Alternatives)))
	for _, a := range o.Alternatives {
		e.str(a.Name)
		e.str(a.Reasoning)
	}
	return nil
}

func (d *recDecoder) observation() *observations.Observation {
	o := &observations.Observation{}
	for _, p := range []*string{&o.ID, &o.Type, &o.Title, &o.Description, &o.Lifecycle, &o.Status, &o.Author, &o.Origin,
		&o.SupersededBy, &o.Trigger, &o.ActionType, &o.Lesson, &o.Consequence, &o.Domain, &o.Statement, &o.Goal,
		&o.Question, &o.Chosen, &o.Approach, &o.Failure, &o.FollowedBy, &o.Claim, &o.Marker, &o.Excerpt} {
		*p = d.str()
	}
	for _, p := range []*[]string{&o.Signals, &o.Projects, &o.Supersedes, &o.ActionTypes, &o.Steps, &o.Reasons, &o.References} {
		*p = d.strs()
	}
	for _, p := range []*float64{&o.Confidence, &o.Importance, &o.Consistency} {
		*p = d.f64()
	}
	for _, p := range []*int{&o.Sessions, &o.Accepts, &o.Rejects} {
		*p = int(d.int())
	}
	for _, p := range []*time.Time{&o.FirstSeen, &o.LastSeen, &o.Reviewed} {
		*p = d.time()
	}
	o.Answered = d.flag()
	if n := d.count(); n > 0 {
		o.Sources = make([]observations.SourceRef, n)
		for i := range o.Sources {
			s := &o.Sources[i]
			s.Session = d.str()
			s.From = int(d.int())
			s.To = int(d.int())
			s.Time = d.time()
		}
	}
	if n := d.count(); n > 0 {
		o.Alternatives = make([]observations.Alternative, n)
		for i := range o.Alternatives {
			o.Alternatives[i] = observations.Alternative{Name: d.str(), Reasoning: d.str()}
		}
	}
	return o
}

// time writes t as MarshalBinary does (its instant and zone offset, as
// encoding/json's RFC 3339 form keeps them); the zero time as "".
func (e *recEncoder) time(t time.Time) error {
	if t.IsZero() {
		e.str("")
		return nil
	}
	b, err := t.MarshalBinary()
	if err != nil {
		return err
	}
	e.str(string(b))
	return nil
}

func (d *recDecoder) time() time.Time {
	s := d.str()
	var t time.Time
	if s != "" && t.UnmarshalBinary([]byte(s)) != nil {
		d.bad = true
	}
	return t
}
