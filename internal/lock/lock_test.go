package lock

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAcquireNamesHolder(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".state", "lock")
	l, err := Acquire(context.Background(), p, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !Held(p) {
		t.Fatal("Held = false while held")
	}
	_, err = Acquire(context.Background(), p, 100*time.Millisecond)
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second Acquire: %v, want ErrLocked", err)
	}
	if !strings.Contains(err.Error(), "pid ") {
		t.Fatalf("error does not name the holder: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err != nil {
		t.Fatal("second Release:", err)
	}
	if Held(p) {
		t.Fatal("Held = true after Release")
	}
	if _, err := os.Stat(p + ".holder"); !os.IsNotExist(err) {
		t.Fatal("holder note left after Release")
	}
	l2, err := Acquire(context.Background(), p, time.Second)
	if err != nil {
		t.Fatal("re-acquire:", err)
	}
	l2.Release()
}
