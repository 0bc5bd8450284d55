package team

import (
	"sort"
	"strings"

	"github.com/kbmem/kb/internal/gitx"
	"github.com/kbmem/kb/library"
	"github.com/kbmem/kb/observations"
)

// Sourced is one observation file (a path relative to the work tree top)
// and the sources it rests on, as written in the file ("session#from-to").
type Sourced struct {
	Path    string
	Sources []string
}

// People names, for each group of observation files, the people whose
// sessions the group rests on, sorted and distinct. Sessions record no
// person, so a source is credited to the author of the commit that first
// brought its line into the file (gitx.IntroducedBy, bounded); a source no
// commit holds yet (the file is not committed, or the line is new) is the
// local git user's (user.name from the repository's and the global config).
// A source nobody can be named for is left out. repo may be nil (no git
// work tree): every source is then the local user's.
func People(repo *gitx.Repo, groups [][]Sourced) [][]string {
	want := map[string][]string{}
	for _, g := range groups {
		for _, s := range g {
			want[s.Path] = append(want[s.Path], s.Sources...)
		}
	}
	var by map[string]map[string]gitx.Signature
	if repo != nil {
		by, _ = repo.IntroducedBy(want, 0) // an unreadable history credits the local user
	}
	local, localEmail := gitx.User(repo)
	if local == "" {
		local = localEmail
	}
	out := make([][]string, len(groups))
	for i, g := range groups {
		seen := map[string]bool{}
		names := []string{}
		for _, s := range g {
			for _, src := range s.Sources {
				name := local
				if sig, ok := by[s.Path][src]; ok {
					name = strings.TrimSpace(sig.Name)
					if name == "" {
						name = sig.Email
					}
				}
				if name != "" && !seen[name] {
					seen[name] = true
					names = append(names, name)
				}
			}
		}
		sort.Strings(names)
		out[i] = names
	}
	return out
}

// Credit sets each graduation's From: the people (People) whose sessions
// its observations rest on. byID holds the observation files by id;
// pathOf gives a file's path relative to the work tree top.
func Credit(repo *gitx.Repo, grads []library.Graduation, byID map[string]*observations.File, pathOf func(rel string) string) {
	groups := make([][]Sourced, len(grads))
	for i, g := range grads {
		for _, id := range g.Observations {
			if f := byID[id]; f != nil {
				s := Sourced{Path: pathOf(f.Path)}
				for _, src := range f.Obs.Sources {
					s.Sources = append(s.Sources, src.String())
				}
				groups[i] = append(groups[i], s)
			}
		}
	}
	for i, names := range People(repo, groups) {
		grads[i].From = names
	}
}
