package gitx

import (
	"errors"
	"fmt"
)

// CommitToNextBranch is CommitToBranch on the first branch prefix<n>
// (n = 1, 2, ...) that does not exist, retrying the next n when another
// process takes the name meanwhile. It returns the branch and the commit.
func (r *Repo) CommitToNextBranch(prefix, message string, author Signature, changes []FileChange) (name, hash string, err error) {
	for n := 1; ; n++ {
		name = fmt.Sprintf("%s%d", prefix, n)
		if r.BranchExists(name) {
			continue
		}
		hash, err = r.CommitToBranch(name, message, author, changes)
		if errors.Is(err, ErrBranchExists) {
			continue // taken meanwhile
		}
		if err != nil {
			return "", "", err
		}
		return name, hash, nil
	}
}
