package redact

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/zricethezav/gitleaks/v8/detect"
)

func newRedactor(t testing.TB) *Redactor {
	t.Helper()
	r, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func redactCase(r *Redactor, c corpusCase) (string, []Finding) {
	if c.JSON {
		b, fs := r.JSON([]byte(c.Text))
		return string(b), fs
	}
	return r.String(c.Text)
}

// TestSecretCorpus: every part of every fake secret is gone.
func TestSecretCorpus(t *testing.T) {
	r := newRedactor(t)
	cases, fk := loadSecretCorpus(t)
	used := map[string]bool{}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			out, fs := redactCase(r, c)
			if c.JSON && !json.Valid([]byte(out)) {
				t.Fatalf("output is not valid JSON:\n%s", out)
			}
			for _, kind := range c.Kinds {
				used[kind] = true
				for _, p := range fk[kind].Parts {
					if strings.Contains(out, p) {
						t.Errorf("%s: secret part %q survived", kind, p)
					}
				}
			}
			t.Logf("findings: %v", fs)
			if testing.Verbose() {
				t.Logf("output:\n%s", out)
			}
		})
	}
	for kind := range fk {
		if !used[kind] {
			t.Errorf("kind %s is not used by any fixture", kind)
		}
	}
	if len(fk) < 15 {
		t.Errorf("corpus has %d kinds of secrets, want at least 15", len(fk))
	}
}

// TestCleanCorpus: ordinary content comes out byte for byte.
func TestCleanCorpus(t *testing.T) {
	r := newRedactor(t)
	dir := filepath.Join(repoTestdata(t), "clean")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out, fs := r.String(string(b))
		if out != string(b) || len(fs) != 0 {
			t.Errorf("%s: clean text redacted, findings %v:\n%s", e.Name(), fs, out)
		}
		// The same text as a tool input.
		in, _ := json.Marshal(map[string]string{"file_path": e.Name(), "content": string(b)})
		jout, fs := r.JSON(in)
		if !bytes.Equal(jout, in) || len(fs) != 0 {
			t.Errorf("%s: clean JSON redacted, findings %v:\n%s", e.Name(), fs, jout)
		}
	}
}

// TestEngineCoversGitleaks: the windowed engine finds every secret that
// gitleaks' own detector finds running each rule over the whole text.
func TestEngineCoversGitleaks(t *testing.T) {
	r := newRedactor(t)
	ref, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	ref.IgnoreGitleaksAllow = true
	cases, _ := loadSecretCorpus(t)
	var texts []string
	for _, c := range cases {
		texts = append(texts, c.Text)
	}
	if sharedDir() != "" {
		for _, it := range realItems(t, "claude-code", 300<<10) {
			texts = append(texts, it.data)
		}
	}
	for _, text := range texts {
		got := map[string]bool{}
		for _, sec := range r.detect(text) {
			got[sec.value] = true
		}
		for _, f := range ref.DetectString(text) {
			v := strings.Trim(cmp.Or(f.Secret, f.Match), "\r\n")
			if !got[v] {
				t.Errorf("gitleaks rule %s finds %.20q... that the engine misses", f.RuleID, v)
			}
		}
	}
}

func TestStringBasics(t *testing.T) {
	r := newRedactor(t)
	tok := "ghp_Zx81KqW0pLm3Nf7Rt2Yv9Hc4Jd6Bs5Ga1Eu0"
	in := "token " + tok + "\nagain: " + tok + " and a prefix-" + tok + "-suffix\n"
	out, fs := r.String(in)
	if strings.Contains(out, tok) {
		t.Fatalf("secret survived: %s", out)
	}
	if n := strings.Count(out, "[REDACTED:github-pat]"); n != 3 {
		t.Errorf("want 3 markers, got %d: %s", n, out)
	}
	want := []Finding{{Rule: "github-pat", Line: 1}, {Rule: "github-pat", Line: 2}}
	if !slices.Equal(fs, want) {
		t.Errorf("findings %v, want %v", fs, want)
	}
	// Idempotent: a redacted text has nothing left to redact.
	again, fs2 := r.String(out)
	if again != out || len(fs2) != 0 {
		t.Errorf("second pass changed the text: %s (%v)", again, fs2)
	}
	// Short secrets are removed where their rule matched, not everywhere.
	out, _ = r.String("url postgres://user:pass@db/app; pass the password along")
	if want := "url postgres://user:[REDACTED:kb-url-password]@db/app; pass the password along"; out != want {
		t.Errorf("got  %q\nwant %q", out, want)
	}
	if out, fs := r.String(""); out != "" || fs != nil {
		t.Errorf("empty input: %q %v", out, fs)
	}
}

func TestJSON(t *testing.T) {
	r := newRedactor(t)
	tok := "glpat-" + "Ab1_Cd2-Ef3_Gh4-Ij5K"
	pem := "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oac9wLf8rYrXoAoGCCqGSM49\nAwEHoUQDQgAE0rF2mPq0E1qY3s2X9Q4zKp8yXk9aT5vR7cW1dJ2fB6nL0mY4uH3g\nZ8sV1xN2bT5cR7dW9eY3fA==\n-----END EC PRIVATE KEY-----\n"
	in, _ := json.Marshal(map[string]any{
		"file_path": "/x/key.pem",
		"content":   pem,
		"nested":    []any{map[string]string{"DB_PASSWORD": "hunter2hunter2"}, 42, true, nil, "token " + tok},
		"html":      "<a href=\"x\">&</a>",
	})
	out, fs := r.JSON(in)
	if !json.Valid(out) {
		t.Fatalf("invalid JSON out: %s", out)
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, secret := range []string{tok, "hunter2hunter2", "MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oac9wLf8rYrXoAoGCCqGSM49", "Z8sV1xN2bT5cR7dW9eY3fA=="} {
		if strings.Contains(s, secret) {
			t.Errorf("secret %q survived: %s", secret, s)
		}
	}
	if v["file_path"] != "/x/key.pem" || v["html"] != "<a href=\"x\">&</a>" {
		t.Errorf("untouched values changed: %v", v)
	}
	if len(fs) == 0 {
		t.Error("no findings")
	}
	// Untouched documents come back byte for byte, formatting included.
	plain := []byte("{ \"a\" : [1, 2.5e3, \"\\u00e9t\\u00e9\", null],\n  \"b\": {\"c\": \"d\"} }")
	if got, fs := r.JSON(plain); !bytes.Equal(got, plain) || fs != nil {
		t.Errorf("clean JSON changed: %s %v", got, fs)
	}
	// Invalid JSON is redacted as text.
	bad := []byte(`{"command": "echo ` + tok + `"`)
	got, fs := r.JSON(bad)
	if strings.Contains(string(got), tok) || len(fs) != 1 {
		t.Errorf("invalid JSON not redacted as text: %s %v", got, fs)
	}
}

func TestOptions(t *testing.T) {
	off, err := New(Options{Disabled: true})
	if err != nil {
		t.Fatal(err)
	}
	in := "AWS key AKIAIOSFODNN7ABCDEFG"
	if out, fs := off.String(in); out != in || fs != nil {
		t.Errorf("disabled redactor changed text: %s", out)
	}
	if out, _ := off.JSON([]byte(`"x"`)); string(out) != `"x"` {
		t.Errorf("disabled redactor changed JSON: %s", out)
	}

	r, err := New(Options{Extra: []Rule{
		{ID: "acme-internal", Regex: `\bacme_[a-z0-9]{12}\b`, Keywords: []string{"ACME_"}},
		{ID: "ticket-pin", Regex: `pin:\s*(\d{6})`, SecretGroup: 1},
	}})
	if err != nil {
		t.Fatal(err)
	}
	out, fs := r.String("deploy with acme_0a1b2c3d4e5f\nthe pin: 493817 ok")
	if want := "deploy with [REDACTED:acme-internal]\nthe pin: [REDACTED:ticket-pin] ok"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
	if want := []Finding{{Rule: "acme-internal", Line: 1}, {Rule: "ticket-pin", Line: 2}}; !slices.Equal(fs, want) {
		t.Errorf("findings %v, want %v", fs, want)
	}

	for _, bad := range []Rule{
		{ID: "broken", Regex: `(unclosed`},
		{ID: "", Regex: `x+`},
		{ID: "nothing", Regex: ``},
		{ID: "empty-match", Regex: `x*`},
		{ID: "group", Regex: `a(b)`, SecretGroup: 2},
		{ID: "github-pat", Regex: `ghp_x+`},
		{ID: "bad]id", Regex: `x+`},
	} {
		_, err := New(Options{Extra: []Rule{bad}})
		if !errors.Is(err, ErrRule) {
			t.Errorf("rule %+v: err %v, want ErrRule", bad, err)
			continue
		}
		if bad.ID != "" && !strings.Contains(err.Error(), bad.ID) {
			t.Errorf("error %q does not name rule %q", err, bad.ID)
		}
	}
}

// TestDeterministicAndConcurrent: the same input gives the same output
// from many goroutines sharing one Redactor.
func TestDeterministicAndConcurrent(t *testing.T) {
	r := newRedactor(t)
	cases, _ := loadSecretCorpus(t)
	want := make([]string, len(cases))
	wantF := make([][]Finding, len(cases))
	for i, c := range cases {
		want[i], wantF[i] = redactCase(r, c)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(cases))
	for range 8 {
		wg.Go(func() {
			for i, c := range cases {
				got, fs := redactCase(r, c)
				if got != want[i] || !slices.Equal(fs, wantF[i]) {
					errs <- c.Name
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for name := range errs {
		t.Errorf("%s: output differs between runs", name)
	}
}

// TestProjectRulesNeeded shows why kb adds its own rules: these kinds of
// secret in the corpus survive gitleaks' default rules alone.
func TestProjectRulesNeeded(t *testing.T) {
	ref, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	ref.IgnoreGitleaksAllow = true
	cases, fk := loadSecretCorpus(t)
	missed := map[string]bool{}
	for _, c := range cases {
		text := c.Text
		for _, f := range ref.DetectString(text) {
			if v := strings.Trim(cmp.Or(f.Secret, f.Match), "\r\n"); v != "" {
				text = strings.ReplaceAll(text, v, "[X]")
			}
		}
		for _, kind := range c.Kinds {
			for _, p := range fk[kind].Parts {
				if strings.Contains(text, p) {
					missed[kind] = true
				}
			}
		}
	}
	var got []string
	for k := range missed {
		got = append(got, k)
	}
	slices.Sort(got)
	t.Logf("kinds gitleaks alone misses: %v", got)
	for _, want := range []string{
		"db-url", "short-db-url", "url-token", // kb-url-password
		"env-password", "weak-env-password", "env-secret-key", // kb-env-secret
		"bearer-token-2",        // kb-auth-header
		"truncated-private-key", // kb-private-key
		"google-api-key",        // followed by a comma: looseEnds
	} {
		if !missed[want] {
			t.Errorf("gitleaks alone now catches %s: the project rule for it may be dropped", want)
		}
	}
}
