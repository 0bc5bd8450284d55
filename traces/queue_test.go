package traces

import (
	"os"
	"slices"
	"testing"
	"time"
)

// TestQueue: a drain takes each queued transcript once, skips a torn line,
// leaves what is queued meanwhile for the next drain, and takes again a
// queue whose drain did not finish.
func TestQueue(t *testing.T) {
	s := trStore(t)
	at := time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)
	for _, p := range []string{"/t/a.jsonl", "/t/b.jsonl", "/t/a.jsonl"} {
		if err := s.Enqueue(p, at); err != nil {
			t.Fatal(err)
		}
	}
	f, _ := os.OpenFile(s.QueuePath(), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"path": "/t/c`)
	f.Close()
	paths, probs, done, err := s.TakeQueue()
	if err != nil || !slices.Equal(paths, []string{"/t/a.jsonl", "/t/b.jsonl"}) || len(probs) != 1 || probs[0].Line != 4 {
		t.Fatalf("take: %v %v %v", paths, probs, err)
	}
	s.Enqueue("/t/d.jsonl", at) // while draining
	// The drain dies before done: the next take gets the same again.
	again, _, done2, err := s.TakeQueue()
	if err != nil || !slices.Equal(again, paths) {
		t.Fatalf("retake: %v %v", again, err)
	}
	_ = done
	if err := done2(); err != nil {
		t.Fatal(err)
	}
	next, _, done3, _ := s.TakeQueue()
	if !slices.Equal(next, []string{"/t/d.jsonl"}) {
		t.Errorf("next drain: %v", next)
	}
	done3()
	if empty, probs, done4, err := s.TakeQueue(); err != nil || len(empty) != 0 || len(probs) != 0 || done4() != nil {
		t.Errorf("empty queue: %v %v %v", empty, probs, err)
	}
}
