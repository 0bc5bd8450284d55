package textutil

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// SlotCache maps words to what a caller computed for them: a fixed table
// of slots indexed by a hash of the word, each holding the last word
// stored there. Lookups take no lock (analysis runs on every core); a
// collision only costs the caller's work again. The table is allocated
// on first use, so a process that never looks a word up pays nothing for
// it. Callers store values they never write to afterwards.
type SlotCache[T any] struct {
	n     uint64
	once  sync.Once
	seed  maphash.Seed
	slots []atomic.Pointer[slotEntry[T]]
}

type slotEntry[T any] struct {
	word string
	val  T
}

// NewSlotCache returns a cache of n slots.
func NewSlotCache[T any](n int) *SlotCache[T] { return &SlotCache[T]{n: uint64(n)} }

func (c *SlotCache[T]) init() {
	c.once.Do(func() {
		c.seed = maphash.MakeSeed()
		c.slots = make([]atomic.Pointer[slotEntry[T]], c.n)
	})
}

// Get returns the value stored for w, if its slot holds w.
func (c *SlotCache[T]) Get(w string) (T, bool) {
	c.init()
	if e := c.slots[maphash.String(c.seed, w)%c.n].Load(); e != nil && e.word == w {
		return e.val, true
	}
	var zero T
	return zero, false
}

// GetBytes is Get for a word held as bytes, without converting it.
func (c *SlotCache[T]) GetBytes(w []byte) (T, bool) {
	c.init()
	if e := c.slots[maphash.Bytes(c.seed, w)%c.n].Load(); e != nil && e.word == string(w) {
		return e.val, true
	}
	var zero T
	return zero, false
}

// Put stores v for w in w's slot. w must not share memory with a larger
// string the cache should not keep alive (clone a slice of a document).
func (c *SlotCache[T]) Put(w string, v T) {
	c.init()
	c.slots[maphash.String(c.seed, w)%c.n].Store(&slotEntry[T]{word: w, val: v})
}
