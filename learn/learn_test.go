package learn

import (
	"bytes"
	"testing"

	"github.com/kbmem/kb/library"
)

func TestFactSentence(t *testing.T) {
	for in, want := range map[string]string{
		"use pnpm": "Use pnpm.",
		"Do not mock completion. Mock the httpx library instead.": "Do not mock completion; mock the httpx library instead.",
		"  spaced\n out  text ":                                   "Spaced out text.",
		"Ends with colon:":                                        "Ends with colon.",
		"Keep `API.Call` stable. NASA rocks":                      "Keep `API.Call` stable; NASA rocks.",
	} {
		if got := factSentence(in); got != want {
			t.Errorf("factSentence(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNormalizeAndCompare(t *testing.T) {
	a, b := normalizeFact("Never force-push to main."), normalizeFact("Do not force push to main")
	if !nearDuplicate(a, b) {
		t.Error("never/do not should be the same polarity")
	}
	if contradicts(normalizeFact("Use tabs for indentation."), normalizeFact("Do not use tabs for indentation.")) == "" {
		t.Error("polarity conflict missed")
	}
	if contradicts(normalizeFact("Use tabs for indentation."), normalizeFact("Don't use tabs for indentation.")) == "" {
		t.Error("polarity conflict missed when the negation is a contraction")
	}
	if contradicts(normalizeFact("Use pnpm for scripts."), normalizeFact("Use Go for the CLI tools.")) != "" {
		t.Error("unrelated options reported as a conflict")
	}
}

// FuzzParseLearnIndex: any input either fails with an error or parses and
// renders back to JSON that parses to the same facts.
func FuzzParseLearnIndex(f *testing.F) {
	for _, s := range []string{`{}`, `{"entries":[]}`, `{"entries":[{"fact":"a","x":[1]}],"k":null}`, `{"entries":null}`,
		`[`, `{"entries":[1]}`, `{"a":1,"a":2}`, `{"entries":[{"fact":"<b>"}]} x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ix, err := parseIndex(b)
		if err != nil {
			return
		}
		out, err := ix.render([]Entry{{Fact: "f", SourceSession: "s", Date: "2026-01-01", Category: CategoryDecision}})
		if err != nil {
			t.Fatalf("render: %v", err)
		}
		ix2, err := parseIndex(out)
		if err != nil {
			t.Fatalf("rendered index does not parse: %v\n%s", err, out)
		}
		if len(ix2.facts) != len(ix.facts)+1 {
			t.Fatalf("%d facts, want %d", len(ix2.facts), len(ix.facts)+1)
		}
	})
}

// FuzzLearnSection: whatever the target holds, either the markers are
// rejected or the rendered target keeps every byte outside the section.
func FuzzLearnSection(f *testing.F) {
	for _, s := range []string{"", "# x\n", "a\n" + Begin + "\n- b\n" + End + "\nc", End + Begin, Begin + End, "no newline"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sec, found, err := library.FindBlock(b, Block)
		if err != nil {
			return
		}
		base := &baseline{target: b, targetExists: true, block: sec, hasBlock: found}
		out, err := base.renderTarget([]Entry{{Fact: "New fact.", Category: CategoryConvention}})
		if err != nil {
			t.Fatalf("render: %v", err)
		}
		if found {
			begin, end := bytes.Index(b, []byte(Begin)), bytes.Index(b, []byte(End))+len(End)
			if !bytes.HasPrefix(out, b[:begin]) || !bytes.HasSuffix(out, b[end:]) {
				t.Fatalf("bytes outside the section changed:\n%q\n%q", b, out)
			}
		} else if !bytes.HasPrefix(out, b) {
			t.Fatalf("existing text changed:\n%q\n%q", b, out)
		}
		if _, _, err := library.FindBlock(out, Block); err != nil {
			t.Fatalf("rendered target has bad markers: %v", err)
		}
	})
}
