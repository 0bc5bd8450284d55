package observations

import (
	"testing"
	"time"
)

func TestFromExplicit(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 500, time.UTC)
	o, err := FromExplicit(Explicit{Type: TypeCorrection, Text: "Run  make lint\nbefore pushing", Trigger: "pushing a branch", Why: "CI fails"}, Default(), now)
	if err != nil || o.Author != AuthorAgent || o.Origin != OriginMCPRemember || o.Title != "Run make lint before pushing" ||
		o.Consequence != "CI fails" || o.Sources[0].Session != "mcp" || !o.FirstSeen.Equal(now.Truncate(time.Second)) {
		t.Fatalf("%v %+v", err, o)
	}
	again, _ := FromExplicit(Explicit{Type: TypeCorrection, Text: "Run  make lint\nbefore pushing", Trigger: "pushing a branch"}, Default(), now.Add(time.Hour))
	if again.ID != o.ID {
		t.Error("the same note gets another id")
	}
	p, _ := FromExplicit(Explicit{Type: TypeProcedure, Text: "1. build\n- test\n\n* ship"}, nil, now)
	if len(p.Steps) != 3 || p.Steps[2] != "ship" || p.Goal != "build" {
		t.Errorf("procedure %+v", p)
	}
	for _, bad := range []Explicit{{Type: TypeCorrection}, {Type: "rumour", Text: "x"}, {Type: TypeCorrection, Text: "x", ActionTypes: []string{"Not A Type"}}} {
		if _, err := FromExplicit(bad, nil, now); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
