package observations

import (
	"slices"
	"testing"

	"github.com/kbmem/kb/traces"
)

func TestParseTypes(t *testing.T) {
	got, err := ParseTypes([]string{" Preference", "correction", "preference", ""})
	if err != nil || !slices.Equal(got, []string{"correction", "preference"}) {
		t.Errorf("got %v %v", got, err)
	}
	if all, _ := ParseTypes(nil); len(all) != len(AllTypes) {
		t.Errorf("none requested: %v", all)
	}
	if _, err := ParseTypes([]string{"bogus"}); err == nil {
		t.Error("unknown type accepted")
	}
}

func TestWorkdirsAndProjects(t *testing.T) {
	s := &Session{ID: "file-id", Records: []traces.Record{{Session: "rec-id"}, {Session: "rec-id", Cwd: "/p/app"}, {Cwd: "/p/other"}}}
	cwds := map[string]string{}
	s.AddWorkdir(cwds)
	if cwds["file-id"] != "/p/app" || cwds["rec-id"] != "/p/app" || len(cwds) != 2 {
		t.Errorf("cwds %v", cwds)
	}
	o := &Observation{Sources: []SourceRef{{Session: "rec-id"}, {Session: "unknown"}}, Projects: []string{"/p/z"}}
	o.SetProjects(cwds)
	if !slices.Equal(o.Projects, []string{"/p/app", "/p/z"}) {
		t.Errorf("projects %v", o.Projects)
	}
	v := ProcedureView(&Session{ID: "x", Records: []traces.Record{
		{Kind: traces.KindMessage, Text: "hi"}, {Kind: traces.KindToolCall, Tool: "Bash"},
		{Kind: traces.KindToolResult, Output: "fine"}, {Kind: traces.KindToolResult, IsError: true, Output: "boom"},
	}})
	if len(v.Records) != 2 || v.Records[0].Kind != traces.KindToolCall || v.Records[1].Output != "boom" {
		t.Errorf("procedure view %+v", v.Records)
	}
}
