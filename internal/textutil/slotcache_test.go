package textutil

import (
	"fmt"
	"sync"
	"testing"
)

// TestSlotCache: a stored word is found by its string or its bytes; a word
// whose slot another took is not, and readers and writers on many
// goroutines see a stored value or none, never another word's.
func TestSlotCache(t *testing.T) {
	c := NewSlotCache[int](4)
	c.Put("alpha", 1)
	if v, ok := c.Get("alpha"); !ok || v != 1 {
		t.Fatalf("Get(alpha) = %d, %v", v, ok)
	}
	if v, ok := c.GetBytes([]byte("alpha")); !ok || v != 1 {
		t.Fatalf("GetBytes(alpha) = %d, %v", v, ok)
	}
	if _, ok := c.Get("beta"); ok {
		t.Fatal("a word never stored is found")
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				w := fmt.Sprint("w", (i*7+g)%50)
				if v, ok := c.Get(w); ok && fmt.Sprint("w", v) != w {
					t.Errorf("Get(%s) = %d", w, v)
					return
				}
				var n int
				fmt.Sscanf(w, "w%d", &n)
				c.Put(w, n)
			}
		}()
	}
	wg.Wait()
}
