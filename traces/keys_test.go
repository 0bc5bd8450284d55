package traces

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// trCopy copies src to a new path under a fresh directory, as a moved
// project or a restored backup has it, and returns that path.
func trCopy(t testing.TB, src, dir string, data []byte) string {
	t.Helper()
	if data == nil {
		data = trRead(t, src)
	}
	p := filepath.Join(dir, filepath.Base(src))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	trWrite(t, p, data)
	return p
}

// trContent is trKeys without the source paths: the records a session
// holds, whichever path each came from.
func trContent(t testing.TB, all map[string][]Record) []string {
	for _, recs := range all {
		for i := range recs {
			recs[i].Source.File = ""
		}
	}
	return trKeys(t, all)
}

// halfAtLine cuts data at the first line start after its middle.
func halfAtLine(data []byte) []byte {
	cut := bytes.IndexByte(data[len(data)/2:], '\n') + len(data)/2 + 1
	return data[:cut]
}

// TestStoreSecondPathAppendsNothing: the same transcript imported from a
// second path adds nothing; a copy that grew adds only its new records;
// and the original, grown the same way, then adds nothing either. For
// every format whose records have an id (Claude Code) or a line (Codex,
// generic, Gemini JSONL, aider).
func TestStoreSecondPathAppendsNothing(t *testing.T) {
	for _, tc := range []struct{ name, file string }{
		{"claude-code", ccFixtureMain},
		{"codex", "../testdata/transcripts/codex/rollout-2025-12-01T10-00-00-019ad000-0000-7000-8000-000000000001.jsonl"},
		{"codex-legacy", cxLegacyFixture},
		{"generic", genericFixture},
		{"gemini-jsonl", geminiFixture},
	} {
		t.Run(tc.name, func(t *testing.T) {
			full := trRead(t, tc.file)
			ref := trStore(t)
			trImport(t, ref, trCopy(t, tc.file, t.TempDir(), full), ImportOptions{})
			want := trContent(t, trAll(t, ref))

			s := trStore(t)
			a := trCopy(t, tc.file, filepath.Join(t.TempDir(), "old-home"), halfAtLine(full))
			r1 := trImport(t, s, a, ImportOptions{})
			if r1.Appended == 0 {
				t.Fatal("nothing imported")
			}
			before := trFiles(t, s.Root)

			// The same bytes at a second path.
			b := trCopy(t, tc.file, filepath.Join(t.TempDir(), "new-home"), halfAtLine(full))
			if r := trImport(t, s, b, ImportOptions{}); r.Appended != 0 {
				t.Fatalf("second path appended %d records", r.Appended)
			}
			if got := trFiles(t, s.Root); len(got) != len(before) {
				t.Fatalf("second path made %d session files, want %d", len(got), len(before))
			}
			// The copy grows: only the new records.
			trWrite(t, b, full)
			r2 := trImport(t, s, b, ImportOptions{})
			if r1.Appended+r2.Appended != len(want) {
				t.Fatalf("appended %d + %d, a one-shot import holds %d", r1.Appended, r2.Appended, len(want))
			}
			// The original grows the same way: nothing new.
			trWrite(t, a, full)
			if r := trImport(t, s, a, ImportOptions{}); r.Appended != 0 {
				t.Fatalf("original after the copy appended %d", r.Appended)
			}
			// Neither does a third path with .state/ gone.
			os.RemoveAll(filepath.Join(s.Root, stateDir))
			c := trCopy(t, tc.file, filepath.Join(t.TempDir(), "restored"), full)
			if r := trImport(t, &Store{Root: s.Root}, c, ImportOptions{}); r.Appended != 0 {
				t.Fatalf("third path without .state appended %d", r.Appended)
			}
			if got := trContent(t, trAll(t, s)); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("%d records, a one-shot import holds %d", len(got), len(want))
			}
		})
	}
}

// TestStoreIdentityIgnoresNewRedaction: a record without an id is known by
// its line and the fields redaction never touches, so a redaction rule added
// after the first import does not make the copy's records look new.
func TestStoreIdentityIgnoresNewRedaction(t *testing.T) {
	s := trStore(t)
	a := trCopy(t, genericFixture, filepath.Join(t.TempDir(), "a"), nil)
	trImport(t, s, a, ImportOptions{})
	s2 := &Store{Root: s.Root, Redactor: stringRedactor(func(v string) string { return strings.ReplaceAll(v, "e", "[REDACTED:test]") })}
	b := trCopy(t, genericFixture, filepath.Join(t.TempDir(), "b"), nil)
	if r := trImport(t, s2, b, ImportOptions{}); r.Appended != 0 {
		t.Fatalf("copy under a new redaction rule appended %d", r.Appended)
	}
}

// TestStoreKeyFile: the keys of a session file are read from .state/keys
// and the session file itself is read whole at most once per Store, however
// many paths hold the transcript; a key file that is lost, damaged or
// describes an older file is rebuilt, never trusted.
func TestStoreKeyFile(t *testing.T) {
	s := trStore(t)
	a := trCopy(t, ccFixtureMain, t.TempDir(), nil)
	trImport(t, s, a, ImportOptions{})
	infos, err := s.Sessions()
	if err != nil || len(infos) != 1 {
		t.Fatalf("sessions %v %v", infos, err)
	}
	rel := infos[0].Path
	kf := s.keyFile(rel)
	if _, err := os.Stat(kf); err != nil {
		t.Fatalf("no key file: %v", err)
	}

	copies := func(s *Store, n int) int64 {
		t.Helper()
		before := keyScans.Load()
		for i := range n {
			p := trCopy(t, ccFixtureMain, t.TempDir(), nil)
			if r := trImport(t, s, p, ImportOptions{}); r.Appended != 0 {
				t.Fatalf("copy %d appended %d", i, r.Appended)
			}
		}
		return keyScans.Load() - before
	}
	// A new process: the key file serves, the session file is not read.
	if n := copies(&Store{Root: s.Root}, 3); n != 0 {
		t.Errorf("with a key file: %d whole reads, want 0", n)
	}
	// Lost: one read rebuilds it, for all copies of this run.
	os.Remove(kf)
	if n := copies(&Store{Root: s.Root}, 3); n != 1 {
		t.Errorf("without a key file: %d whole reads, want 1", n)
	}
	if _, err := os.Stat(kf); err != nil {
		t.Fatalf("key file not written back: %v", err)
	}
	// Damaged: rebuilt.
	trWrite(t, kf, []byte(`{"size":12,"keys":["x"`+"\n"))
	if n := copies(&Store{Root: s.Root}, 1); n != 1 {
		t.Errorf("damaged key file: %d whole reads, want 1", n)
	}
	// The session file changed behind the key file's back (an older kb
	// appended, or rewrote it): its size or last bytes no longer match.
	sf := filepath.Join(s.Root, filepath.FromSlash(rel))
	data := trRead(t, sf)
	trWrite(t, sf, append(bytes.Clone(data), []byte(`{"session":"`+ccFixtureSID+`","seq":999,"agent":"claude-code","role":"user","kind":"message","text":"x","source":{"file":"elsewhere","line":1}}`+"\n")...))
	if n := copies(&Store{Root: s.Root}, 1); n != 1 {
		t.Errorf("grown session file: %d whole reads, want 1", n)
	}
	i := bytes.Index(data, []byte(`"text":"`)) + len(`"text":"`)
	same := bytes.Clone(data)
	same[i] ^= 0x20 // a text edited in place (kb trace redact by an older kb)
	trWrite(t, sf, same)
	if n := copies(&Store{Root: s.Root}, 1); n != 1 {
		t.Errorf("rewritten session file of the same size: %d whole reads, want 1", n)
	}
}

// TestStoreKeyFileCompacts: one line per import, rewritten as one past
// keyFileLines.
func TestStoreKeyFileCompacts(t *testing.T) {
	s := trStore(t)
	src := filepath.Join(t.TempDir(), "g.jsonl")
	var data []byte
	for i := 0; i < 80; i++ {
		data = append(data, []byte(`{"session":"grow","role":"user","content":"line `+strings.Repeat("x", i)+`"}`+"\n")...)
		trWrite(t, src, data)
		trImport(t, s, src, ImportOptions{})
	}
	infos, _ := s.Sessions()
	kf := trRead(t, s.keyFile(infos[0].Path))
	if n := bytes.Count(kf, []byte("\n")); n > keyFileLines+1 {
		t.Errorf("key file has %d lines", n)
	}
	ks := (&Store{Root: s.Root}).readKeyFile(infos[0].Path, filepath.Join(s.Root, infos[0].Path), int64(len(trRead(t, filepath.Join(s.Root, infos[0].Path)))))
	if ks == nil || len(ks.counts) != 80 {
		t.Fatalf("key file does not hold the 80 keys: %+v", ks)
	}
}

// FuzzReadKeyFile: a key file is derived data that may be damaged in any
// way; it is either trusted whole (it covers the session file exactly) or
// not at all.
func FuzzReadKeyFile(f *testing.F) {
	f.Add([]byte(`{"size":3,"tail":"x","seq":1,"keys":["a","b"]}` + "\n"))
	f.Add([]byte(`{"size":0,"keys":[]}` + "\n" + `{"size":-1}` + "\n"))
	f.Add([]byte("{\n"))
	session := []byte(`{"session":"s","seq":0,"kind":"meta","role":"system","agent":"generic","source":{"file":"","line":0}}` + "\n")
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &Store{Root: t.TempDir()}
		rel := "traces/undated/generic-s.jsonl"
		abs := filepath.Join(s.Root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(abs), 0o755)
		os.MkdirAll(filepath.Dir(s.keyFile(rel)), 0o755)
		trWrite(t, abs, session)
		trWrite(t, s.keyFile(rel), data)
		ks := s.readKeyFile(rel, abs, int64(len(session)))
		if ks != nil && (ks.size != int64(len(session)) || ks.counts == nil) {
			t.Fatalf("trusted a key file that does not cover the session: %+v", ks)
		}
	})
}
