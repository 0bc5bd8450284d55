package binrec

import (
	"math"
	"reflect"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	var e Encoder
	e.Uint(math.MaxUint64)
	e.Int(math.MinInt64)
	e.Int(-1)
	e.F64(-0.25)
	e.Flag(true)
	e.Byte(7)
	e.Str("héllo")
	e.Strs([]string{"a", "", "c"})
	e.Strs(nil)
	for _, s := range []string{"", string(e.B)} { // with and without the string copy
		d := Decoder{B: e.B, S: s}
		got := []any{d.Uint(), d.Int(), d.Int(), d.F64(), d.Flag(), d.Byte(), d.Str(), d.Strs(), d.Strs()}
		want := []any{uint64(math.MaxUint64), int64(math.MinInt64), int64(-1), -0.25, true, byte(7), "héllo", []string{"a", "", "c"}, []string(nil)}
		if !reflect.DeepEqual(got, want) || d.Bad || len(d.B) != 0 {
			t.Errorf("S=%t: got %v (bad %v, %d left), want %v", s != "", got, d.Bad, len(d.B), want)
		}
	}
}

// A damaged record reads as zero values and Bad, never a panic or a read
// past its end.
func FuzzDecoder(f *testing.F) {
	var e Encoder
	e.Str("abc")
	e.Strs([]string{"x", "y"})
	e.F64(1)
	f.Add(e.B)
	f.Add([]byte{0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, s := range []string{"", string(b)} {
			d := Decoder{B: b, S: s}
			d.Str()
			d.Strs()
			d.SkipStrs()
			d.Count()
			d.F64()
			d.Int()
			d.Flag()
			if len(d.B) > len(b) {
				t.Fatal("read past the end")
			}
		}
	})
}
