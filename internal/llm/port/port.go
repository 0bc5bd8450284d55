// Package port is what kb's layers ask of a language model and of an
// embedding endpoint: the Client and Embedder interfaces, the Request a
// Client answers, and Cosine over embeddings. It imports no provider: the
// observation extractors and recall declare their needs with these types,
// and the facade (package kb) hands in the providers of internal/llm,
// which speak HTTP. So the hook entry point, which links recall but never
// calls a model, links no net/http (ADR 0008).
package port

import (
	"context"
	"encoding/json"
	"math"
)

// Client asks a model for structured output.
type Client interface {
	// JSON asks for a JSON object matching schema (a JSON Schema document) and
	// decodes it into out, which must be a non-nil pointer.
	JSON(ctx context.Context, req Request, out any) error
}

// Request is one schema-constrained question.
type Request struct {
	// System is the system prompt (may be empty).
	System string
	// Prompt is the user message.
	Prompt string
	// SchemaName names the schema (the OpenAI json_schema name, the Anthropic
	// tool name); it must match ^[a-zA-Z0-9_-]{1,64}$.
	SchemaName string
	// Schema is a JSON Schema document whose top level is an object schema.
	// For OpenAI strict mode it must use the strict subset (every property
	// listed in "required", "additionalProperties": false).
	Schema json.RawMessage
	// MaxTokens bounds the answer length; 0 means the provider default
	// (Anthropic, which requires a value, gets 2048).
	MaxTokens int
}

// Embedder turns texts into vectors.
type Embedder interface {
	// Embed returns one vector per text, in the order of texts. All vectors
	// have the same length.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Cosine is the cosine similarity of a and b in [-1, 1]. Vectors of
// different lengths, empty or zero vectors, and non-finite values give 0.
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	c := dot / (math.Sqrt(na) * math.Sqrt(nb))
	if math.IsNaN(c) || math.IsInf(c, 0) {
		return 0
	}
	return max(-1, min(1, c))
}
