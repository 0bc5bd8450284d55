package doc

import "testing"

func TestSetStatus(t *testing.T) {
	cases := []struct{ in, want string }{
		{"---\nid: a\nstatus: candidate\ntitle: x\n---\n\nbody status: candidate\n", "---\nid: a\nstatus: promoted\ntitle: x\n---\n\nbody status: candidate\n"},
		{"---\nid: a\n---\n\nbody\n", "---\nid: a\nstatus: promoted\n---\n\nbody\n"},      // no status: doc.Update adds it
		{"---\nid: a\nstatus: 'odd value'\n---\n", "---\nid: a\nstatus: promoted\n---\n"}, // quoted: doc.Update
	}
	for _, c := range cases {
		got, err := SetStatus([]byte(c.in), "promoted")
		if err != nil || string(got) != c.want {
			t.Errorf("SetStatus(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func FuzzSetStatus(f *testing.F) {
	f.Add([]byte("---\nid: a\nstatus: candidate\n---\n\nbody\n"))
	f.Add([]byte("---\nstatus: x\nstatus: y\n---\n"))
	f.Add([]byte("no frontmatter"))
	f.Add([]byte("---\nstatus: [a\n---\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		if _, err := ParseFrontmatter("f.md", src); err != nil {
			return // only documents that parse are ever updated
		}
		out, err := SetStatus(src, "rejected")
		if err != nil {
			return
		}
		d, err := ParseFrontmatter("f.md", out)
		if err != nil {
			t.Fatalf("setStatus made an unparsable document: %v\n%q", err, out)
		}
		if d.Status != "rejected" {
			t.Fatalf("status = %q in %q", d.Status, out)
		}
	})
}
