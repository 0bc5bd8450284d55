package config

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/kbmem/kb/internal/fill"
)

func writeKB(t *testing.T, dir, yaml string, mtime time.Time) {
	t.Helper()
	p := filepath.Join(dir, File)
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

// budget7 is c with a recall budget of 7, in the snapshot's form.
func budget7(t *testing.T, c Config) []byte {
	t.Helper()
	c.Recall.Budget = 7
	b, err := encodeConfig(&c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A snapshot reads back as the Config Load parses, while kb.yaml is
// unchanged; a hand edit (another size or time) is parsed from the file.
func TestSnapshot(t *testing.T) {
	dir := t.TempDir()
	at := time.Unix(1700000000, 123456789)
	for _, yaml := range []string{
		"",
		"version: 1\nrecall:\n  budget: 900\n  budgets: {corrections: 300}\n  equivalents: ['ship it => git push']\n  high_consequence: []\n" +
			"action_types:\n  - type: db:drop-table\n    commands: ['psql * drop']\n    words: ['drop table']\n" +
			"lock:\n  timeout: 45s\nembeddings:\n  enabled: false\nllm:\n  command: [claude, -p]\n",
	} {
		writeKB(t, dir, yaml, at)
		want, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		s, ok := TakeSnapshot(dir)
		if !ok || s.Stamp == "" {
			t.Fatalf("no snapshot of %q", yaml)
		}
		got, err := LoadSnapshot(dir, s)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("snapshot of %q reads back as %+v, %v; Load gives %+v", yaml, got, err, want)
		}
		// The same file, read from the snapshot even if it says otherwise:
		// the stamp decides.
		s2 := s
		s2.Config = budget7(t, want)
		if got, _ := LoadSnapshot(dir, s2); got.Recall.Budget != 7 {
			t.Fatalf("an unchanged stamp did not read the snapshot: %+v", got.Recall)
		}
	}
	s, _ := TakeSnapshot(dir)
	// A snapshot of a kb with other settings or defaults is not read.
	other := s
	other.Key = "another kb"
	other.Config = budget7(t, Config{})
	if got, _ := LoadSnapshot(dir, other); got.Recall.Budget == 7 {
		t.Fatal("a snapshot of another key was read")
	}
	// A hand edit of another size, and one of the same size at another time.
	for _, edit := range []struct {
		yaml string
		at   time.Time
	}{
		{"recall:\n  budget: 901\n", at},
		{"recall:\n  budget: 902\n", at.Add(time.Nanosecond)},
	} {
		writeKB(t, dir, edit.yaml, edit.at)
		want, _ := Load(dir)
		if got, err := LoadSnapshot(dir, s); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("after editing kb.yaml to %q: %+v, %v; want %+v", edit.yaml, got.Recall, err, want.Recall)
		}
		s, _ = TakeSnapshot(dir)
	}
	// A kb.yaml that does not parse has no snapshot, and its error is
	// Load's.
	writeKB(t, dir, "recall: [\n", at)
	if _, ok := TakeSnapshot(dir); ok {
		t.Fatal("a snapshot of a kb.yaml that does not parse")
	}
	if _, err := LoadSnapshot(dir, s); err == nil {
		t.Fatal("no error for a kb.yaml that does not parse")
	}
	// No kb.yaml.
	os.Remove(filepath.Join(dir, File))
	if _, err := LoadSnapshot(dir, s); err != ErrNoConfig {
		t.Fatalf("no kb.yaml: %v", err)
	}
}

// Every field of Config survives the snapshot's form, an empty list stays
// empty and a missing one nil; a damaged or cut snapshot is refused.
func TestSnapshotCodecRoundTrip(t *testing.T) {
	var c Config
	n := 0
	if err := fill.Fill(reflect.ValueOf(&c).Elem(), &n); err != nil {
		t.Fatal(err)
	}
	def, err := ParseConfig([]byte(DefaultConfigYAML))
	if err != nil {
		t.Fatal(err)
	}
	def.Recall.HighConsequence = []string{}
	for _, want := range []Config{c, {}, def} {
		b, err := encodeConfig(&want)
		if err != nil {
			t.Fatal(err)
		}
		var got Config
		if err := decodeConfig(b, &got); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip: %v\n got %+v\nwant %+v", err, got, want)
		}
		for i := range len(b) {
			if decodeConfig(b[:i], &got) == nil {
				t.Fatalf("a snapshot cut at %d of %d decoded", i, len(b))
			}
		}
		if decodeConfig(append(b, 0), &got) == nil {
			t.Fatal("a snapshot with bytes after it decoded")
		}
	}
}
