package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	sx "github.com/kbmem/kb/internal/secrets"
	"strings"
	"sync"
	"testing"
)

var (
	fuzzOnce sync.Once
	fuzzR    *Redactor
)

func fuzzRedactor(t testing.TB) *Redactor {
	fuzzOnce.Do(func() {
		r, err := New(Options{})
		if err != nil {
			t.Fatal(err)
		}
		fuzzR = r
	})
	return fuzzR
}

func fuzzSeeds(f *testing.F) []string {
	seeds := []string{
		"",
		"plain prose with a key and a token, nothing secret.",
		"DB_PASSWORD=hunter2hunter2\nexport SECRET_KEY=\"x\"",
		"postgres://user:pass@host/db",
		"Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345",
		"-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n",
		"-----BEGIN RSA PRIVATE KEY-----",
		"ey",
		"sk\xff\xfeghp_\x00",
		"ghp_Zx81KqW0pLm3Nf7Rt2Yv9Hc4Jd6Bs5Ga1Eu0ghp_Zx81KqW0pLm3Nf7Rt2Yv9Hc4Jd6Bs5Ga1Eu0",
		"İİİİ key= İİİİİİİİİİİİ",
	}
	cases, _ := loadSecretCorpus(f)
	for _, c := range cases {
		seeds = append(seeds, c.Text)
	}
	return seeds
}

func FuzzString(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := fuzzRedactor(t)
		out, fs := r.String(s)
		if len(fs) == 0 && out != s {
			t.Fatalf("output changed without findings: %q -> %q", s, out)
		}
		for _, x := range fs {
			if x.Line < 1 || x.Rule == "" {
				t.Fatalf("bad finding %+v", x)
			}
		}
	})
}

func FuzzJSON(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		b, _ := json.Marshal(map[string]any{"content": s, "list": []any{s, 1, nil}})
		f.Add(b)
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"a":"\u0000\ud800 \\\"","b":[[[[]]]],"c":-1.5e-3}`))
	f.Add([]byte(`"DB_PASSWORD=hunter2hunter2"`))
	f.Fuzz(func(t *testing.T, in []byte) {
		r := fuzzRedactor(t)
		orig := bytes.Clone(in)
		out, fs := r.JSON(in)
		if !bytes.Equal(in, orig) {
			t.Fatal("input was modified")
		}
		if json.Valid(in) && !json.Valid(out) {
			t.Fatalf("valid JSON in, invalid out:\n%q\n%q", in, out)
		}
		if len(fs) == 0 && !bytes.Equal(out, in) {
			t.Fatalf("output changed without findings: %q -> %q", in, out)
		}
	})
}

// FuzzMemory learns a value and redacts a text with it, live and rebuilt
// from what it saved: no panic, the same output both ways, no occurrence of
// the value left outside a marker, and JSON kept valid.
func FuzzMemory(f *testing.F) {
	v := memoryValue()
	for name, text := range memoryCases(v) {
		f.Add(v, text+" "+name)
	}
	f.Add("hunter22x", "HUNTER22X hunter22x\nhunter\n22x")
	f.Add("abcdefghijklmnop", `{"a":"abcdefghijklmnop","b":["ABCDEFGHIJKLMNOP"]}`)
	f.Add("İİİİİİİİ", "xİİİİİİİİy")
	f.Add("\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8", "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8")
	key := []byte("fuzz key fuzz key fuzz key fuzz!")
	f.Fuzz(func(t *testing.T, v, text string) {
		m := NewMemory(key, nil)
		learned := m.Learn([]Secret{{Value: v, Rule: "fuzz"}})
		out, n := m.String(text)
		if n == 0 && out != text {
			t.Fatalf("changed without a replacement: %q -> %q", text, out)
		}
		again, n2 := NewMemory(key, m.Saved()).String(text)
		if again != out || n2 != n {
			t.Fatalf("saved memory differs:\n live  %q (%d)\n saved %q (%d)", out, n, again, n2)
		}
		lv := string(sx.ASCIILower(v))
		if learned && !strings.Contains(Marker("fuzz"), lv) && strings.Contains(string(sx.ASCIILower(markerRE.ReplaceAllString(out, ""))), lv) {
			t.Fatalf("value %q left in %q", v, out)
		}
		if b, _ := json.Marshal(map[string]string{"k": text}); json.Valid(b) {
			if jo, _ := m.JSON(b); !json.Valid(jo) {
				t.Fatalf("invalid JSON out: %q", jo)
			}
		}
	})
}

// FuzzWrappedAndDecoded drives the line-joining and base64 passes with
// texts made of wrapped and encoded pieces.
func FuzzWrappedAndDecoded(f *testing.F) {
	fk := fakes()
	ant := fk["anthropic-api-key"].Text
	f.Add(foldText("KEY="+ant+"\nNEXT=1\n", 64), 64)
	f.Add(base64.StdEncoding.EncodeToString([]byte("GITHUB_TOKEN="+fk["github-pat"].Text+"\n")), 76)
	f.Add(strings.Repeat("A", 200), 76)
	f.Add("     1→"+strings.Repeat("b", 64)+"\n     2→"+strings.Repeat("c", 10), 64)
	f.Fuzz(func(t *testing.T, s string, w int) {
		if w < 1 || w > 1000 {
			w = 64
		}
		r := fuzzRedactor(t)
		for _, in := range []string{s, foldText(s, w), base64.StdEncoding.EncodeToString([]byte(s))} {
			out, fs := r.String(in)
			if len(fs) == 0 && out != in {
				t.Fatalf("output changed without findings: %q -> %q", in, out)
			}
		}
	})
}
