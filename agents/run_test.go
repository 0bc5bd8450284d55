package agents

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestAnswerWithin(t *testing.T) {
	v, err := AnswerWithin(context.Background(), time.Second, func() (int, error) { return 7, nil })
	if v != 7 || err != nil {
		t.Fatalf("answer: %d %v", v, err)
	}
	_, err = AnswerWithin(context.Background(), time.Second, func() (int, error) { panic("boom") })
	if err == nil || !strings.Contains(err.Error(), "internal error: boom") {
		t.Fatalf("panic: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	block := make(chan struct{})
	defer close(block)
	_, err = AnswerWithin(ctx, 2500*time.Millisecond, func() (int, error) { <-block; return 1, nil })
	if err == nil || err.Error() != "over budget: no answer within 2.5s" {
		t.Fatalf("over budget: %v", err)
	}
}
