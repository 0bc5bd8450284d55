package kb

import (
	"path/filepath"

	"github.com/kbmem/kb/internal/gitx"
	"github.com/kbmem/kb/team"
)

// Team memory through git is package team's: the merge driver, its
// registration and the share section's .gitignore lines. kb's names stay.

// MergeDriverCommand is the git config driver line of the kb merge driver.
const MergeDriverCommand = team.MergeDriverCommand

type (
	// MergeConflict is a field both sides edited by hand to different values.
	MergeConflict = team.MergeConflict
	// FileMerge reports a merge-driver run.
	FileMerge = team.FileMerge
	// MergeDriverSetup is what registering the merge driver changed.
	MergeDriverSetup = team.MergeDriverSetup
)

// MergeKind is the kind of kb file at the repository path p, "" for a
// file the driver does not merge.
func MergeKind(p string) string { return team.MergeKind(p) }

// MergeFile merges the two versions of the kb file at the repository path
// p against their base, by the rules of its kind (team.MergeFile).
func MergeFile(p string, base, ours, theirs []byte) ([]byte, *FileMerge) {
	return team.MergeFile(p, base, ours, theirs)
}

// RegisterMergeDriver routes the KB's memory files to kb's merge driver
// (team.RegisterMergeDriver).
func RegisterMergeDriver(root, projectRoot string) (*MergeDriverSetup, error) {
	return team.RegisterMergeDriver(root, projectRoot)
}

// MergeDriverRegistered reports what of the merge driver's registration is
// missing ("" when nothing is).
func MergeDriverRegistered(root, projectRoot string) string {
	return team.MergeDriverRegistered(root, projectRoot)
}

// WriteMerged writes a merge driver's result over git's temporary ours
// file, atomically.
func WriteMerged(p string, b []byte) error { return team.WriteMerged(p, b) }

// MissingIgnores are the .gitignore lines the share section asks for that
// the KB's .gitignore lacks.
func (k *KB) MissingIgnores() []string {
	return gitx.MissingLines(filepath.Join(k.Root, ".gitignore"), team.IgnoreLines(k.Config.Share.Local(k.Root, k.ProjectRoot)))
}

// addIgnores appends lines to the KB's .gitignore.
func (k *KB) addIgnores(lines []string) error {
	_, err := gitx.AddLines(k.files(), filepath.Join(k.Root, ".gitignore"), team.IgnoreHeader, lines)
	return err
}
