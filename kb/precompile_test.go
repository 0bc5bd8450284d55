package kb

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The activation index a sync compiles from the documents its loaders
// precomputed is the one compiled from the search index's stored fields,
// byte for byte but for the compile time: for a first index, for a sync
// of a few edits, and for a KB with a note that fails to parse and an
// observation. A document whose file changed since it was precomputed is
// not taken.
func TestPrecompiledCompileIsTheSame(t *testing.T) {
	k := rcPushForceKB(t, "context")
	words := strings.Fields("deploy staging cache token review merge schema renderer migration wipe")
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(k.Root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 40 {
		write(fmt.Sprintf("library/notes/note-%d.md", i), fmt.Sprintf("---\ntitle: Note %d about %s\ntags: [%s]\n---\n\nWhen you %s, %s first. Never run `git push --force`. See [[note-%d]].\n",
			i, words[i%len(words)], words[(i+3)%len(words)], words[(i+1)%len(words)], words[(i+2)%len(words)], (i+1)%40))
	}
	write("library/notes/broken.md", "---\ntitle: [unclosed\n---\n\nA note whose frontmatter fails to parse, about the staging cache.\n")
	sections := func() []byte { return activationSections(t, k) }
	// fromStored compiles the index from scratch from its stored fields
	// (an open with nothing to sync precomputes nothing).
	fromStored := func() []byte {
		t.Helper()
		os.Remove(k.activationPath())
		x, _, err := k.OpenIndex(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer x.Close()
		if x.pre != nil {
			t.Fatal("precomputed documents kept after the open")
		}
		if err := x.compileActivation(nil); err != nil {
			t.Fatal(err)
		}
		return sections()
	}

	os.RemoveAll(filepath.Join(k.Root, IndexDir))
	if st := syncIndex(t, k); st.Added < 40 {
		t.Fatalf("first sync added %d", st.Added)
	}
	if first, stored := sections(), fromStored(); !bytes.Equal(first, stored) {
		t.Fatalf("first index: %d bytes of sections precomputed, %d from the stored fields", len(first), len(stored))
	}
	write("library/notes/note-5.md", "---\ntitle: Note 5 rewritten\n---\n\nWipe the staging cache with care.\n")
	write("library/notes/note-41.md", "---\ntitle: A new note\n---\n\nReview the schema migration.\n")
	syncIndex(t, k)
	if inc, stored := sections(), fromStored(); !bytes.Equal(inc, stored) {
		t.Fatalf("after edits: %d bytes of sections precomputed, %d from the stored fields", len(inc), len(stored))
	}

	// The store itself: what the loaders precompute, taken only at the
	// index's id and stamp.
	x, _, err := k.OpenIndex(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	files, err := k.scan()
	if err != nil {
		t.Fatal(err)
	}
	x.pre = k.newPrecompiled(files)
	for _, f := range files {
		if f.Layer != LayerTraces {
			x.loadMarkdown(f, func(filePart) bool { return true })
		}
	}
	if len(x.pre.docs) < 42 {
		t.Fatalf("precomputed %d documents, want every note and observation", len(x.pre.docs))
	}
	cd, ok := x.pre.docs["library/notes/note-7.md"]
	if !ok || cd.Pre == nil || cd.Body != "" {
		t.Fatalf("note-7: %+v, %v", cd, ok)
	}
	if _, ok := x.pre.take(cd.ID, cd.Path, cd.Stamp); !ok {
		t.Error("not taken at its own id and stamp")
	}
	if _, ok := x.pre.take(cd.ID, cd.Path, "1:2"); ok {
		t.Error("taken at another stamp")
	}
	if _, ok := x.pre.take("other", cd.Path, cd.Stamp); ok {
		t.Error("taken for another id")
	}
	os.Remove(k.activationPath()) // every document in full: from the store
	if err := x.compileActivation(nil); err != nil {
		t.Fatal(err)
	}
	pre := sections()
	x.Close()
	if stored := fromStored(); !bytes.Equal(pre, stored) {
		t.Fatalf("compiled with every document precomputed: %d bytes of sections, %d from the stored fields", len(pre), len(stored))
	}
}
