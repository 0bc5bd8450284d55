package observations

import (
	"strings"
	"testing"
)

// TestProceduresAreThePersons (issue 14, kind 7): a procedure is what ran
// after the person asked for the same thing in several sessions, its goal
// their words; the agent's own routine (Read -> Edit -> TodoWrite) with no
// shared request behind it is not one, and what the gate calls obvious
// never is.
func TestProceduresAreThePersons(t *testing.T) {
	release := func(id, version string) *Session {
		return newSession(id).
			user("release the billing service as "+version).
			call("Read", `{"file_path":"/w/CHANGELOG.md"}`, "...").
			call("Bash", `{"command":"make test"}`, "ok").
			call("Bash", `{"command":"git tag `+version+`"}`, "").
			call("Bash", `{"command":"git push origin `+version+`"}`, "").s
	}
	routine := func(id, ask string) *Session {
		return newSession(id).
			user(ask).
			call("Read", `{"file_path":"/w/app.js"}`, "...").
			call("Edit", `{"file_path":"/w/app.js","old_string":"a","new_string":"b"}`, "ok").
			call("TodoWrite", `{"todos":[]}`, "ok").s
	}
	ps := Procedures([]*Session{
		release("p1", "v1.2.0"), release("p2", "v1.3.0"),
		routine("r1", "the header overlaps the menu on mobile"), routine("r2", "add a dark mode toggle"),
		routine("r3", "rename the user model"),
	}, 2)
	if len(ps) != 1 {
		for _, p := range ps {
			t.Logf("%q %v", p.Goal, p.Steps)
		}
		t.Fatalf("%d procedures, want 1", len(ps))
	}
	p := ps[0]
	if p.Goal != "release the billing service as" && !strings.HasPrefix(p.Goal, "release the billing service") {
		t.Errorf("goal %q, want the person's request", p.Goal)
	}
	if strings.HasPrefix(p.Goal, "Recurring workflow") || p.Sessions != 2 || !strings.Contains(strings.Join(p.Steps, " "), "Bash: git tag") {
		t.Errorf("procedure %+v", p)
	}
	if v := (*Gate)(nil).Judge(p); !v.Keep() {
		t.Errorf("the person's procedure is gated: %s", v)
	}
	// The same routine under the same request is still the agent's
	// routine: obvious.
	same := Procedures([]*Session{routine("r4", "fix the header layout"), routine("r5", "fix the header layout")}, 2)
	for _, p := range same {
		if (*Gate)(nil).Judge(p).Keep() {
			t.Errorf("agent routine passes the gate: %q %v", p.Goal, p.Steps)
		}
	}
}
