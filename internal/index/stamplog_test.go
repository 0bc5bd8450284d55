package index

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kbmem/kb/internal/failpoint"
)

func sampleRecords() []stampRecord {
	return []stampRecord{
		{Gen: 8, Entries: []stampEntry{{Path: "library/a.md", Stamp: Stamp{1, 2}}, {Path: "traces/ü ñ.jsonl", Stamp: incomplete, Prog: Progress{Done: 1 << 39, Lines: 7, Tail: 0xdeadbeef}}}},
		{Gen: 9, Entries: []stampEntry{{Path: "library/a.md", Removed: true}}},
		{Gen: 10},
		{Gen: 11, Entries: []stampEntry{{Path: "", Stamp: Stamp{-5, 1 << 40}}, {Path: "library/new\nline.md", Stamp: Stamp{3, 4}}}},
	}
}

func encodeLog(baseGen uint64, baseSum uint32, recs []stampRecord) []byte {
	b := stampLogHeaderOf(baseGen, baseSum)
	for _, r := range recs {
		b = appendStampRecord(b, r)
	}
	return b
}

func TestStampLogCodec(t *testing.T) {
	recs := sampleRecords()
	b := encodeLog(7, 0xfeed, recs)
	got, valid, bound := parseStampLog(b, 7, 0xfeed)
	if !bound || valid != len(b) || !reflect.DeepEqual(got, recs) {
		t.Fatalf("round trip: bound %v, valid %d of %d, %+v", bound, valid, len(b), got)
	}
	// Another stamps file's log is not read.
	for _, other := range [][2]uint64{{6, 0xfeed}, {7, 0xfeee}} {
		if got, valid, bound := parseStampLog(b, other[0], uint32(other[1])); bound || valid != 0 || got != nil {
			t.Errorf("log read over stamps file %v: %v %d %v", other, bound, valid, got)
		}
	}
	// Every truncation (a torn append) and every flipped byte yields a
	// prefix of the records and never more.
	prefix := func(got []stampRecord) bool {
		return len(got) == 0 || len(got) <= len(recs) && reflect.DeepEqual(got, recs[:len(got)])
	}
	for i := range b {
		got, valid, _ := parseStampLog(b[:i], 7, 0xfeed)
		if !prefix(got) || valid > i || (i >= stampLogHeader && len(got) == len(recs)) {
			t.Fatalf("truncation at %d: %d records, valid %d", i, len(got), valid)
		}
		c := slices.Clone(b)
		c[i] ^= 0x55
		if got, _, _ := parseStampLog(c, 7, 0xfeed); !prefix(got) || len(got) == len(recs) {
			t.Fatalf("flipped byte %d: %d records", i, len(got))
		}
	}
	// Records must follow one another: a gap ends the log.
	gap := encodeLog(7, 0xfeed, []stampRecord{recs[0], recs[1], recs[3]})
	if got, _, _ := parseStampLog(gap, 7, 0xfeed); len(got) != 2 {
		t.Errorf("records after a gap read: %d", len(got))
	}
	if got, _, _ := parseStampLog(encodeLog(6, 0xfeed, recs), 6, 0xfeed); len(got) != 0 {
		t.Errorf("a first record that does not follow the stamps file read: %d", len(got))
	}
}

func FuzzStampLog(f *testing.F) {
	f.Add(encodeLog(7, 0xfeed, sampleRecords()))
	f.Add(encodeLog(7, 0xfeed, nil))
	f.Add([]byte(stampLogMagic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, valid, bound := parseStampLog(b, 7, 0xfeed)
		if valid > len(b) || (!bound && (valid != 0 || recs != nil)) {
			t.Fatalf("valid %d of %d, bound %v, %d records", valid, len(b), bound, len(recs))
		}
		if !bound {
			return
		}
		// The valid prefix reads the same alone, and the records encode to
		// a log that reads back as them.
		again, v2, _ := parseStampLog(b[:valid], 7, 0xfeed)
		if v2 != valid || !reflect.DeepEqual(again, recs) {
			t.Fatalf("prefix reads differently: %d vs %d", v2, valid)
		}
		enc := encodeLog(7, 0xfeed, recs)
		back, v3, _ := parseStampLog(enc, 7, 0xfeed)
		if v3 != len(enc) || !(len(back) == 0 && len(recs) == 0 || reflect.DeepEqual(back, recs)) {
			t.Fatalf("re-encoded log differs")
		}
	})
}

// model is what the stamps of an index must be after a sequence of Applies.
type model struct {
	stamps map[string]Stamp
	prog   map[string]Progress
}

func (m model) apply(changes []Change) {
	for _, c := range changes {
		switch {
		case c.Remove:
			delete(m.stamps, c.Path)
			delete(m.prog, c.Path)
			continue
		case c.Partial:
			m.stamps[c.Path] = incomplete
		default:
			m.stamps[c.Path] = c.Stamp
		}
		if c.Progress != (Progress{}) {
			m.prog[c.Path] = c.Progress
		} else {
			delete(m.prog, c.Path)
		}
	}
}

// check compares an open index with the model: every stamp, and the
// progress of every file (looked up one by one, before and after a
// decode of the whole set).
func (m model) check(t *testing.T, ix *Index, when string) {
	t.Helper()
	for p, want := range m.prog {
		if got, ok := ix.Progress(p); !ok || got != want {
			t.Fatalf("%s: progress of %s = %+v %v, want %+v", when, p, got, ok, want)
		}
	}
	if got := ix.Stamps(); !maps.Equal(got, m.stamps) {
		t.Fatalf("%s: %d stamps, want %d (%s)", when, len(got), len(m.stamps), diffStamps(got, m.stamps))
	}
	if _, ok := ix.Progress("library/none.md"); ok {
		t.Fatalf("%s: progress of a file never indexed", when)
	}
}

func diffStamps(got, want map[string]Stamp) string {
	var d []string
	for p, s := range want {
		if g, ok := got[p]; !ok || g != s {
			d = append(d, fmt.Sprintf("%s: %+v want %+v", p, g, s))
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			d = append(d, p+": not wanted")
		}
	}
	slices.Sort(d)
	return strings.Join(d[:min(len(d), 5)], "; ")
}

// randomChanges are n changes of files among 400 (docs left out: the
// stamps are what is tested), some removals, parts and progress.
func randomChanges(rng *rand.Rand, n int) []Change {
	var cs []Change
	for range n {
		p := fmt.Sprintf("library/n%03d.md", rng.IntN(400))
		c := Change{Path: p, Stamp: Stamp{Mtime: rng.Int64N(1 << 40), Size: rng.Int64N(5000)}}
		switch rng.IntN(6) {
		case 0:
			c = Change{Path: p, Remove: true}
		case 1:
			c.Partial, c.Progress = true, Progress{Done: rng.Int64N(1 << 30), Lines: rng.Int64N(100), Tail: rng.Uint32()}
		case 2:
			c.Progress = Progress{Done: rng.Int64N(1 << 30), Tail: rng.Uint32()}
		}
		cs = append(cs, c)
	}
	return cs
}

// The stamps after any sequence of Applies are the same whether read from
// the open index, after a reopen (writable or read-only), or after the log
// was compacted into the stamps file.
func TestStampLogReopenEqualsState(t *testing.T) {
	defer func(n int) { stampLogMin = n }(stampLogMin)
	stampLogMin = 64
	ix, dir := openNew(t)
	m := model{stamps: map[string]Stamp{}, prog: map[string]Progress{}}
	rng := rand.New(rand.NewPCG(3, 4))
	compactions := 0
	for round := range 40 {
		cs := randomChanges(rng, 1+rng.IntN(30))
		mustApply(t, ix, cs...)
		m.apply(cs)
		if ix.st.logSize == 0 {
			compactions++
		}
		m.check(t, ix, fmt.Sprintf("round %d, in memory", round))
		if round%4 != 0 {
			continue
		}
		ix.Close()
		ro, err := OpenReadOnly(dir)
		if err != nil {
			t.Fatal(err)
		}
		m.check(t, ro, fmt.Sprintf("round %d, read-only", round))
		ro.Close()
		var info OpenInfo
		ix, info, err = Open(dir)
		if err != nil || info.Rebuilt || len(info.Resumed) > 0 {
			t.Fatalf("reopen: %+v %v", info, err)
		}
		m.check(t, ix, fmt.Sprintf("round %d, reopened", round))
	}
	ix.Close()
	if compactions < 2 {
		t.Errorf("%d compactions, want the log compacted more than once", compactions)
	}
	if _, err := os.Stat(filepath.Join(dir, stampLogFile)); err != nil {
		t.Logf("no log at the end: %v", err)
	}
}

// A sync of a few paths in a large index looks their stamps up in the
// stamps file, without decoding it, and appends one record to the log.
func TestStampLogFewPathsNotDecoded(t *testing.T) {
	ix, dir := openNew(t)
	var cs []Change
	for i := range 3000 {
		cs = append(cs, Change{Path: fmt.Sprintf("library/n%05d.md", i), Stamp: Stamp{Mtime: int64(i), Size: 1}})
	}
	mustApply(t, ix, cs...)      // more than stampLogMin entries: the stamps file whole
	mustApply(t, ix, cs[:10]...) // a record in the log
	ix.Close()
	before, err := os.ReadFile(filepath.Join(dir, stampsFile))
	if err != nil {
		t.Fatal(err)
	}

	ix, _, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	edited := File{Rel: "library/n00042.md", Abs: "unused", Layer: "library", Stamp: Stamp{Mtime: 99, Size: 2}}
	load := func(f File, emit func(Part) bool) bool {
		return emit(Part{Change: Change{Path: f.Rel, Stamp: f.Stamp, Docs: []Doc{note("n42", "note", "Edited", "edited words")}}})
	}
	st, err := ix.SyncPaths(t.Context(), []File{edited}, []string{edited.Rel}, load, nil)
	if err != nil || st.Updated != 1 {
		t.Fatalf("SyncPaths: %+v %v", st, err)
	}
	if ix.st.decoded() {
		t.Error("a sync of one path decoded every stamp")
	}
	if after, _ := os.ReadFile(filepath.Join(dir, stampsFile)); string(after) != string(before) {
		t.Error("a sync of one path rewrote the stamps file")
	}
	if got := ix.Stamps()[edited.Rel]; got != edited.Stamp || len(ix.Stamps()) != 3000 {
		t.Errorf("stamp after the sync = %+v (%d stamps)", got, len(ix.Stamps()))
	}
}

// A process killed while appending the stamps of an Apply leaves a torn
// record: Open resumes from the journal (the files are taken up again),
// cuts the torn bytes off before it appends, and every later record reads.
func TestStampLogTornRecordResumes(t *testing.T) {
	ix, dir := openNew(t)
	keep := file("library/keep.md", note("keep", "note", "Keep", "kept words"))
	mustApply(t, ix, keep)
	// The Apply of edit.md: journal, batch, and half of its record.
	crashAfterBatch(t, ix, journal{Replace: []string{"library/edit.md"}}, []Doc{{ID: "edit", Path: "library/edit.md", Layer: "library", Title: "Edit"}})
	lp := filepath.Join(dir, stampLogFile)
	good, _ := os.ReadFile(lp)
	rec := appendStampRecord(nil, stampRecord{Gen: 2, Entries: []stampEntry{{Path: "library/edit.md", Stamp: Stamp{5, 5}}}})
	if err := os.WriteFile(lp, append(slices.Clone(good), rec[:len(rec)-2]...), 0o644); err != nil {
		t.Fatal(err)
	}

	ro, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	if ro.Stamps()["library/edit.md"] != incomplete {
		t.Errorf("read-only open: edit.md = %+v, want incomplete", ro.Stamps()["library/edit.md"])
	}
	ro.Close()
	if b, _ := os.ReadFile(lp); len(b) != len(good)+len(rec)-2 {
		t.Error("a read-only open changed the log")
	}

	ix2, info, err := Open(dir)
	if err != nil || info.Rebuilt || !reflect.DeepEqual(info.Resumed, []string{"library/edit.md"}) {
		t.Fatalf("open after a torn record: %+v %v", info, err)
	}
	want := map[string]Stamp{keep.Path: keep.Stamp, "library/edit.md": incomplete}
	if got := ix2.Stamps(); !maps.Equal(got, want) {
		t.Fatalf("stamps after resume = %v, want %v", got, want)
	}
	edit := file("library/edit.md", note("edit", "note", "Edit", "new words"))
	mustApply(t, ix2, edit)
	want[edit.Path] = edit.Stamp
	ix2.Close()
	ix3, info, err := Open(dir)
	if err != nil || info.Rebuilt || len(info.Resumed) > 0 {
		t.Fatalf("reopen: %+v %v", info, err)
	}
	defer ix3.Close()
	if got := ix3.Stamps(); !maps.Equal(got, want) {
		t.Fatalf("stamps after reopen = %v, want %v", got, want)
	}
	wantIDs(t, ix3, Query{Text: "new"}, "edit")
}

// A crash between a compaction's new stamps file and the removal of the
// log leaves the previous stamps file's log: it is ignored (the stamps
// file holds it all), and the next record replaces it.
func TestStampLogStaleAfterCompaction(t *testing.T) {
	defer func(n int) { stampLogMin = n }(stampLogMin)
	stampLogMin = 4
	ix, dir := openNew(t)
	m := model{stamps: map[string]Stamp{}, prog: map[string]Progress{}}
	apply := func(cs ...Change) { mustApply(t, ix, cs...); m.apply(cs) }
	apply(file("library/a.md"), file("library/b.md"))
	lp := filepath.Join(dir, stampLogFile)
	stale, err := os.ReadFile(lp)
	if err != nil {
		t.Fatal(err)
	}
	apply(file("library/c.md"), file("library/d.md"), Change{Path: "library/a.md", Remove: true}) // compacts
	if _, err := os.Stat(lp); !os.IsNotExist(err) {
		t.Fatalf("log left after compaction: %v", err)
	}
	ix.Close()
	if err := os.WriteFile(lp, stale, 0o644); err != nil {
		t.Fatal(err)
	}
	ix, info, err := Open(dir)
	if err != nil || info.Rebuilt || len(info.Resumed) > 0 {
		t.Fatalf("open with a stale log: %+v %v", info, err)
	}
	m.check(t, ix, "stale log")
	apply(file("library/e.md"))
	ix.Close()
	ix, info, err = Open(dir)
	if err != nil || info.Rebuilt {
		t.Fatalf("reopen: %+v %v", info, err)
	}
	defer ix.Close()
	m.check(t, ix, "after the next record")
}

// The log is never written through a symlink: an Apply that cannot append
// writes the stamps file whole instead.
func TestStampLogNotThroughSymlink(t *testing.T) {
	ix, dir := openNew(t)
	m := model{stamps: map[string]Stamp{}, prog: map[string]Progress{}}
	apply := func(cs ...Change) { mustApply(t, ix, cs...); m.apply(cs) }
	apply(file("library/a.md"))
	lp := filepath.Join(dir, stampLogFile)
	outside := filepath.Join(t.TempDir(), "victim")
	b, _ := os.ReadFile(lp)
	if err := os.WriteFile(outside, b, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(lp)
	if err := os.Symlink(outside, lp); err != nil {
		t.Skip(err)
	}
	apply(file("library/b.md"))
	if after, _ := os.ReadFile(outside); string(after) != string(b) {
		t.Error("the log was appended through a symlink")
	}
	m.check(t, ix, "in memory")
	ix.Close()
	ix, info, err := Open(dir)
	if err != nil || info.Rebuilt {
		t.Fatalf("reopen: %+v %v", info, err)
	}
	defer ix.Close()
	m.check(t, ix, "reopened")
}

// An append cut short by a full disk leaves a torn record: the Apply
// writes the stamps file whole instead, and the torn bytes go with the log.
func TestStampLogShortWrite(t *testing.T) {
	ix, dir := openNew(t)
	m := model{stamps: map[string]Stamp{}, prog: map[string]Progress{}}
	apply := func(cs ...Change) { mustApply(t, ix, cs...); m.apply(cs) }
	apply(file("library/a.md"), file("library/b.md"))
	failpoint.Arm(failStampLog + "=1:short")
	defer failpoint.Arm("")
	apply(file("library/c.md"), Change{Path: "library/a.md", Remove: true})
	if _, err := os.Stat(filepath.Join(dir, stampLogFile)); !os.IsNotExist(err) {
		t.Errorf("log with a torn record left: %v", err)
	}
	apply(file("library/d.md")) // appends again
	m.check(t, ix, "in memory")
	ix.Close()
	ix, info, err := Open(dir)
	if err != nil || info.Rebuilt || len(info.Resumed) > 0 {
		t.Fatalf("reopen: %+v %v", info, err)
	}
	defer ix.Close()
	m.check(t, ix, "reopened")
}
