package doc

import (
	"testing"

	"gopkg.in/yaml.v3"
)

// A value with a control character or a text that opens with a line break
// (a merge conflict's body, FuzzGitMerge) is written so that it is read back.
func TestEncodeValuesYAMLCannotWriteRaw(t *testing.T) {
	for _, v := range []any{
		"\x15**Do:** Stage the files.\n",
		[]map[string]any{{"field": "body", "ours": "\n**Do:** Add", "theirs": "\x15**Do:** Stage"}},
		[]any{"a\x00b", "\n\n*x*"},
		"\xff\x15 invalid UTF-8 stays !!binary",
	} {
		e, err := encodePair("k", v, false)
		if err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		var back map[string]any
		if err := yaml.Unmarshal(e.text, &back); err != nil {
			t.Fatalf("%q: %s does not parse: %v", v, e.text, err)
		}
	}
}
