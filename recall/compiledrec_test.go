package recall

import (
	"reflect"
	"testing"
	"time"

	"github.com/kbmem/kb/internal/fill"
	"github.com/kbmem/kb/observations"
)

func fillAll(t *testing.T, v any) {
	t.Helper()
	n := 0
	if err := fill.Fill(reflect.ValueOf(v).Elem(), &n); err != nil {
		t.Fatal(err)
	}
}

// Every field of an observation and of a note's record survives the item
// record: a field added later and not written by the codec fails here.
func TestItemRecordRoundTrip(t *testing.T) {
	var o observations.Observation
	var d docRecord
	fillAll(t, &o)
	fillAll(t, &d)
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
