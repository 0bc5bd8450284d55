package agents

import (
	"os"
	"sort"

	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/traces"
)

// Route says what a watcher does with a file event at p, given the
// sources it watches: import the transcript file, rescan the directory
// dir (a new directory, or a rescan the event asks for), or nothing
// (neither is set). rescan says the event asks for a rescan of p, gone
// that p was removed or renamed away. The first source holding p decides;
// a file it does not keep (Source.Keep), or one not named like a
// transcript below the source's path, is passed over.
func Route(sources []Source, p string, rescan, gone bool) (file string, dir *Source) {
	for _, s := range sources {
		if !fsx.Inside(s.Path, p) {
			continue
		}
		switch {
		case rescan:
			return "", &s
		case gone:
		case p != s.Path && !traces.IsTranscriptName(p):
		case s.Keep != nil && !s.Keep(p):
		default:
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				return p, nil
			} else if err == nil && fi.IsDir() {
				return "", &Source{Kind: s.Kind, Path: p, Keep: s.Keep}
			}
		}
		return "", nil
	}
	return "", nil
}

// SplitSources parts the sources that exist into files and directories.
func SplitSources(sources []Source) (files []string, dirs []Source) {
	for _, s := range sources {
		fi, err := os.Stat(s.Path)
		if err != nil {
			continue
		}
		if fi.IsDir() {
			dirs = append(dirs, s)
		} else {
			files = append(files, s.Path)
		}
	}
	return files, dirs
}

// SourceFiles adds to files the transcripts under dirs that each one
// keeps (traces.FindTranscripts, never below skip), sorted, and reports
// what could not be read.
func SourceFiles(files []string, dirs []Source, skip string) ([]string, []traces.Problem) {
	var unreadable []traces.Problem
	for _, d := range dirs {
		found, bad := traces.FindTranscripts(d.Path, skip)
		unreadable = append(unreadable, bad...)
		for _, f := range found {
			if d.Keep == nil || d.Keep(f) {
				files = append(files, f)
			}
		}
	}
	sort.Strings(files)
	return files, unreadable
}
