package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// embedServer speaks the OpenAI embeddings format. The vector for input
// "t<N>" is [N, len(batch)], and data comes back in reverse index order so
// the client must sort by index.
type embedServer struct {
	t       *testing.T
	mu      sync.Mutex
	batches []int
	mangle  func(data []map[string]any) []map[string]any
}

func (s *embedServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	t := s.t
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		t.Errorf("got %s %s, want POST /v1/embeddings", r.Method, r.URL.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer sk-emb" {
		t.Errorf("Authorization %q", got)
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		t.Errorf("request: %v", err)
	}
	if req.Model != "embed-test" || len(req.Input) == 0 || len(req.Input) > 64 {
		t.Errorf("model %q, %d inputs", req.Model, len(req.Input))
	}
	s.mu.Lock()
	s.batches = append(s.batches, len(req.Input))
	s.mu.Unlock()
	data := make([]map[string]any, 0, len(req.Input))
	for i := len(req.Input) - 1; i >= 0; i-- {
		if req.Input[i] == "" {
			t.Errorf("empty input %d sent", i)
		}
		n, _ := strconv.Atoi(strings.TrimPrefix(req.Input[i], "t"))
		data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": []float32{float32(n), float32(len(req.Input))}})
	}
	if s.mangle != nil {
		data = s.mangle(data)
	}
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1}})
}

func newEmbedTest(t *testing.T, h http.Handler) Embedder {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	e, err := NewEmbedder(EmbedConfig{BaseURL: srv.URL + "/v1", Model: "embed-test", APIKeyEnv: "KB_EMB",
		Getenv: env("KB_EMB", "sk-emb")})
	if err != nil {
		t.Fatal(err)
	}
	e.(*embedder).transport.backoff = time.Millisecond
	return e
}

func TestEmbedBatchingAndOrder(t *testing.T) {
	s := &embedServer{t: t}
	e := newEmbedTest(t, s)
	texts := make([]string, 150)
	for i := range texts {
		texts[i] = fmt.Sprintf("t%d", i)
	}
	texts[7] = "" // sent as " ", which the server maps to 0
	vecs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(s.batches) != "[64 64 22]" {
		t.Errorf("batches %v", s.batches)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vecs), len(texts))
	}
	for i, v := range vecs {
		want := float32(i)
		if i == 7 {
			want = 0
		}
		if len(v) != 2 || v[0] != want {
			t.Fatalf("vector %d = %v", i, v)
		}
	}
	if vecs, err := e.Embed(context.Background(), nil); err != nil || len(vecs) != 0 || len(s.batches) != 3 {
		t.Errorf("empty input: %v %v, %d requests", vecs, err, len(s.batches))
	}
}

func TestEmbedMalformed(t *testing.T) {
	cases := map[string]func([]map[string]any) []map[string]any{
		"missing one":    func(d []map[string]any) []map[string]any { return d[1:] },
		"repeated index": func(d []map[string]any) []map[string]any { d[0]["index"] = d[1]["index"]; return d },
		"index range":    func(d []map[string]any) []map[string]any { d[0]["index"] = 99; return d },
		"empty vector":   func(d []map[string]any) []map[string]any { d[0]["embedding"] = []float32{}; return d },
		"ragged":         func(d []map[string]any) []map[string]any { d[0]["embedding"] = []float32{1}; return d },
		"base64":         func(d []map[string]any) []map[string]any { d[0]["embedding"] = "AAAA"; return d },
	}
	for name, mangle := range cases {
		t.Run(name, func(t *testing.T) {
			e := newEmbedTest(t, &embedServer{t: t, mangle: mangle})
			_, err := e.Embed(context.Background(), []string{"t1", "t2", "t3"})
			wantErr(t, err, ErrMalformed, "llm: embeddings embed-test: texts 0-2: ")
		})
	}
}

func TestEmbedHTTPErrors(t *testing.T) {
	s := &script{t: t, replies: []reply{{status: 401, body: `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`}}}
	e := newEmbedTest(t, s)
	_, err := e.Embed(context.Background(), []string{"a"})
	wantHTTPError(t, err, 401, "Incorrect API key")
	if s.calls.Load() != 1 {
		t.Errorf("401 retried")
	}

	s2 := &embedServer{t: t}
	var n int
	var mu sync.Mutex
	flaky := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		first := n == 1
		mu.Unlock()
		if first {
			w.Header().Set("Retry-After", "0")
			http.Error(w, `{"error":{"message":"rate limited"}}`, http.StatusTooManyRequests)
			return
		}
		s2.ServeHTTP(w, r)
	})
	e = newEmbedTest(t, flaky)
	vecs, err := e.Embed(context.Background(), []string{"t5"})
	if err != nil || len(vecs) != 1 || vecs[0][0] != 5 {
		t.Fatalf("after 429: %v %v", vecs, err)
	}

	blocked := &script{t: t, replies: []reply{{block: true}}}
	e = newEmbedTest(t, blocked)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = e.Embed(ctx, []string{"a"})
	wantErr(t, err, context.DeadlineExceeded, "")
}

func TestNewEmbedder(t *testing.T) {
	if _, err := NewEmbedder(EmbedConfig{Getenv: env("OPENAI_API_KEY", "k")}); err == nil || !strings.Contains(err.Error(), "model is required") {
		t.Errorf("no model: %v", err)
	}
	if _, err := NewEmbedder(EmbedConfig{Model: "m", Getenv: env()}); err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Errorf("no key: %v", err)
	}
	e, err := NewEmbedder(EmbedConfig{Model: "nomic-embed-text", BaseURL: "http://localhost:11434", Getenv: env()})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.(*embedder).endpoint; got != "http://localhost:11434/v1/embeddings" {
		t.Errorf("endpoint %q", got)
	}
}

func TestCosine(t *testing.T) {
	inf := float32(math.Inf(1))
	cases := []struct {
		a, b []float32
		want float64
	}{
		{[]float32{1, 2, 3}, []float32{1, 2, 3}, 1},
		{[]float32{1, 2, 3}, []float32{2, 4, 6}, 1},
		{[]float32{1, 0}, []float32{0, 1}, 0},
		{[]float32{1, 0}, []float32{-1, 0}, -1},
		{[]float32{1, 1}, []float32{1, 0}, 1 / math.Sqrt2},
		{[]float32{1, 2}, []float32{1, 2, 3}, 0},
		{nil, nil, 0},
		{[]float32{0, 0}, []float32{1, 1}, 0},
		{[]float32{inf, 1}, []float32{1, 1}, 0},
		{[]float32{3e38, 3e38}, []float32{3e38, 3e38}, 1},
	}
	for _, c := range cases {
		if got := Cosine(c.a, c.b); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Cosine(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
