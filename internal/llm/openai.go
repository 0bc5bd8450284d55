package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

type openAI struct {
	name      string // "openai <model>" for error messages
	endpoint  string
	model     string
	key       string
	timeout   time.Duration
	official  bool // api.openai.com: use max_completion_tokens
	transport *transport
}

func newOpenAI(cfg Config) (*openAI, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, fmt.Errorf("llm: openai: model is required")
	}
	base, err := parseBase("openai", cfg.BaseURL, defaultOpenAIBase)
	if err != nil {
		return nil, err
	}
	if base.Path == "" {
		base.Path = "/v1"
	}
	official := strings.EqualFold(base.Hostname(), "api.openai.com")
	defEnv := ""
	if official {
		defEnv = "OPENAI_API_KEY"
	}
	key, err := apiKey("openai", cfg.APIKeyEnv, defEnv, cfg.Getenv)
	if err != nil {
		return nil, err
	}
	return &openAI{
		name:      "openai " + cfg.Model,
		endpoint:  base.String() + "/chat/completions",
		model:     cfg.Model,
		key:       key,
		timeout:   cfg.Timeout,
		official:  official,
		transport: newTransport(),
	}, nil
}

type oaiMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type oaiJSONSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

type oaiResponseFormat struct {
	Type       string        `json:"type"`
	JSONSchema oaiJSONSchema `json:"json_schema"`
}

type oaiRequest struct {
	Model               string            `json:"model"`
	Messages            []oaiMessage      `json:"messages"`
	ResponseFormat      oaiResponseFormat `json:"response_format"`
	MaxTokens           int               `json:"max_tokens,omitempty"`
	MaxCompletionTokens int               `json:"max_completion_tokens,omitempty"`
}

func (c *openAI) JSON(ctx context.Context, req Request, out any) error {
	p, err := prepare(req, out)
	if err != nil {
		return fmt.Errorf("llm: %s: %w", c.name, err)
	}
	body := oaiRequest{
		Model: c.model,
		ResponseFormat: oaiResponseFormat{
			Type:       "json_schema",
			JSONSchema: oaiJSONSchema{Name: p.SchemaName, Schema: p.Schema, Strict: true},
		},
	}
	if p.System != "" {
		body.Messages = append(body.Messages, oaiMessage{Role: "system", Content: p.System})
	}
	body.Messages = append(body.Messages, oaiMessage{Role: "user", Content: p.Prompt})
	if p.MaxTokens > 0 {
		// OpenAI's reasoning models reject max_tokens; other compatible
		// servers do not all know max_completion_tokens.
		if c.official {
			body.MaxCompletionTokens = p.MaxTokens
		} else {
			body.MaxTokens = p.MaxTokens
		}
	}
	data, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("llm: %s: encoding request: %w", c.name, err)
	}
	h := http.Header{}
	if c.key != "" {
		h.Set("Authorization", "Bearer "+c.key)
	}
	ctx, cancel := withTimeout(ctx, c.timeout)
	defer cancel()
	status, resp, err := c.transport.post(ctx, c.endpoint, h, data)
	if err != nil {
		return fmt.Errorf("llm: %s: %w", c.name, err)
	}
	if status < 200 || status > 299 {
		return fmt.Errorf("llm: %s: %w", c.name, httpFailure(status, resp))
	}
	if err := parseOpenAI(resp, p.required, out); err != nil {
		return fmt.Errorf("llm: %s: %w", c.name, err)
	}
	return nil
}

// parseOpenAI reads a Chat Completions response body and decodes the first
// choice's content into out.
func parseOpenAI(body []byte, required []string, out any) error {
	var r struct {
		Choices []struct {
			Message struct {
				Content json.RawMessage `json:"content"`
				Refusal *string         `json:"refusal"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return malformed("response is not a chat completion: "+err.Error(), body)
	}
	if len(r.Choices) == 0 {
		return malformed("response has no choices", body)
	}
	ch := r.Choices[0]
	if ch.Message.Refusal != nil && strings.TrimSpace(*ch.Message.Refusal) != "" {
		return refused(*ch.Message.Refusal)
	}
	content := contentText(ch.Message.Content)
	switch ch.FinishReason {
	case "content_filter":
		return refused("finish_reason content_filter")
	case "length":
		return malformed("truncated (finish_reason length); raise the token limit", []byte(content))
	}
	if strings.TrimSpace(content) == "" {
		return malformed("empty message content", body)
	}
	raw, err := ExtractJSON([]byte(content))
	if err != nil {
		return err
	}
	return decodeObject(raw, required, out)
}

// contentText accepts the content as a string or as an array of text parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}
