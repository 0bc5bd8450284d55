package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// checkAnthropicRequest asserts the Messages API wire format with a forced
// tool.
func checkAnthropicRequest(t *testing.T, r *http.Request, body []byte) {
	t.Helper()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		t.Errorf("got %s %s, want POST /v1/messages", r.Method, r.URL.Path)
	}
	for k, want := range map[string]string{
		"x-api-key":         "sk-ant-test",
		"anthropic-version": "2023-06-01",
		"content-type":      "application/json",
	} {
		if got := r.Header.Get(k); got != want {
			t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}
	if got := r.Header.Get("Authorization"); got != "" {
		t.Errorf("unexpected Authorization header %q", got)
	}
	var req struct {
		Model     string `json:"model"`
		MaxTokens int    `json:"max_tokens"`
		System    string `json:"system"`
		Messages  []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
		ToolChoice map[string]string `json:"tool_choice"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Errorf("request body: %v\n%s", err, body)
		return
	}
	tr := testRequest()
	if req.Model != "claude-test" || req.MaxTokens != 300 || req.System != tr.System {
		t.Errorf("model %q max_tokens %d system %q", req.Model, req.MaxTokens, req.System)
	}
	if len(req.Messages) != 1 || req.Messages[0].Role != "user" || req.Messages[0].Content != tr.Prompt {
		t.Errorf("messages %+v", req.Messages)
	}
	if len(req.Tools) != 1 || req.Tools[0].Name != "correction" || req.Tools[0].Description != "One correction the user made." {
		t.Errorf("tools %+v", req.Tools)
	} else if !sameJSON(t, req.Tools[0].InputSchema, testSchema) {
		t.Errorf("input_schema %s", req.Tools[0].InputSchema)
	}
	if len(req.ToolChoice) != 2 || req.ToolChoice["type"] != "tool" || req.ToolChoice["name"] != "correction" {
		t.Errorf("tool_choice %v does not force the tool", req.ToolChoice)
	}
}

func anthropicMessage(stop string, blocks ...any) string {
	b, _ := json.Marshal(map[string]any{
		"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-test",
		"content": blocks, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 5},
	})
	return string(b)
}

func toolUse(input string) any {
	return map[string]any{"type": "tool_use", "id": "toolu_01", "name": "correction", "input": json.RawMessage(input)}
}

func text(s string) any { return map[string]any{"type": "text", "text": s} }

func antError(typ, msg string) string {
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": msg}})
	return string(b)
}

func newAnthropicTest(t *testing.T, s *script, timeout time.Duration) *anthropic {
	t.Helper()
	s.t = t
	s.check = checkAnthropicRequest
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	c, err := New(Config{Provider: "anthropic", Model: "claude-test", BaseURL: srv.URL, Timeout: timeout,
		Getenv: env("ANTHROPIC_API_KEY", "sk-ant-test")})
	if err != nil {
		t.Fatal(err)
	}
	ac := c.(*anthropic)
	ac.transport.backoff = time.Millisecond
	return ac
}

func TestAnthropic(t *testing.T) {
	const good = `{"title":"use tabs","confidence":0.9}`
	tests := []struct {
		name      string
		replies   []reply
		wantCalls int32
		wantErr   error
		contains  string
		status    int
	}{
		{name: "success", replies: []reply{{body: anthropicMessage("tool_use", toolUse(good))}}, wantCalls: 1},
		{name: "text before tool", replies: []reply{{body: anthropicMessage("tool_use", text("Recording it."), toolUse(good))}}, wantCalls: 1},
		{name: "missing required key", replies: []reply{{body: anthropicMessage("tool_use", toolUse(`{"confidence":0.9}`))}},
			wantCalls: 1, wantErr: ErrMalformed, contains: "missing required keys title"},
		{name: "input not an object", replies: []reply{{body: anthropicMessage("tool_use", toolUse(`"use tabs"`))}},
			wantCalls: 1, wantErr: ErrMalformed, contains: "not a JSON object"},
		{name: "no tool_use", replies: []reply{{body: anthropicMessage("end_turn", text(good))}},
			wantCalls: 1, wantErr: ErrMalformed, contains: "no tool_use"},
		{name: "refusal", replies: []reply{{body: anthropicMessage("refusal", text("I can't help with that."))}},
			wantCalls: 1, wantErr: ErrRefused, contains: "can't help"},
		{name: "max tokens", replies: []reply{{body: anthropicMessage("max_tokens", toolUse(`{}`))}},
			wantCalls: 1, wantErr: ErrMalformed, contains: "truncated"},
		{name: "400", replies: []reply{{status: 400, body: antError("invalid_request_error", "tools.0.input_schema: JSON schema is invalid")}},
			wantCalls: 1, status: 400, contains: "invalid_request_error: tools.0.input_schema"},
		{name: "401", replies: []reply{{status: 401, body: antError("authentication_error", "invalid x-api-key")}},
			wantCalls: 1, status: 401, contains: "authentication_error: invalid x-api-key"},
		{name: "429 then 200", replies: []reply{
			{status: 429, header: map[string]string{"retry-after": "0"}, body: antError("rate_limit_error", "Number of requests has exceeded your rate limit")},
			{body: anthropicMessage("tool_use", toolUse(good))}}, wantCalls: 2},
		{name: "529 overloaded twice", replies: []reply{{status: 529, body: antError("overloaded_error", "Overloaded")}},
			wantCalls: 2, status: 529, contains: "overloaded_error: Overloaded"},
		{name: "500 then 200", replies: []reply{{status: 500, body: antError("api_error", "Internal server error")},
			{body: anthropicMessage("tool_use", toolUse(good))}}, wantCalls: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &script{replies: tc.replies}
			c := newAnthropicTest(t, s, 0)
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
			if !strings.HasPrefix(err.Error(), "llm: anthropic claude-test: ") {
				t.Errorf("error lacks context prefix: %v", err)
			}
			if tc.status != 0 {
				wantHTTPError(t, err, tc.status, tc.contains)
			}
		})
	}
}

func TestAnthropicDefaultMaxTokens(t *testing.T) {
	s := &script{replies: []reply{{body: anthropicMessage("tool_use", toolUse(`{"title":"a","confidence":1}`))}}}
	c := newAnthropicTest(t, s, 0)
	s.check = func(t *testing.T, r *http.Request, body []byte) {
		var req struct {
			MaxTokens int     `json:"max_tokens"`
			System    *string `json:"system"`
		}
		if err := json.Unmarshal(body, &req); err != nil || req.MaxTokens != defaultMaxTokens || req.System != nil {
			t.Errorf("max_tokens %d system %v (%v)", req.MaxTokens, req.System, err)
		}
	}
	req := testRequest()
	req.MaxTokens = 0
	req.System = ""
	var got result
	if err := c.JSON(context.Background(), req, &got); err != nil {
		t.Fatal(err)
	}
}

func TestAnthropicTimeout(t *testing.T) {
	s := &script{replies: []reply{{block: true}}}
	c := newAnthropicTest(t, s, 50*time.Millisecond)
	var got result
	wantErr(t, c.JSON(context.Background(), testRequest(), &got), context.DeadlineExceeded, "")
}
