package observations

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/kbmem/kb/traces"
)

// fail adds a tool call whose result is an error (not a refusal).
func (b *builder) fail(tool, input, output string) *builder {
	b.ids++
	id := fmt.Sprintf("toolu_%d", b.ids)
	b.add(traces.Record{Role: traces.RoleAssistant, Kind: traces.KindToolCall, Tool: tool, Input: json.RawMessage(input), CallID: id})
	return b.add(traces.Record{Role: traces.RoleTool, Kind: traces.KindToolResult, CallID: id, IsError: true, Output: output})
}

// TestNegativeResultsFromWhatHappened (issue 14, kind 7): a negative result
// comes from what happened (a failed call given up for another way to the
// same end, or the person saying it did not work), never from the agent's
// prose about its attempts.
func TestNegativeResultsFromWhatHappened(t *testing.T) {
	negs := func(s *Session) []*Observation { return ofType(Extract(s, nil, nil), TypeNegativeResult) }

	// The agent narrating, after the person refused for another reason.
	prose := newSession("n1").
		user("commit the docs change").
		reject("Bash", `{"command":"git add -A && git commit -m docs"}`).
		user("no, I want to review the diff first").
		say("That approach didn't work because it staged everything; let me revert the staging and instead add a script.").s
	if got := negs(prose); len(got) != 0 {
		t.Errorf("negative result from the agent's prose: %+v", got[0])
	}

	// A failed install given up for another package manager.
	switched := newSession("n2").
		user("add the left-pad dependency").
		fail("Bash", `{"command":"npm install left-pad"}`, "npm ERR! code ERESOLVE\nnpm ERR! unable to resolve dependency tree").
		call("Bash", `{"command":"pnpm add left-pad"}`, "Done in 1.2s").s
	got := negs(switched)
	if len(got) != 1 {
		t.Fatalf("switched approach: %d negative results, want 1", len(got))
	}
	o := got[0]
	if !strings.Contains(o.Approach, "npm install left-pad") || !strings.Contains(o.Failure, "ERESOLVE") ||
		!strings.Contains(o.FollowedBy, "pnpm add") || o.AgentAuthored() || !strings.HasPrefix(o.Excerpt, "Tool error: ") {
		t.Errorf("switched approach: %+v", o)
	}

	// Retried as it was after a fix: not abandoned. A failing test run is
	// feedback on the code, not an approach.
	retried := newSession("n3").
		user("add the left-pad dependency").
		fail("Bash", `{"command":"npm install left-pad"}`, "npm ERR! network timeout").
		call("Bash", `{"command":"npm config set registry https://registry.npmjs.org"}`, "").
		call("Bash", `{"command":"npm install left-pad"}`, "added 1 package").
		fail("Bash", `{"command":"go test ./..."}`, "--- FAIL: TestX").
		call("Bash", `{"command":"go test ./pkg/..."}`, "ok").s
	if got := negs(retried); len(got) != 0 {
		t.Errorf("retried or test feedback: %+v", got[0])
	}

	// The person saying it did not work (in their words, any approach).
	said := newSession("n4").
		user("make the redirect go to /docs").
		call("Edit", `{"file_path":"/w/next.config.js","old_string":"a","new_string":"b"}`, "ok").
		user("the redirect still doesn't work on the preview deploy").
		say("Vercel applies its own redirect configuration before Next.js reads next.config.js.").s
	got = negs(said)
	if len(got) != 1 || !strings.Contains(got[0].Approach, "next.config.js") || got[0].AgentAuthored() {
		t.Fatalf("person's report: %+v", got)
	}
	// What followed is what was done, never the agent's diagnosis.
	if got[0].FollowedBy != "" {
		t.Errorf("followed by the agent's prose: %q", got[0].FollowedBy)
	}
	moved := newSession("n5").
		user("make the redirect go to /docs").
		call("Edit", `{"file_path":"/w/next.config.js","old_string":"a","new_string":"b"}`, "ok").
		user("the redirect still doesn't work on the preview deploy").
		say("Vercel applies its own redirect configuration first; moving it.").
		call("Edit", `{"file_path":"/w/vercel.json","old_string":"a","new_string":"b"}`, "ok").s
	if got := negs(moved); len(got) != 1 || !strings.Contains(got[0].FollowedBy, "vercel.json") {
		t.Errorf("followed by the next change: %+v", got)
	}
}

// TestAbandonedCallsNeedAnOperation: two calls share a purpose by what they
// do, never by a type read from the text they write; and a command the
// agent wrote wrong (a parse error of the shell or the interpreter) is a
// typo, not an approach that does not work. Seen on an unseen public
// session: a heredoc test script with console.log in it failed on a bash
// syntax error, a report quoting it was written next, and kb kept "did not
// work: leaving console.log calls in code".
func TestAbandonedCallsNeedAnOperation(t *testing.T) {
	negs := func(s *Session) []*Observation { return ofType(Extract(s, nil, nil), TypeNegativeResult) }
	content := newSession("a1").
		user("check the corrections work").
		fail("Bash", `{"command":"cat > /tmp/t.sh <<'EOF'\nnode -e 'console.log(1)'\necho $(\nEOF\nbash /tmp/t.sh"}`, "/tmp/t.sh: line 2: unexpected EOF while looking for matching `)'").
		call("Write", `{"file_path":"/w/REPORT.md","content":"The test used console.log(1) to print."}`, "ok").s
	if got := negs(content); len(got) != 0 {
		t.Errorf("a content type as the shared purpose, or a syntax error as a failed approach: %+v", got[0])
	}
	syntax := newSession("a2").
		user("build the frontend").
		fail("Bash", `{"command":"sudo -u deploy bash -lc 'npm run build $(x'"}`, "/bin/bash: eval: line 14: syntax error near unexpected token `)'").
		call("Bash", `{"command":"sudo -u deploy bash -c 'npm run build'"}`, "built").s
	if got := negs(syntax); len(got) != 0 {
		t.Errorf("a syntax error kept as a negative result: %+v", got[0])
	}
	// A missing program given up for another is kept, named by what it did.
	missing := newSession("a3").
		user("parse the config").
		fail("Bash", `{"command":"python - <<'PY'\nimport yaml\nprint(1)\nPY"}`, "bash: python: command not found").
		call("Bash", `{"command":"python3 - <<'PY'\nimport yaml\nprint(1)\nPY"}`, "1").s
	if got := negs(missing); len(got) != 1 || !strings.Contains(got[0].Failure, "command not found") {
		t.Errorf("python -> python3: %+v", got)
	}
}
