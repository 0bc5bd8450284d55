package traces

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kbmem/kb/internal/failpoint"
)

// trReference imports a copy of the Claude Code fixture into a store of
// its own: the source, the records, the session file (relative) and the
// store.
func trReference(t testing.TB) (src string, want []string, rel string, ref *Store) {
	t.Helper()
	src = trCopy(t, ccFixtureMain, t.TempDir(), nil)
	ref = trStore(t)
	trImport(t, ref, src, ImportOptions{})
	want = trContent(t, trAll(t, ref))
	infos, err := ref.Sessions()
	if err != nil || len(infos) != 1 {
		t.Fatalf("reference sessions %v %v", infos, err)
	}
	return src, want, infos[0].Path, ref
}

// trPut writes data as the session file rel of s.
func trPut(t testing.TB, s *Store, rel string, data []byte) string {
	t.Helper()
	p := filepath.Join(s.Root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	trWrite(t, p, data)
	return p
}

// trNoBrokenLine fails when a session file holds a line that is not a whole
// record.
func trNoBrokenLine(t testing.TB, s *Store) {
	t.Helper()
	for p, b := range trFiles(t, s.Root) {
		if len(b) > 0 && b[len(b)-1] != '\n' {
			t.Errorf("%s ends in a torn line", p)
		}
		for i, ln := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
			if TornFragment(ln) || !bytes.HasPrefix(ln, []byte("{")) {
				t.Errorf("%s:%d: not a whole record: %.60s", p, i+1, ln)
			}
		}
	}
}

func TestTornFragment(t *testing.T) {
	for s, want := range map[string]bool{
		`{"session":"s","seq":4,"te`: true,
		`{"a":[1,`:                   true,
		`  {`:                        true,
		`{"a":1}`:                    false,
		``:                           false,
		`not json`:                   false,
		`{"a":1}{"b"`:                false,
		`["x"`:                       false,
	} {
		if got := TornFragment([]byte(s)); got != want {
			t.Errorf("TornFragment(%q) = %v", s, got)
		}
	}
}

// TestAppendFullDiskTakenBack: an append that fails half-way (ENOSPC
// through the failpoint) leaves the session file as it was, the import
// fails, and the re-import once there is room again is exactly a clean
// import; for the first append (the file created) and a later one.
func TestAppendFullDiskTakenBack(t *testing.T) {
	full := trRead(t, ccFixtureMain)
	ref := trStore(t)
	trImport(t, ref, trCopy(t, ccFixtureMain, t.TempDir(), full), ImportOptions{})
	want := trContent(t, trAll(t, ref))

	for _, first := range []bool{true, false} {
		s := trStore(t)
		src := trCopy(t, ccFixtureMain, t.TempDir(), halfAtLine(full))
		if !first {
			trImport(t, s, src, ImportOptions{})
			trWrite(t, src, full)
		}
		before := trFiles(t, s.Root)
		failpoint.Arm(FailAppend + "=1:short")
		_, err := s.Import(src, ImportOptions{})
		failpoint.Arm("")
		if !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("first=%v: import under a full disk: %v", first, err)
		}
		after := trFiles(t, s.Root)
		if len(after) != len(before) {
			t.Fatalf("first=%v: %d session files after the failed append, want %d", first, len(after), len(before))
		}
		for p, b := range before {
			if !bytes.Equal(after[p], b) {
				t.Fatalf("first=%v: %s changed by the failed append", first, p)
			}
		}
		trWrite(t, src, full)
		trImport(t, s, src, ImportOptions{})
		trNoBrokenLine(t, s)
		if got := trContent(t, trAll(t, s)); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("first=%v: after the re-import %d records, a clean import %d", first, len(got), len(want))
		}
	}
}

// TestAppendCutsTornTail: a process killed in the middle of its append left
// a fragment at the end; the next import cuts it before appending, so it
// never ends up between whole records, and the record it was part of is
// written whole.
func TestAppendCutsTornTail(t *testing.T) {
	src, want, rel, ref := trReference(t)
	p := filepath.Join(ref.Root, filepath.FromSlash(rel))
	whole := trRead(t, p)

	// The state a kill leaves: the last records torn off in the middle of
	// a line, the checkpoint not written.
	s := trStore(t)
	cut := bytes.LastIndexByte(whole[:len(whole)-1], '\n') + 1 + 20
	trPut(t, s, rel, whole[:cut])
	if r := trImport(t, s, src, ImportOptions{}); r.Appended != 1 {
		t.Errorf("re-import appended %d, want the torn record", r.Appended)
	}
	trNoBrokenLine(t, s)
	if got := trContent(t, trAll(t, s)); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%d records, a clean import %d", len(got), len(want))
	}
	// A last line that is a whole record without its newline is kept.
	s2 := trStore(t)
	trPut(t, s2, rel, whole[:len(whole)-1])
	if r := trImport(t, s2, src, ImportOptions{}); r.Appended != 0 {
		t.Errorf("whole last line: re-import appended %d", r.Appended)
	}
}

// TestRepairTorn: a fragment left inside a session file by an older kb (a
// full disk, then an import that appended after it) is dropped by
// RepairTorn, every other line kept byte for byte; a fragment at the end (no
// import since) is dropped too, and ImportAgain writes the records it and
// the lines after it were part of.
func TestRepairTorn(t *testing.T) {
	src, want, rel, ref := trReference(t)
	p := filepath.Join(ref.Root, filepath.FromSlash(rel))
	lines := bytes.SplitAfter(bytes.TrimSuffix(trRead(t, p), []byte("\n")), []byte("\n"))
	lines[len(lines)-1] = append(lines[len(lines)-1], '\n')
	k := len(lines) / 2
	frag := lines[k][:len(lines[k])/2]

	for _, atEnd := range []bool{false, true} {
		s := trStore(t)
		var b []byte
		for _, ln := range lines[:k] {
			b = append(b, ln...)
		}
		b = append(b, frag...)
		if !atEnd {
			b = append(b, '\n')
			for _, ln := range lines[k:] {
				b = append(b, ln...)
			}
		}
		sp := trPut(t, s, rel, b)
		rep, err := s.RepairTorn(rel)
		if err != nil || len(rep.Dropped) != 1 || rep.Dropped[0].Line != k+1 || rep.Dropped[0].Last != atEnd || len(rep.Sources) != 1 || rep.Sources[0] != src {
			t.Fatalf("atEnd=%v: repair %+v %v", atEnd, rep, err)
		}
		if !atEnd {
			if got := trRead(t, sp); !bytes.Equal(got, bytes.Join(lines, nil)) {
				t.Fatalf("repaired file is not the clean one:\n%s", got)
			}
		}
		r, err := s.ImportAgain(src)
		if err != nil {
			t.Fatal(err)
		}
		if wantN := map[bool]int{false: 0, true: len(lines) - k}[atEnd]; r.Appended != wantN {
			t.Errorf("atEnd=%v: re-import appended %d, want %d", atEnd, r.Appended, wantN)
		}
		trNoBrokenLine(t, s)
		if got := trContent(t, trAll(t, s)); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("atEnd=%v: %d records, a clean import %d", atEnd, len(got), len(want))
		}
		if again, _ := s.RepairTorn(rel); len(again.Dropped) != 0 {
			t.Errorf("second repair dropped %v", again.Dropped)
		}
	}
}
