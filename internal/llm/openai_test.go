package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// checkOpenAIRequest asserts the Chat Completions wire format.
func checkOpenAIRequest(wantKey string) func(t *testing.T, r *http.Request, body []byte) {
	return func(t *testing.T, r *http.Request, body []byte) {
		t.Helper()
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			t.Errorf("got %s %s, want POST /v1/chat/completions", r.Method, r.URL.Path)
		}
		if got := r.Header.Get("Content-Type"); got != "application/json" {
			t.Errorf("Content-Type %q", got)
		}
		wantAuth := ""
		if wantKey != "" {
			wantAuth = "Bearer " + wantKey
		}
		if got := r.Header.Get("Authorization"); got != wantAuth {
			t.Errorf("Authorization %q, want %q", got, wantAuth)
		}
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
			ResponseFormat struct {
				Type       string `json:"type"`
				JSONSchema struct {
					Name   string          `json:"name"`
					Schema json.RawMessage `json:"schema"`
					Strict bool            `json:"strict"`
				} `json:"json_schema"`
			} `json:"response_format"`
			MaxTokens           *int `json:"max_tokens"`
			MaxCompletionTokens *int `json:"max_completion_tokens"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			t.Errorf("request body: %v\n%s", err, body)
			return
		}
		tr := testRequest()
		if req.Model != "gpt-test" {
			t.Errorf("model %q", req.Model)
		}
		if len(req.Messages) != 2 || req.Messages[0].Role != "system" || req.Messages[0].Content != tr.System ||
			req.Messages[1].Role != "user" || req.Messages[1].Content != tr.Prompt {
			t.Errorf("messages %+v", req.Messages)
		}
		rf := req.ResponseFormat
		if rf.Type != "json_schema" || rf.JSONSchema.Name != "correction" || !rf.JSONSchema.Strict {
			t.Errorf("response_format %+v", rf)
		}
		if !sameJSON(t, rf.JSONSchema.Schema, testSchema) {
			t.Errorf("schema sent %s, want %s", rf.JSONSchema.Schema, testSchema)
		}
		if req.MaxTokens == nil || *req.MaxTokens != 300 || req.MaxCompletionTokens != nil {
			t.Errorf("token limit: max_tokens %v max_completion_tokens %v", req.MaxTokens, req.MaxCompletionTokens)
		}
	}
}

func chatCompletion(content any, finish string) string {
	msg := map[string]any{"role": "assistant", "content": content, "refusal": nil}
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": "gpt-test",
		"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
	})
	return string(b)
}

func newOpenAITest(t *testing.T, s *script, cfg Config) (*openAI, *httptest.Server) {
	t.Helper()
	s.t = t
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	cfg.Provider = "openai"
	cfg.Model = "gpt-test"
	cfg.BaseURL = srv.URL + "/v1/"
	if cfg.Getenv == nil {
		cfg.APIKeyEnv = "KB_TEST_OPENAI_KEY"
		cfg.Getenv = env("KB_TEST_OPENAI_KEY", "sk-test")
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	oc := c.(*openAI)
	oc.transport.backoff = time.Millisecond
	return oc, srv
}

func TestOpenAI(t *testing.T) {
	const good = `{"title":"use tabs","confidence":0.9}`
	refusal := `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I'm sorry, I can't help with that."},"finish_reason":"stop"}]}`
	tests := []struct {
		name      string
		replies   []reply
		wantCalls int32
		wantErr   error
		contains  string
		status    int // want *HTTPError with this status
	}{
		{name: "success", replies: []reply{{body: chatCompletion(good, "stop")}}, wantCalls: 1},
		{name: "fenced content", replies: []reply{{body: chatCompletion("```json\n"+good+"\n```", "stop")}}, wantCalls: 1},
		{name: "content parts", replies: []reply{{body: chatCompletion([]any{map[string]any{"type": "text", "text": good}}, "stop")}}, wantCalls: 1},
		{name: "malformed JSON", replies: []reply{{body: chatCompletion(`{"title": "use tabs", "confidence":`, "stop")}},
			wantCalls: 1, wantErr: ErrMalformed, contains: "no JSON object"},
		{name: "missing required key", replies: []reply{{body: chatCompletion(`{"title":"use tabs"}`, "stop")}},
			wantCalls: 1, wantErr: ErrMalformed, contains: "missing required keys confidence"},
		{name: "wrong type", replies: []reply{{body: chatCompletion(`{"title":7,"confidence":0.9}`, "stop")}},
			wantCalls: 1, wantErr: ErrMalformed, contains: "does not decode"},
		{name: "empty content", replies: []reply{{body: chatCompletion("", "stop")}},
			wantCalls: 1, wantErr: ErrMalformed, contains: "empty"},
		{name: "not a completion", replies: []reply{{body: `<html>proxy</html>`}},
			wantCalls: 1, wantErr: ErrMalformed},
		{name: "refusal", replies: []reply{{body: refusal}}, wantCalls: 1, wantErr: ErrRefused, contains: "can't help"},
		{name: "content filter", replies: []reply{{body: chatCompletion(nil, "content_filter")}},
			wantCalls: 1, wantErr: ErrRefused},
		{name: "truncated", replies: []reply{{body: chatCompletion(`{"title":"use ta`, "length")}},
			wantCalls: 1, wantErr: ErrMalformed, contains: "truncated"},
		{name: "400", replies: []reply{{status: 400, body: `{"error":{"message":"Invalid schema for response_format 'correction'","type":"invalid_request_error","param":"response_format","code":null}}`}},
			wantCalls: 1, status: 400, contains: "Invalid schema"},
		{name: "401", replies: []reply{{status: 401, body: `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`}},
			wantCalls: 1, status: 401, contains: "Incorrect API key"},
		{name: "400 content policy", replies: []reply{{status: 400, body: `{"error":{"message":"Your request was rejected as a result of our safety system.","type":"invalid_request_error","param":null,"code":"content_policy_violation"}}`}},
			wantCalls: 1, wantErr: ErrRefused, status: 400, contains: "safety system"},
		{name: "429 then 200", replies: []reply{
			{status: 429, header: map[string]string{"Retry-After": "0"}, body: `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`},
			{body: chatCompletion(good, "stop")}}, wantCalls: 2},
		{name: "503 then 200 without Retry-After", replies: []reply{{status: 503, body: "upstream down"}, {body: chatCompletion(good, "stop")}}, wantCalls: 2},
		{name: "500 twice", replies: []reply{{status: 500, body: `{"error":{"message":"The server had an error","type":"server_error","param":null,"code":null}}`}},
			wantCalls: 2, status: 500, contains: "server_error: The server had an error"},
		{name: "429 twice", replies: []reply{{status: 429, header: map[string]string{"Retry-After": "0"}, body: "slow down"}},
			wantCalls: 2, status: 429, contains: "slow down"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &script{replies: tc.replies, check: checkOpenAIRequest("sk-test")}
			c, _ := newOpenAITest(t, s, Config{})
			var got result
			err := c.JSON(context.Background(), testRequest(), &got)
			if n := s.calls.Load(); n != tc.wantCalls {
				t.Errorf("%d calls, want %d", n, tc.wantCalls)
			}
			if tc.wantErr == nil && tc.status == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if got != (result{"use tabs", 0.9}) {
					t.Fatalf("got %+v", got)
				}
				return
			}
			wantErr(t, err, tc.wantErr, tc.contains)
			if !strings.HasPrefix(err.Error(), "llm: openai gpt-test: ") {
				t.Errorf("error lacks context prefix: %v", err)
			}
			if strings.Contains(err.Error(), "sk-test") {
				t.Errorf("error leaks the key: %v", err)
			}
			if tc.status != 0 {
				wantHTTPError(t, err, tc.status, tc.contains)
			}
		})
	}
}

func TestOpenAINoKeyOllama(t *testing.T) {
	// A local server (Ollama, llama.cpp, vLLM) needs no key: no
	// Authorization header, and no key variable is required.
	s := &script{replies: []reply{{body: chatCompletion(`{"title":"x","confidence":1}`, "stop")}}, check: checkOpenAIRequest("")}
	c, _ := newOpenAITest(t, s, Config{Getenv: env()})
	var got result
	if err := c.JSON(context.Background(), testRequest(), &got); err != nil {
		t.Fatal(err)
	}
}

func TestOpenAIOfficialUsesMaxCompletionTokens(t *testing.T) {
	c, err := New(Config{Provider: "openai", Model: "gpt-test", Getenv: env("OPENAI_API_KEY", "sk-x")})
	if err != nil {
		t.Fatal(err)
	}
	oc := c.(*openAI)
	if oc.endpoint != "https://api.openai.com/v1/chat/completions" || !oc.official || oc.key != "sk-x" {
		t.Fatalf("endpoint %q official %v", oc.endpoint, oc.official)
	}
}

func TestOpenAITimeout(t *testing.T) {
	t.Run("ctx deadline", func(t *testing.T) {
		s := &script{replies: []reply{{block: true}}}
		c, _ := newOpenAITest(t, s, Config{})
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		var got result
		err := c.JSON(ctx, testRequest(), &got)
		wantErr(t, err, context.DeadlineExceeded, "")
	})
	t.Run("config timeout", func(t *testing.T) {
		s := &script{replies: []reply{{block: true}}}
		c, _ := newOpenAITest(t, s, Config{Timeout: 50 * time.Millisecond})
		var got result
		wantErr(t, c.JSON(context.Background(), testRequest(), &got), context.DeadlineExceeded, "")
	})
	t.Run("cancel during retry wait", func(t *testing.T) {
		s := &script{replies: []reply{{status: 429, header: map[string]string{"Retry-After": "3"}}}}
		c, _ := newOpenAITest(t, s, Config{})
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		var got result
		wantErr(t, c.JSON(ctx, testRequest(), &got), context.DeadlineExceeded, "waiting to retry")
		if n := s.calls.Load(); n != 1 {
			t.Errorf("%d calls, want 1", n)
		}
	})
}

func TestBadRequests(t *testing.T) {
	s := &script{replies: []reply{{body: chatCompletion(`{}`, "stop")}}}
	c, _ := newOpenAITest(t, s, Config{})
	var got result
	bad := []struct {
		name string
		req  func(*Request)
		out  any
	}{
		{"schema name with space", func(r *Request) { r.SchemaName = "a b" }, &got},
		{"empty schema name", func(r *Request) { r.SchemaName = "" }, &got},
		{"schema not an object", func(r *Request) { r.Schema = json.RawMessage(`[1]`) }, &got},
		{"schema invalid", func(r *Request) { r.Schema = json.RawMessage(`{"required":`) }, &got},
		{"nil out", func(*Request) {}, nil},
		{"non-pointer out", func(*Request) {}, got},
		{"nil pointer out", func(*Request) {}, (*result)(nil)},
	}
	for _, b := range bad {
		req := testRequest()
		b.req(&req)
		err := c.JSON(context.Background(), req, b.out)
		if err == nil || errors.Is(err, ErrMalformed) {
			t.Errorf("%s: want a usage error, got %v", b.name, err)
		}
	}
	if n := s.calls.Load(); n != 0 {
		t.Errorf("invalid requests reached the server %d times", n)
	}
}

func TestNew(t *testing.T) {
	for _, p := range []string{"", "none", " None "} {
		if c, err := New(Config{Provider: p}); c != nil || !errors.Is(err, ErrDisabled) {
			t.Errorf("provider %q: got %v, %v", p, c, err)
		}
	}
	bad := []struct {
		cfg      Config
		contains string
	}{
		{Config{Provider: "gemini"}, `unknown provider "gemini"`},
		{Config{Provider: "openai", Getenv: env("OPENAI_API_KEY", "k")}, "model is required"},
		{Config{Provider: "openai", Model: "m", Getenv: env()}, "OPENAI_API_KEY is not set"},
		{Config{Provider: "openai", Model: "m", BaseURL: "http://localhost:11434", APIKeyEnv: "MY_KEY", Getenv: env()}, "MY_KEY is not set"},
		{Config{Provider: "openai", Model: "m", BaseURL: "localhost:11434"}, "must be an http or https URL"},
		{Config{Provider: "openai", Model: "m", BaseURL: "http://%zz"}, "base_url"},
		{Config{Provider: "anthropic", Model: "claude-x", Getenv: env()}, "ANTHROPIC_API_KEY is not set"},
		{Config{Provider: "anthropic", Model: "claude-x", APIKeyEnv: "KB_CLAUDE", Getenv: env("ANTHROPIC_API_KEY", "k")}, "KB_CLAUDE is not set"},
		{Config{Provider: "anthropic", Getenv: env("ANTHROPIC_API_KEY", "k")}, "model is required"},
		{Config{Provider: "command"}, "must name a program"},
		{Config{Provider: "command", Command: []string{"kb-no-such-program-xyz"}}, "kb-no-such-program-xyz"},
	}
	for _, b := range bad {
		_, err := New(b.cfg)
		if err == nil || !strings.Contains(err.Error(), b.contains) {
			t.Errorf("%+v: error %v, want it to contain %q", b.cfg, err, b.contains)
		}
	}
	c, err := New(Config{Provider: "openai", Model: "llama3", BaseURL: "http://localhost:11434", Getenv: env()})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.(*openAI).endpoint; got != "http://localhost:11434/v1/chat/completions" {
		t.Errorf("ollama endpoint %q", got)
	}
	c, err = New(Config{Provider: "anthropic", Model: "claude-x", BaseURL: "https://proxy.example/v1/", Getenv: env("ANTHROPIC_API_KEY", "k")})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.(*anthropic).endpoint; got != "https://proxy.example/v1/messages" {
		t.Errorf("anthropic endpoint %q", got)
	}
}
