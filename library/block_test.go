package library

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestReplaceBlock(t *testing.T) {
	learned := "<!-- kb:begin learned -->\nx\n<!-- kb:end learned -->\n"
	src := []byte("# Agents\n\n" + learned + "tail")
	out, err := ReplaceBlock(src, PromotedBlock, "one\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "# Agents\n\n" + learned + "tail\n\n" + BlockBegin + "\none\n" + BlockEnd + "\n"
	if string(out) != want {
		t.Fatalf("got %q", out)
	}
	out2, err := ReplaceBlock(out, PromotedBlock, "two")
	if err != nil {
		t.Fatal(err)
	}
	if string(out2) != strings.Replace(want, "one", "two", 1) {
		t.Errorf("replace: %q", out2)
	}
	if again, _ := ReplaceBlock(out2, PromotedBlock, "two\n"); !bytes.Equal(again, out2) {
		t.Errorf("not idempotent")
	}
	if got, _ := ReplaceBlock(nil, PromotedBlock, "x"); string(got) != BlockBegin+"\nx\n"+BlockEnd+"\n" {
		t.Errorf("empty file: %q", got)
	}
	for _, bad := range []string{BlockBegin, BlockEnd + BlockBegin, BlockBegin + BlockBegin + BlockEnd} {
		if _, err := ReplaceBlock([]byte(bad), PromotedBlock, "x"); !errors.Is(err, ErrMalformedBlock) {
			t.Errorf("%q: err %v", bad, err)
		}
	}
}

func FuzzReplaceBlock(f *testing.F) {
	f.Add([]byte("# A\n"), "x")
	f.Add([]byte(BlockBegin+"\nold\n"+BlockEnd), "new")
	f.Add([]byte("a"+BlockEnd+"b"+BlockBegin), "")
	f.Add([]byte("<!-- kb:begin learned -->\nq\n<!-- kb:end learned -->"), "y\n")
	f.Fuzz(func(t *testing.T, src []byte, content string) {
		if strings.Contains(content, BlockBegin) || strings.Contains(content, BlockEnd) {
			return
		}
		out, err := ReplaceBlock(src, PromotedBlock, content)
		if err != nil {
			return
		}
		i := bytes.Index(out, []byte(BlockBegin))
		j := bytes.Index(out, []byte(BlockEnd))
		if i < 0 || j < i {
			t.Fatalf("no block in %q", out)
		}
		// Text outside the block is kept.
		if k := bytes.Index(src, []byte(BlockBegin)); k >= 0 {
			if !bytes.HasPrefix(out, src[:k]) {
				t.Fatalf("prefix changed")
			}
		} else if !bytes.HasPrefix(out, src) {
			t.Fatalf("appending changed the text")
		}
		again, err := ReplaceBlock(out, PromotedBlock, content)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %v", err)
		}
	})
}

// FindBlock reads each named block alone; the learned and promoted blocks
// of one file do not disturb each other.
func TestFindBlock(t *testing.T) {
	src := []byte("# A\n<!-- kb:begin learned -->\n- l\n<!-- kb:end learned -->\nmid\n" + BlockBegin + "\n- p\n" + BlockEnd + "\n")
	for name, want := range map[string]string{"learned": "\n- l\n", PromotedBlock: "\n- p\n"} {
		got, found, err := FindBlock(src, name)
		if err != nil || !found || string(got) != want {
			t.Errorf("%s: %q %v %v", name, got, found, err)
		}
	}
	if got, found, err := FindBlock([]byte("# A\n"), "learned"); err != nil || found || got != nil {
		t.Errorf("no block: %q %v %v", got, found, err)
	}
	out, err := ReplaceBlock(src, "learned", "- l2\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(string(src), "- l\n", "- l2\n", 1); string(out) != want {
		t.Errorf("replace learned: %q", out)
	}
	b, e := BlockMarkers("learned")
	for _, bad := range []string{b, e + b, b + b + e, e} {
		if _, _, err := FindBlock([]byte(bad), "learned"); !errors.Is(err, ErrMalformedBlock) {
			t.Errorf("%q: err %v", bad, err)
		}
	}
}
