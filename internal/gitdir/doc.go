// Package gitdir reads where a work tree's git directories are (its common
// directory, its linked worktrees) from the files git writes, without a git
// library: what the hook and transcript discovery need of git, at the cost
// of a few stats (internal/gitx, go-git, is for history and commits).
package gitdir
