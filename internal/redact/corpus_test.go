package redact

import (
	"path/filepath"
	"testing"

	"github.com/kbmem/kb/internal/redact/redacttest"
)

// The corpus: testdata/redact/secrets with generated fake secrets filled in
// (see redacttest).

type fake = redacttest.Fake
type corpusCase = redacttest.Case

func fakes() map[string]fake { return redacttest.Fakes() }

func repoTestdata(t testing.TB) string {
	t.Helper()
	return filepath.Join("..", "..", "testdata", "redact")
}

func loadSecretCorpus(t testing.TB) ([]corpusCase, map[string]fake) {
	t.Helper()
	cases, fk, err := redacttest.LoadCorpus(filepath.Join(repoTestdata(t), "secrets"))
	if err != nil {
		t.Fatal(err)
	}
	return cases, fk
}
