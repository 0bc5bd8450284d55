package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/kbmem/kb/internal/llm/port"
)

const (
	embedBatchSize      = 64
	defaultEmbedTimeout = time.Minute
)

// EmbedConfig configures an OpenAI-compatible embeddings endpoint; it mirrors
// the embeddings section of kb.yaml.
type EmbedConfig struct {
	// BaseURL is the root that /embeddings is appended to (default
	// https://api.openai.com/v1; a URL with no path gets /v1).
	BaseURL string
	// Model is the embedding model; required.
	Model string
	// APIKeyEnv names the environment variable holding the key; default
	// OPENAI_API_KEY at api.openai.com, none elsewhere.
	APIKeyEnv string
	// Getenv reads the environment; default os.Getenv.
	Getenv func(string) string
	// Timeout bounds one batch request, retry included. Default 1 minute.
	Timeout time.Duration
}

// Embedder turns texts into vectors (port.Embedder).
type Embedder = port.Embedder

type embedder struct {
	name      string
	endpoint  string
	model     string
	key       string
	timeout   time.Duration
	batch     int
	transport *transport
}

// NewEmbedder builds an Embedder for an OpenAI-compatible endpoint (OpenAI,
// Ollama, llama.cpp server, vLLM).
func NewEmbedder(cfg EmbedConfig) (Embedder, error) {
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultEmbedTimeout
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, fmt.Errorf("llm: embeddings: model is required")
	}
	base, err := parseBase("embeddings", cfg.BaseURL, defaultOpenAIBase)
	if err != nil {
		return nil, err
	}
	if base.Path == "" {
		base.Path = "/v1"
	}
	defEnv := ""
	if strings.EqualFold(base.Hostname(), "api.openai.com") {
		defEnv = "OPENAI_API_KEY"
	}
	key, err := apiKey("embeddings", cfg.APIKeyEnv, defEnv, cfg.Getenv)
	if err != nil {
		return nil, err
	}
	return &embedder{
		name:      "embeddings " + cfg.Model,
		endpoint:  base.String() + "/embeddings",
		model:     cfg.Model,
		key:       key,
		timeout:   cfg.Timeout,
		batch:     embedBatchSize,
		transport: newTransport(),
	}, nil
}

type embedRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

// Embed sends texts in batches of 64. Empty texts are sent as a single space,
// because OpenAI rejects empty inputs.
func (e *embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += e.batch {
		end := min(start+e.batch, len(texts))
		vecs, err := e.embedBatch(ctx, texts[start:end])
		if err != nil {
			return nil, fmt.Errorf("llm: %s: texts %d-%d: %w", e.name, start, end-1, err)
		}
		if len(out) > 0 && len(vecs[0]) != len(out[0]) {
			return nil, fmt.Errorf("llm: %s: texts %d-%d: %w: dimension %d, earlier texts had %d",
				e.name, start, end-1, ErrMalformed, len(vecs[0]), len(out[0]))
		}
		out = append(out, vecs...)
	}
	return out, nil
}

func (e *embedder) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	in := make([]string, len(texts))
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			t = " "
		}
		in[i] = t
	}
	data, err := json.Marshal(embedRequest{Model: e.model, Input: in})
	if err != nil {
		return nil, fmt.Errorf("encoding request: %w", err)
	}
	h := http.Header{}
	if e.key != "" {
		h.Set("Authorization", "Bearer "+e.key)
	}
	ctx, cancel := withTimeout(ctx, e.timeout)
	defer cancel()
	status, resp, err := e.transport.post(ctx, e.endpoint, h, data)
	if err != nil {
		return nil, err
	}
	if status < 200 || status > 299 {
		return nil, httpFailure(status, resp)
	}
	return parseEmbeddings(resp, len(texts))
}

// parseEmbeddings reads an embeddings response holding n vectors and orders
// them by index.
func parseEmbeddings(body []byte, n int) ([][]float32, error) {
	var r struct {
		Data []struct {
			Index     *int      `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, malformed("response is not an embedding list: "+err.Error(), body)
	}
	if len(r.Data) != n {
		return nil, malformed(fmt.Sprintf("got %d embeddings for %d inputs", len(r.Data), n), body)
	}
	out := make([][]float32, n)
	for pos, d := range r.Data {
		i := pos
		if d.Index != nil {
			i = *d.Index
		}
		if i < 0 || i >= n {
			return nil, malformed(fmt.Sprintf("embedding index %d out of range 0-%d", i, n-1), body)
		}
		if out[i] != nil {
			return nil, malformed(fmt.Sprintf("embedding index %d repeated", i), body)
		}
		if len(d.Embedding) == 0 {
			return nil, malformed(fmt.Sprintf("embedding %d is empty", i), body)
		}
		if len(d.Embedding) != len(r.Data[0].Embedding) {
			return nil, malformed(fmt.Sprintf("embedding %d has dimension %d, others %d", i, len(d.Embedding), len(r.Data[0].Embedding)), body)
		}
		out[i] = d.Embedding
	}
	return out, nil
}

// Cosine is the cosine similarity of a and b in [-1, 1] (port.Cosine).
func Cosine(a, b []float32) float64 { return port.Cosine(a, b) }
