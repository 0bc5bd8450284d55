package reliability

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// indexFault damages the derived index of a KB.
type indexFault struct {
	name  string
	apply func(t *testing.T, idx string)
}

// largestFile is the biggest regular file under dir.
func largestFile(t *testing.T, dir string) string {
	t.Helper()
	var best string
	var bs int64 = -1
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if s := size(p); s > bs {
				best, bs = p, s
			}
		}
		return nil
	})
	if best == "" {
		t.Fatalf("no file under %s", dir)
	}
	return best
}

var indexFaults = []indexFault{
	{"old-schema", func(t *testing.T, idx string) { write(t, filepath.Join(idx, "schema"), "0\n") }},
	{"future-schema", func(t *testing.T, idx string) { write(t, filepath.Join(idx, "schema"), "999\n") }},
	{"garbage-schema", func(t *testing.T, idx string) { write(t, filepath.Join(idx, "schema"), "\x00\xffnot a number") }},
	{"deleted-schema", func(t *testing.T, idx string) { rm(t, filepath.Join(idx, "schema")) }},
	{"deleted-stamps", func(t *testing.T, idx string) { rm(t, filepath.Join(idx, "stamps")) }},
	{"garbage-stamps", func(t *testing.T, idx string) { write(t, filepath.Join(idx, "stamps"), "{{{{ garbage \x00") }},
	{"garbage-stamps-log", func(t *testing.T, idx string) { write(t, filepath.Join(idx, "stamps.log"), "{{{{ garbage \x00") }},
	{"deleted-bleve", func(t *testing.T, idx string) { rm(t, filepath.Join(idx, "bleve")) }},
	{"deleted-index", func(t *testing.T, idx string) { rm(t, idx) }},
	{"truncated-largest", func(t *testing.T, idx string) {
		p := largestFile(t, filepath.Join(idx, "bleve"))
		if err := os.Truncate(p, size(p)/2); err != nil {
			t.Fatal(err)
		}
	}},
	{"garbage-largest", func(t *testing.T, idx string) {
		p := largestFile(t, filepath.Join(idx, "bleve"))
		b := make([]byte, size(p))
		for i := range b {
			b[i] = byte(i*7 + 3)
		}
		write(t, p, string(b))
	}},
	{"zeroed-all", func(t *testing.T, idx string) {
		filepath.WalkDir(idx, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				os.Truncate(p, 0)
			}
			return nil
		})
	}},
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func rm(t *testing.T, p string) {
	t.Helper()
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
}

// indexKB is a KB with library notes, traces and observations, indexed
// in one build (as a fresh clone's first kb index builds it: extract has
// already indexed the layers recall reads, in segments of their own, and
// a fault in the largest segment must reach every read command).
func indexKB(t *testing.T) *KB {
	t.Helper()
	k := newKB(t)
	copyTree(t, filepath.Join(repoRoot, "testdata", "examples", "library"), filepath.Join(k.Root, "library"))
	k.must(t, "import", filepath.Join(repoRoot, "testdata", "transcripts", "claude-code"))
	k.must(t, "extract")
	k.must(t, "index", "--rebuild")
	return k
}

// TestIndexFaults damages the index in every way we could think of and
// runs every read command: each answers as on a healthy index (rebuilding
// first) and says so at most once on stderr.
func TestIndexFaults(t *testing.T) {
	t.Parallel()
	healthy := indexKB(t)
	reads := [][]string{
		{"search", "--json", "migration column"},
		{"show", "--json", "adr-0001-postgres-migrations"},
		{"links", "--json", "adr-0001-postgres-migrations"},
		{"backlinks", "--json", "parameterized-sql"},
		{"lint", "--json"},
		{"recall", "--json", "drop the legacy_flag column from users"},
		{"doctor", "--json"},
	}
	// What a healthy index answers.
	want := map[string]res{}
	for _, args := range reads {
		c := healthy.clone(t)
		want[args[0]] = c.run(t, nil, args...)
	}
	// Faults need a per-fault KB; each read command gets its own copy.
	var rebuilds, answered int
	for i, f := range indexFaults {
		for j, args := range reads {
			// Short mode: every fault and every command, not every pair.
			if !long() && (i+j)%5 != 0 {
				continue
			}
			c := healthy.clone(t)
			f.apply(t, filepath.Join(c.Root, ".index"))
			r := c.run(t, nil, args...)
			answered++
			w := want[args[0]]
			ctx := f.name + ": kb " + strings.Join(args, " ")
			if r.Code != w.Code {
				t.Errorf("%s: exit %d, want %d as on a healthy index\n%s", ctx, r.Code, w.Code, r)
				continue
			}
			n := strings.Count(r.Stderr, "rebuilt")
			switch args[0] {
			case "doctor":
				// doctor (without --fix) never rewrites the index: it
				// reports the damage as a fixable warning instead.
				if !sameJSON(t, r.Stdout, w.Stdout, "index", "checks") {
					// The only allowed difference is the index finding.
					var rep doctorReport
					json.Unmarshal([]byte(r.Stdout), &rep)
					for _, ch := range rep.Checks {
						if ch.Rule != "index" && ch.Severity == "error" {
							t.Errorf("%s: new error %s: %s", ctx, ch.Path, ch.Msg)
						}
					}
				}
				fix := c.run(t, nil, "doctor", "--fix", "--json")
				after := c.run(t, nil, "doctor", "--json")
				if after.Code != w.Code || !sameJSON(t, after.Stdout, w.Stdout) {
					t.Errorf("%s: after doctor --fix (exit %d), doctor differs from a healthy KB:\n%s\nwant\n%s", ctx, fix.Code, after.Stdout, w.Stdout)
				}
			case "lint":
				if r.Stdout != w.Stdout {
					t.Errorf("%s: output differs from a healthy index:\n%s\nwant\n%s", ctx, r.Stdout, w.Stdout)
				}
				if n > 1 {
					t.Errorf("%s: said %d times that the index was rebuilt:\n%s", ctx, n, r.Stderr)
				}
			default:
				if !sameJSON(t, r.Stdout, w.Stdout) {
					t.Errorf("%s: answer differs from a healthy index:\n%s\nwant\n%s", ctx, tail(r.Stdout, 1500), tail(w.Stdout, 1500))
				}
				wantN := 1
				if f.name == "deleted-index" {
					wantN = 0 // a missing index is built silently, as on first use
				}
				if n != wantN {
					t.Errorf("%s: stderr mentions the rebuild %d time(s), want %d:\n%s", ctx, n, wantN, r.Stderr)
				}
				rebuilds += n
			}
		}
	}
	t.Logf("RESULT index faults: %d faults, %d read commands, %d (fault, command) runs answered as on a healthy index; %d rebuild notices", len(indexFaults), len(reads), answered, rebuilds)
}

// sameJSON compares two JSON documents, ignoring the keys named in skip
// at the top level and scores (floating point ties after a rebuild).
func sameJSON(t *testing.T, a, b string, skip ...string) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return a == b
	}
	strip := func(v any) string {
		if m, ok := v.(map[string]any); ok {
			for _, s := range skip {
				delete(m, s)
			}
		}
		var walk func(v any) any
		walk = func(v any) any {
			switch v := v.(type) {
			case map[string]any:
				delete(v, "score")
				delete(v, "took")
				for k, e := range v {
					v[k] = walk(e)
				}
			case []any:
				for i, e := range v {
					v[i] = walk(e)
				}
			}
			return v
		}
		out, _ := json.Marshal(walk(v))
		return string(out)
	}
	return strip(x) == strip(y)
}

// strayLines returns the stderr lines that are not kb's own ("kb: ...").
func strayLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if l != "" && !strings.HasPrefix(l, "kb: ") {
			out = append(out, l)
		}
	}
	return out
}

// TestIndexFaultStderrIsKBs checks that a rebuild after a damaged segment
// is reported by kb's one line only, with no library log noise. Known bug:
// see the skip.
func TestIndexFaultStderrIsKBs(t *testing.T) {
	t.Parallel()
	k := indexKB(t)
	var stray []string
	for _, f := range indexFaults {
		if !long() && !strings.HasSuffix(f.name, "-largest") {
			continue
		}
		c := k.clone(t)
		f.apply(t, filepath.Join(c.Root, ".index"))
		r := c.run(t, nil, "search", "migration")
		if s := strayLines(r.Stderr); len(s) > 0 {
			stray = append(stray, f.name+": "+s[0])
		}
	}
	for _, s := range stray {
		t.Errorf("stderr has a line that is not kb's: %s", s)
	}
}
