package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

const anthropicVersion = "2023-06-01"

type anthropic struct {
	name      string
	endpoint  string
	model     string
	key       string
	timeout   time.Duration
	transport *transport
}

func newAnthropic(cfg Config) (*anthropic, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, fmt.Errorf("llm: anthropic: model is required")
	}
	base, err := parseBase("anthropic", cfg.BaseURL, defaultAnthropicBase)
	if err != nil {
		return nil, err
	}
	base.Path = strings.TrimSuffix(base.Path, "/v1")
	key, err := apiKey("anthropic", cfg.APIKeyEnv, "ANTHROPIC_API_KEY", cfg.Getenv)
	if err != nil {
		return nil, err
	}
	return &anthropic{
		name:      "anthropic " + cfg.Model,
		endpoint:  base.String() + "/v1/messages",
		model:     cfg.Model,
		key:       key,
		timeout:   cfg.Timeout,
		transport: newTransport(),
	}, nil
}

type antMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type antTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type antToolChoice struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

type antRequest struct {
	Model      string        `json:"model"`
	MaxTokens  int           `json:"max_tokens"`
	System     string        `json:"system,omitempty"`
	Messages   []antMessage  `json:"messages"`
	Tools      []antTool     `json:"tools"`
	ToolChoice antToolChoice `json:"tool_choice"`
}

func (c *anthropic) JSON(ctx context.Context, req Request, out any) error {
	p, err := prepare(req, out)
	if err != nil {
		return fmt.Errorf("llm: %s: %w", c.name, err)
	}
	maxTokens := p.MaxTokens
	if maxTokens <= 0 {
		maxTokens = defaultMaxTokens
	}
	body := antRequest{
		Model:     c.model,
		MaxTokens: maxTokens,
		System:    p.System,
		Messages:  []antMessage{{Role: "user", Content: p.Prompt}},
		Tools: []antTool{{
			Name:        p.SchemaName,
			Description: toolDescription(p.Schema, p.SchemaName),
			InputSchema: p.Schema,
		}},
		ToolChoice: antToolChoice{Type: "tool", Name: p.SchemaName},
	}
	data, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("llm: %s: encoding request: %w", c.name, err)
	}
	h := http.Header{}
	h.Set("x-api-key", c.key)
	h.Set("anthropic-version", anthropicVersion)
	ctx, cancel := withTimeout(ctx, c.timeout)
	defer cancel()
	status, resp, err := c.transport.post(ctx, c.endpoint, h, data)
	if err != nil {
		return fmt.Errorf("llm: %s: %w", c.name, err)
	}
	if status < 200 || status > 299 {
		return fmt.Errorf("llm: %s: %w", c.name, httpFailure(status, resp))
	}
	if err := parseAnthropic(resp, p.SchemaName, p.required, out); err != nil {
		return fmt.Errorf("llm: %s: %w", c.name, err)
	}
	return nil
}

// toolDescription uses the schema's own description when it has one.
func toolDescription(schema json.RawMessage, name string) string {
	var s struct {
		Description string `json:"description"`
	}
	if json.Unmarshal(schema, &s) == nil && strings.TrimSpace(s.Description) != "" {
		return s.Description
	}
	return "Record the answer as " + name + ". The input must match the schema exactly."
}

// parseAnthropic reads a Messages API response body and decodes the input of
// its tool_use block into out.
func parseAnthropic(body []byte, tool string, required []string, out any) error {
	var r struct {
		Content []struct {
			Type  string          `json:"type"`
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
			Text  string          `json:"text"`
		} `json:"content"`
		StopReason string `json:"stop_reason"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return malformed("response is not a message: "+err.Error(), body)
	}
	var text strings.Builder
	for _, b := range r.Content {
		if b.Type == "text" {
			text.WriteString(b.Text)
		}
	}
	switch r.StopReason {
	case "refusal":
		return refused(text.String())
	case "max_tokens":
		return malformed("truncated (stop_reason max_tokens); raise the token limit", body)
	}
	for _, b := range r.Content {
		if b.Type == "tool_use" && (b.Name == tool || b.Name == "") {
			if len(b.Input) == 0 {
				return malformed("tool_use block has no input", body)
			}
			return decodeObject(b.Input, required, out)
		}
	}
	return malformed("response has no tool_use block for "+tool, body)
}
