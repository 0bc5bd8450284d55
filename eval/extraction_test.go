package eval

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kbmem/kb/internal/testenv"
	"github.com/kbmem/kb/kb"
)

// handKey is a key over two files, one per half: alice (DEV) and
// AlexShchuka (CHECK).
const handKey = `{
 "labels": ["correction", "rule", "preference", "decision", "none"],
 "items": [
  {"file": "alice__r/s.jsonl", "line": 10, "label": "correction", "kind": "typed", "language": "en", "source": "claude-code"},
  {"file": "alice__r/s.jsonl", "line": 20, "label": "correction", "unsure": true, "kind": "typed", "language": "en", "source": "claude-code"},
  {"file": "alice__r/s.jsonl", "line": 30, "label": "none", "kind": "typed", "language": "en", "source": "claude-code", "text": "ship the cart fix"},
  {"file": "alice__r/s.jsonl", "line": 40, "label": "none", "kind": "slash_command", "language": "en", "source": "claude-code"},
  {"file": "alice__r/s.jsonl", "line": 50, "label": "preference", "kind": "typed", "language": "en", "source": "claude-code"},
  {"file": "alice__r/s.jsonl", "line": 60, "label": "correction", "also": "rule", "kind": "typed", "language": "en", "source": "claude-code"},
  {"file": "alice__r/s.jsonl", "line": 70, "label": "none", "unsure": true, "kind": "typed", "language": "en", "source": "claude-code"},
  {"file": "AlexShchuka__m/h.md", "line": 5, "label": "correction", "kind": "typed", "language": "ru", "source": "aider"},
  {"file": "AlexShchuka__m/h.md", "line": 8, "label": "none", "kind": "typed", "language": "ru", "source": "aider"}
 ]
}`

// keyOnDisk parses a key and gives it a transcript directory holding its
// files (empty: the scorer only checks that they exist).
func keyOnDisk(t *testing.T, src string) *extractionKey {
	t.Helper()
	k, _, err := parseKey("hand.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	k.Root = t.TempDir()
	for _, f := range k.files {
		p := filepath.Join(k.Root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return k
}

func ov(id, typ string, files []string, anchors ...anchor) *obsView {
	v := &obsView{id: id, typ: typ, summary: "lesson of " + id, files: map[string]bool{}, anchors: anchors}
	for _, f := range files {
		v.files[f] = true
	}
	return v
}

func typeScore(t *testing.T, ss SetScore, typ string) TypeScore {
	t.Helper()
	for _, ts := range ss.Types {
		if ts.Type == typ {
			return ts
		}
	}
	t.Fatalf("set %s: no %s row in %+v", ss.Name, typ, ss.Types)
	return TypeScore{}
}

// TestExtractionScoringHandWorked checks every figure of the scorer on a
// key and observations worked out by hand (see the comments).
func TestExtractionScoringHandWorked(t *testing.T) {
	k := keyOnDisk(t, handKey)
	const a, c = "alice__r/s.jsonl", "AlexShchuka__m/h.md"
	A := []string{a}
	obs := []*obsView{
		ov("o1", "correction", A, anchor{a, 10, ""}, anchor{a, 30, ""}), // sure positive; a none inside
		ov("o2", "correction", A, anchor{a, 20, ""}),                    // unsure positive only
		ov("o3", "correction", A),                                       // no person message
		ov("o4", "correction", A, anchor{a, 40, ""}),                    // a slash command only
		ov("o5", "correction", []string{c}, anchor{c, 8, ""}),           // CHECK none
		ov("o6", "preference", A, anchor{a, 60, ""}),                    // a correction, not a preference
		ov("o7", "decision", A, anchor{a, 99, ""}),                      // unkeyed user record
		ov("o8", "question", A, anchor{a, 50, ""}),                      // other type
		ov("o9", "correction", A, anchor{a, 60, ""}),                    // sure positive, also a rule
		ov("o10", "correction", []string{"elsewhere.jsonl"}),            // not in the key's files
	}
	ks := scoreKey(k, obs, map[place]string{}, nil)
	if ks.Items != 9 || ks.Files != 2 || len(ks.Sets) != 3 {
		t.Fatalf("items %d files %d sets %d, want 9, 2, 3 (all, dev, check)", ks.Items, ks.Files, len(ks.Sets))
	}
	if want := map[string]int{"correction": 6, "preference": 1, "decision": 1, "question": 1}; !equalCounts(ks.Observations, want) {
		t.Errorf("observations %v, want %v", ks.Observations, want)
	}
	all, dev, check := ks.Sets[0], ks.Sets[1], ks.Sets[2]
	if all.Name != "all" || dev.Name != "dev" || check.Name != "check" || dev.Items != 7 || check.Items != 2 {
		t.Fatalf("sets %s/%d %s/%d %s/%d", all.Name, all.Items, dev.Name, dev.Items, check.Name, check.Items)
	}

	// correction, all: positives A1 A2 A6 C1 (sure: A1 A6 C1); found A1 A2 A6.
	// In scope o1-o5, o9; right o1 o2 o9; judged sure: all but o2.
	cor := typeScore(t, all, "correction")
	wantRecall(t, "all correction", cor.Recall, 4, 3, 3, 2)
	wantPrecision(t, "all correction", cor.Precision, 6, 3, 5, 2)
	rule := typeScore(t, all, "rule")
	wantRecall(t, "all rule", rule.Recall, 1, 1, 1, 1)
	if rule.Precision != nil {
		t.Error("rule has a precision")
	}
	pref := typeScore(t, all, "preference")
	wantRecall(t, "all preference", pref.Recall, 1, 0, 1, 0)
	wantPrecision(t, "all preference", pref.Precision, 1, 0, 1, 0)
	dec := typeScore(t, all, "decision")
	wantRecall(t, "all decision", dec.Recall, 0, 0, 0, 0)
	if dec.Recall.Recall != nil || dec.Recall.RecallSure != nil {
		t.Error("recall without positives is not absent")
	}
	wantPrecision(t, "all decision", dec.Precision, 1, 0, 1, 0)
	// none prose: A3 (sure), A7 (unsure), C2 (sure); inside a correction A3
	// and C2; the slash command A4 is harness.
	if n := all.NoneInCorrection; n == nil || *n != (NoneInCorrection{Sure: 2, SureOf: 2, Lenient: 2, LenientOf: 3, Harness: 1}) {
		t.Errorf("none in correction %+v", n)
	}

	// dev: positives A1 A2 A6, in scope o1-o4 and o9.
	cor = typeScore(t, dev, "correction")
	wantRecall(t, "dev correction", cor.Recall, 3, 3, 2, 2)
	wantPrecision(t, "dev correction", cor.Precision, 5, 3, 4, 2)
	// check: C1 missed; o5 wrong.
	cor = typeScore(t, check, "correction")
	wantRecall(t, "check correction", cor.Recall, 1, 0, 1, 0)
	wantPrecision(t, "check correction", cor.Precision, 1, 0, 1, 0)

	// Breakdowns partition the items.
	for name, sets := range map[string][]SetScore{"source": ks.BySource, "language": ks.ByLanguage, "file": ks.ByFile} {
		n := 0
		for _, s := range sets {
			n += s.Items
		}
		if n != ks.Items || len(sets) != 2 {
			t.Errorf("by %s: %d sets, %d items, want 2 and %d", name, len(sets), n, ks.Items)
		}
	}

	// Detail: the CHECK half is counted, not listed.
	if len(ks.Misses) != 1 || ks.Misses[0].Line != 50 || ks.Misses[0].Type != "preference" || strings.Join(ks.Misses[0].Types, ",") != "question" {
		t.Errorf("misses %+v", ks.Misses)
	}
	var fps []string
	for _, fp := range ks.FalsePositives {
		fps = append(fps, fp.ID)
	}
	if strings.Join(fps, " ") != "o3 o4 o6 o7" {
		t.Errorf("false positives %v, want o3 o4 o6 o7", fps)
	}
	reasons := map[string]string{}
	for _, fp := range ks.FalsePositives {
		reasons[fp.ID] = fp.Reason
	}
	if !strings.Contains(reasons["o3"], "no person message") || !strings.Contains(reasons["o7"], "no keyed message") ||
		!strings.Contains(reasons["o4"], "does not label correction") {
		t.Errorf("reasons %v", reasons)
	}
	if len(ks.NoneInCorrection) != 1 || ks.NoneInCorrection[0].Line != 30 || ks.NoneInCorrection[0].Text != "ship the cart fix" ||
		strings.Join(ks.NoneInCorrection[0].Observations, ",") != "o1" {
		t.Errorf("none in correction %+v", ks.NoneInCorrection)
	}
	if w := ks.Withheld; w == nil || *w != (Withheld{Misses: 1, FalsePositives: 1, NoneInCorrection: 1}) {
		t.Errorf("withheld %+v", ks.Withheld)
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func wantRecall(t *testing.T, what string, r RecallScore, pos, found, posSure, foundSure int) {
	t.Helper()
	if r.Positives != pos || r.Found != found || r.PositivesSure != posSure || r.FoundSure != foundSure {
		t.Errorf("%s recall %d/%d sure %d/%d, want %d/%d sure %d/%d", what, r.Found, r.Positives, r.FoundSure, r.PositivesSure, found, pos, foundSure, posSure)
	}
	if pos > 0 && (r.Recall == nil || *r.Recall != float64(found)/float64(pos)) {
		t.Errorf("%s recall ratio %v", what, r.Recall)
	}
}

func wantPrecision(t *testing.T, what string, p *PrecisionScore, n, correct, judged, correctSure int) {
	t.Helper()
	if p == nil {
		t.Fatalf("%s: no precision", what)
	}
	if p.Observations != n || p.Correct != correct || p.JudgedSure != judged || p.CorrectSure != correctSure {
		t.Errorf("%s precision %d/%d sure %d/%d, want %d/%d sure %d/%d", what, p.Correct, p.Observations, p.CorrectSure, p.JudgedSure, correct, n, correctSure, judged)
	}
}

// TestExtractionPrefsFormat: a key of preference/decision objects scores
// those two types only; its correction labels are the corrections key's.
func TestExtractionPrefsFormat(t *testing.T) {
	k := keyOnDisk(t, `{"items": [
	 {"file": "x.jsonl", "line": 1, "preference": {"statement": "use pnpm"}, "decision": null},
	 {"file": "x.jsonl", "line": 2, "preference": null, "decision": {"chosen": "vite"}, "unsure": true},
	 {"file": "x.jsonl", "line": 3, "preference": null, "decision": null, "label": "correction"}]}`)
	if strings.Join(k.Dims, ",") != "preference,decision" {
		t.Fatalf("dims %v", k.Dims)
	}
	ks := scoreKey(k, []*obsView{
		ov("p1", "preference", []string{"x.jsonl"}, anchor{"x.jsonl", 1, ""}),
		ov("d1", "decision", []string{"x.jsonl"}, anchor{"x.jsonl", 3, ""}),
		ov("c1", "correction", []string{"x.jsonl"}, anchor{"x.jsonl", 3, ""}),
	}, nil, nil)
	all := ks.Sets[0]
	if len(all.Types) != 2 || all.NoneInCorrection != nil {
		t.Fatalf("types %+v none %+v", all.Types, all.NoneInCorrection)
	}
	wantRecall(t, "preference", typeScore(t, all, "preference").Recall, 1, 1, 1, 1)
	wantRecall(t, "decision", typeScore(t, all, "decision").Recall, 1, 0, 0, 0)
	wantPrecision(t, "decision", typeScore(t, all, "decision").Precision, 1, 0, 1, 0)
	if len(ks.Misses) != 1 || ks.Misses[0].Label != "decision" || !ks.Misses[0].Unsure {
		t.Errorf("misses %+v", ks.Misses)
	}
}

// TestExtractionKeyErrors: a bad key is refused with its file, and the
// line or item.
func TestExtractionKeyErrors(t *testing.T) {
	cases := map[string]struct{ src, want string }{
		"syntax":     {"{\n \"items\": [\n  {\"file\": \"a\", \"line\": 1,}\n ]\n}", "bad.json:3:"},
		"type":       {"{\"items\": [{\"file\": \"a\", \"line\": \"one\"}]}", "bad.json: item 1: "},
		"no items":   {`{"description": "x"}`, "no \"items\""},
		"empty":      {`{"items": []}`, "no items"},
		"no line":    {`{"items": [{"file": "a", "label": "none"}]}`, "item 1: "},
		"label":      {`{"items": [{"file": "a", "line": 1, "label": "corection"}]}`, "unknown label \"corection\""},
		"also":       {`{"items": [{"file": "a", "line": 1, "label": "correction", "also": "none"}]}`, "unknown also"},
		"dup":        {`{"items": [{"file": "a", "line": 1, "label": "none"}, {"file": "a", "line": 1, "label": "none"}]}`, "a:1 is also item 1"},
		"escape":     {`{"items": [{"file": "../a", "line": 1, "label": "none"}]}`, "not a path below"},
		"unlabelled": {`{"items": [{"file": "a", "line": 1}]}`, "no item carries"},
		"limit":      {`{"line_limits": {"a": 0}, "items": [{"file": "a", "line": 1, "label": "none"}]}`, "positive number"},
	}
	for name, c := range cases {
		_, _, err := parseKey("bad.json", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, kb.ErrInvalidInput) {
			t.Errorf("%s: err %v, want %q", name, err, c.want)
		}
	}
}

func FuzzParseKey(f *testing.F) {
	f.Add([]byte(handKey))
	f.Add([]byte(`{"items": [{"file": "x", "line": 2, "uuid": "u", "preference": {}, "decision": null}]}`))
	f.Add([]byte(`{"line_limits": {"aider/chat-history.md": 3000}, "items": [{"file": "aider/chat-history.md", "line": 48, "label": "none", "event_line": 49}]}`))
	f.Add([]byte(`{"items": [{"file": "a", "line": 1, "label": "rule", "also": "preference"}]`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		k, _, err := parseKey("fuzz.json", b)
		if err != nil {
			if !errors.Is(err, kb.ErrInvalidInput) || !strings.HasPrefix(err.Error(), "fuzz.json") {
				t.Fatalf("error without the file or kind: %v", err)
			}
			return
		}
		if len(k.Items) == 0 || len(k.Dims) == 0 {
			t.Fatalf("accepted a key without items or types: %+v", k)
		}
		for _, it := range k.Items {
			if it.File == "" || strings.HasPrefix(it.File, "../") {
				t.Fatalf("item file %q", it.File)
			}
			if it.Line > 0 && k.lookup(it.File, it.Line, "") != it {
				t.Fatalf("item %s not found by its line", it.ref())
			}
		}
	})
}

func TestCopyLines(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "in.md")
	if err := os.WriteFile(src, []byte("a\nb\nc\nd"), 0o644); err != nil {
		t.Fatal(err)
	}
	for n, want := range map[int]string{1: "a\n", 3: "a\nb\nc\n", 4: "a\nb\nc\nd", 9: "a\nb\nc\nd"} {
		dst := filepath.Join(dir, "out", "x.md")
		if err := copyLines(src, dst, n); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(dst); string(b) != want {
			t.Errorf("copyLines %d = %q, want %q", n, b, want)
		}
	}
}

// checkConsistent asserts that the figures of a key add up, whatever the
// extractor found: no quality threshold.
func checkConsistent(t *testing.T, ks *KeyScore) {
	t.Helper()
	if len(ks.Sets) == 0 || ks.Sets[0].Name != "all" || ks.Sets[0].Items != ks.Items {
		t.Fatalf("%s: sets %+v", ks.Name, ks.Sets)
	}
	all := ks.Sets[0]
	sum := func(sets []SetScore) (n int) {
		for _, s := range sets {
			n += s.Items
		}
		return
	}
	if sum(ks.BySource) != ks.Items || sum(ks.ByLanguage) != ks.Items || sum(ks.ByFile) != ks.Items {
		t.Errorf("%s: breakdowns do not partition the %d items", ks.Name, ks.Items)
	}
	if len(ks.Sets) == 3 && ks.Sets[1].Items+ks.Sets[2].Items != ks.Items {
		t.Errorf("%s: dev + check items != all", ks.Name)
	}
	misses, wrong := 0, 0
	for _, ts := range all.Types {
		r := ts.Recall
		if r.Found > r.Positives || r.FoundSure > r.PositivesSure || r.PositivesSure > r.Positives || r.FoundSure > r.Found {
			t.Errorf("%s %s: recall counts %+v", ks.Name, ts.Type, r)
		}
		misses += r.Positives - r.Found
		if p := ts.Precision; p != nil {
			if p.Correct > p.Observations || p.CorrectSure > p.JudgedSure || p.JudgedSure > p.Observations || p.CorrectSure > p.Correct {
				t.Errorf("%s %s: precision counts %+v", ks.Name, ts.Type, p)
			}
			if p.Observations != ks.Observations[ts.Type] {
				t.Errorf("%s %s: %d observations scored, %d in the key's files", ks.Name, ts.Type, p.Observations, ks.Observations[ts.Type])
			}
			wrong += p.Observations - p.Correct
		}
	}
	w := Withheld{}
	if ks.Withheld != nil {
		w = *ks.Withheld
	}
	if len(ks.Misses)+w.Misses != misses {
		t.Errorf("%s: %d misses listed + %d withheld, %d counted", ks.Name, len(ks.Misses), w.Misses, misses)
	}
	if len(ks.FalsePositives)+w.FalsePositives != wrong {
		t.Errorf("%s: %d false positives listed + %d withheld, %d counted", ks.Name, len(ks.FalsePositives), w.FalsePositives, wrong)
	}
	if n := all.NoneInCorrection; n != nil && len(ks.NoneInCorrection)+w.NoneInCorrection != n.Lenient {
		t.Errorf("%s: %d none items inside a correction listed + %d withheld, %d counted", ks.Name, len(ks.NoneInCorrection), w.NoneInCorrection, n.Lenient)
	}
	for _, m := range ks.Misses {
		if m.Half == HalfCheck {
			t.Errorf("%s: a CHECK item is listed: %s:%d", ks.Name, m.File, m.Line)
		}
	}
	if _, err := json.Marshal(ks); err != nil {
		t.Fatal(err)
	}
}

// TestExtractionExternalPermissive scores the committed external key over
// the committed transcripts, as a fresh clone can.
func TestExtractionExternalPermissive(t *testing.T) {
	root := testenv.ModuleRoot(t)
	keep := filepath.Join(t.TempDir(), "kbs")
	rep, err := Extraction(context.Background(), ExtractionOptions{
		Keys:  []ExtractionKeyRef{{Path: filepath.Join(root, "eval", "keys", "external-key.json")}},
		KBDir: keep,
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Schema != ExtractionSchema || len(rep.Keys) != 1 || len(rep.Runs) != 1 || len(rep.Skipped) != 0 {
		t.Fatalf("report: %d keys, %d runs, skipped %v", len(rep.Keys), len(rep.Runs), rep.Skipped)
	}
	ks := rep.Keys[0]
	if ks.Files != 4 || len(ks.MissingFiles) != 0 || ks.Items != 95 || len(ks.Sets) != 3 {
		t.Fatalf("files %d (missing %v), items %d, sets %d", ks.Files, ks.MissingFiles, ks.Items, len(ks.Sets))
	}
	if strings.Join(ks.Types, ",") != "correction,rule,preference,decision" {
		t.Errorf("types %v", ks.Types)
	}
	checkConsistent(t, ks)
	if r := rep.Runs[0]; r.Files != 4 || r.Sessions == 0 || r.Records == 0 {
		t.Errorf("run %+v", r)
	}
	// The KB was kept and holds the imported sessions.
	if _, err := os.Stat(filepath.Join(keep, "kb1", "kb", kb.ConfigFile)); err != nil {
		t.Error(err)
	}
}

// TestExtractionSharedKeys scores the corrections key and the
// preferences-and-decisions key over the shared transcripts, in one KB.
func TestExtractionSharedKeys(t *testing.T) {
	key := testenv.Shared(t, "eval", "real-corrections-key.json")
	root := testenv.ModuleRoot(t)
	keep := filepath.Join(t.TempDir(), "kbs")
	rep, err := Extraction(context.Background(), ExtractionOptions{Keys: []ExtractionKeyRef{
		{Path: key}, {Path: filepath.Join(root, "eval", "keys", "shared-prefs-decisions.json")}}, KBDir: keep})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Keys) != 2 || len(rep.Runs) != 1 {
		t.Fatalf("%d keys, %d runs: the two keys share their transcripts", len(rep.Keys), len(rep.Runs))
	}
	cor, pd := rep.Keys[0], rep.Keys[1]
	if cor.Items != 108 || pd.Items != 117 || len(cor.MissingFiles)+len(pd.MissingFiles) != 0 {
		t.Fatalf("items %d and %d", cor.Items, pd.Items)
	}
	for _, ks := range rep.Keys {
		checkConsistent(t, ks)
		if ks.LineLimits["aider/chat-history.md"] != 3000 {
			t.Errorf("%s: line limits %v", ks.Name, ks.LineLimits)
		}
	}
	// The key's own counts (real-corrections-key.md): 27 sure corrections
	// and rules, 49 sure none prose messages.
	all := cor.Sets[0]
	if r := typeScore(t, all, "correction").Recall; r.PositivesSure != 27 {
		t.Errorf("sure corrections %d, want 27", r.PositivesSure)
	}
	if n := all.NoneInCorrection; n.SureOf != 49 {
		t.Errorf("sure none prose %d, want 49", n.SureOf)
	}
	// The aider history was cut to its first 3,000 lines.
	k, err := kb.OpenRoot(filepath.Join(keep, "kb1", "kb"))
	if err != nil {
		t.Fatal(err)
	}
	sessions, err := k.Sessions(kb.SessionsOptions{Agent: "aider"})
	if err != nil || len(sessions) == 0 {
		t.Fatalf("aider sessions: %v %v", sessions, err)
	}
	maxLine := 0
	for _, s := range sessions {
		tr, err := k.TraceShow(s.ID, kb.TraceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range tr.Records {
			maxLine = max(maxLine, r.Source.Line)
		}
	}
	if maxLine == 0 || maxLine > 3000 {
		t.Errorf("aider records reach line %d, want at most 3000", maxLine)
	}
}

// TestExtractionSkipsAbsent: an optional key that is absent, or whose
// transcripts are, is skipped with the reason; a named one is an error.
func TestExtractionSkipsAbsent(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "k.json")
	if err := os.WriteFile(key, []byte(`{"base_dir": "nowhere", "items": [{"file": "a.jsonl", "line": 1, "label": "none"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Extraction(context.Background(), ExtractionOptions{Keys: []ExtractionKeyRef{
		{Path: filepath.Join(dir, "absent.json"), Optional: true}, {Path: key, Optional: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Keys) != 0 || len(rep.Skipped) != 2 || !strings.Contains(rep.Skipped[1].Reason, "none of its 1 transcript files") {
		t.Fatalf("report %+v", rep)
	}
	if _, err := Extraction(context.Background(), ExtractionOptions{Keys: []ExtractionKeyRef{{Path: key}}}); !errors.Is(err, kb.ErrNotFound) {
		t.Errorf("named key without transcripts: %v", err)
	}
	if _, err := Extraction(context.Background(), ExtractionOptions{Keys: []ExtractionKeyRef{{Path: filepath.Join(dir, "absent.json")}}}); err == nil {
		t.Error("named absent key: no error")
	}
}

func TestHalfOf(t *testing.T) {
	for f, want := range map[string]string{
		"transcripts/AlexShchuka__mozgoslav/.aider.chat.history.md": HalfCheck,
		"restricted/Quiago__tripolar-chat/e.jsonl":                  HalfDev,
		"Monotoba__OpenPrintKit/rollout.jsonl":                      HalfDev,
		"claude-code/projects/-Users-dain-x/a.jsonl":                "",
		"__x/a.jsonl": "",
	} {
		if got := halfOf(f); got != want {
			t.Errorf("halfOf(%q) = %q, want %q", f, got, want)
		}
	}
}

// TestKeysSkipReservedRepos checks that no answer key under eval/keys names
// a repository issue 14 reserves for independent evaluation, in its items
// (owner__repo directories) or in its sources.
func TestKeysSkipReservedRepos(t *testing.T) {
	keys, err := filepath.Glob(filepath.Join("keys", "*", "key.json"))
	if err != nil || len(keys) == 0 {
		t.Fatalf("no keys under eval/keys: %v", err)
	}
	for _, k := range keys {
		b, err := os.ReadFile(k)
		if err != nil {
			t.Fatal(err)
		}
		var key struct {
			Items []struct {
				File string `json:"file"`
			} `json:"items"`
		}
		if err := json.Unmarshal(b, &key); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		src, _ := os.ReadFile(filepath.Join(filepath.Dir(k), "SOURCES.md"))
		sources := string(src)
		if i := strings.Index(sources, "## Removed on"); i >= 0 {
			sources = sources[:i] // the record of what was taken out
		}
		for _, r := range ReservedRepos {
			dir := strings.Replace(r, "/", "__", 1) + "/"
			for _, it := range key.Items {
				if strings.HasPrefix(strings.ToLower(it.File), strings.ToLower(dir)) {
					t.Errorf("%s: item of reserved repository %s: %s", k, r, it.File)
					break
				}
			}
			if strings.Contains(strings.ToLower(sources), "| "+strings.ToLower(r)+" |") {
				t.Errorf("%s: SOURCES.md lists reserved repository %s", k, r)
			}
		}
	}
}
