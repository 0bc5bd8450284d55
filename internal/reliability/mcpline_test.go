package reliability

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestMCPBadLineKeepsServing (issue 12, the newcomer's run): kb mcp, driven
// as a raw stdio client would, gets a line that is not JSON, then a valid
// tools/list: it must answer the first with a JSON-RPC -32700 Parse error
// (id null) and the second with the tool list, instead of exiting at the bad
// line; a tool argument of the wrong type gets a message that names the
// argument and shows no Go internals ("<invalid reflect.Value>").
func TestMCPBadLineKeepsServing(t *testing.T) {
	k := newKB(t)
	cmd := exec.Command(kbBin, "--kb", k.Root, "mcp")
	cmd.Env = kbEnv(k.Home)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var errb bytes.Buffer
	cmd.Stderr = &errb
	must(t, cmd.Start())
	defer killNow(cmd)
	answers := make(chan map[string]any, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 4<<20)
		for sc.Scan() {
			var m map[string]any
			json.Unmarshal(sc.Bytes(), &m)
			answers <- m
		}
		close(answers)
	}()
	next := func(what string) map[string]any {
		t.Helper()
		select {
		case m, ok := <-answers:
			if !ok {
				t.Fatalf("%s: kb mcp stopped answering (exit %v)\n%s", what, cmd.Wait(), errb.String())
			}
			return m
		case <-time.After(cmdTimeout): // a hang, not a timing assertion
			t.Fatalf("%s: no answer within %s\n%s", what, cmdTimeout, errb.String())
		}
		return nil
	}
	send := func(s string) { io.WriteString(stdin, s+"\n") }

	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := next("initialize"); m["id"] != float64(1) {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"`) // cut short
	m := next("bad line")
	if e, _ := m["error"].(map[string]any); e == nil || e["code"] != float64(-32700) || m["id"] != nil {
		t.Errorf("bad line answered %v, want a -32700 Parse error with id null", m)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	m = next("tools/list")
	if res, _ := m["result"].(map[string]any); m["id"] != float64(3) || res == nil || len(res["tools"].([]any)) == 0 {
		t.Errorf("tools/list after the bad line: %v", m)
	}
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"recall","arguments":{"task":"deploy","budget":"abc"}}}`)
	m = next("recall with a bad budget")
	b, _ := json.Marshal(m)
	if !strings.Contains(string(b), `\"budget\" must be a whole number`) || strings.Contains(string(b), "reflect") || strings.Contains(string(b), "validating") {
		t.Errorf("bad argument answered %s", b)
	}
	send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"recall","arguments":{"task":"deploy","budget":null}}}`)
	m = next("recall with a null budget")
	if res, _ := m["result"].(map[string]any); res == nil || res["isError"] == true {
		t.Errorf("null budget (not given) answered %v", m)
	}
	stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("kb mcp exit: %v\n%s", err, errb.String())
		}
	case <-time.After(cmdTimeout):
		t.Fatalf("kb mcp did not exit after stdin closed\n%s", errb.String())
	}
	checkPanic(t, res{Args: []string{"mcp"}, Stderr: errb.String()})
}
