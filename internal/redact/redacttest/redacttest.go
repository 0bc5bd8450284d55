// Package redacttest generates the fake secrets of kb's redaction corpus at
// test time (so the repository never holds anything a secret scanner would
// flag) and fills the placeholders of testdata/redact/secrets with them. It
// is shared by the redaction tests and the import tests.
package redacttest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// A Fake is one generated secret: the text that fills its placeholder and
// the parts of it that must not survive redaction.
type Fake struct {
	Text  string
	Parts []string
}

const (
	upper    = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lower    = "abcdefghijklmnopqrstuvwxyz"
	digits   = "0123456789"
	alnum    = upper + lower + digits
	hexchars = "0123456789abcdef"
	b64chars = alnum + "+/"
	urlchars = alnum + "-_"
)

type gen struct{ r *rand.Rand }

func (g gen) str(n int, charset string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = charset[g.r.IntN(len(charset))]
	}
	return string(b)
}

func whole(s string) Fake { return Fake{Text: s, Parts: []string{s}} }

// pem makes a private key block whose body is random base64 of the usual
// line length; every body line must be removed.
func (g gen) pem(label string, lines int, prefix func(i int) string) Fake {
	var b strings.Builder
	var parts []string
	if prefix == nil {
		b.WriteString("-----BEGIN " + label + " PRIVATE KEY-----\n")
	}
	for i := range lines {
		n := 64
		if i == lines-1 {
			n = 36
		}
		line := g.str(n, b64chars)
		parts = append(parts, line)
		if prefix != nil {
			b.WriteString(prefix(i))
		}
		b.WriteString(line)
		if i < lines-1 || prefix == nil {
			b.WriteString("\n")
		}
	}
	if prefix == nil {
		b.WriteString("-----END " + label + " PRIVATE KEY-----")
	}
	return Fake{Text: b.String(), Parts: parts}
}

// fakes generates one secret of each kind the corpus uses, from a fixed
// seed: the same run always sees the same secrets.
func Fakes() map[string]Fake {
	g := gen{rand.New(rand.NewPCG(20250704, 42))}
	b64url := func(v any) string {
		j, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(j)
	}
	jwt := b64url(map[string]string{"alg": "HS256", "typ": "JWT"}) + "." +
		b64url(map[string]any{"sub": "user_8812", "name": "Deploy Bot", "iat": 1751630400, "exp": 1751716800, "scope": "read write"}) + "." +
		g.str(43, urlchars)
	dbPass := g.str(18, alnum)
	urlToken := g.str(40, alnum)
	envPass := g.str(6, alnum) + "#" + g.str(6, alnum) + "!" + g.str(4, alnum)
	m := map[string]Fake{
		"aws-access-key-id":       whole("AKIA" + g.str(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")),
		"aws-secret-access-key":   whole(g.str(40, b64chars)),
		"github-pat":              whole("ghp_" + g.str(36, alnum)),
		"github-fine-grained-pat": whole("github_pat_11" + g.str(20, upper+digits) + "_" + g.str(59, alnum)),
		"gitlab-pat":              whole("glpat-" + g.str(20, urlchars)),
		"slack-bot-token":         whole("xoxb-" + g.str(13, digits) + "-" + g.str(13, digits) + "-" + g.str(24, alnum)),
		"slack-webhook":           whole("https://hooks.slack.com/services/T0" + g.str(8, upper+digits) + "/B0" + g.str(8, upper+digits) + "/" + g.str(24, alnum)),
		"stripe-live-key":         whole("sk_live_51" + g.str(97, alnum)),
		"openai-api-key":          whole("sk-proj-" + g.str(74, urlchars) + "T3BlbkFJ" + g.str(74, urlchars)),
		"anthropic-api-key":       whole("sk-ant-api03-" + g.str(93, urlchars) + "AA"),
		"google-api-key":          whole("AIza" + g.str(35, urlchars)),
		"npm-token":               whole("npm_" + g.str(36, alnum)),
		"pypi-token":              whole("pypi-AgEIcHlwaS5vcmc" + g.str(70, urlchars)),
		"sendgrid-api-key":        whole("SG." + g.str(22, urlchars) + "." + g.str(43, urlchars)),
		"twilio-api-key":          whole("SK" + g.str(32, hexchars)),
		"huggingface-token":       whole("hf_" + g.str(34, upper+lower)),
		"jwt":                     whole(jwt),
		"bearer-token":            whole(g.str(40, alnum+"-._")),
		"bearer-token-2":          whole(g.str(32, hexchars)),
		"generic-api-key":         whole(g.str(32, alnum)),
		"yaml-api-key":            whole(g.str(28, alnum)),
		"env-password":            whole(envPass),
		"env-secret-key":          whole(g.str(50, alnum+"!@%^*()-_=+")),
		"weak-env-password":       whole("hunter2hunter2"),
		"url-token":               whole(urlToken),
		"db-url":                  {Text: "postgres://billing:" + dbPass + "@db.internal:5432/billing?sslmode=require", Parts: []string{dbPass}},
		"short-db-url":            {Text: "postgres://user:pass@host:5432/app", Parts: []string{"user:pass@"}},
		"rsa-private-key":         g.pem("RSA", 25, nil),
		"ec-private-key":          g.pem("EC", 3, nil),
		"openssh-private-key":     g.pem("OPENSSH", 6, nil),
	}
	tr := g.pem("RSA", 4, nil)
	tr.Text = tr.Text[:strings.Index(tr.Text, "-----END")]
	m["truncated-private-key"] = tr
	m["rsa-private-key-numbered"] = g.pem("RSA", 26, func(i int) string { return fmt.Sprintf("%6d→", i+2) })
	return m
}

var placeholder = regexp.MustCompile(`\{\{([a-z0-9-]+)\}\}`)

// corpusCase is one rendered fixture of testdata/redact/secrets.
type Case struct {
	Name  string
	JSON  bool
	Text  string
	Kinds []string
}

// LoadCorpus reads the fixtures of dir (testdata/redact/secrets) and fills
// their {{kind}} placeholders with generated secrets. JSON fixtures get
// JSON-escaped secrets and must stay valid JSON.
func LoadCorpus(dir string) ([]Case, map[string]Fake, error) {
	fk := Fakes()
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("read corpus: %w", err)
	}
	var out []Case
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, nil, err
		}
		c := Case{Name: e.Name(), JSON: strings.HasSuffix(e.Name(), ".json")}
		var bad error
		c.Text = placeholder.ReplaceAllStringFunc(string(b), func(ph string) string {
			kind := ph[2 : len(ph)-2]
			f, ok := fk[kind]
			if !ok {
				bad = fmt.Errorf("%s: unknown placeholder %s", e.Name(), ph)
				return ph
			}
			if !slices.Contains(c.Kinds, kind) {
				c.Kinds = append(c.Kinds, kind)
			}
			if c.JSON {
				q, _ := json.Marshal(f.Text)
				return string(q[1 : len(q)-1])
			}
			return f.Text
		})
		if bad != nil {
			return nil, nil, bad
		}
		if c.JSON && !json.Valid([]byte(c.Text)) {
			return nil, nil, fmt.Errorf("%s: rendered fixture is not valid JSON", e.Name())
		}
		out = append(out, c)
	}
	return out, fk, nil
}
