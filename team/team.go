// Package team is team memory through git: the merge driver that lets two
// clones' memory files merge without conflict markers (which layer's rules a
// path needs: observations.GitMerge, episodes.GitMerge, learn.GitMergeIndex),
// its registration, and the .gitignore lines of kb.yaml's share section.
package team

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/kbmem/kb/episodes"
	"github.com/kbmem/kb/internal/config"
	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/gitx"
	"github.com/kbmem/kb/learn"
	"github.com/kbmem/kb/observations"
)

// MergeDriverCommand is the git config driver line of the kb merge driver.
const MergeDriverCommand = "kb merge-driver %O %A %B %P"

// MergeConflict is a field both sides edited by hand to different values.
type MergeConflict = doc.Conflict

// FileMerge reports a merge-driver run.
type FileMerge struct {
	Kind      string          `json:"kind"` // observation, episode, learn-index
	Conflicts []MergeConflict `json:"conflicts,omitempty"`
	Notes     []string        `json:"notes,omitempty"`
	// Fallback is why kb could not merge the file (a side that does not
	// parse, a file that is no kb file): it was merged line-wise with git's
	// conflict markers instead.
	Fallback string `json:"fallback,omitempty"`
}

// Clean reports whether the merge needs nothing from the person.
func (m *FileMerge) Clean() bool { return len(m.Conflicts) == 0 && m.Fallback == "" }

// MergeKind is the kind of kb file at the repository path p, "" for a
// file the driver does not merge.
func MergeKind(p string) string {
	p = filepath.ToSlash(p)
	seg := "/" + p
	switch {
	case strings.HasSuffix(seg, "/"+learn.IndexFile):
		return "learn-index"
	case !strings.HasSuffix(p, ".md"):
		return ""
	case strings.Contains(seg, "/"+observations.Dir+"/"):
		return "observation"
	case strings.Contains(seg, "/"+episodes.Dir+"/"):
		return "episode"
	}
	return ""
}

// layerRel is p from its layer directory on: the path the layer's parser
// names in its messages.
func layerRel(p, dir string) string {
	seg := "/" + filepath.ToSlash(p)
	if i := strings.LastIndex(seg, "/"+dir+"/"); i >= 0 {
		return seg[i+1:]
	}
	return path.Base(p)
}

// MergeFile merges the two versions of the kb file at the repository path
// p against their base, by the rules of its kind (docs/format.md). What
// cannot be merged that way (a damaged side, an unknown kind) is merged
// line-wise with git's conflict markers, as git would, and says so in
// Fallback.
func MergeFile(p string, base, ours, theirs []byte) ([]byte, *FileMerge) {
	res := &FileMerge{Kind: MergeKind(p)}
	var out []byte
	var err error
	switch res.Kind {
	case "observation":
		out, res.Conflicts, err = observations.GitMerge(layerRel(p, observations.Dir), base, ours, theirs)
	case "episode":
		out, res.Conflicts, err = episodes.GitMerge(layerRel(p, episodes.Dir), base, ours, theirs)
	case "learn-index":
		out, res.Notes, err = learn.GitMergeIndex(base, ours, theirs)
	default:
		err = errors.New("not a file kb merges")
	}
	if err == nil {
		return out, res
	}
	res.Fallback = err.Error()
	lines, _ := doc.Merge3Lines(doc.SplitLines(string(base)), doc.SplitLines(string(ours)), doc.SplitLines(string(theirs)), nil)
	return []byte(doc.JoinLines(lines)), res
}

// gitattributes are the lines that route kb's files to its merge driver,
// relative to the KB root and to the project root.
var (
	kbAttributes      = []string{observations.Dir + "/**/*.md merge=kb", episodes.Dir + "/**/*.md merge=kb"}
	projectAttributes = []string{learn.IndexFile + " merge=kb"}
)

const attributesHeader = "# kb's merge driver: two clones' memory merges without conflict markers (kb merge-driver)."

// MergeDriverSetup is what registering the merge driver changed.
type MergeDriverSetup struct {
	Attributes []string `json:"attributes,omitempty"` // .gitattributes files written
	GitConfig  bool     `json:"git_config,omitempty"` // [merge "kb"] set in the repository's config
}

// RegisterMergeDriver routes the KB's memory files to kb's merge driver:
// the .gitattributes lines (in the KB root and, for the learn index, the
// project root) and [merge "kb"] in the repository's git config, written
// with go-git. Outside a git work tree it writes the attributes only.
func RegisterMergeDriver(root, projectRoot string) (*MergeDriverSetup, error) {
	s := &MergeDriverSetup{}
	want := map[string][]string{root: kbAttributes}
	if filepath.Clean(root) == filepath.Clean(projectRoot) {
		want[root] = append(append([]string(nil), kbAttributes...), projectAttributes...)
	} else {
		want[projectRoot] = projectAttributes
	}
	for dir, lines := range want {
		p := filepath.Join(dir, ".gitattributes")
		wrote, err := gitx.AddLines(fsx.Tree{Root: dir}, p, attributesHeader, lines)
		if err != nil {
			return s, err
		}
		if wrote {
			s.Attributes = append(s.Attributes, p)
		}
	}
	repo, err := gitx.Open(projectRoot)
	if err != nil || repo.Root() == "" {
		return s, nil
	}
	changed, err := repo.SetConfigOptions("merge", "kb",
		[2]string{"name", "kb memory files (observations, episodes, learn index)"},
		[2]string{"driver", MergeDriverCommand})
	if err != nil {
		return s, fmt.Errorf("register the merge driver: %w", err)
	}
	s.GitConfig = changed
	return s, nil
}

// MergeDriverRegistered reports what of the merge driver's registration is
// missing ("" when nothing is).
func MergeDriverRegistered(root, projectRoot string) string {
	var missing []string
	for _, l := range gitx.MissingLines(filepath.Join(root, ".gitattributes"), kbAttributes) {
		missing = append(missing, ".gitattributes: "+l)
	}
	if repo, err := gitx.Open(projectRoot); err == nil && repo.Root() != "" && repo.ConfigOption("merge", "kb", "driver") != MergeDriverCommand {
		missing = append(missing, `git config merge.kb.driver`)
	}
	return strings.Join(missing, "; ")
}

// IgnoreLines are the .gitignore lines (KB-relative) that keep the
// local layers out of git, their .gitkeep in.
func IgnoreLines(local []string) []string {
	var out []string
	for _, l := range local {
		out = append(out, l+"/*", "!"+l+"/.gitkeep")
	}
	return out
}

const IgnoreHeader = "# Kept on this machine (kb.yaml share:): not committed."

// TracesIgnore is the part of a new KB's .gitignore the default share
// section asks for.
func TracesIgnore(root, projectRoot string) string {
	lines := IgnoreLines(config.ShareConfig{}.Local(root, projectRoot))
	if len(lines) == 0 {
		return ""
	}
	return IgnoreHeader + "\n" + strings.Join(lines, "\n") + "\n"
}

// WriteMerged writes a merge driver's result over git's temporary ours
// file, atomically.
func WriteMerged(p string, b []byte) error {
	abs, err := filepath.Abs(p)
	if err != nil {
		return err
	}
	return fsx.WriteFile(abs, b, 0o644)
}
