package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/kbmem/kb/kb"
)

// rawMCP runs the server over kb mcp's own stdio transport on pipes and
// returns a writer for raw lines and a channel of the answers.
func rawMCP(t *testing.T, k *kb.KB) (io.Writer, <-chan map[string]any) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, k, "test", stdioTransport(inR, outW)) }()
	answers := make(chan map[string]any, 16)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"unparsable": sc.Text()}
			}
			answers <- m
		}
		close(answers)
	}()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		<-done
		outW.Close()
	})
	return inW, answers
}

func nextAnswer(t *testing.T, answers <-chan map[string]any) map[string]any {
	t.Helper()
	select {
	case m, ok := <-answers:
		if !ok {
			t.Fatal("the server stopped answering")
		}
		return m
	case <-time.After(30 * time.Second): // a hang, not a timing assertion
		t.Fatal("no answer")
	}
	return nil
}

// TestMCPBadLineKeepsServing: a line that is not JSON gets a -32700 Parse
// error, one that is JSON but no JSON-RPC message a -32600, and the server
// answers the valid request after them (the SDK's own transport ends the
// session at the first bad line).
func TestMCPBadLineKeepsServing(t *testing.T) {
	k := testKB(t)
	in, answers := rawMCP(t, k)
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(in, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := nextAnswer(t, answers); m["id"] != float64(1) || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, bad := range []struct {
		line string
		code float64
	}{
		{`{"jsonrpc":"2.0","id":2,"method":"tools/list"`, -32700},
		{`this is not json`, -32700},
		{`{"hello":"world"}`, -32600},
		{`[{"jsonrpc":"2.0","id":3,"method":"tools/list"}]`, -32600},
		{`42`, -32600},
	} {
		send(bad.line)
		m := nextAnswer(t, answers)
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != bad.code || m["id"] != nil || m["jsonrpc"] != "2.0" {
			t.Errorf("%s: answered %v, want error %v with id null", bad.line, m, bad.code)
		}
		if msg, _ := e["message"].(string); strings.Contains(msg, "reflect") || strings.Contains(msg, "Go value") {
			t.Errorf("%s: message shows Go internals: %s", bad.line, msg)
		}
	}
	send(``) // blank lines are skipped, not answered
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)
	m := nextAnswer(t, answers)
	res, _ := m["result"].(map[string]any)
	if m["id"] != float64(4) || res == nil || len(res["tools"].([]any)) != 6 {
		t.Fatalf("tools/list after the bad lines: %v", m)
	}
}

// TestMCPArgumentErrors: arguments of the wrong type, unknown, missing or
// negative get a message naming the argument and what it must be, never
// the schema library's words; null is an argument not given.
func TestMCPArgumentErrors(t *testing.T) {
	k := testKB(t)
	cs := testClient(t, k)
	for _, tc := range []struct {
		tool string
		args any
		want string // "" = accepted
	}{
		{"recall", map[string]any{"task": "x", "budget": "abc"}, `recall: argument "budget" must be a whole number, got a string ("abc")`},
		{"recall", map[string]any{"task": "x", "budget": 1.5}, `argument "budget" must be a whole number, got the number 1.5`},
		{"recall", map[string]any{"task": "x", "budget": -5}, `budget must be 0 (the default, recall.budget) or more tokens, got -5`},
		{"recall", map[string]any{"task": "x", "budget": nil}, ""},
		{"recall", map[string]any{"task": "x", "budget": 300.0}, ""},
		{"recall", map[string]any{"task": nil, "action": "git push --force"}, ""},
		{"recall", map[string]any{"task": "x", "files": []any{"a.go", 1}}, `argument "files" must be a list of strings; item 2 must be a string, got the number 1`},
		{"recall", map[string]any{"task": "x", "input": "ls"}, `argument "input" must be an object, got a string ("ls")`},
		{"recall", map[string]any{"task": "x", "extra": 1}, `recall: unknown argument "extra" (recall takes task, action, tool, input, files, budget, project)`},
		{"recall", json.RawMessage(`"abc"`), `recall: the arguments must be a JSON object`},
		{"search", map[string]any{"query": "x", "limit": -1}, `search: limit must be 0 (the default, 10) or more, got -1`},
		{"search", map[string]any{"query": "x", "limit": "ten"}, `argument "limit" must be a whole number, got a string ("ten")`},
		{"search", map[string]any{"limit": 3}, `search: missing argument "query" (a string)`},
		{"why", map[string]any{"topic": "x", "limit": -3}, `why: limit must be 0`},
		{"show", map[string]any{"id": nil}, `show: missing argument "id" (a string)`},
		{"remember", map[string]any{"type": "correction", "text": "x", "action_types": []any{nil}}, `argument "action_types" must be a list of strings; item 1 must be a string, got null`},
		{"links", map[string]any{"id": "x", "back": "yes"}, `argument "back" must be true or false, got a string ("yes")`},
	} {
		res, _ := callTool(t, cs, tc.tool, tc.args)
		text := toolText(res)
		b, _ := json.Marshal(tc.args)
		if tc.want == "" {
			if res.IsError && strings.Contains(text, "argument") {
				t.Errorf("%s %s: rejected: %s", tc.tool, b, text)
			}
			continue
		}
		if !res.IsError || !strings.Contains(text, tc.want) {
			t.Errorf("%s %s:\n got %q\nwant %q", tc.tool, b, text, tc.want)
		}
		for _, internal := range []string{"reflect", "validating", "Go value", "interface {}", "unmarshal"} {
			if strings.Contains(text, internal) {
				t.Errorf("%s %s: %q shows %q", tc.tool, b, text, internal)
			}
		}
	}
}

// FuzzMCPInput: whatever a client sends, a line is passed on only when the
// SDK can decode it, and tool arguments are passed on only as an object.
func FuzzMCPInput(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":null,"method":"x"}`))
	f.Add([]byte(`{"task":"x","budget":"abc","files":[1,null]}`))
	f.Add([]byte(`[{"jsonrpc":"2.0"}]`))
	f.Add([]byte(`{"budget":1e400}`))
	ta := argsOf[RecallIn]("recall")
	f.Fuzz(func(t *testing.T, line []byte) {
		if code, _ := checkRPC(bytes.TrimSpace(line)); code == 0 {
			if _, err := jsonrpc.DecodeMessage(bytes.TrimSpace(line)); err != nil {
				t.Fatalf("passed on a line the SDK cannot read: %v", err)
			}
		}
		if out, err := ta.check(line); err == nil {
			var m map[string]json.RawMessage
			if json.Unmarshal(out, &m) != nil {
				t.Fatalf("checked arguments are not an object: %s", out)
			}
			var in RecallIn
			if err := json.Unmarshal(out, &in); err != nil {
				t.Fatalf("checked arguments do not decode: %v (%s)", err, out)
			}
		}
	})
}
