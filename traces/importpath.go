package traces

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kbmem/kb/internal/failpoint"
)

// ImportedFile is the outcome of importing one file.
type ImportedFile struct {
	File      string   `json:"file"`
	Format    string   `json:"format,omitempty"`
	Sessions  []string `json:"sessions"`
	Appended  int      `json:"appended"`
	Unchanged bool     `json:"unchanged"`
	Empty     bool     `json:"empty,omitempty"`    // the file has no bytes (yet): nothing to import, not "unchanged"
	Problems  []string `json:"problems,omitempty"` // "file:line: reason", parts skipped
	Error     string   `json:"error,omitempty"`    // the file could not be imported at all
	// NotTranscript says the file is in no known format and lies outside
	// the agents' own directories: a file a directory walk passes over.
	NotTranscript bool `json:"-"`
}

// SkippedFile is a file found while walking a directory that is not a
// transcript (a .json that is no known format, for example). Skips do not
// make an import fail; a file named explicitly that is not a transcript is
// an error instead.
type SkippedFile struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

// ImportTotals sums an ImportReport.
type ImportTotals struct {
	Files     int `json:"files"`
	Sessions  int `json:"sessions"`
	Appended  int `json:"appended"`
	Unchanged int `json:"unchanged"`
	Problems  int `json:"problems"`
	Errors    int `json:"errors"`
	Skipped   int `json:"skipped"`
	Empty     int `json:"empty"`    // files with no bytes
	Redacted  int `json:"redacted"` // secrets replaced by [REDACTED:<rule>]
}

// ImportReport is what an import of paths did, per file and in total.
type ImportReport struct {
	Files    []ImportedFile `json:"files"`
	Skipped  []SkippedFile  `json:"skipped,omitempty"`
	Totals   ImportTotals   `json:"totals"`
	Redacted bool           `json:"redaction"` // whether redaction was on
}

// PathOptions say how ImportPath treats what it finds.
type PathOptions struct {
	ImportOptions
	// Skip is a directory a walk does not enter (the KB itself).
	Skip string
	// Owned reports whether a file lies in an agent's own directory, where
	// every file is the agent's: one that cannot be read or is in no known
	// format is an error there, not a file to pass over.
	Owned func(file string) bool
	// Keep, if set, filters the files a walk finds.
	Keep func(file string) bool
	// OnFile, if set, is told of each file as soon as it is imported (or
	// failed, or was skipped): progress for long imports.
	OnFile func(ImportedFile)
}

// FailImportFile is the failpoint hit before each file of a directory
// import (the reliability tests pause there to interrupt an import).
const FailImportFile = "traces.import-file"

// ImportPath imports one named file, or every transcript under a
// directory (FindTranscripts), adding what happened to rep. A cancelled
// ctx stops between files.
func (s *Store) ImportPath(ctx context.Context, p string, o PathOptions, rep *ImportReport) {
	abs, err := filepath.Abs(p)
	if err != nil {
		rep.addError(p, err)
		return
	}
	fi, err := os.Stat(abs)
	if err != nil {
		rep.addError(abs, err)
		return
	}
	if !fi.IsDir() {
		res := s.ImportFile(abs, o)
		rep.add(res)
		o.onFile(res)
		return
	}
	files, unreadable := FindTranscripts(abs, o.Skip)
	for _, u := range unreadable {
		if o.Owned != nil && o.Owned(u.Path) {
			rep.addError(u.Path, errors.New(u.Msg))
		} else {
			rep.skip(u.Path, u.Msg)
		}
	}
	for _, f := range files {
		if ctx.Err() != nil {
			return
		}
		if o.Keep != nil && !o.Keep(f) {
			continue
		}
		failpoint.HitNote(FailImportFile, f)
		res := s.ImportFile(f, o)
		o.onFile(res)
		if res.NotTranscript {
			rep.skip(f, res.Error)
			continue
		}
		rep.add(res)
	}
}

func (o PathOptions) onFile(f ImportedFile) {
	if o.OnFile != nil {
		o.OnFile(f)
	}
}

// ImportFile imports one file, turning every failure into its outcome.
func (s *Store) ImportFile(abs string, o PathOptions) ImportedFile {
	res, err := s.Import(abs, o.ImportOptions)
	out := ImportedFile{File: abs, Format: res.Format, Sessions: res.Sessions, Appended: res.Appended, Unchanged: res.Unchanged}
	if fi, err := os.Stat(abs); err == nil && fi.Size() == 0 {
		out.Empty, out.Unchanged = true, false
	}
	if out.Sessions == nil {
		out.Sessions = []string{}
	}
	for _, p := range res.Problems {
		out.Problems = append(out.Problems, p.Error())
	}
	if err != nil {
		out.Error = err.Error()
		var fe *FormatError
		if errors.As(err, &fe) {
			// The store's message repeats the path; keep the reason.
			out.Error = fmt.Sprintf("not a transcript (%s)", fe.Reason)
			out.NotTranscript = o.Owned == nil || !o.Owned(abs)
		}
	}
	return out
}

func (r *ImportReport) skip(file, reason string) {
	r.Skipped = append(r.Skipped, SkippedFile{File: file, Reason: reason})
	r.Totals.Skipped++
}

func (r *ImportReport) addError(file string, err error) {
	r.add(ImportedFile{File: file, Sessions: []string{}, Error: err.Error()})
}

func (r *ImportReport) add(o ImportedFile) {
	r.Files = append(r.Files, o)
	t := &r.Totals
	t.Files++
	t.Sessions += len(o.Sessions)
	t.Appended += o.Appended
	if o.Unchanged {
		t.Unchanged++
	}
	if o.Empty {
		t.Empty++
	}
	t.Problems += len(o.Problems)
	if o.Error != "" {
		t.Errors++
	}
}
