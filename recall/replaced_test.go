package recall

import (
	"slices"
	"testing"
)

func TestReplacedNames(t *testing.T) {
	if n := replacedRE.RE().NumSubexp(); n != len(replacedSentences) {
		t.Fatalf("replacedRE has %d groups for %d sentences: each must have one", n, len(replacedSentences))
	}
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"we moved apps/api from jest to vitest last week", []string{"jest"}},
		{"we migrated the frontend off moment to dayjs", []string{"moment"}},
		{"We switched away from `axios` to plain fetch.", []string{"axios"}},
		{"I replaced `request` with got in the crawler", []string{"request"}},
		{"I replaced node-fetch with undici", []string{"node-fetch"}},
		{"I replaced request with got in the crawler", nil},
		{"jest.config.ts is gone, so that script won't find anything", []string{"jest.config.ts"}},
		{"the ObservableObject/@Published rule is gone, use @Observable", []string{"ObservableObject", "@Published"}},
		{"forget what I said about jest: vi.fn() now", []string{"jest"}},
		{"we no longer use lodash anywhere", []string{"lodash"}},
		{"we don't use enzyme anymore, it's all RTL", []string{"enzyme"}},
		{"kotlin-kapt artık yok, hepsi ksp ile", []string{"kotlin-kapt"}},
		{"kapt artık yok, hepsi ksp ile", nil},
		{"ya no usamos moment, usa date-fns", []string{"moment"}},
		{"migramos de Jest para Vitest no mês passado", []string{"Jest"}},
		{"wir haben von Karma auf Vitest umgestellt", []string{"Karma"}},
		{"on n'utilise plus moment, prends dayjs", []string{"moment"}},
		{"we moved @tanstack/react-query v4 to v5", nil}, // no "from"
		{"we switched from @reduxjs/toolkit to zustand", []string{"@reduxjs/toolkit"}},
		// Not a name of code: versions, places, pronouns, plain nouns.
		{"forget what I said about iOS 16", nil},
		{"we moved it from there to the shared folder", nil},
		{"we migrated from staging to prod yesterday", nil},
		{"the old setup is gone", nil},
		{"the navigation section is gone", nil},
		{"the links are gone", nil},
		{"I replaced the links with a single button", nil},
		{"`moment` is gone, use dayjs", []string{"moment"}},
		{"we moved apps/api over to vitest on Monday", nil},
		{"I changed the port from http to https", nil},
	} {
		if got := replacedNames(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("replacedNames(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// A name the project moved away from is prohibited in its code forms; the
// bare word only when no prose writes it.
func TestReplacedSignatures(t *testing.T) {
	sigs := signatures("we moved from jest to vitest, jest.config.ts is gone. use vi.fn()")
	has := func(text string, prohibited bool) bool {
		return slices.ContainsFunc(sigs, func(s signature) bool { return s.text == text && s.prohibited == prohibited })
	}
	for _, f := range []string{"jest.", "jest()", "'jest'", `"jest"`, "jest.config.ts"} {
		if !has(f, true) {
			t.Errorf("signatures lack the prohibited %q: %+v", f, sigs)
		}
	}
	if has("jest", true) {
		t.Errorf("the bare word jest is prohibited: %+v", sigs)
	}
	if !has("vi.fn()", false) {
		t.Errorf("the advised vi.fn() is missing: %+v", sigs)
	}
	// Named as advised by its clause, and then as gone: prohibited.
	sigs = signatures("the ObservableObject/@Published rule is gone — new view models use the @Observable macro")
	if !has("ObservableObject", true) || !has("@Published", true) || !has("@Observable", false) {
		t.Errorf("ObservableObject/@Published: %+v", sigs)
	}
	// In code: jest.mock(...) holds a prohibited form; vi.mock(...) none.
	for _, tc := range []struct {
		code string
		want bool
	}{
		{"jest.mock('../carriers/transvia.client');", true},
		{"import { describe } from 'jest';", true},
		{`"devDependencies": { "jest": "^29.7.0" }`, true},
		{"vi.mock('../carriers/transvia.client');", false},
		{"// a jest of a comment", false},
	} {
		in := false
		for _, s := range signatures("we moved from jest to vitest") {
			in = in || s.prohibited && containsSpan(tc.code, s.text)
		}
		if in != tc.want {
			t.Errorf("%q holds a prohibited form: %v, want %v", tc.code, in, tc.want)
		}
	}
}
