package agents

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

func TestReadHookEventBounds(t *testing.T) {
	const limit, timeout = 1 << 10, 50 * time.Millisecond
	readHookEvent := func(ctx context.Context, r io.Reader) (json.RawMessage, error) {
		return ReadHookEvent(ctx, r, limit, timeout)
	}
	// Over the size cap.
	big := `{"hook_event_name":"UserPromptSubmit","prompt":"` + strings.Repeat("x", 2<<10) + `"}`
	if _, err := readHookEvent(context.Background(), strings.NewReader(big)); err == nil || !strings.Contains(err.Error(), "over 1024 bytes") {
		t.Errorf("over-size event: %v", err)
	}
	// An incomplete event on a stdin left open: the deadline answers.
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	defer pr.Close()
	pw.WriteString(`{"hook_event_name":"Pre`)
	if _, err := readHookEvent(context.Background(), pr); err == nil || !strings.Contains(err.Error(), "within") {
		t.Errorf("incomplete event: %v", err)
	}
	// Empty stdin, and trailing bytes after the event (ignored).
	if _, err := readHookEvent(context.Background(), strings.NewReader("")); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("empty stdin: %v", err)
	}
	raw, err := readHookEvent(context.Background(), strings.NewReader(`{"hook_event_name":"Stop"} trailing`))
	if err != nil || string(raw) != `{"hook_event_name":"Stop"}` {
		t.Errorf("event with trailing bytes: %q %v", raw, err)
	}
}
