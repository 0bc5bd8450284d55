package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

const (
	maxResponseBytes = 16 << 20
	maxErrorBody     = 500
	defaultBackoff   = time.Second
	maxRetryWait     = 5 * time.Second
)

// transport posts JSON bodies and retries once on 429 and 5xx.
type transport struct {
	client  *http.Client
	backoff time.Duration // wait before the retry when there is no Retry-After
	maxWait time.Duration // cap on any wait
}

func newTransport() *transport {
	return &transport{client: &http.Client{}, backoff: defaultBackoff, maxWait: maxRetryWait}
}

// post sends body to url and returns the final status and response body. The
// error is non-nil only when no HTTP answer was obtained.
func (t *transport) post(ctx context.Context, url string, header http.Header, body []byte) (int, []byte, error) {
	for attempt := 0; ; attempt++ {
		status, h, resp, err := t.once(ctx, url, header, body)
		if err != nil {
			return 0, nil, err
		}
		if attempt > 0 || !retryable(status) {
			return status, resp, nil
		}
		wait, ok := parseRetryAfter(h.Get("Retry-After"), time.Now())
		if !ok {
			wait = t.backoff
		}
		wait = min(wait, t.maxWait)
		if err := sleep(ctx, wait); err != nil {
			return 0, nil, fmt.Errorf("waiting to retry after HTTP %d: %w", status, err)
		}
	}
}

func (t *transport) once(ctx context.Context, url string, header http.Header, body []byte) (int, http.Header, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "kb-llm/1")
	resp, err := t.client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("reading HTTP %d response: %w", resp.StatusCode, err)
	}
	if len(data) > maxResponseBytes {
		return 0, nil, nil, fmt.Errorf("HTTP %d response larger than %d bytes", resp.StatusCode, maxResponseBytes)
	}
	return resp.StatusCode, resp.Header, data, nil
}

func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status >= 500
}

// parseRetryAfter reads a Retry-After value: delay seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(time.Hour/time.Second) {
			return time.Hour, true
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// httpFailure turns a non-2xx answer into an *HTTPError, wrapped in
// ErrRefused when a 4xx names a content policy.
func httpFailure(status int, body []byte) error {
	msg, kind := apiErrorMessage(body)
	he := &HTTPError{Status: status, Body: excerpt([]byte(msg), maxErrorBody)}
	if status >= 400 && status < 500 && isContentPolicy(kind+" "+msg) {
		return fmt.Errorf("%w: %w", ErrRefused, he)
	}
	return he
}

// apiErrorMessage extracts the message of an OpenAI-style
// {"error":{"message","type","code"}} or Anthropic-style
// {"type":"error","error":{"type","message"}} body, falling back to the raw
// body. kind holds the type and code for classification.
func apiErrorMessage(body []byte) (msg, kind string) {
	var doc struct {
		Error json.RawMessage `json:"error"`
	}
	raw := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &doc) != nil || len(doc.Error) == 0 {
		return raw, ""
	}
	var s string
	if json.Unmarshal(doc.Error, &s) == nil && s != "" {
		return s, ""
	}
	var e struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
	if json.Unmarshal(doc.Error, &e) != nil || e.Message == "" {
		return raw, ""
	}
	kind = e.Type
	if c := strings.Trim(string(e.Code), `"`); c != "" && c != "null" {
		kind += " " + c
	}
	if e.Type != "" {
		return e.Type + ": " + e.Message, kind
	}
	return e.Message, kind
}

func isContentPolicy(s string) bool {
	s = strings.ToLower(s)
	for _, k := range []string{"content_policy", "content policy", "content_filter", "content filter"} {
		if strings.Contains(s, k) {
			return true
		}
	}
	return false
}
