package textutil

import (
	"slices"
	"testing"
)

func TestRequiredLiterals(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{`(?i)\bdrop\s+column\b`, []string{"column"}},
		{`\bconsole\.(log|debug|trace)\(`, []string{"console.debug(", "console.log(", "console.trace("}},
		{`@ts-(ignore|nocheck|expect-error)`, []string{"@ts-expect-error", "@ts-ignore", "@ts-nocheck"}},
		{`\bdebugger;`, []string{"debugger;"}},
		// Parsed as drop(?:_table|Table): the prefix joined back, the
		// case kept where the pattern has it.
		{`drop_table|dropTable`, []string{"dropTable", "drop_table"}},
		{`(?i)drop_table|dropTable`, []string{"drop_table", "droptable"}},
		{`(?m)^\s*(?:puts|pp)\s`, []string{"pp", "puts"}},
		{`\bRemoveField\(`, []string{"RemoveField("}},
		{`(?i)\bselect\s+\*\s+from\b`, []string{"select"}},
		{`colou?r`, []string{"color", "colour"}},
		{`\b(AKIA[0-9A-Z]{16}|AC[0-9a-f]{32}|AIza[0-9A-Za-z_\-]{35}|gh[ousr]_[A-Za-z0-9]{30,}|(sk|rk)_(test|live)_\w+)`,
			[]string{"AC", "AIza", "AKIA", "gho_", "ghr_", "ghs_", "ghu_", "rk_live_", "rk_test_", "sk_live_", "sk_test_"}},
		{`a(b|cd)*e`, []string{"a"}}, // "e" as selective; the first found is kept
		{`(?i)[Kk]ey\s*=`, []string{"key"}},
		{`:\s*any\b(\s*\[\])?`, []string{"any"}},
		{`a*`, nil},
		{`x?y?`, nil},
		{`(foo|.*)`, nil},
		{`[0-9]+`, nil},
		{`[Ss]ecret`, []string{"secret"}},
		{`x[ab]y`, []string{"xay", "xby"}},
		{`(`, nil},
	} {
		var got []string
		if reqs := RequiredLiterals(tc.src); len(reqs) > 0 {
			got = reqs[0]
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.src, got, tc.want)
		}
	}
}

// A match satisfies every part's requirement: content is matched only
// when it holds one literal of each.
func TestRequiredLiteralsClauses(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want [][]string
	}{
		{`(?i)\bselect\s+\*\s+from\b`, [][]string{{"select"}, {"from"}, {"*"}}},
		{`(?m)^\s*(?:async\s+)?def\s+\w+\([^)]*=\s*(?:\[\]|\{\}|list\(\))`, [][]string{{"def"}, {"[]", "list()", "{}"}, {"("}, {"="}}},
		{`a|b`, [][]string{{"a", "b"}}},
		{`\d+`, nil},
	} {
		if got := RequiredLiterals(tc.src); !slices.EqualFunc(got, tc.want, slices.Equal) {
			t.Errorf("%s: %q, want %q", tc.src, got, tc.want)
		}
	}
	h := NewHaystack("SELECT id FROM t", "select id from t")
	if h.MayMatch(RequiredLiterals(`(?i)\bselect\s+\*\s+from\b`)) {
		t.Error("a query without * may match select * from")
	}
}
