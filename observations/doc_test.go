package observations

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the files generated from the built-in rules (ACTIONTYPES.md, required_builtin.go)")

// actionTypesDoc renders the built-in taxonomy as a Markdown table.
func actionTypesDoc() string {
	var b strings.Builder
	b.WriteString("# Action types\n\n")
	b.WriteString("Generated from `builtin.go` by `go test ./observations -run TestActionTypesDoc -update`; do not edit by hand.\n\n")
	b.WriteString("An action type is `domain:verb[:object]`. `Classify` returns every matching type, most specific first. ")
	b.WriteString("Commands are argv patterns applied to each simple command of a parsed shell script (wrappers such as sudo, env, time, uv run, python -m stripped); ")
	b.WriteString("paths are globs over written files; content is a regular expression over written content; words are stemmed free-text cues. ")
	b.WriteString("Extend the table with `NewTaxonomy(extra []Rule)` (kb.yaml).\n\n")
	b.WriteString("| type | meaning | commands | paths | content | words |\n|---|---|---|---|---|---|\n")
	esc := func(xs []string) string {
		var out []string
		for _, x := range xs {
			x = strings.ReplaceAll(x, "|", `\|`)
			out = append(out, "`"+x+"`")
		}
		return strings.Join(out, " ")
	}
	for _, r := range builtinRules {
		content := ""
		if len(r.Content) > 0 {
			content = itoa(len(r.Content)) + " pattern(s)"
		}
		if r.code != nil {
			content = strings.TrimPrefix(content+", code", ", ")
		}
		b.WriteString("| `" + r.Type + "` | " + r.Desc + " | " + esc(r.Commands) + " | " + esc(r.Paths) + " | " + content + " | " + esc(r.Words) + " |\n")
	}
	return b.String()
}

func TestActionTypesDoc(t *testing.T) {
	want := actionTypesDoc()
	if *update {
		if err := os.WriteFile("ACTIONTYPES.md", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("ACTIONTYPES.md")
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if string(got) != want {
		t.Error("ACTIONTYPES.md is stale: run go test ./observations -run TestActionTypesDoc -update")
	}
}
