package traces

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kbmem/kb/internal/fsx"
)

// FindTranscripts lists, sorted, the candidate transcripts under dir:
// *.jsonl, *.json, and *.md files that look like aider chat histories.
// The directory skip (a KB root), .git, node_modules and hidden
// directories other than dir and .aider are not entered; atomic-write temp
// files and the <name>.meta.json companions Claude Code writes beside a
// sub-agent's <name>.jsonl are left out. Entries the walk could not read
// are returned apart, with the reason.
func FindTranscripts(dir, skip string) (files []string, unreadable []Problem) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			unreadable = append(unreadable, Problem{Path: p, Msg: "cannot read: " + strings.Join(strings.Fields(err.Error()), " "), Rule: "unreadable"})
			if d != nil && d.IsDir() && p != dir {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if p != dir && (p == skip || d.Name() == ".git" || d.Name() == "node_modules" ||
				(strings.HasPrefix(d.Name(), ".") && d.Name() != ".aider")) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || strings.HasPrefix(d.Name(), fsx.TempPrefix) || isMetaCompanion(p) {
			return nil
		}
		if IsTranscriptName(p) {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	return files, unreadable
}

// isMetaCompanion reports whether p is the <name>.meta.json Claude Code keeps
// beside a sub-agent transcript <name>.jsonl (read by the parser with it).
func isMetaCompanion(p string) bool {
	stem, ok := strings.CutSuffix(p, ".meta.json")
	if !ok {
		return false
	}
	_, err := os.Stat(stem + ".jsonl")
	return err == nil
}

// IsTranscriptName reports whether a file found in a directory walk may be
// a transcript: JSON lines, JSON, or an aider chat history (an .md file
// whose head is detected as aider).
func IsTranscriptName(p string) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".jsonl", ".json":
		return true
	case ".md":
		if strings.HasSuffix(p, ".aider.chat.history.md") {
			return true
		}
		head, err := headOf(p, DetectHeadSize)
		if err != nil {
			return false
		}
		parser, err := Detect(p, head)
		return err == nil && parser.Format() == AgentAider
	}
	return false
}

// headOf reads the first n bytes of the file at p.
func headOf(p string, n int) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	m, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b[:m], nil
}
