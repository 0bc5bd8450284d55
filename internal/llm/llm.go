package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kbmem/kb/internal/llm/port"
)

// Typed errors; test with errors.Is.
var (
	// ErrDisabled is returned by New when no provider is configured.
	ErrDisabled = errors.New("llm: disabled (provider none)")
	// ErrRefused marks an answer in which the model declined the request.
	ErrRefused = errors.New("model refused")
	// ErrMalformed marks output that is not a JSON object matching the
	// schema's required top-level keys, or that was truncated.
	ErrMalformed = errors.New("malformed model output")
)

// HTTPError is a non-2xx answer from a provider. Body is the provider's error
// message when it sent a recognisable error document ("type: message"),
// otherwise the start of the raw body.
type HTTPError struct {
	Status int
	Body   string
}

func (e *HTTPError) Error() string {
	if e.Body == "" {
		return fmt.Sprintf("HTTP %d %s", e.Status, http.StatusText(e.Status))
	}
	return fmt.Sprintf("HTTP %d: %s", e.Status, e.Body)
}

// Config selects and configures a provider; it mirrors the llm section of
// kb.yaml.
type Config struct {
	// Provider is "none" (or ""), "openai", "anthropic" or "command".
	Provider string
	// Model is the model name; required for openai and anthropic.
	Model string
	// BaseURL overrides the provider's endpoint root. For openai it is the
	// root that /chat/completions is appended to (default
	// https://api.openai.com/v1; a URL with no path gets /v1). For anthropic
	// it is the root that /v1/messages is appended to (default
	// https://api.anthropic.com; a trailing /v1 is tolerated).
	BaseURL string
	// APIKeyEnv names the environment variable holding the API key. Default:
	// ANTHROPIC_API_KEY for anthropic, OPENAI_API_KEY for openai at its
	// default host, none for other openai-compatible hosts (Ollama needs no
	// key).
	APIKeyEnv string
	// Command is the argv of the command provider.
	Command []string
	// Timeout bounds one JSON call, retry included. Default 2 minutes.
	Timeout time.Duration
	// Getenv reads the environment; default os.Getenv.
	Getenv func(string) string
}

// Client asks a model for structured output (port.Client: the layers
// that call a model name it there, without linking the providers).
type Client = port.Client

// Request is one schema-constrained question.
type Request = port.Request

const (
	defaultTimeout       = 2 * time.Minute
	defaultOpenAIBase    = "https://api.openai.com/v1"
	defaultAnthropicBase = "https://api.anthropic.com"
	defaultMaxTokens     = 2048
	excerptLen           = 200
)

// New builds the Client that cfg describes. Provider "none" or "" gives
// ErrDisabled. A configured key variable that is unset is an error naming
// the variable.
func New(cfg Config) (Client, error) {
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultTimeout
	}
	switch p := strings.ToLower(strings.TrimSpace(cfg.Provider)); p {
	case "", "none":
		return nil, ErrDisabled
	case "openai":
		return newOpenAI(cfg)
	case "anthropic":
		return newAnthropic(cfg)
	case "command":
		return newCommand(cfg)
	default:
		return nil, fmt.Errorf("llm: unknown provider %q (want none, openai, anthropic or command)", cfg.Provider)
	}
}

// apiKey reads the key from the environment variable env (defaultEnv when env
// is empty). No variable at all means no key.
func apiKey(who, env, defaultEnv string, getenv func(string) string) (string, error) {
	env = strings.TrimSpace(env)
	if env == "" {
		env = defaultEnv
	}
	if env == "" {
		return "", nil
	}
	v := strings.TrimSpace(getenv(env))
	if v == "" {
		return "", fmt.Errorf("llm: %s: environment variable %s is not set; it must hold the API key (set api_key_env in kb.yaml to use another variable)", who, env)
	}
	return v, nil
}

// parseBase validates a base URL and strips trailing slashes.
func parseBase(who, raw, def string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		raw = def
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("llm: %s: base_url %q: %w", who, raw, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("llm: %s: base_url %q must be an http or https URL with a host", who, raw)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	u.RawQuery, u.Fragment = "", ""
	return u, nil
}

// schemaName reports whether s matches ^[a-zA-Z0-9_-]{1,64}$, checked by
// hand: that expression (64 repetitions) compiled at start was 60 KB and
// ~1% of the CPU of every kb process.
func schemaName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// prepared is a validated Request with the schema's required keys.
type prepared struct {
	Request
	required []string
}

func prepare(req Request, out any) (prepared, error) {
	if !schemaName(req.SchemaName) {
		return prepared{}, fmt.Errorf("schema name %q must match ^[a-zA-Z0-9_-]{1,64}$", req.SchemaName)
	}
	if v := reflect.ValueOf(out); out == nil || v.Kind() != reflect.Pointer || v.IsNil() {
		return prepared{}, fmt.Errorf("schema %s: out must be a non-nil pointer, got %T", req.SchemaName, out)
	}
	req.Schema = bytes.TrimSpace(req.Schema)
	var s struct {
		Required []string `json:"required"`
	}
	if len(req.Schema) == 0 || req.Schema[0] != '{' {
		return prepared{}, fmt.Errorf("schema %s: not a JSON object", req.SchemaName)
	}
	if err := json.Unmarshal(req.Schema, &s); err != nil {
		return prepared{}, fmt.Errorf("schema %s: %w", req.SchemaName, err)
	}
	return prepared{Request: req, required: s.Required}, nil
}

// decodeObject checks that raw is a JSON object holding every required key
// and decodes it into out.
func decodeObject(raw []byte, required []string, out any) error {
	trimmed := bytes.TrimSpace(raw)
	var obj map[string]json.RawMessage
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return malformed("not a JSON object", raw)
	}
	if err := json.Unmarshal(trimmed, &obj); err != nil {
		return malformed("not valid JSON: "+err.Error(), raw)
	}
	var missing []string
	for _, k := range required {
		if _, ok := obj[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return malformed("missing required keys "+strings.Join(missing, ", "), raw)
	}
	if err := json.Unmarshal(trimmed, out); err != nil {
		return malformed("does not decode: "+err.Error(), raw)
	}
	return nil
}

func malformed(reason string, raw []byte) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return fmt.Errorf("%w: %s (empty output)", ErrMalformed, reason)
	}
	return fmt.Errorf("%w: %s (output: %q)", ErrMalformed, reason, excerpt(raw, excerptLen))
}

func refused(detail string) error {
	detail = excerpt([]byte(strings.TrimSpace(detail)), excerptLen)
	if detail == "" {
		return ErrRefused
	}
	return fmt.Errorf("%w: %s", ErrRefused, detail)
}

// excerpt returns at most n bytes of b, cut at a rune boundary, with an
// ellipsis when shortened.
func excerpt(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return string(b[:cut]) + "…"
}

func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}
