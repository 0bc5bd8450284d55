package redact

import (
	"bytes"
	"encoding/json"
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
