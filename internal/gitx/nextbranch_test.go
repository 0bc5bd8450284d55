package gitx

import "testing"

// TestCommitToNextBranchSkipsTakenNames: the first free prefix<n> gets the
// commit; a second commit takes the next number.
func TestCommitToNextBranchSkipsTakenNames(t *testing.T) {
	r, err := Open(newRepo(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.CommitToBranch("kb/p-1", "taken", testSig, nil); err != nil {
		t.Fatal(err)
	}
	ch := []FileChange{{Path: "n.md", Content: []byte("n\n")}}
	name, hash, err := r.CommitToNextBranch("kb/p-", "first free", testSig, ch)
	if err != nil || name != "kb/p-2" || hash == "" {
		t.Fatalf("got %q %q %v, want kb/p-2", name, hash, err)
	}
	if name, _, err = r.CommitToNextBranch("kb/p-", "next", testSig, ch); err != nil || name != "kb/p-3" {
		t.Fatalf("got %q %v, want kb/p-3", name, err)
	}
}
