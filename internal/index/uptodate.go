package index

import (
	"slices"
	"strings"
)

// UpToDate reports whether the stamps an index recorded are exactly those
// of files, leaving out the files and stamps under any of the skip
// prefixes (a layer the caller does not read, such as "traces/").
func UpToDate(files []File, stamps map[string]Stamp, skip ...string) bool {
	return upToDateIn(files, stamps, func(rel string) bool {
		return !slices.ContainsFunc(skip, func(p string) bool { return strings.HasPrefix(rel, p) })
	})
}

// upToDateLayers is UpToDate over the given layers (every layer when none).
func upToDateLayers(files []File, stamps map[string]Stamp, layers []string) bool {
	return upToDateIn(files, stamps, inLayers(layers))
}

// upToDateIn is UpToDate over the paths for which in is true.
func upToDateIn(files []File, stamps map[string]Stamp, in func(rel string) bool) bool {
	n := 0
	for _, f := range files {
		if !in(f.Rel) {
			continue
		}
		n++
		if st, ok := stamps[f.Rel]; !ok || st != f.Stamp {
			return false
		}
	}
	for rel := range stamps {
		if in(rel) {
			n--
		}
	}
	return n == 0
}
