// Package llm owns kb's optional calls to language models and embedding
// endpoints. kb works offline with heuristics; when kb.yaml configures a
// provider, the extraction, compression and relevance-judging pipelines use
// a Client from this package, and semantic matching uses an Embedder.
//
// Every model call is schema-constrained: the caller passes one narrow JSON
// Schema (one per observation type, one for an episode, one for a relevance
// verdict) and gets back a decoded JSON object, or a typed error:
//
//   - ErrDisabled: provider "none" (or unset); the caller falls back to
//     heuristics.
//   - ErrRefused: the model declined (OpenAI "refusal" field or
//     finish_reason "content_filter", Anthropic stop_reason "refusal", an
//     HTTP 4xx that names a content policy).
//   - ErrMalformed: the output is not a JSON object, lacks a key the schema's
//     top-level "required" lists, does not decode into the caller's value,
//     or was truncated by the token limit. The error carries a short excerpt.
//   - *HTTPError: any other non-2xx answer, with the provider's error message.
//
// Providers, all spoken over net/http with no SDK:
//
//   - "openai": OpenAI-compatible Chat Completions (OpenAI, Ollama,
//     llama.cpp server, vLLM) with response_format json_schema, strict.
//   - "anthropic": the Messages API with a single forced tool whose
//     input_schema is the schema.
//   - "command": a local program (for example ["claude", "-p"]) that reads
//     the prompt on stdin and prints an answer containing a JSON object; it
//     runs in its own process group, which is killed on timeout or
//     cancellation and after it exits, so no process is left behind.
//
// API keys come only from environment variables named in the configuration.
// HTTP calls are retried once on 429 and 5xx, honouring Retry-After up to a
// few seconds. Contexts are honoured everywhere. Clients and Embedders are
// safe for concurrent use.
package llm
