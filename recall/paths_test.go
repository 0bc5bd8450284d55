package recall

import (
	"reflect"
	"testing"
)

func TestReducePaths(t *testing.T) {
	got, files := reducePaths("Edit `/Users/dain/workspace/claude-code-log/claude_code_log/renderer.py` and ./docs/guide.md, see e.g. v1.2 in process.env; run `cd /tmp/x/ && make`")
	want := "Edit ` renderer ` and  guide , see e.g. v1.2 in  process ; run `cd  x  && make`"
	if got != want {
		t.Errorf("text\n got %q\nwant %q", got, want)
	}
	wantFiles := []fileRef{{"renderer.py", "claude-code-log/claude_code_log"}, {"guide.md", "docs"}, {"process.env", ""}}
	if !reflect.DeepEqual(files, wantFiles) {
		t.Errorf("files %+v, want %+v", files, wantFiles)
	}
	if f := sameFile([]fileRef{{"renderer.py", "claude_code_log"}}, []fileRef{{"renderer.py", ""}}); f != "renderer.py" {
		t.Errorf("same file %q", f)
	}
	if f := sameFile([]fileRef{{"renderer.py", "a"}}, []fileRef{{"renderer.py", "b"}}); f != "" {
		t.Errorf("other directory matched: %q", f)
	}
	// Two directories up: the same name in another module is another file;
	// a parent named on one side only as its last directory is the same.
	if f := sameFile([]fileRef{{"prompts.py", "netmiko/prompts"}}, []fileRef{{"prompts.py", "infrahub/prompts"}}); f != "" {
		t.Errorf("another module's file matched: %q", f)
	}
	if f := sameFile([]fileRef{{"prompts.py", "netmiko/prompts"}}, []fileRef{{"prompts.py", "prompts"}}); f != "prompts.py" {
		t.Errorf("same file, one side naming less of its path: %q", f)
	}
	if f := sameFile([]fileRef{{"prompts.py", "xnetmiko/prompts"}}, []fileRef{{"prompts.py", "netmiko/prompts"}}); f != "" {
		t.Errorf("a directory name's suffix matched: %q", f)
	}
	if f := sameFile([]fileRef{{"__init__.py", ""}}, []fileRef{{"__init__.py", ""}}); f != "" {
		t.Errorf("generic name matched: %q", f)
	}
}

func TestInProject(t *testing.T) {
	for _, c := range []struct {
		projects []string
		dir      string
		want     bool
	}{
		{[]string{"/home/dev/shop"}, "/home/dev/shop", true},
		{[]string{"/home/dev/shop"}, "/home/dev/shop/api", true},
		{[]string{"/home/dev/shop/api"}, "/home/dev/shop", true},
		{[]string{"/Users/alice/shop"}, "/home/bob/shop", true}, // one repo, two people's paths
		{[]string{"/home/dev/shop"}, "/home/dev/shopping", false},
		{[]string{"/home/dev/shop", "/home/dev/ledger"}, "/home/dev/ledger", true},
		{[]string{"/home/dev/shop"}, "/srv/ledger", false},
	} {
		if got := inProject(c.projects, c.dir); got != c.want {
			t.Errorf("inProject(%v, %q) = %v", c.projects, c.dir, got)
		}
	}
}
