package observations

import (
	"context"
	"testing"
)

// TestMergeTwiceChangesNothing: the second merge of the same candidates
// into the files the first one planned writes nothing.
func TestMergeTwiceChangesNothing(t *testing.T) {
	ctx := context.Background()
	a, b := sampleCorrection("s1"), sampleCorrection("s2")
	res, err := (&Merger{}).Merge(ctx, []*Observation{a, b})
	if err != nil || len(res.Writes) != 1 || res.Types[TypeCorrection].New != 1 || res.Types[TypeCorrection].Merged != 1 {
		t.Fatalf("first merge: %v %+v %+v", err, res, res.Types[TypeCorrection])
	}
	var files []*File
	for _, w := range res.Writes {
		f, p := ParseFile(w.Path, w.Content)
		if p != nil {
			t.Fatal(p)
		}
		if f.Obs.Sessions != 2 {
			t.Errorf("sessions %d, want 2", f.Obs.Sessions)
		}
		files = append(files, f)
	}
	res, err = (&Merger{Files: files}).Merge(ctx, []*Observation{sampleCorrection("s1"), sampleCorrection("s2")})
	if err != nil || len(res.Writes) != 0 || res.Types[TypeCorrection].Unchanged != 2 {
		t.Fatalf("second merge: %v %+v %+v", err, res.Writes, res.Types[TypeCorrection])
	}
}

func TestMergeLeavesWhatItMustNotTouch(t *testing.T) {
	ctx := context.Background()
	o := sampleCorrection("s1")
	rel := FilePath(o.Type, o.ID)
	m := &Merger{Broken: map[string]bool{rel: true}}
	res, _ := m.Merge(ctx, []*Observation{o})
	if len(res.Writes) != 0 || len(res.Problems) != 1 || res.Problems[0].Path != rel {
		t.Errorf("broken file: %+v", res)
	}
	m = &Merger{Occupied: func(string) bool { return true }}
	res, _ = m.Merge(ctx, []*Observation{sampleCorrection("s1")})
	if len(res.Writes) != 0 || len(res.Problems) != 1 {
		t.Errorf("occupied: %+v", res)
	}
	m = &Merger{Tombstones: []Tombstone{TombstoneOf(o, "", o.FirstSeen)}}
	res, _ = m.Merge(ctx, []*Observation{sampleCorrection("s7")})
	if len(res.Writes) != 0 || res.Forgotten != 1 {
		t.Errorf("forgotten: %+v", res)
	}
}
