package index

import (
	"strings"
	"testing"

	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/markdown"
)

func TestFromDocument(t *testing.T) {
	d, err := markdown.Parse("observations/correction/x.md", []byte("---\ntype: correction\ntitle: \"\"\nlesson: Stage by name\naction_types: [git:stage-all]\nimportance: 0.7\nsessions: 2\n---\nSee [[other]] #tag\n"))
	if err != nil {
		t.Fatal(err)
	}
	x := FromDocument("observations", d)
	if x.ID != d.Path || x.Title != "x" || x.Keywords["noteid"][0] != "x" || x.Text["lesson"] != "Stage by name" ||
		x.Keywords["action_types"][0] != "git:stage-all" || x.Num["importance"] != 0.7 || x.Num["sessions"] != 2 {
		t.Errorf("%+v", x)
	}
	if len(x.Links) != 1 || x.Links[0] != "other" || len(x.Keywords[LinkField]) != 1 {
		t.Errorf("links %v %v (tags are no links)", x.Links, x.Keywords[LinkField])
	}
	l, ok := DecodeLink(x.Keywords[LinkField][0])
	if !ok || l.Target != "other" || l.Kind != doc.KindWiki || l.Line != 9 {
		t.Errorf("decoded %+v %v", l, ok)
	}
}

func FuzzDecodeLink(f *testing.F) {
	f.Add(EncodeLink(doc.Link{Kind: doc.KindWiki, Target: "a", Line: 3, Alias: "b", Heading: "h"}))
	f.Add("x\x1fy")
	f.Fuzz(func(t *testing.T, s string) {
		l, ok := DecodeLink(s)
		if !ok || strings.Contains(l.Kind+l.Rel+l.Target+l.Alias+l.Heading, "\x1f") {
			return
		}
		if back, ok := DecodeLink(EncodeLink(l)); !ok || back != l {
			t.Fatalf("%q: %+v -> %+v", s, l, back)
		}
	})
}
