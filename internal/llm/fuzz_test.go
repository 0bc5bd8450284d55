package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestExtractJSON(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"a":1}`, `{"a":1}`},
		{"```json\n{\"a\": [1, {\"b\": \"}\"}]}\n```", `{"a": [1, {"b": "}"}]}`},
		{`Here: {"a":"x\"}"} and {"b":2}`, `{"a":"x\"}"}`},
		{`use { to open a block. {"a":1}`, `{"a":1}`},
		{`{not json} then {"a":1}`, `{"a":1}`},
		{`{"a":{"b":{}}} trailing }`, `{"a":{"b":{}}}`},
		{"\ufeff{\"a\":\"é\"}", `{"a":"é"}`},
	}
	for _, c := range cases {
		got, err := ExtractJSON([]byte(c.in))
		if err != nil || string(got) != c.want {
			t.Errorf("ExtractJSON(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "no json here", `{"a":`, `[1,2]`, `"{"`, `{"a":1`, strings.Repeat("{", 100) + `{"a":1}`} {
		if got, err := ExtractJSON([]byte(in)); !errors.Is(err, ErrMalformed) {
			t.Errorf("ExtractJSON(%q) = %q, %v; want ErrMalformed", in, got, err)
		}
	}
}

func FuzzExtractJSON(f *testing.F) {
	for _, s := range []string{
		`{"a":1}`,
		"Sure!\n```json\n{\"title\": \"x\", \"confidence\": 0.5}\n```\n",
		`{"a":"\"}{"}`,
		`{ {"a":[1,{"b":null}]} }`,
		`}{`,
		`{"a":"\`,
		"",
		`[{"a":1}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := ExtractJSON(in)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error not ErrMalformed: %v", err)
			}
			return
		}
		if len(got) == 0 || got[0] != '{' || !json.Valid(got) || !bytes.Contains(in, got) {
			t.Fatalf("ExtractJSON(%q) = %q", in, got)
		}
		// A found object is found again when wrapped in a fence.
		again, err := ExtractJSON(append(append([]byte("```json\n"), got...), "\n```"...))
		if err != nil || !bytes.Equal(again, got) {
			t.Fatalf("re-extract %q: %q, %v", got, again, err)
		}
	})
}

func FuzzParseOpenAI(f *testing.F) {
	f.Add([]byte(chatCompletion(`{"title":"a","confidence":1}`, "stop")))
	f.Add([]byte(chatCompletion(nil, "content_filter")))
	f.Add([]byte(`{"choices":[{"message":{"content":null,"refusal":"no"}}]}`))
	f.Add([]byte(`{"choices":[{"message":{"content":[{"type":"text","text":"{}"}]}}]}`))
	f.Add([]byte(`{"choices":[]}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var out result
		err := parseOpenAI(body, []string{"title"}, &out)
		if err != nil && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrRefused) {
			t.Fatalf("untyped error %v", err)
		}
	})
}

func FuzzParseAnthropic(f *testing.F) {
	f.Add([]byte(anthropicMessage("tool_use", toolUse(`{"title":"a","confidence":1}`))))
	f.Add([]byte(anthropicMessage("refusal", text("no"))))
	f.Add([]byte(anthropicMessage("max_tokens")))
	f.Add([]byte(`{"content":[{"type":"tool_use","input":null}]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var out map[string]any
		err := parseAnthropic(body, "correction", []string{"title"}, &out)
		if err != nil && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrRefused) {
			t.Fatalf("untyped error %v", err)
		}
	})
}

func FuzzParseEmbeddings(f *testing.F) {
	f.Add([]byte(`{"data":[{"index":1,"embedding":[1,2]},{"index":0,"embedding":[3,4]}]}`), 2)
	f.Add([]byte(`{"data":[{"embedding":[1]}]}`), 1)
	f.Add([]byte(`{"data":[{"index":-1,"embedding":[1]}]}`), 1)
	f.Add([]byte(`{"data":[{"index":0,"embedding":[1e300]}]}`), 1)
	f.Fuzz(func(t *testing.T, body []byte, n int) {
		if n < 0 || n > 1000 {
			return
		}
		vecs, err := parseEmbeddings(body, n)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if len(vecs) != n {
			t.Fatalf("%d vectors, want %d", len(vecs), n)
		}
		for i, v := range vecs {
			if len(v) == 0 || len(v) != len(vecs[0]) {
				t.Fatalf("vector %d has dimension %d", i, len(v))
			}
		}
	})
}

func FuzzHTTPFailure(f *testing.F) {
	f.Add(400, []byte(`{"error":{"message":"m","type":"t","code":"content_policy_violation"}}`))
	f.Add(529, []byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
	f.Add(500, []byte(`{"error":"model not found"}`))
	f.Add(404, []byte(`<html>`))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		err := httpFailure(status, body)
		var he *HTTPError
		if !errors.As(err, &he) || he.Status != status || len(he.Body) > maxErrorBody+len("…") {
			t.Fatalf("httpFailure(%d, %q) = %v", status, body, err)
		}
		_ = err.Error()
	})
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"0", "3", "-1", "99999999999999999999", "Wed, 21 Oct 2015 07:28:00 GMT", "soon", ""} {
		f.Add(s)
	}
	now := time.Date(2015, 10, 21, 7, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := parseRetryAfter(v, now)
		if d < 0 || (!ok && d != 0) {
			t.Fatalf("parseRetryAfter(%q) = %v, %v", v, d, ok)
		}
	})
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2015, 10, 21, 7, 28, 0, 0, time.UTC)
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"0", 0, true},
		{" 2 ", 2 * time.Second, true},
		{"Wed, 21 Oct 2015 07:28:03 GMT", 3 * time.Second, true},
		{"Wed, 21 Oct 2015 07:27:00 GMT", 0, true},
		{"-1", 0, false},
		{"later", 0, false},
		{"", 0, false},
	}
	for _, c := range cases {
		if got, ok := parseRetryAfter(c.in, now); got != c.want || ok != c.ok {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func BenchmarkExtractJSON(b *testing.B) {
	typical := []byte("Sure! Here is the observation:\n```json\n" + strings.Repeat(`{"title":"use tabs","confidence":0.9,"evidence":["a","b"]}`, 1) + "\n```\n")
	nested := []byte(strings.Repeat(`{"a":`, 1<<17)) // 640 KiB, never closes
	braces := []byte(strings.Repeat("{x} ", 1<<18))  // 1 MiB of invalid candidates
	for name, in := range map[string][]byte{"typical": typical, "unclosed-nesting": nested, "many-candidates": braces} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				ExtractJSON(in)
			}
		})
	}
}
