package watch

import (
	"reflect"
	"testing"
	"time"
)

func TestPendingRoundTrip(t *testing.T) {
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	p := ParsePending(nil)
	p.Touch([]string{"b", "a"}, t0)
	p.Touch([]string{"c"}, t0.Add(time.Minute))
	if got := p.Quiet(t0.Add(90*time.Second), time.Minute); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Fatalf("quiet = %v, want [a b]", got)
	}
	p.Done([]string{"a"})
	b, err := p.JSON()
	if err != nil {
		t.Fatal(err)
	}
	q := ParsePending(b)
	if q.Version != 1 || len(q.Sessions) != 2 || !q.Sessions["c"].Equal(t0.Add(time.Minute)) {
		t.Fatalf("round trip: %s -> %+v", b, q)
	}
	if bad := ParsePending([]byte("{not json")); bad.Sessions == nil || len(bad.Sessions) != 0 {
		t.Fatalf("bad state: %+v", bad)
	}
}
