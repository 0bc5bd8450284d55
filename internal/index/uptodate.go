package index

import "strings"

// UpToDate reports whether the stamps an index recorded are exactly those
// of files, leaving out the files and stamps under any of the skip
// prefixes (a layer the caller does not read, such as "traces/").
func UpToDate(files []File, stamps map[string]Stamp, skip ...string) bool {
	skipped := func(rel string) bool {
		for _, p := range skip {
			if strings.HasPrefix(rel, p) {
				return true
			}
		}
		return false
	}
	n := 0
	for _, f := range files {
		if skipped(f.Rel) {
			continue
		}
		n++
		if st, ok := stamps[f.Rel]; !ok || st != f.Stamp {
			return false
		}
	}
	for rel := range stamps {
		if !skipped(rel) {
			n--
		}
	}
	return n == 0
}
