package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kbmem/kb/kb"
)

// The MCP SDK's stdio transport ends the session on the first line that is
// not a JSON-RPC message (its reader stops at the first decoding error), and
// its argument validation answers in the words of its schema library
// ("validating root: ... type: <invalid reflect.Value> has type "null""). An
// agent's one bad line must not cost it its memory for the rest of the
// session, and an error it gets back must tell it what to change. So kb mcp
// reads stdin itself: a line that is not JSON gets a -32700 Parse error, one
// that is not a JSON-RPC message a -32600 Invalid Request, both with id null
// as JSON-RPC 2.0 says, and the server reads on; and tool arguments are
// checked against the tool's input type before the SDK sees them.

// stdioTransport is the transport of kb mcp: newline-delimited JSON-RPC on
// in and out, bad lines answered and skipped.
func stdioTransport(in io.ReadCloser, out io.Writer) mcp.Transport {
	w := &lockedWriter{w: out}
	return &mcp.IOTransport{Reader: &rpcLines{br: bufio.NewReaderSize(in, 64<<10), in: in, out: w, max: mcp.DefaultMaxLineLength}, Writer: w}
}

// lockedWriter serializes writes: the SDK writes each message with one
// Write, and so does rpcLines with its error answers.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }

// rpcLines passes on the lines of br that are JSON-RPC messages, one
// message per line, and answers the others itself.
type rpcLines struct {
	br      *bufio.Reader
	in      io.Closer
	out     io.Writer
	max     int
	pending []byte
}

func (r *rpcLines) Read(p []byte) (int, error) {
	for len(r.pending) == 0 {
		line, long, err := r.line()
		if long {
			r.answer(jsonrpc.CodeParseError, fmt.Sprintf("Parse error: a message over %d MB", r.max>>20))
		} else if t := bytes.TrimSpace(line); len(t) > 0 {
			if code, msg := checkRPC(t); code != 0 {
				r.answer(code, msg)
			} else {
				r.pending = append(t, '\n')
			}
		}
		if err != nil && len(r.pending) == 0 {
			return 0, err
		}
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

func (r *rpcLines) Close() error { return r.in.Close() }

// line reads the next line (without its newline). long reports a line over
// r.max bytes, read to its end and dropped.
func (r *rpcLines) line() (line []byte, long bool, err error) {
	for {
		chunk, err := r.br.ReadSlice('\n')
		if !long {
			line = append(line, chunk...)
			if len(line) > r.max {
				long, line = true, nil
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), long, err
	}
}

func (r *rpcLines) answer(code int64, msg string) {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}})
	if err == nil {
		r.out.Write(append(b, '\n'))
	}
}

// checkRPC returns 0 when line is one JSON-RPC message the SDK can read,
// else the error code and message to answer.
func checkRPC(line []byte) (int64, string) {
	if !json.Valid(line) {
		var v any
		err := json.Unmarshal(line, &v)
		return jsonrpc.CodeParseError, "Parse error: not JSON (" + strings.TrimPrefix(err.Error(), "json: ") + ")"
	}
	if line[0] == '[' {
		return jsonrpc.CodeInvalidRequest, "Invalid Request: batches are not supported; send one message per line"
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		if line[0] != '{' {
			return jsonrpc.CodeInvalidRequest, "Invalid Request: a message is a JSON object"
		}
		return jsonrpc.CodeInvalidRequest, `Invalid Request: a message needs "jsonrpc": "2.0", an id that is a string or a number, and a method (or a result or error)`
	}
	return 0, ""
}

// ---------------------------------------------------------------------------
// Tool arguments

// toolArgs describes the arguments of one tool, read from its input type.
type toolArgs struct {
	tool   string
	fields map[string]argField
	names  []string // in declaration order
}

type argField struct {
	typ      reflect.Type
	required bool
}

// argsOf reads the JSON fields of the struct type In: a field is required
// unless its tag says omitempty (as the SDK's schema has it).
func argsOf[In any](tool string) toolArgs {
	ta := toolArgs{tool: tool, fields: map[string]argField{}}
	t := reflect.TypeFor[In]()
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		ta.fields[name] = argField{typ: f.Type, required: !strings.Contains(opts, "omitempty")}
		ta.names = append(ta.names, name)
	}
	return ta
}

// check returns the arguments with null values dropped (an argument given
// as null is an argument not given) and whole numbers written as integers,
// or an error an agent can act on.
func (ta toolArgs) check(raw json.RawMessage) (json.RawMessage, error) {
	args := map[string]json.RawMessage{}
	if t := bytes.TrimSpace(raw); len(t) > 0 && string(t) != "null" {
		if t[0] != '{' || json.Unmarshal(t, &args) != nil {
			return nil, fmt.Errorf("%s: the arguments must be a JSON object (%s takes %s)", ta.tool, ta.tool, ta.list())
		}
	}
	var unknown []string
	for name, v := range args {
		f, ok := ta.fields[name]
		if !ok {
			unknown = append(unknown, strconv.Quote(name))
			continue
		}
		if string(bytes.TrimSpace(v)) == "null" {
			delete(args, name)
			continue
		}
		nv, err := checkValue(f.typ, v)
		if err != nil {
			return nil, fmt.Errorf("%s: argument %q %v", ta.tool, name, err)
		}
		args[name] = nv
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("%s: unknown argument %s (%s takes %s)", ta.tool, strings.Join(unknown, ", "), ta.tool, ta.list())
	}
	for _, name := range ta.names {
		if _, ok := args[name]; !ok && ta.fields[name].required {
			return nil, fmt.Errorf("%s: missing argument %q (%s)", ta.tool, name, describeType(ta.fields[name].typ))
		}
	}
	return json.Marshal(args)
}

func (ta toolArgs) list() string { return strings.Join(ta.names, ", ") }

// checkValue checks one JSON value against a Go field type of the tool
// inputs (string, int, bool, []string, map[string]any).
func checkValue(t reflect.Type, v json.RawMessage) (json.RawMessage, error) {
	v = bytes.TrimSpace(v)
	bad := func() (json.RawMessage, error) {
		return nil, fmt.Errorf("must be %s, got %s", describeType(t), describeJSON(v))
	}
	switch t.Kind() {
	case reflect.String:
		if v[0] != '"' {
			return bad()
		}
	case reflect.Bool:
		if string(v) != "true" && string(v) != "false" {
			return bad()
		}
	case reflect.Int, reflect.Int64, reflect.Int32:
		if v[0] != '-' && (v[0] < '0' || v[0] > '9') {
			return bad()
		}
		if _, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return v, nil
		}
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return bad()
		}
		return json.RawMessage(strconv.FormatInt(int64(f), 10)), nil
	case reflect.Slice:
		var elems []json.RawMessage
		if v[0] != '[' || json.Unmarshal(v, &elems) != nil {
			return bad()
		}
		for i, e := range elems {
			if _, err := checkValue(t.Elem(), e); err != nil {
				return nil, fmt.Errorf("must be %s; item %d %v", describeType(t), i+1, err)
			}
		}
	case reflect.Map:
		if v[0] != '{' {
			return bad()
		}
	}
	return v, nil
}

func describeType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "a whole number"
	case reflect.Slice:
		return "a list of " + strings.TrimPrefix(strings.TrimPrefix(describeType(t.Elem()), "a "), "an ") + "s"
	case reflect.Map:
		return "an object"
	}
	return t.Kind().String()
}

// describeJSON names the type of a JSON value, with a short quote of it.
func describeJSON(v json.RawMessage) string {
	q := string(v)
	if len(q) > 40 {
		q = q[:37] + "..."
	}
	switch v[0] {
	case '"':
		return "a string (" + q + ")"
	case '{':
		return "an object"
	case '[':
		return "a list"
	case 't', 'f':
		return q
	case 'n':
		return "null"
	}
	return "the number " + q
}

// checkArguments is the receiving middleware that checks tools/call
// arguments against args before the SDK decodes them.
func checkArguments(args map[string]toolArgs) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if r, ok := req.(*mcp.CallToolRequest); ok && method == "tools/call" && r.Params != nil {
				if ta, ok := args[r.Params.Name]; ok {
					clean, err := ta.check(r.Params.Arguments)
					if err != nil {
						res := &mcp.CallToolResult{}
						res.SetError(fmt.Errorf("%w: %v", kb.ErrInvalidInput, err))
						return res, nil
					}
					r.Params.Arguments = clean
				}
			}
			return next(ctx, method, req)
		}
	}
}

// addTool registers a tool and the description of its arguments.
func addTool[In, Out any](s *mcp.Server, args map[string]toolArgs, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	args[t.Name] = argsOf[In](t.Name)
	mcp.AddTool(s, t, h)
}
