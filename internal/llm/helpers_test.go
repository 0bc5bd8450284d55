package llm

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// testSchema is a strict-mode schema like the ones kb's extractors use.
var testSchema = json.RawMessage(`{
  "type": "object",
  "description": "One correction the user made.",
  "properties": {
    "title": {"type": "string"},
    "confidence": {"type": "number"}
  },
  "required": ["title", "confidence"],
  "additionalProperties": false
}`)

type result struct {
	Title      string  `json:"title"`
	Confidence float64 `json:"confidence"`
}

func testRequest() Request {
	return Request{
		System:     "You extract corrections from coding sessions.",
		Prompt:     "User: no, use tabs not spaces.",
		SchemaName: "correction",
		Schema:     testSchema,
		MaxTokens:  300,
	}
}

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// sameJSON reports whether a and b encode the same value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("unmarshal %s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("unmarshal %s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

// reply is one canned HTTP answer.
type reply struct {
	status int
	header map[string]string
	body   string
	block  bool // wait until the client gives up
}

// script serves replies in order (the last one repeats) and checks every
// request with check. It counts calls.
type script struct {
	t       *testing.T
	replies []reply
	check   func(t *testing.T, r *http.Request, body []byte)
	calls   atomic.Int32
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := int(s.calls.Add(1)) - 1
	body, err := io.ReadAll(r.Body)
	if err != nil {
		s.t.Errorf("reading request body: %v", err)
	}
	if s.check != nil {
		s.check(s.t, r, body)
	}
	rp := s.replies[min(n, len(s.replies)-1)]
	if rp.block {
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
			s.t.Errorf("client never gave up")
		}
		return
	}
	for k, v := range rp.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	status := rp.status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	io.WriteString(w, rp.body)
}

func wantErr(t *testing.T, err error, target error, contains string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want error %v, got nil", target)
	}
	if target != nil && !errors.Is(err, target) {
		t.Fatalf("want errors.Is(%v), got %v", target, err)
	}
	if contains != "" && !strings.Contains(err.Error(), contains) {
		t.Fatalf("error %q does not contain %q", err, contains)
	}
}

func wantHTTPError(t *testing.T, err error, status int, contains string) *HTTPError {
	t.Helper()
	var he *HTTPError
	if !errors.As(err, &he) {
		t.Fatalf("want *HTTPError, got %T: %v", err, err)
	}
	if he.Status != status {
		t.Fatalf("status %d, want %d (%v)", he.Status, status, err)
	}
	if !strings.Contains(he.Body, contains) {
		t.Fatalf("body %q does not contain %q", he.Body, contains)
	}
	return he
}
