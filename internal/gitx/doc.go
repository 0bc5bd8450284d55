// Package gitx owns kb's access to git repositories. It goes through
// go-git only, so kb never needs a git binary at run time.
//
// Its central operation is CommitToBranch: it writes blobs, trees and a
// commit straight into the object database and then points a new branch at
// the commit, the way git-bug stores its data. The work tree, the index
// (staging area) and HEAD are never touched, so kb can propose memory
// changes on a review branch while an agent or a human has uncommitted work
// in the same checkout. The package also reads files at revisions, renders
// git-style unified diffs (Diff, UnifiedDiff) and finds the work tree that
// contains a directory (TopLevel), including linked worktrees.
//
// A Repo serialises its operations with a mutex because parts of go-git are
// not safe for concurrent use.
package gitx
