// Package binrec is the small binary record form kb's derived files share
// (the activation index's records in recall, kb.yaml's snapshot in
// internal/config): unsigned numbers as uvarints, signed ones zigzag,
// floats as 8 little-endian bytes, a flag as one byte, a string as its
// length and bytes, a list as its count and items. A hook decodes these on
// every call, so a Decoder can cut its strings from one string copy of the
// record instead of allocating each.
package binrec

import (
	"encoding/binary"
	"math"
)

// Encoder appends values to B.
type Encoder struct{ B []byte }

func (e *Encoder) Uint(v uint64) { e.B = binary.AppendUvarint(e.B, v) }

// Int is v zigzag-encoded as a uvarint (as binary.AppendVarint writes it).
func (e *Encoder) Int(v int64) { e.B = binary.AppendVarint(e.B, v) }

func (e *Encoder) F64(v float64) { e.B = binary.LittleEndian.AppendUint64(e.B, math.Float64bits(v)) }

func (e *Encoder) Byte(v byte) { e.B = append(e.B, v) }

func (e *Encoder) Flag(v bool) {
	if v {
		e.B = append(e.B, 1)
	} else {
		e.B = append(e.B, 0)
	}
}

func (e *Encoder) Str(s string) { e.Uint(uint64(len(s))); e.B = append(e.B, s...) }

func (e *Encoder) Strs(l []string) {
	e.Uint(uint64(len(l)))
	for _, s := range l {
		e.Str(s)
	}
}

// Decoder reads what an Encoder wrote from B; past an error (Bad) it reads
// zero values. S, when set, is B as a string, which the strings read are
// cut from.
type Decoder struct {
	B   []byte
	S   string
	Bad bool
	// Arena, when set, is where Strs cuts its slices from: one
	// allocation for the lists of many records, not one per list. Each
	// slice it returns has no spare capacity, so an append copies it.
	Arena *[]string
}

func (d *Decoder) fail() { d.Bad, d.B = true, nil }

func (d *Decoder) Uint() uint64 {
	v, n := binary.Uvarint(d.B)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.B = d.B[n:]
	return v
}

func (d *Decoder) Int() int64 {
	v, n := binary.Varint(d.B)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.B = d.B[n:]
	return v
}

// Count is a length, bounded by the bytes left (each item takes at least
// one).
func (d *Decoder) Count() int {
	n := d.Uint()
	if n > uint64(len(d.B)) {
		d.fail()
		return 0
	}
	return int(n)
}

func (d *Decoder) F64() float64 {
	if len(d.B) < 8 {
		d.fail()
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.B))
	d.B = d.B[8:]
	return v
}

func (d *Decoder) Byte() byte {
	if len(d.B) < 1 {
		d.fail()
		return 0
	}
	v := d.B[0]
	d.B = d.B[1:]
	return v
}

func (d *Decoder) Flag() bool { return d.Byte() != 0 }

func (d *Decoder) Str() string {
	n := d.Count()
	var s string
	if d.S != "" {
		at := len(d.S) - len(d.B) // d.B is the end of the record S copies
		s = d.S[at : at+n]
	} else {
		s = string(d.B[:n])
	}
	d.B = d.B[n:]
	return s
}

func (d *Decoder) SkipStr() { d.B = d.B[d.Count():] }

func (d *Decoder) SkipStrs() {
	for n := d.Count(); n > 0; n-- {
		d.SkipStr()
	}
}

func (d *Decoder) Strs() []string {
	n := d.Count()
	if n == 0 {
		return nil
	}
	if d.Arena == nil {
		out := make([]string, n)
		for i := range out {
			out[i] = d.Str()
		}
		return out
	}
	a := *d.Arena
	if cap(a)-len(a) < n {
		a = make([]string, 0, max(n, 2*cap(a), 256))
	}
	start := len(a)
	for range n {
		a = append(a, d.Str())
	}
	*d.Arena = a
	return a[start:len(a):len(a)]
}
