package observations

import (
	"encoding/json"
	"github.com/kbmem/kb/internal/textutil"
	"slices"
	"strings"

	"github.com/kbmem/kb/traces"
)

// What the agent changed: the files a failure report is about. A commit
// or `git add` names files too, but it is not the change; a patch applied
// through the shell (Codex's apply_patch) is one; the agent writing its own
// memory file is not the person's project.

// patchFileRE finds the files of an apply_patch envelope.
var patchFileRE = textutil.Lazy(`\*\*\* (?:Update|Add|Delete) File: ([^\s*]+)`)

// patchFiles returns the files a call patches through apply_patch (as a
// tool or a shell command), nil when it is no patch.
func patchFiles(r *traces.Record) []string {
	var src string
	if strings.EqualFold(r.Tool, "apply_patch") {
		src = patchText(r.Input)
	} else if c := callCommand(r); strings.Contains(c, "*** Begin Patch") {
		src = c
	} else if in := string(r.Input); strings.Contains(in, "*** Begin Patch") && shellTools[strings.ToLower(r.Tool)] {
		src = in
	} else {
		return nil
	}
	var out []string
	for _, m := range patchFileRE.FindAllStringSubmatch(src, -1) {
		out = append(out, strings.Trim(m[1], `"\`))
	}
	if out == nil {
		out = []string{""}
	}
	return out
}

// patchText is the text of an apply_patch call's input: the JSON string
// itself, or the string fields of an object ({"input": "*** Begin
// Patch..."}), decoded, so that a file name ends at the patch's own line
// end and not at an escaped "\n" ("Dockerfile\n@@\n-FROM").
func patchText(in json.RawMessage) string {
	var str string
	if json.Unmarshal(in, &str) == nil {
		return str
	}
	var m map[string]any
	if json.Unmarshal(in, &m) != nil {
		return string(in)
	}
	var b strings.Builder
	for _, k := range []string{"input", "patch", "command"} {
		if v, ok := m[k].(string); ok {
			b.WriteString(v)
			b.WriteByte('\n')
		}
	}
	if b.Len() == 0 {
		return string(in)
	}
	return b.String()
}

// editedFiles returns the files an edit call writes: its path argument, or
// the files of a patch. ok is false for a call that edits nothing.
func editedFiles(r *traces.Record) (files []string, ok bool) {
	if fs := patchFiles(r); fs != nil {
		return fs, true
	}
	if !editTools[strings.ToLower(r.Tool)] {
		return nil, false
	}
	var m map[string]any
	_ = json.Unmarshal(r.Input, &m)
	for _, k := range pathKeys {
		if p, ok := m[k].(string); ok && p != "" {
			return []string{p}, true
		}
	}
	return []string{""}, true
}

// agentMemoryPath reports whether a path is the agent's own memory
// (Claude Code's projects/<dir>/memory/, a .claude directory): writing it
// is not the change the person is judging.
func agentMemoryPath(p string) bool {
	p = strings.ReplaceAll(p, `\`, "/")
	return strings.Contains(p, "/.claude/") || strings.HasPrefix(p, ".claude/") ||
		strings.Contains(p, "/memory/MEMORY.md") || strings.HasSuffix(p, "/MEMORY.md") && strings.Contains(p, "/projects/")
}

// changedFiles lists, in order and without repeats, the files the agent
// changed since the person last spoke (its own memory left out).
func changedFiles(tl *timeline, u *utterance) []string {
	var out []string
	add := func(f string) {
		if f == "" || agentMemoryPath(f) {
			return
		}
		if f = shortPath(f); !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	for _, c := range u.calls {
		fs, _ := editedFiles(tl.rec(c))
		for _, f := range fs {
			add(f)
		}
	}
	for _, f := range u.edited {
		add(f)
	}
	return out
}

// changeObject names what a failure report is about: the change to the
// files the agent changed, else "the change".
func changeObject(tl *timeline, u *utterance) string {
	fs := changedFiles(tl, u)
	if len(fs) == 0 {
		return "the change"
	}
	more := ""
	if len(fs) > 3 {
		fs, more = fs[len(fs)-3:], " and other files"
	}
	return "the change to `" + strings.Join(fs, "`, `") + "`" + more
}
