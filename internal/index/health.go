package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Health says how the index at dir stands against the files, without
// opening it for writing or changing it (kb doctor without --fix): its
// state in a few words, and a problem to report when it needs a rebuild or
// a sync (which any query, or kb doctor --fix, does). files lists what the
// index should hold; it is called only when the index opens.
func Health(dir string, files func() ([]File, error)) (state, problem string) {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return "not built yet (the next query builds it)", ""
	}
	ix, err := OpenReadOnly(dir)
	if err != nil {
		return "needs rebuild", err.Error() + " (kb doctor --fix, or any query, rebuilds it)"
	}
	defer ix.Close()
	list, err := files()
	if err != nil {
		return "unknown", ""
	}
	if stale := ix.StaleCount(list); stale > 0 {
		return fmt.Sprintf("%d stale", stale), fmt.Sprintf("%d file(s) changed since they were indexed (the next query re-indexes them)", stale)
	}
	return "current", ""
}
