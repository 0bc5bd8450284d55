package redact

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	sx "github.com/kbmem/kb/internal/secrets"
	"net/url"
	"strings"
	"testing"
)

// memoryCases are texts that hold a remembered value v in one of its
// forms, with no context any rule could use.
func memoryCases(v string) map[string]string {
	s256 := sha256.Sum256([]byte(v))
	s1 := sha1.Sum([]byte(v + "\n"))
	m5 := md5.Sum([]byte(v))
	s512 := sha512.Sum512([]byte(v))
	basic := base64.StdEncoding.EncodeToString([]byte("admin:" + v))
	env := base64.StdEncoding.EncodeToString([]byte("HOST=db\nVALUE=" + v + "\nPORT=5432\n"))
	return map[string]string{
		"repeated":       "Done: the admin account uses " + v + ", tell the team.",
		"upper case":     "SHOUTED: " + strings.ToUpper(v),
		"base64":         "data:\n  v: " + base64.StdEncoding.EncodeToString([]byte(v)) + "\n",
		"base64 url":     "t=" + base64.RawURLEncoding.EncodeToString([]byte(v)),
		"base64 inside":  "Authorization: Basic " + basic[:10] + " and " + basic,
		"base64 shifted": "config: " + env,
		"sha256":         hex.EncodeToString(s256[:]) + "  -",
		"sha1 of line":   "sha1 " + hex.EncodeToString(s1[:]),
		"md5 upper":      "MD5=" + strings.ToUpper(hex.EncodeToString(m5[:])),
		"sha512":         hex.EncodeToString(s512[:]),
		"url escaped":    "https://x.test/login?pw=" + url.QueryEscape(v) + "&next=/",
		"wrapped at 64":  sx.WrapAt(strings.Repeat(v, 10), 64),
	}
}

func memoryValue() string { return "Zq8#kLm2" + "Vx9&pTw4" }

// leftovers returns the forms of v that survive in out.
func leftovers(out, v string, c string) []string {
	var left []string
	s256 := sha256.Sum256([]byte(v))
	for _, f := range []string{v, base64.StdEncoding.EncodeToString([]byte(v))[:12], hex.EncodeToString(s256[:])[:16], url.QueryEscape(v)} {
		if strings.Contains(strings.ToLower(out), strings.ToLower(f)) {
			left = append(left, f)
		}
	}
	if c == "base64 inside" || c == "base64 shifted" {
		// The encoded text around the value goes with it.
		if strings.Count(out, "[REDACTED:") == 0 {
			left = append(left, "the base64 run")
		}
	}
	return left
}

func TestMemory(t *testing.T) {
	v := memoryValue()
	key := NewKey()
	m := NewMemory(key, nil)
	if !m.Learn([]Secret{{Value: v, Rule: "kb-env-secret"}}) {
		t.Fatal("nothing learned")
	}
	if m.Learn([]Secret{{Value: v, Rule: "kb-env-secret"}}) {
		t.Error("learned the same value twice")
	}
	// A memory rebuilt from what was saved finds the same forms.
	saved := m.Saved()
	again := NewMemory(key, saved)
	for name, text := range memoryCases(v) {
		for which, mm := range map[string]*Memory{"live": m, "saved": again} {
			out, n := mm.String(text)
			if n == 0 {
				t.Errorf("%s (%s): nothing replaced in %q", name, which, text)
				continue
			}
			if left := leftovers(out, v, name); len(left) > 0 {
				t.Errorf("%s (%s): %v survived: %q", name, which, left, out)
			}
			if !strings.Contains(out, "[REDACTED:kb-env-secret]") {
				t.Errorf("%s (%s): marker missing: %q", name, which, out)
			}
		}
	}
	// Nothing saved holds the value or a form that gives it away.
	b, _ := json.Marshal(saved)
	for _, f := range []string{v, strings.ToLower(v), base64.StdEncoding.EncodeToString([]byte(v))[:10], url.QueryEscape(v)} {
		if strings.Contains(string(b), f) {
			t.Errorf("saved entries hold %q", f)
		}
	}
	// A memory with another key matches nothing.
	if out, n := NewMemory(NewKey(), saved).String("uses " + v); n != 0 {
		t.Errorf("another key matched: %q", out)
	}
	// Text without the value is left alone.
	clean := "nothing to see: sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	for _, mm := range []*Memory{m, again} {
		if out, n := mm.String(clean); n != 0 || out != clean {
			t.Errorf("clean text changed: %q", out)
		}
	}
}

func TestMemoryRememberable(t *testing.T) {
	m := NewMemory(NewKey(), nil)
	for _, v := range []string{"", "pass", "hunter2", "password", "changeme", "12345678", "abcdefgh", "${DB_PASSWORD}"} {
		if m.Learn([]Secret{{Value: v, Rule: "r"}}) {
			t.Errorf("%q remembered", v)
		}
	}
	if !m.Empty() {
		t.Error("memory not empty")
	}
	for _, v := range []string{"hunter22x", "abcdefghijkl", "Tr0ub4dor&3"} {
		if !m.Learn([]Secret{{Value: v, Rule: "r"}}) {
			t.Errorf("%q not remembered", v)
		}
	}
	// A key block is remembered whole and line by line.
	pem := fakes()["rsa-private-key"]
	m.Learn([]Secret{{Value: pem.Text, Rule: "private-key"}})
	out, _ := m.String("head -2 key.pem:\n" + pem.Parts[3] + "\n")
	if strings.Contains(out, pem.Parts[3]) {
		t.Errorf("a line of a remembered key block survived: %s", out)
	}
}

func TestMemoryJSON(t *testing.T) {
	v := memoryValue()
	m := NewMemory(NewKey(), nil)
	m.Learn([]Secret{{Value: v, Rule: "kb-json-secret"}})
	in, _ := json.Marshal(map[string]any{"command": "echo '" + v + "' | sha256sum", v: []any{1, "x " + v}, "other": "<keep & this>"})
	out, n := m.JSON(in)
	var back map[string]any
	if n != 3 || json.Unmarshal(out, &back) != nil || strings.Contains(string(out), v) || back["other"] != "<keep & this>" {
		t.Errorf("JSON: %d replaced: %s", n, out)
	}
	if out, n := m.JSON([]byte(`{"a":"b"}`)); n != 0 || string(out) != `{"a":"b"}` {
		t.Errorf("clean JSON changed: %s", out)
	}
}

func TestRedactReportsSecrets(t *testing.T) {
	r := newRedactor(t)
	pat := fakes()["github-fine-grained-pat"].Text
	enc := base64.StdEncoding.EncodeToString([]byte(pat))
	out, fs, found := r.Redact("kubectl get secret -o jsonpath='{.data.token}'\n" + enc + "\n")
	if strings.Contains(out, enc) || len(fs) == 0 {
		t.Errorf("base64 of a token survived: %s", out)
	}
	var got []string
	for _, s := range found {
		got = append(got, s.Value)
	}
	if !strings.Contains(strings.Join(got, "\n"), pat) {
		t.Errorf("the decoded token is not reported for memory: %v", found)
	}
	// The decoded value is reported even when the run is all the text.
	if _, _, found := r.Redact(enc); len(found) < 2 {
		t.Errorf("found %v", found)
	}
}
