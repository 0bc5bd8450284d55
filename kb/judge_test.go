package kb

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// judgeServer speaks the OpenAI chat completions wire format and answers
// the judge with the given JSON content, or with the HTTP status.
func judgeServer(t *testing.T, status int, content string, calls *atomic.Int32) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			t.Errorf("judge called %s %s", r.Method, r.URL.Path)
		}
		var req struct {
			Messages       []struct{ Role, Content string } `json:"messages"`
			ResponseFormat struct {
				Type       string `json:"type"`
				JSONSchema struct {
					Name string `json:"name"`
				} `json:"json_schema"`
			} `json:"response_format"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil || req.ResponseFormat.JSONSchema.Name != "lesson_applies" {
			t.Errorf("judge request %s: %v", body, err)
		}
		if len(req.Messages) < 2 || !strings.Contains(req.Messages[1].Content, "git push --force") ||
			!strings.Contains(req.Messages[1].Content, "Never force-push main") {
			t.Errorf("judge prompt lacks the action or the lesson: %+v", req.Messages)
		}
		if status != http.StatusOK {
			http.Error(w, `{"error":{"message":"boom","type":"server_error"}}`, status)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"id": "c1", "object": "chat.completion", "model": "m",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": content}}}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestRecallJudge(t *testing.T) {
	q := RecallQuery{Action: "git push --force origin main"}
	for _, tc := range []struct {
		name    string
		status  int
		content string
		keep    bool
		reason  string
	}{
		{"confirms", 200, `{"applies": true, "reason": "it force-pushes main"}`, true, "confirmed by the judge: it force-pushes main"},
		{"rejects", 200, `{"applies": false, "reason": "not main"}`, false, ""},
		{"fails open on a server error", 500, "", true, "judge unavailable, kept"},
		{"fails open on a malformed answer", 200, `not json`, true, "judge unavailable, kept"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := judgeServer(t, tc.status, tc.content, &calls)
			k := rcPushForceKB(t, "ask")
			k.Config.Recall.Judge = true
			k.Config.LLM.Provider, k.Config.LLM.BaseURL, k.Config.LLM.Model = "openai", srv.URL, "judge-model"
			r := rcRecall(t, k, q)
			var found *RecallItem
			for i := range r.Items {
				if strings.Contains(r.Items[i].Text, "force-push") {
					found = &r.Items[i]
				}
			}
			if calls.Load() == 0 {
				t.Fatal("the judge was not asked")
			}
			if (found != nil) != tc.keep {
				t.Fatalf("kept = %v, want %v: %+v", found != nil, tc.keep, r.Items)
			}
			if found != nil && !strings.Contains(strings.Join(found.Reasons, "; "), tc.reason) {
				t.Fatalf("reasons %v lack %q", found.Reasons, tc.reason)
			}
		})
	}
	// Off by default: no call, the heuristic decision stands.
	var calls atomic.Int32
	srv := judgeServer(t, 200, `{"applies": false, "reason": "x"}`, &calls)
	k := rcPushForceKB(t, "ask")
	k.Config.LLM.Provider, k.Config.LLM.BaseURL = "openai", srv.URL
	if r := rcRecall(t, k, q); len(r.Items) == 0 || calls.Load() != 0 {
		t.Fatalf("judge off: %d items, %d calls", len(r.Items), calls.Load())
	}
}
