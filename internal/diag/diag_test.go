package diag

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

func TestProblemPrints(t *testing.T) {
	for _, c := range []struct {
		p    Problem
		want string
	}{
		{Problem{Path: "a.md", Line: 3, Msg: "bad"}, "a.md:3: bad"},
		{Problem{Path: "a.md", Msg: "bad"}, "a.md: bad"},
		{Problem{Path: "kb.yaml", Line: 0, Msg: "x", Rule: "config"}, "kb.yaml: x"},
	} {
		if got := c.p.String(); got != c.want {
			t.Errorf("String() = %q, want %q", got, c.want)
		}
		if got := c.p.Error(); got != c.want {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
	}
}

func TestProblemIsFoundInAChain(t *testing.T) {
	err := fmt.Errorf("open: %w", &Problem{Path: "kb.yaml", Line: 2, Msg: "unknown key"})
	var p *Problem
	if !errors.As(err, &p) || p.Line != 2 {
		t.Fatalf("errors.As: %v %+v", err, p)
	}
}

func TestProblemJSON(t *testing.T) {
	b, _ := json.Marshal(Problem{Path: "t.jsonl", Line: 4, Msg: "malformed"})
	if string(b) != `{"path":"t.jsonl","line":4,"message":"malformed"}` {
		t.Errorf("json: %s", b)
	}
}
