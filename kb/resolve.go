package kb

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/kbmem/kb/observations"
)

// resolveID finds the item one of whose names (its id, its file name) is
// id, else the one item a name of which starts with id. No match is
// ErrNotFound; several are ErrAmbiguousID naming up to five of them.
func resolveID[T any](items []T, id, what string, names func(T) []string) (T, error) {
	var zero T
	var matches []T
	var ids []string
	for _, it := range items {
		ns := names(it)
		for _, n := range ns {
			if n == id {
				return it, nil
			}
		}
		for _, n := range ns {
			if id != "" && strings.HasPrefix(n, id) {
				matches = append(matches, it)
				ids = append(ids, ns[0])
				break
			}
		}
	}
	switch len(matches) {
	case 0:
		return zero, fmt.Errorf("%s %q: %w", what, id, ErrNotFound)
	case 1:
		return matches[0], nil
	}
	sort.Strings(ids)
	if len(ids) > 5 {
		ids = append(ids[:5], "...")
	}
	return zero, fmt.Errorf("%s %q matches %d: %w: %s", what, id, len(matches), ErrAmbiguousID, strings.Join(ids, ", "))
}

// findObs finds an observation by id, file name or unique prefix.
func findObs(files []*ObsFile, id string) (*ObsFile, error) {
	return resolveID(files, id, "observation", func(f *ObsFile) []string {
		return []string{f.Obs.ID, strings.TrimSuffix(path.Base(f.Path), ".md")}
	})
}

// ResolveObservation returns the id of the observation arg names: its id,
// its file name or a unique prefix of either.
func (k *KB) ResolveObservation(ctx context.Context, arg string) (string, error) {
	files, _, err := k.LoadObservations(ctx)
	if err != nil {
		return "", err
	}
	f, err := findObs(files, arg)
	if errors.Is(err, ErrNotFound) {
		// An id folded into another (observations.Fold) resolves to the
		// observation that holds it now.
		if ts, terr := k.Tombstones(); terr == nil {
			if into := observations.Redirect(ts, arg); into != arg {
				if f, ferr := findObs(files, into); ferr == nil {
					k.logf("observation %s was folded into %s", arg, f.Obs.ID)
					return f.Obs.ID, nil
				}
			}
		}
	}
	if err != nil {
		return "", err
	}
	return f.Obs.ID, nil
}
