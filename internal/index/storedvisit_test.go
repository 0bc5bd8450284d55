package index

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/blevesearch/bleve/v2/index/scorch"
)

// A listing of some documents only (AllWhere's keepID) leaves bleve's
// stored-field readers as it found them. zapx's VisitStoredFields, whose
// visitor stops at the _id field, returns its decoding context to a
// process-wide sync.Pool twice; the next two readers then share one
// buffer and one cursor, and under load a compile's listing running
// beside bleve's merger read documents without their stored fields: the
// hooks' index lost notes after an edit (TestCompileInRounds, 2 in 25
// runs of ./kb under load). Here two readers are nested, as a
// merge and a listing overlap: the outer one must still read every
// field of its document.
func TestAllWhereLeavesStoredReadersApart(t *testing.T) {
	ix, _ := openNew(t)
	var changes []Change
	for i := range 4 {
		changes = append(changes, file(fmt.Sprintf("library/n%d.md", i),
			note(fmt.Sprintf("n%d", i), "note", fmt.Sprintf("Title %d", i), fmt.Sprintf("body of note %d", i), "a", "b")))
	}
	mustApply(t, ix, changes...)
	// One P: the pool's private and shared slots are this goroutine's.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	fields := func(nested bool) (n int) {
		t.Helper()
		err := ix.inSnapshot(func(snap *scorch.IndexSnapshot) error {
			seg := snap.Segments()[0]
			inner := false
			return seg.VisitDocument(0, func(name string, _ byte, _ []byte, _ []uint64) bool {
				n++
				if nested && !inner && name != "_id" {
					inner = true
					return seg.VisitDocument(1, func(string, byte, []byte, []uint64) bool { return true }) == nil
				}
				return true
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	want := fields(false)
	for range 3 {
		if _, err := ix.AllWhere(nil, func(id string) bool { return id == "n2" }, "path"); err != nil {
			t.Fatal(err)
		}
		if got := fields(true); got != want {
			t.Fatalf("after a listing of one document, a reader beside another read %d stored fields of its document, want %d", got, want)
		}
	}
}
