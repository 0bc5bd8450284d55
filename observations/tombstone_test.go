package observations

import (
	"testing"
	"time"
)

func TestTombstones(t *testing.T) {
	o := sampleCorrection("s1")
	ts := TombstoneOf(o, "wrong", time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	file := AppendTombstone([]byte(`{"id":"other","key":"k","type":"correction","at":"2026-01-01T00:00:00Z"}`), ts)
	file = append(file, "{oops\n"...) // a torn line
	all, probs := ParseTombstones(file)
	if len(all) != 2 || len(probs) != 1 || probs[0].Line != 3 {
		t.Fatalf("parse: %+v %+v", all, probs)
	}
	if !Tombstoned(all, o.ID) || Tombstoned(all, "nope") {
		t.Error("Tombstoned")
	}
	if !Forgotten(all, sampleCorrection("s9")) {
		t.Error("same key in another session not forgotten")
	}
	f := newForgetting(all)
	// Phrased differently, same action: still forgotten (near-duplicate).
	other := sampleCorrection("s9")
	other.Lesson = "Always add the changed files by name."
	other.ID = other.MakeID()
	if !f.forgotten(other) {
		t.Error("near-duplicate of a forgotten observation not forgotten")
	}
	unrelated := &Observation{Type: TypeCorrection, Lesson: "Use uv add for dependencies.", ActionTypes: []string{"pkg:pip"}}
	if f.forgotten(unrelated) {
		t.Error("unrelated observation forgotten")
	}
}
