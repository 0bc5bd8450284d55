package agents

import (
	"bufio"
	"encoding/json"
	"errors"
	"github.com/kbmem/kb/internal/textutil"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/gitdir"
	"github.com/kbmem/kb/traces"
)

// Where each agent keeps its transcripts on this machine, and which of
// them belong to a project: the agents' on-disk layout, as kb import
// --claude-code / --codex, kb.yaml's "auto" trace sources and kb watch
// find them.

// EncodeClaudeProject is the directory name Claude Code uses under
// ~/.claude/projects for a working directory: the absolute path with '/'
// and '.' (and '\', ':') replaced by '-'.
func EncodeClaudeProject(abs string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '/', '.', '\\', ':':
			return '-'
		}
		return r
	}, abs)
}

// Home is the home directory the agents keep their transcripts under:
// $HOME, else the system's idea of it.
func Home() string {
	if h := os.Getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// ClaudeProjectsDir is where Claude Code keeps a directory of transcripts
// per project: ~/.claude/projects.
func ClaudeProjectsDir() string { return filepath.Join(Home(), ".claude", "projects") }

// TranscriptDirs are the directories the agents write their own
// transcripts to: every file below them is a transcript of theirs.
func TranscriptDirs() []string { return []string{ClaudeProjectsDir(), CodexSessionsDir()} }

// ClaudeCodeDirs returns ~/.claude/projects/<encoded-cwd> for projectRoot
// and each of its git worktrees. The directories may not exist yet.
func ClaudeCodeDirs(projectRoot string) []string {
	base := ClaudeProjectsDir()
	var out []string
	for _, w := range gitdir.Worktrees(projectRoot) {
		out = append(out, filepath.Join(base, EncodeClaudeProject(w)))
	}
	return out
}

// CodexSessionsDir is $CODEX_HOME/sessions, or ~/.codex/sessions.
func CodexSessionsDir() string {
	if h := os.Getenv("CODEX_HOME"); h != "" {
		return filepath.Join(h, "sessions")
	}
	return filepath.Join(Home(), ".codex", "sessions")
}

var codexRollout = textutil.Lazy(`^rollout-.*\.jsonl$`)

// IsCodexRollout reports whether a file name is a Codex rollout's.
func IsCodexRollout(name string) bool { return codexRollout.MatchString(filepath.Base(name)) }

// CodexFiles returns the Codex rollouts under CodexSessionsDir (any depth,
// normally YYYY/MM/DD/rollout-*.jsonl) whose session_meta cwd lies inside
// projectRoot or one of its worktrees. Only the first line of each file is
// read.
func CodexFiles(projectRoot string) []string {
	roots := gitdir.Worktrees(projectRoot)
	var out []string
	filepath.WalkDir(CodexSessionsDir(), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		if codexRollout.MatchString(d.Name()) && CodexInProject(p, roots) {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// CodexInProject reads the first line of a rollout and reports whether its
// session_meta cwd is inside one of roots. A rollout without a cwd there
// (older Codex versions) is not attributed to any project, nor is one whose
// first line is not written yet. One kb cannot read, or whose first line is
// not JSON, is kept, so that its import reports it.
func CodexInProject(p string, roots []string) bool {
	f, err := os.Open(p)
	if err != nil {
		return true
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(io.LimitReader(f, traces.MaxDetectLine), 64<<10).ReadBytes('\n')
	if err != nil {
		return !errors.Is(err, io.EOF)
	}
	var first struct {
		Type    string `json:"type"`
		Payload struct {
			Cwd string `json:"cwd"`
		} `json:"payload"`
		Cwd string `json:"cwd"`
	}
	if json.Unmarshal(line, &first) != nil {
		return true
	}
	cwd := first.Payload.Cwd
	if cwd == "" {
		cwd = first.Cwd
	}
	if cwd == "" {
		return false
	}
	for _, r := range roots {
		if fsx.Inside(r, filepath.Clean(cwd)) {
			return true
		}
	}
	return false
}

// Source is one place transcripts come from: a file or directory, and for
// the automatic Codex source a filter on the files under it.
type Source struct {
	Kind string `json:"kind"` // claude-code, codex, sources
	Path string `json:"path"`
	// Keep, if set, says which files under Path belong to the project.
	Keep func(file string) bool `json:"-"`
}

// SourceEntries are the entries of kb.yaml's traces section: paths, or
// "auto" for the agent's own directories of the project.
type SourceEntries struct {
	ClaudeCode, Codex, Extra []string
}

// Sources resolves the entries for the project at projectRoot: "auto"
// becomes ClaudeCodeDirs, or the Codex sessions directory filtered to the
// project's rollouts; other entries are taken as given, ~ expanded and
// relative paths against projectRoot. Each path comes once; paths may not
// exist yet.
func Sources(projectRoot string, e SourceEntries) []Source {
	var out []Source
	resolve := func(p string) string {
		if p == "~" || strings.HasPrefix(p, "~/") {
			p = filepath.Join(Home(), p[1:])
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(projectRoot, p)
		}
		return filepath.Clean(p)
	}
	auto := func(s string) bool { return strings.EqualFold(strings.TrimSpace(s), "auto") }
	for _, c := range e.ClaudeCode {
		if !auto(c) {
			out = append(out, Source{Kind: traces.AgentClaudeCode, Path: resolve(c)})
			continue
		}
		for _, d := range ClaudeCodeDirs(projectRoot) {
			out = append(out, Source{Kind: traces.AgentClaudeCode, Path: d})
		}
	}
	for _, c := range e.Codex {
		if !auto(c) {
			out = append(out, Source{Kind: traces.AgentCodex, Path: resolve(c)})
			continue
		}
		roots := gitdir.Worktrees(projectRoot)
		out = append(out, Source{Kind: traces.AgentCodex, Path: CodexSessionsDir(), Keep: func(f string) bool {
			return IsCodexRollout(f) && CodexInProject(f, roots)
		}})
	}
	for _, c := range e.Extra {
		out = append(out, Source{Kind: "sources", Path: resolve(c)})
	}
	seen := map[string]bool{}
	kept := out[:0]
	for _, s := range out {
		if !seen[s.Path] {
			seen[s.Path] = true
			kept = append(kept, s)
		}
	}
	return kept
}

// InAgentDir reports whether p lies in a directory an agent writes its own
// transcripts to: ~/.claude/projects, the Codex sessions directory, and the
// whole-directory entries of sources (kb.yaml's claude_code and codex
// other than auto). There a file kb cannot read is an error, not a file to
// pass over.
func InAgentDir(p string, sources []Source) bool {
	dirs := TranscriptDirs()
	for _, s := range sources {
		if s.Keep == nil && !strings.HasPrefix(s.Path, dirs[0]+string(filepath.Separator)) {
			dirs = append(dirs, s.Path)
		}
	}
	for _, d := range dirs {
		if fsx.Inside(filepath.Clean(d), filepath.Clean(p)) {
			return true
		}
	}
	return false
}
