package recall

import (
	"reflect"
	"testing"
	"time"

	"github.com/kbmem/kb/observations"
)

// fill sets every field of the value v points to, recursively, to a value
// of its own (n counts them), so that a round trip that drops or swaps a
// field shows.
func fill(t *testing.T, v reflect.Value, n *int) {
	t.Helper()
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString("s" + string(rune('a'+*n%26)) + time.Duration(*n).String())
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(-*n * 7))
	case reflect.Float64:
		v.SetFloat(float64(*n) + 0.25)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(t, s.Index(i), n)
		}
		v.Set(s)
	case reflect.Array:
		for i := range v.Len() {
			fill(t, v.Index(i), n)
		}
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(t, p.Elem(), n)
		v.Set(p)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2025, 11, 17, 23, 50, *n, 38000+*n, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				t.Fatalf("%s.%s: an unexported field the item record cannot see", v.Type(), v.Type().Field(i).Name)
			}
			fill(t, v.Field(i), n)
		}
	default:
		t.Fatalf("%s: a kind fill does not know (%s); teach it, and the item record's codec", v.Type(), v.Kind())
	}
}

// Every field of an observation and of a note's record survives the item
// record: a field added later and not written by the codec fails here.
func TestItemRecordRoundTrip(t *testing.T) {
	var o observations.Observation
	var d docRecord
	n := 0
	fill(t, reflect.ValueOf(&o).Elem(), &n)
	fill(t, reflect.ValueOf(&d).Elem(), &n)
	for _, r := range []itemRecord{{Obs: &o}, {Doc: &d}, {}, {Obs: &observations.Observation{}}} {
		b, err := r.marshal()
		if err != nil {
			t.Fatal(err)
		}
		var got itemRecord
		if err := got.unmarshal(b); err != nil {
			t.Fatalf("%+v: %v", r, err)
		}
		if !reflect.DeepEqual(got, r) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got.Obs, r.Obs)
		}
		if len(b) > 1 && got.unmarshal(b[:len(b)-1]) == nil {
			t.Errorf("a truncated record decoded")
		}
	}
	// A zone offset is kept, as encoding/json's RFC 3339 form kept it.
	at := time.Date(2025, 1, 2, 3, 4, 5, 6, time.FixedZone("", 3600))
	b, _ := (&itemRecord{Obs: &observations.Observation{FirstSeen: at}}).marshal()
	var got itemRecord
	if err := got.unmarshal(b); err != nil || !got.Obs.FirstSeen.Equal(at) || got.Obs.FirstSeen.Format(time.RFC3339Nano) != at.Format(time.RFC3339Nano) {
		t.Errorf("time with an offset: %v (%v)", got.Obs.FirstSeen, err)
	}
	if got.unmarshal(nil) == nil || got.unmarshal([]byte{9}) == nil {
		t.Errorf("an empty or unknown record decoded")
	}
}
