package recall

import (
	"errors"
	"github.com/kbmem/kb/internal/binrec"
	"maps"
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
		e.Str(s)
	}
	for _, l := range [][]string{r.Types, r.Phrases, r.Projects, r.TrigTypes, r.OwnTypes, r.TrigPrograms, r.SpecificTools, r.MatchStems, r.LessonStems, r.OwnStems, r.SaidStems} {
		e.Strs(l)
	}
	e.Uint(uint64(len(r.Files)))
	for _, f := range r.Files {
		e.Str(f[0])
		e.Str(f[1])
	}
	e.F64(r.Importance)
	e.F64(r.Sessions)
	e.Flag(r.FromSession)
	e.Flag(r.Pasted)
	e.Flag(r.Negated)
	e.Flag(r.Asks)
	e.Flag(r.Secrets)
	for _, sigs := range [][]sigRecord{r.SigsSaid, r.SigsLesson} {
		e.Uint(uint64(len(sigs)))
		for _, g := range sigs {
			e.Str(g.S)
			e.Flag(g.P)
			e.Flag(g.W)
		}
	}
	return e.B
}

func (r *candRecord) unmarshal(b []byte) error { return r.unmarshalIn(b, string(b), nil) }

// primaryType is the first of a candidate record's action types (Types),
// "" for none or a damaged record, read without decoding the rest.
func primaryType(b []byte) string {
	d := binrec.Decoder{B: b}
	for range 10 { // the strings before Types (marshal)
		d.SkipStr()
	}
	if n := d.Count(); d.Bad || n == 0 {
		return ""
	}
	return d.Str()
}

// unmarshalIn is unmarshal with the record's strings cut from s, which
// holds b's bytes (one copy, not one per field: a SessionStart decodes a
// thousand records; or b itself, Compiled.recString), and its lists from
// arena (see binrec.Decoder.Arena) when it is not nil.
func (r *candRecord) unmarshalIn(b []byte, s string, arena *[]string) error {
	d := recDecoder{binrec.Decoder{B: b, S: s, Arena: arena}}
	for _, p := range []*string{&r.ID, &r.Title, &r.Description, &r.Status, &r.Text, &r.Lesson, &r.Trigger, &r.Excerpt, &r.Author, &r.Said} {
		*p = d.Str()
	}
	for _, p := range []*[]string{&r.Types, &r.Phrases, &r.Projects, &r.TrigTypes, &r.OwnTypes, &r.TrigPrograms, &r.SpecificTools, &r.MatchStems, &r.LessonStems, &r.OwnStems, &r.SaidStems} {
		*p = d.Strs()
	}
	if n := d.Count(); n > 0 {
		r.Files = make([][2]string, n)
		for i := range r.Files {
			r.Files[i] = [2]string{d.Str(), d.Str()}
		}
	}
	r.Importance = d.F64()
	r.Sessions = d.F64()
	r.FromSession = d.Flag()
	r.Pasted = d.Flag()
	r.Negated = d.Flag()
	r.Asks = d.Flag()
	r.Secrets = d.Flag()
	for _, p := range []*[]sigRecord{&r.SigsSaid, &r.SigsLesson} {
		if n := d.Count(); n > 0 {
			*p = make([]sigRecord, n)
			for i := range *p {
				(*p)[i] = sigRecord{S: d.Str(), P: d.Flag(), W: d.Flag()}
			}
		}
	}
	if d.Bad || len(d.B) != 0 {
		return errRecord
	}
	return nil
}

// recEncoder and recDecoder are binrec's record form, with the kinds of
// value kb's records hold besides (a time, an observation).
type recEncoder struct{ binrec.Encoder }

type recDecoder struct{ binrec.Decoder }

// The header's binary form (docs/format.md): the meta, the names the doc
// table numbers, the counts and the sections' offsets. A hook reads it
// once a call; as JSON, building encoding/json's decoders for it was most
// of opening the index.

func (h *compiledHeader) marshal() []byte {
	var e recEncoder
	m := &h.Meta
	e.Int(m.Compiled.UnixNano())
	dirs := slices.Sorted(maps.Keys(m.Dirs))
	e.Uint(uint64(len(dirs)))
	for _, d := range dirs {
		e.Str(d)
		e.Int(m.Dirs[d])
	}
	e.Int(int64(m.Docs))
	e.Str(m.TaxonomyKey)
	e.Int(int64(m.Unloaded))
	e.Flag(m.Config != nil)
	if m.Config != nil {
		e.Str(m.Config.Stamp)
		e.Str(m.Config.Key)
		e.Str(string(m.Config.Config))
	}
	e.Strs(h.Layers)
	e.Strs(h.Types)
	e.Int(int64(h.Docs))
	e.Int(int64(h.Terms))
	e.F64(h.AvgLen)
	for _, off := range []int64{h.DocTable, h.TermTable, h.Text, h.Keys, h.Posts, h.Records, h.End} {
		e.Int(off)
	}
	return e.B
}

func (h *compiledHeader) unmarshal(b []byte) error {
	d := recDecoder{binrec.Decoder{B: b}}
	m := &h.Meta
	m.Compiled = time.Unix(0, d.Int()).UTC()
	if n := d.Count(); n > 0 {
		m.Dirs = make(map[string]int64, n)
		for range n {
			k := d.Str()
			m.Dirs[k] = d.Int()
		}
	}
	m.Docs = int(d.Int())
	m.TaxonomyKey = d.Str()
	m.Unloaded = int(d.Int())
	if d.Flag() {
		m.Config = &config.Snapshot{Stamp: d.Str(), Key: d.Str()}
		if raw := d.Str(); raw != "" {
			m.Config.Config = []byte(raw)
		}
	}
	h.Layers = d.Strs()
	h.Types = d.Strs()
	h.Docs = int(d.Int())
	h.Terms = int(d.Int())
	h.AvgLen = d.F64()
	for _, p := range []*int64{&h.DocTable, &h.TermTable, &h.Text, &h.Keys, &h.Posts, &h.Records, &h.End} {
		*p = d.Int()
	}
	if d.Bad || len(d.B) != 0 {
		return errors.New("a damaged header")
	}
	return nil
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
		e.B = append(e.B, itemObs)
		if err := e.observation(r.Obs); err != nil {
			return nil, err
		}
	case r.Doc != nil:
		e.B = append(e.B, itemDoc)
		d := r.Doc
		for _, s := range []string{d.Type, d.Title, d.Description, d.Body, d.Created, d.Updated} {
			e.Str(s)
		}
	default:
		e.B = append(e.B, itemNone)
	}
	return e.B, nil
}

func (r *itemRecord) unmarshal(b []byte) error { return r.unmarshalIn(b, string(b)) }

// unmarshalIn is unmarshal with the record's strings cut from s, which
// holds b's bytes (candRecord.unmarshalIn).
func (r *itemRecord) unmarshalIn(b []byte, s string) error {
	if len(b) == 0 || len(s) != len(b) {
		return errRecord
	}
	d := recDecoder{binrec.Decoder{B: b[1:], S: s[1:]}}
	*r = itemRecord{}
	switch b[0] {
	case itemNone:
	case itemObs:
		r.Obs = d.observation()
	case itemDoc:
		r.Doc = &docRecord{}
		for _, p := range []*string{&r.Doc.Type, &r.Doc.Title, &r.Doc.Description, &r.Doc.Body, &r.Doc.Created, &r.Doc.Updated} {
			*p = d.Str()
		}
	default:
		return errRecord
	}
	if d.Bad || len(d.B) != 0 {
		*r = itemRecord{}
		return errRecord
	}
	return nil
}

func (e *recEncoder) observation(o *observations.Observation) error {
	for _, s := range []string{o.ID, o.Type, o.Title, o.Description, o.Lifecycle, o.Status, o.Author, o.Origin,
		o.SupersededBy, o.Trigger, o.ActionType, o.Lesson, o.Consequence, o.Domain, o.Statement, o.Goal,
		o.Question, o.Chosen, o.Approach, o.Failure, o.FollowedBy, o.Claim, o.Marker, o.Excerpt} {
		e.Str(s)
	}
	for _, l := range [][]string{o.Signals, o.Projects, o.Supersedes, o.ActionTypes, o.Steps, o.Reasons, o.References} {
		e.Strs(l)
	}
	for _, v := range []float64{o.Confidence, o.Importance, o.Consistency} {
		e.F64(v)
	}
	for _, v := range []int{o.Sessions, o.Accepts, o.Rejects} {
		e.Int(int64(v))
	}
	for _, t := range []time.Time{o.FirstSeen, o.LastSeen, o.Reviewed} {
		if err := e.time(t); err != nil {
			return err
		}
	}
	e.Flag(o.Answered)
	e.Uint(uint64(len(o.Sources)))
	for _, s := range o.Sources {
		e.Str(s.Session)
		e.Int(int64(s.From))
		e.Int(int64(s.To))
		if err := e.time(s.Time); err != nil {
			return err
		}
	}
	e.Uint(uint64(len(o.Alternatives)))
	for _, a := range o.Alternatives {
		e.Str(a.Name)
		e.Str(a.Reasoning)
	}
	return nil
}

func (d *recDecoder) observation() *observations.Observation {
	o := &observations.Observation{}
	for _, p := range []*string{&o.ID, &o.Type, &o.Title, &o.Description, &o.Lifecycle, &o.Status, &o.Author, &o.Origin,
		&o.SupersededBy, &o.Trigger, &o.ActionType, &o.Lesson, &o.Consequence, &o.Domain, &o.Statement, &o.Goal,
		&o.Question, &o.Chosen, &o.Approach, &o.Failure, &o.FollowedBy, &o.Claim, &o.Marker, &o.Excerpt} {
		*p = d.Str()
	}
	for _, p := range []*[]string{&o.Signals, &o.Projects, &o.Supersedes, &o.ActionTypes, &o.Steps, &o.Reasons, &o.References} {
		*p = d.Strs()
	}
	for _, p := range []*float64{&o.Confidence, &o.Importance, &o.Consistency} {
		*p = d.F64()
	}
	for _, p := range []*int{&o.Sessions, &o.Accepts, &o.Rejects} {
		*p = int(d.Int())
	}
	for _, p := range []*time.Time{&o.FirstSeen, &o.LastSeen, &o.Reviewed} {
		*p = d.time()
	}
	o.Answered = d.Flag()
	if n := d.Count(); n > 0 {
		o.Sources = make([]observations.SourceRef, n)
		for i := range o.Sources {
			s := &o.Sources[i]
			s.Session = d.Str()
			s.From = int(d.Int())
			s.To = int(d.Int())
			s.Time = d.time()
		}
	}
	if n := d.Count(); n > 0 {
		o.Alternatives = make([]observations.Alternative, n)
		for i := range o.Alternatives {
			o.Alternatives[i] = observations.Alternative{Name: d.Str(), Reasoning: d.Str()}
		}
	}
	return o
}

// time writes t as MarshalBinary does (its instant and zone offset, as
// encoding/json's RFC 3339 form keeps them); the zero time as "".
func (e *recEncoder) time(t time.Time) error {
	if t.IsZero() {
		e.Str("")
		return nil
	}
	b, err := t.MarshalBinary()
	if err != nil {
		return err
	}
	e.Str(string(b))
	return nil
}

func (d *recDecoder) time() time.Time {
	s := d.Str()
	var t time.Time
	if s != "" && t.UnmarshalBinary([]byte(s)) != nil {
		d.Bad = true
	}
	return t
}
