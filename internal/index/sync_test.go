package index

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// syncFiles are n note files named notes/0000.md and on; their loader
// makes a doc of each, with no id for the file numbered bad (-1: none).
func syncFiles(n, bad int) ([]File, Loader) {
	files := make([]File, n)
	for i := range files {
		files[i] = File{Rel: fmt.Sprintf("notes/%04d.md", i), Layer: "notes", Stamp: Stamp{Mtime: int64(i + 1), Size: 100}}
	}
	load := func(f File, emit func(Part) bool) bool {
		var i int
		fmt.Sscanf(f.Rel, "notes/%04d.md", &i)
		d := Doc{ID: f.Rel, Layer: f.Layer, Title: f.Rel, Body: "alpha beta"}
		if i == bad {
			d.ID = ""
		}
		return emit(Part{Change: Change{Path: f.Rel, Stamp: f.Stamp, Docs: []Doc{d}}, Bytes: len(d.Body), FileBytes: f.Stamp.Size})
	}
	return files, load
}

// A sync applies its groups in order, the next one loaded while the one
// before is applied, and reports progress up to the total.
func TestSyncGroupsInOrder(t *testing.T) {
	ix, _ := openNew(t)
	n := 2*applyFiles + applyFiles/2
	files, load := syncFiles(n, -1)
	var reports [][2]int
	st, err := ix.Sync(context.Background(), files, nil, load, func(done, total int) {
		reports = append(reports, [2]int{done, total})
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Added != n || st.Docs != n {
		t.Errorf("stats = %+v, want %d added and docs", st, n)
	}
	if c, _ := ix.Count(); c != uint64(n) {
		t.Errorf("Count = %d, want %d", c, n)
	}
	if len(reports) < 3 {
		t.Fatalf("progress = %v, want a report per group", reports)
	}
	for i, r := range reports {
		if i > 0 && r[0] < reports[i-1][0] {
			t.Errorf("progress went back: %v", reports)
		}
	}
	if last := reports[len(reports)-1]; last[0] != last[1] {
		t.Errorf("last progress = %v, want done = total", last)
	}
}

// A group that fails stops the sync: the groups before it stay applied
// and stamped, it and the ones after it are not. (The loaders run in
// parallel: a group holds about, not exactly, the next files in order.)
func TestSyncStopsAtFailedGroup(t *testing.T) {
	ix, _ := openNew(t)
	files, load := syncFiles(3*applyFiles, applyFiles+7)
	_, err := ix.Sync(context.Background(), files, nil, load, nil)
	var de *DocError
	if !errors.As(err, &de) {
		t.Fatalf("err = %v, want a DocError", err)
	}
	stamps := ix.Stamps()
	if len(stamps) != applyFiles {
		t.Errorf("%d files stamped, want the first group's %d", len(stamps), applyFiles)
	}
	if _, ok := stamps[files[applyFiles+7].Rel]; ok {
		t.Error("the bad file is stamped")
	}
	if c, _ := ix.Count(); c != applyFiles {
		t.Errorf("Count = %d, want %d", c, applyFiles)
	}
}
