package index

import "testing"

func TestUpToDate(t *testing.T) {
	a := File{Rel: "library/a.md", Stamp: Stamp{Mtime: 1, Size: 2}}
	tr := File{Rel: "traces/s.jsonl", Stamp: Stamp{Mtime: 3, Size: 4}}
	st := map[string]Stamp{"library/a.md": {Mtime: 1, Size: 2}}
	if !UpToDate([]File{a}, st) || UpToDate([]File{a, tr}, st) {
		t.Error("plain comparison")
	}
	if !UpToDate([]File{a, tr}, st, "traces/") {
		t.Error("a skipped layer's files count")
	}
	st["traces/old.jsonl"] = Stamp{}
	if !UpToDate([]File{a}, st, "traces/") || UpToDate([]File{a}, st) {
		t.Error("a skipped layer's stamps count")
	}
	if UpToDate([]File{{Rel: "library/a.md", Stamp: Stamp{Mtime: 9}}}, st, "traces/") {
		t.Error("a changed file is up to date")
	}
}
