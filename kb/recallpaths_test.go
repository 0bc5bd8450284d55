package kb

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
	wantFiles := []fileRef{{"renderer.py", "claude_code_log"}, {"guide.md", "docs"}, {"process.env", ""}}
	if !reflect.DeepEqual(files, wantFiles) {
		t.Errorf("files %+v, want %+v", files, wantFiles)
	}
	if f := sameFile([]fileRef{{"renderer.py", "claude_code_log"}}, []fileRef{{"renderer.py", ""}}); f != "renderer.py" {
		t.Errorf("same file %q", f)
	}
	if f := sameFile([]fileRef{{"renderer.py", "a"}}, []fileRef{{"renderer.py", "b"}}); f != "" {
		t.Errorf("other directory matched: %q", f)
	}
	if f := sameFile([]fileRef{{"__init__.py", ""}}, []fileRef{{"__init__.py", ""}}); f != "" {
		t.Errorf("generic name matched: %q", f)
	}
}
