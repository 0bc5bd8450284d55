package reliability

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// sentinelWord is written only outside the KB; no kb command may ever
// return it.
const sentinelWord = "zqsentinelzq"

// outcome is how kb treated one hostile input.
type outcome struct {
	input string
	cmd   string
	code  int
	note  string
	dur   time.Duration
}

// TestHostileInput feeds kb the corpus of testdata/hostile plus inputs made
// at test time. Each must give a clear error or be skipped with a message:
// sane exit codes, no panic, no hang, and nothing outside the KB root read
// or written through a crafted id, link or symlink.
func TestHostileInput(t *testing.T) {
	t.Parallel()
	k := newKB(t)
	base := filepath.Dir(k.Root)
	corpus := filepath.Join(repoRoot, "testdata", "hostile")

	// Outside the KB: a sentinel note and transcript with a unique word,
	// and a harmless transcript reached through a symlink.
	outside := filepath.Join(base, "outside")
	os.MkdirAll(outside, 0o755)
	write(t, filepath.Join(outside, "sentinel.md"), "---\nid: sentinel\ntype: note\ntitle: Sentinel "+sentinelWord+"\nstatus: active\nlifecycle: knowledge\n---\n\nSecret outside the KB: "+sentinelWord+".\n")
	write(t, filepath.Join(outside, "sentinel.jsonl"), `{"type":"user","sessionId":"sentinel","uuid":"u1","timestamp":"2025-11-17T10:00:00Z","message":{"role":"user","content":"`+sentinelWord+`"}}`+"\n")
	write(t, filepath.Join(outside, "x.md"), "must not change\n")

	// Generated inputs.
	gen := filepath.Join(base, "generated")
	os.MkdirAll(gen, 0o755)
	big := strings.Repeat("A", 10<<20)
	write(t, filepath.Join(gen, "10mb-line.jsonl"), `{"type":"user","sessionId":"big-line","uuid":"u1","timestamp":"2025-11-17T10:00:00Z","message":{"role":"user","content":"`+big+`"}}`+"\n")
	write(t, filepath.Join(gen, "10mb-no-newline.jsonl"), big)
	write(t, filepath.Join(gen, "nested-10k.jsonl"), `{"type":"user","sessionId":"deep","uuid":"u1","message":`+strings.Repeat(`{"a":[`, 10000)+strings.Repeat(`]}`, 10000)+"}\n")
	write(t, filepath.Join(gen, "nested-10k.json"), strings.Repeat("[", 10000)+strings.Repeat("]", 10000))
	write(t, filepath.Join(gen, "nested-10k.md"), "---\nid: deep\ntype: note\ntitle: deep\nx: "+strings.Repeat("[", 10000)+strings.Repeat("]", 10000)+"\n---\n\n"+strings.Repeat("> ", 10000)+"deep quote\n")
	if err := os.Symlink(filepath.Join(outside, "sentinel.jsonl"), filepath.Join(gen, "symlinked-transcript.jsonl")); err != nil {
		t.Fatal(err)
	}

	before := snapshotTree(outside)
	corpusBefore := snapshotTree(corpus)
	var outcomes []outcome
	note := func(input, cmd string, r res) {
		msg := strings.TrimSpace(r.Stderr)
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		outcomes = append(outcomes, outcome{input, cmd, r.Code, tail(msg, 160), r.Dur})
		if r.Code != 0 && r.Code != 1 && r.Code != 5 {
			t.Errorf("%s on %s: exit %d (want 0, 1 or 5)\n%s", cmd, input, r.Code, r)
		}
		if r.Code != 0 && strings.TrimSpace(r.Stderr) == "" && !strings.Contains(r.Stdout, "error") {
			t.Errorf("%s on %s: exit %d without a message", cmd, input, r.Code)
		}
		out := strings.ReplaceAll(r.Stdout+r.Stderr, `no results for "`+sentinelWord+`"`, "")
		if strings.Contains(out, sentinelWord) {
			t.Errorf("%s on %s: output holds the sentinel word from outside the KB:\n%s", cmd, input, tail(r.Stdout, 1000))
		}
		if strings.Contains(r.Stdout, "root:x:0:0") {
			t.Errorf("%s on %s: output holds /etc/passwd", cmd, input)
		}
	}

	// 1. Transcripts, one by one.
	var transcripts []string
	for _, n := range []string{"invalid-utf8.jsonl", "crlf.jsonl", "bom.jsonl", "zero.jsonl", "transcript.png", "png-named.jsonl"} {
		transcripts = append(transcripts, filepath.Join(corpus, n))
	}
	for _, n := range []string{"10mb-line.jsonl", "10mb-no-newline.jsonl", "nested-10k.jsonl", "nested-10k.json", "symlinked-transcript.jsonl"} {
		transcripts = append(transcripts, filepath.Join(gen, n))
	}
	// The 10 MB record makes the extractors slow (seconds): in short mode
	// it goes to a KB of its own that is only imported, indexed, searched
	// and checked.
	bigKB := k
	if !long() {
		bigKB = newKB(t)
	}
	for _, p := range transcripts {
		kk := k
		if strings.Contains(p, "10mb") {
			kk = bigKB
		}
		if strings.HasSuffix(p, "symlinked-transcript.jsonl") {
			continue // imported below: it is the one path allowed to leave the KB
		}
		note(filepath.Base(p), "import", kk.run(t, nil, "import", p))
	}
	note("corpus dir", "import", k.run(t, nil, "import", corpus))
	if bigKB != k {
		for _, args := range [][]string{{"search", "--layer", "traces", "AAAA"}, {"sessions"}, {"doctor"}} {
			note("10 MB line KB", strings.Join(args, " "), bigKB.run(t, nil, args...))
		}
		os.Remove(filepath.Join(gen, "10mb-line.jsonl"))
		os.Remove(filepath.Join(gen, "10mb-no-newline.jsonl"))
	}
	note("generated dir", "import", k.run(t, nil, "import", gen))
	note("../../etc/passwd", "import", k.run(t, nil, "import", "../../../../../../etc/passwd"))

	// 2. Notes and links placed in the library; symlinks out of the KB in
	// library/ and traces/; a directory named like a note.
	lib := filepath.Join(k.Root, "library", "hostile")
	os.MkdirAll(lib, 0o755)
	for _, n := range []string{"bom-note.md", "crlf-note.md", "traversal-id.md", "traversal-links.md", "zero.md", "bad-frontmatter.md", "unclosed-frontmatter.md"} {
		b, err := os.ReadFile(filepath.Join(corpus, n))
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(lib, n), string(b))
	}
	b, _ := os.ReadFile(filepath.Join(gen, "nested-10k.md"))
	write(t, filepath.Join(lib, "nested-10k.md"), string(b))
	must(t, os.Symlink(filepath.Join(outside, "sentinel.md"), filepath.Join(lib, "leak.md")))
	must(t, os.Symlink("../../../outside/sentinel.md", filepath.Join(lib, "leak-relative.md")))
	must(t, os.Symlink(outside, filepath.Join(k.Root, "library", "leak-dir")))
	os.MkdirAll(filepath.Join(k.Root, "traces", "2025", "11"), 0o755)
	must(t, os.Symlink(filepath.Join(outside, "sentinel.jsonl"), filepath.Join(k.Root, "traces", "2025", "11", "claude-code-leak.jsonl")))
	must(t, os.MkdirAll(filepath.Join(k.Root, "library", "x.md"), 0o755))
	must(t, os.MkdirAll(filepath.Join(k.Root, "traces", "2025", "11", "dir.jsonl"), 0o755))
	if os.Geteuid() != 0 {
		write(t, filepath.Join(lib, "unreadable.md"), "---\nid: unreadable\ntype: note\ntitle: unreadable\n---\n\nx\n")
		must(t, os.Chmod(filepath.Join(lib, "unreadable.md"), 0))
		defer os.Chmod(filepath.Join(lib, "unreadable.md"), 0o644)
	} else {
		t.Logf("running as root: mode 000 does not block reads, so unreadable files are not tested")
	}

	for _, args := range [][]string{
		{"lint"},
		{"index"},
		{"search", "--layer", "all", sentinelWord},
		{"search", "--layer", "all", "--json", "Sentinel"},
		{"search", "zqbomword"},
		{"search", "zqcrlfword"},
		{"show", "../../etc/passwd"},
		{"show", "../../../../../../../../etc/passwd"},
		{"show", "/etc/passwd"},
		{"show", "../outside/sentinel.md"},
		{"show", "../outside/sentinel"},
		{"show", "library/leak.md"},
		{"show", "library/leak-dir/sentinel.md"},
		{"show", "sentinel"},
		{"show", "../../x"},
		{"show", "traversal-links"},
		{"links", "traversal-links"},
		{"backlinks", "../../outside/sentinel"},
		{"links", "../../x"},
		{"graph", "--format", "json"},
		{"trace", "show", "../../outside/sentinel"},
		{"trace", "show", "leak"},
		{"sessions"},
		{"extract"},
		{"recall", "sentinel secret outside"},
		{"learn"},
		{"doctor"},
		{"doctor", "--fix"},
		{"new", "note", "../../escape attempt"},
	} {
		note("hostile KB", strings.Join(args, " "), k.run(t, nil, args...))
	}
	// Checks that need more than the exit code.
	if r := k.run(t, nil, "search", "zqbomword"); !strings.Contains(r.Stdout, "bom-note") {
		t.Errorf("a note starting with a BOM is not searchable:\n%s%s", r.Stdout, r.Stderr)
	}
	if r := k.run(t, nil, "search", "zqcrlfword"); !strings.Contains(r.Stdout, "crlf-note") {
		t.Errorf("a note with CRLF line ends is not searchable:\n%s%s", r.Stdout, r.Stderr)
	}
	// The symlinked transcript path: reading it is what the user asked;
	// it must not crash.
	note("symlinked-transcript.jsonl", "import", k.run(t, nil, "import", filepath.Join(gen, "symlinked-transcript.jsonl")))
	// From here on the sentinel word may be in traces/ through that
	// explicit import; it must still not come through library symlinks.

	if d := diffSnapshots(before, snapshotTree(outside)); len(d) > 0 {
		t.Errorf("files outside the KB changed:\n%s", strings.Join(d, "\n"))
	}
	if d := diffSnapshots(corpusBefore, snapshotTree(corpus)); len(d) > 0 {
		t.Errorf("the hostile corpus changed:\n%s", strings.Join(d, "\n"))
	}
	if _, err := os.Stat(filepath.Join(base, "x.md")); err == nil {
		t.Errorf("a file was written at ../x.md through the id ../../x")
	}
	entries, _ := os.ReadDir(base)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if strings.Join(names, ",") != "generated,home,kb,outside" {
		t.Errorf("unexpected entries next to the KB: %v", names)
	}
	codes := map[int]int{}
	for _, o := range outcomes {
		codes[o.code]++
		t.Logf("outcome: %-28s %-40s exit %d (%s) %s", o.input, o.cmd, o.code, o.dur.Round(time.Millisecond), o.note)
	}
	t.Logf("RESULT hostile: %d runs on %d transcript inputs and %d library/trace inputs; exit codes %v; no panic, nothing outside the KB read or written",
		len(outcomes), len(transcripts), 14, codes)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestSkippedInputsAreReported checks that what kb skips in the layers is
// said: a symlink (never followed, by design) and a directory named like a
// note. Known gap: see the skip.
func TestSkippedInputsAreReported(t *testing.T) {
	t.Parallel()
	k := newKB(t)
	outside := filepath.Join(filepath.Dir(k.Root), "outside.md")
	write(t, outside, "---\nid: outside\ntype: note\ntitle: outside\n---\n\n"+sentinelWord+"\n")
	must(t, os.Symlink(outside, filepath.Join(k.Root, "library", "leak.md")))
	must(t, os.MkdirAll(filepath.Join(k.Root, "library", "x.md"), 0o755))
	var silent []string
	for _, args := range [][]string{{"lint"}, {"doctor"}, {"index"}} {
		r := k.run(t, nil, args...)
		if strings.Contains(r.Stdout+r.Stderr, sentinelWord) {
			t.Errorf("kb %s read the symlink's target outside the KB", args[0])
		}
		if !strings.Contains(r.Stdout+r.Stderr, "leak.md") || !strings.Contains(r.Stdout+r.Stderr, "x.md") {
			silent = append(silent, "kb "+args[0])
		}
	}
	for _, c := range silent {
		t.Errorf("%s does not report the symlink and the directory it skipped", c)
	}
}
