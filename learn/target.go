package learn

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/library"
)

// baseline is the state of both files before the tick.
type baseline struct {
	targetRel    string
	target       []byte
	targetExists bool
	targetPerm   os.FileMode
	index        *index
	indexPerm    os.FileMode
	indexDirNew  bool // .continual-learning did not exist
	// block is what kb's block of the target holds between its markers;
	// hasBlock is false when the target has none.
	block    []byte
	hasBlock bool
	bullets  []baselineFact // bullet lines of the target
}

type baselineFact struct {
	text  string
	where string
}

// readBaseline reads both files (through the project's tree, so that
// a target or .continual-learning/ symlinked out of the project blocks the
// tick, named); a non-empty second result is the reason the tick is
// blocked.
func readBaseline(tree fsx.Tree, targetAbs, targetRel, indexAbs string) (*baseline, string) {
	b := &baseline{targetRel: targetRel, targetPerm: 0o644, indexPerm: 0o644}
	data, err := tree.ReadFile(targetAbs)
	switch {
	case err == nil:
		b.target, b.targetExists = data, true
		if fi, err := tree.Stat(targetAbs); err == nil {
			b.targetPerm = fi.Mode().Perm()
		}
	case errors.Is(err, fs.ErrNotExist):
	default:
		return nil, fmt.Sprintf("%s cannot be read: %s", targetRel, errReason(err))
	}
	if b.targetExists {
		sec, found, err := library.FindBlock(b.target, Block)
		if err != nil {
			return nil, fmt.Sprintf("%s: %v", targetRel, err)
		}
		b.block, b.hasBlock = sec, found
		for i, line := range strings.Split(string(b.target), "\n") {
			if t := bulletText(line); t != "" {
				b.bullets = append(b.bullets, baselineFact{text: t, where: fmt.Sprintf("%s:%d", targetRel, i+1)})
			}
		}
	}
	raw, err := tree.ReadFile(indexAbs)
	switch {
	case err == nil:
		ix, perr := parseIndex(raw)
		if perr != nil {
			return nil, fmt.Sprintf("%s is corrupt: %v", IndexFile, perr)
		}
		b.index = ix
		if fi, err := tree.Stat(indexAbs); err == nil {
			b.indexPerm = fi.Mode().Perm()
		}
	case errors.Is(err, fs.ErrNotExist):
		b.index = &index{vals: map[string]json.RawMessage{}}
		if _, err := tree.Stat(filepath.Dir(indexAbs)); errors.Is(err, fs.ErrNotExist) {
			b.indexDirNew = true
		}
	default:
		return nil, fmt.Sprintf("%s cannot be read: %s", IndexFile, errReason(err))
	}
	return b, ""
}

var bulletRE = regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])\s+(.*\S)\s*$`)

// bulletText returns the text of a Markdown list item, without a leading
// task box.
func bulletText(line string) string {
	m := bulletRE.FindStringSubmatch(line)
	if m == nil {
		return ""
	}
	t := strings.TrimPrefix(strings.TrimPrefix(m[1], "[ ] "), "[x] ")
	return strings.TrimSpace(t)
}

// section is kb's section parsed: bullets under category headings, in order.
type section struct {
	order  []string            // group titles in order of appearance
	groups map[string][]string // title -> bullet lines (text after "- ")
}

func parseSection(inner string) *section {
	s := &section{groups: map[string][]string{}}
	cur := ""
	for _, line := range strings.Split(inner, "\n") {
		if h, ok := strings.CutPrefix(strings.TrimSpace(line), "### "); ok {
			cur = strings.TrimSpace(h)
			continue
		}
		if t := bulletText(line); t != "" {
			title := cur
			if title == "" {
				title = categoryHeadings[CategoryProjectKnowledge]
			}
			s.add(title, t)
		}
	}
	return s
}

func (s *section) add(title, text string) {
	if _, ok := s.groups[title]; !ok {
		s.order = append(s.order, title)
	}
	s.groups[title] = append(s.groups[title], text)
}

func (s *section) render() string {
	var b strings.Builder
	b.WriteString("## Learned from past sessions\n\n")
	b.WriteString("<!-- Maintained by `kb learn` (index: " + IndexFile + "); kb appends here and leaves the rest of this file alone. -->\n")
	var titles []string
	seen := map[string]bool{}
	for _, c := range Categories {
		if t := categoryHeadings[c]; len(s.groups[t]) > 0 {
			titles = append(titles, t)
			seen[t] = true
		}
	}
	for _, t := range s.order {
		if !seen[t] && len(s.groups[t]) > 0 {
			titles = append(titles, t)
		}
	}
	for _, t := range titles {
		b.WriteString("\n### " + t + "\n\n")
		for _, x := range s.groups[t] {
			b.WriteString("- " + x + "\n")
		}
	}
	return b.String()
}

// renderTarget returns the target with entries added to kb's section; every
// byte outside the section is kept.
func (b *baseline) renderTarget(add []Entry) ([]byte, error) {
	sec := &section{groups: map[string][]string{}}
	if b.hasBlock {
		sec = parseSection(string(b.block))
	}
	for _, e := range add {
		sec.add(categoryHeadings[e.Category], e.Fact)
	}
	return library.ReplaceBlock(b.target, Block, sec.render())
}
