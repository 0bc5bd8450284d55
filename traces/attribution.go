package traces

import (
	"bytes"
	"encoding/json"
	"github.com/kbmem/kb/internal/textutil"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Attribution decides the authorship facts a record cannot tell alone,
// when a session is read for extraction:
//
//   - a user turn that matches a prompt file of the session's project
//     (.claude/commands/*.md, .codex/prompts/*.md, .gemini/commands/*.toml,
//     .github/prompts/*.prompt.md, ... promptDirs) is that template
//     expanded;
//   - a long user turn whose normalized text recurs verbatim in another
//     session (or shares its long opening with one) was not typed twice by
//     the person: it is injected, a template — when it recurs in another
//     project, or has any of a template's structure (TemplateHint). A
//     person does re-send their own prose: aider and Claude Code recall
//     earlier prompts with the arrow keys, and a request is sent again after
//     an error in a new session of the same project; that stays theirs;
//   - a turn stored before parsers judged shape (TemplateShape, a harness
//     tag) is judged now.
//
// Traces are append-only and the first occurrence of a template was
// imported before the second, so recurrence cannot be a mark written at
// import: it is derived data, the index of long user turns in
// Root/.state/turns.json, rebuilt from the session files (a file that grew
// is scanned from where the index left off; one that shrank or is gone is
// scanned again or dropped). Once a second session holds the turn, both
// occurrences stop being the person's the next time either is read.
type Attribution struct {
	turns   map[string]map[string]string // turn hash -> session files holding it -> their project
	prompts map[string][]promptFile      // project root -> its prompt files
	roots   map[string]string            // cwd -> project root ("" none found)
	indexed map[string]bool              // the session files the index covers
	recurs  map[string]bool              // the session files holding a turn another file holds too
}

// Turn recurrence thresholds: a turn shorter than recurMinRunes (after
// normalization) is never judged by recurrence (short messages such as
// "continue" recur from people); a turn of at least recurHeadMin runes is
// also indexed by its first recurHeadRunes, so that a template expanded
// with different arguments at its end still recurs.
const (
	recurMinRunes  = 160
	recurHeadMin   = 600
	recurHeadRunes = 300
)

// TurnsFile is the recurrence index under Root/.state.
const TurnsFile = "turns.json"

type turnsDoc struct {
	Version int                   `json:"version"`
	Files   map[string]*turnsScan `json:"files"`
}

type turnsScan struct {
	Size  int64    `json:"size"`
	Lines int      `json:"lines"`
	Cwd   string   `json:"cwd,omitempty"`   // the session's working directory (its first user record's)
	Turns []string `json:"turns,omitempty"` // hashes of the long user turns, one per distinct occurrence
	IDs   []string `json:"ids,omitempty"`   // the identity of each occurrence (agent id, else time), parallel to Turns
}

const turnsVersion = 2 // 2: turns longer than WorkMax hashed in their work form

// Attribution loads (and brings up to date) the recurrence index and
// returns the attribution over the store's sessions. The index is a cache:
// failing to write it costs time, not correctness.
func (s *Store) Attribution() (*Attribution, error) {
	idx, err := s.index()
	if err != nil {
		return nil, err
	}
	p := filepath.Join(s.Root, stateDir, TurnsFile)
	doc := &turnsDoc{}
	if data, err := s.files().ReadFile(p); err != nil || json.Unmarshal(data, doc) != nil || doc.Version != turnsVersion {
		doc = &turnsDoc{}
	}
	if doc.Files == nil {
		doc.Files = map[string]*turnsScan{}
	}
	dirty := false
	live := map[string]bool{}
	for _, rel := range idx {
		live[rel] = true
		fi, err := os.Stat(filepath.Join(s.Root, filepath.FromSlash(rel)))
		if err != nil {
			continue
		}
		sc := doc.Files[rel]
		if sc == nil || sc.Size > fi.Size() || len(sc.IDs) != len(sc.Turns) {
			sc = &turnsScan{}
		}
		if sc.Size < fi.Size() {
			if err := s.scanTurns(rel, sc); err != nil {
				return nil, err
			}
			doc.Files[rel] = sc
			dirty = true
		}
	}
	for rel := range doc.Files {
		if !live[rel] {
			delete(doc.Files, rel)
			dirty = true
		}
	}
	if dirty {
		doc.Version = turnsVersion
		if data, err := json.Marshal(doc); err == nil {
			_ = s.files().WriteFile(p, data, 0o644)
		}
	}
	a := &Attribution{turns: map[string]map[string]string{}, prompts: map[string][]promptFile{}, roots: map[string]string{}, indexed: map[string]bool{}}
	// An occurrence is known by its identity: a session resumed into a new
	// file copies the earlier records with their ids and times, and a copy
	// is not a recurrence.
	first := map[string]string{} // hash + identity -> the file it was first met in
	rels := make([]string, 0, len(doc.Files))
	for rel := range doc.Files {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	for _, rel := range rels {
		sc := doc.Files[rel]
		a.indexed[rel] = true
		for i, h := range sc.Turns {
			k := h + "\x00" + sc.IDs[i]
			if f, ok := first[k]; ok && f != rel {
				continue
			}
			first[k] = rel
			m := a.turns[h]
			if m == nil {
				m = map[string]string{}
				a.turns[h] = m
			}
			m[rel] = sc.Cwd
		}
	}
	a.recurs = map[string]bool{}
	for _, m := range a.turns {
		if len(m) >= 2 {
			for rel := range m {
				a.recurs[rel] = true
			}
		}
	}
	return a, nil
}

// MayRecur reports whether the session file holds a long turn that another
// session holds too, so that reading it again may find a turn Author now
// gives a template: a cheap test before re-reading an older session.
func (a *Attribution) MayRecur(sessionFile string) bool {
	return a != nil && a.recurs[sessionFile]
}

// scanTurns extends sc with the long user turns after sc.Size of the
// session file rel.
func (s *Store) scanTurns(rel string, sc *turnsScan) error {
	f, err := s.files().Open(filepath.Join(s.Root, filepath.FromSlash(rel)))
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Seek(sc.Size, io.SeekStart); err != nil {
		return err
	}
	ls := newLineScan(f, Pos{Offset: sc.Size, Line: sc.Lines})
	for {
		line, _, ok, bad, err := ls.nextWork()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if bad != nil || !bytes.Contains(line, []byte(`"role":"user"`)) {
			continue
		}
		var r Record
		if json.Unmarshal(line, &r) != nil {
			continue
		}
		if sc.Cwd == "" {
			sc.Cwd = r.Cwd
		}
		if !recurCandidate(&r) {
			continue
		}
		id := nativeID(&r)
		if id == "" && !r.Time.IsZero() {
			id = "t" + strconv.FormatInt(r.Time.UnixNano(), 36)
		}
		if id == "" {
			id = "s" + strconv.Itoa(r.Seq)
		}
		for _, h := range turnHashes(r.Text) {
			sc.Turns = append(sc.Turns, h)
			sc.IDs = append(sc.IDs, id)
		}
	}
	p := ls.pos(nil)
	sc.Size, sc.Lines = p.Offset, p.Line
	return nil
}

// recurCandidate reports a record the recurrence index holds: a user
// message the person's or a template's, not a slash command line or a
// refusal's reason.
func recurCandidate(r *Record) bool {
	if r.Role != RoleUser || r.Kind != KindMessage || r.Has(MarkSlash) || r.Has(MarkRejected) {
		return false
	}
	switch r.Who() {
	case AuthorPerson, AuthorTemplate:
		return true
	}
	return false
}

// turnHashes are the index keys of a turn: its whole normalized text, and
// for a long turn its opening too; none for a short turn.
func turnHashes(text string) []string {
	n := normTurn(WorkText(text))
	runes := utf8.RuneCountInString(n)
	if runes < recurMinRunes {
		return nil
	}
	out := []string{"w" + textHash(n)}
	if runes >= recurHeadMin {
		i, k := 0, 0
		for i = range n {
			if k == recurHeadRunes {
				break
			}
			k++
		}
		out = append(out, "h"+textHash(n[:i]))
	}
	return out
}

// Recurs reports whether r's text is a long turn that another session
// holds too, in another project or with a template's structure
// (TemplateHint).
func (a *Attribution) Recurs(r *Record, sessionFile string) bool {
	hint := false
	for i, h := range turnHashes(r.Text) {
		m := a.turns[h]
		files, projects := len(m), map[string]bool{}
		for _, p := range m {
			projects[p] = true
		}
		if sessionFile != "" && !a.indexed[sessionFile] {
			// A session the index does not cover yet: count it.
			files++
			projects[r.Cwd] = true
		}
		if files < 2 {
			continue
		}
		if len(projects) >= 2 {
			return true
		}
		if i == 0 {
			hint = TemplateHint(r.Text)
		}
		if hint {
			return true
		}
	}
	return false
}

// Author returns r's author with what the record alone cannot tell: a
// message the parser gave the person is a template when it matches a
// prompt file of its project or recurs in another session (sessionFile is
// the session file r was read from, a SessionInfo.Path; "" when unknown),
// and is judged by its shape when it was stored before parsers did that.
func (a *Attribution) Author(r *Record, sessionFile string) string {
	who := r.Who()
	if who != AuthorPerson || r.Kind != KindMessage || r.Role != RoleUser || r.Has(MarkSlash) || r.Has(MarkRejected) {
		return who
	}
	if w := textAuthor(r.Text); w != AuthorPerson {
		return w
	}
	if a == nil {
		return who
	}
	if a.matchesPrompt(r) || a.Recurs(r, sessionFile) {
		return AuthorTemplate
	}
	return who
}

// Apply sets Author on the records of one session (read from sessionFile)
// where Author decides otherwise than the record, and returns how many it
// changed. Only the records in memory change: traces are never rewritten.
func (a *Attribution) Apply(recs []Record, sessionFile string) int {
	n := 0
	for i := range recs {
		r := &recs[i]
		if r.Role != RoleUser || r.Kind != KindMessage {
			continue
		}
		if w := a.Author(r, sessionFile); w != r.Who() {
			r.Author = w
			n++
		}
	}
	return n
}

// Prompt files.

// promptDirs are the directories, relative to a project root, where the
// agents kb reads keep prompt files that a command expands into the user
// turn: Claude Code's commands and skills, Codex's prompts, Gemini CLI's
// commands (TOML), GitHub Copilot's prompt files and chat modes, Cursor's
// commands, spec-kit's templates, and the equivalents of Windsurf, opencode,
// Qwen Code, Roo, Kilo Code and Amazon Q.
var promptDirs = []string{
	".claude/commands", ".claude/skills", ".codex/prompts", ".gemini/commands",
	".github/prompts", ".github/chatmodes", ".cursor/commands", ".specify/templates",
	".specify/commands", ".windsurf/workflows", ".opencode/command", ".opencode/commands",
	".qwen/commands", ".roo/commands", ".kilocode/workflows", ".amazonq/prompts",
}

// Limits on what is read of a project's prompt files.
const (
	promptMaxFiles = 400
	promptMaxBytes = 256 << 10
)

type promptFile struct {
	lines  []string // its distinctive lines, normalized (no placeholder in them)
	chunks []string // its body cut at the placeholders, normalized
}

var (
	promptPlaceholder = textutil.Lazy(`\$ARGUMENTS\b|\$\{?ARGS\}?|\{\{[^}]{0,60}\}\}|\$[1-9]\b|\[\$?ARGUMENTS\]|<ARGUMENTS>`)
	promptFrontRe     = textutil.Lazy(`\A---\r?\n(?s:.*?)\r?\n---\r?\n`)
	promptTOMLRe      = textutil.Lazy(`(?s)prompt\s*=\s*(?:"""(.*?)"""|'''(.*?)'''|"((?:[^"\\]|\\.)*)")`)
)

// root returns the project root of a working directory: the nearest
// directory up from it holding a .git, or the directory itself when none
// does; "" when the directory does not exist on this machine.
func (a *Attribution) root(cwd string) string {
	if cwd == "" {
		return ""
	}
	if r, ok := a.roots[cwd]; ok {
		return r
	}
	r := ""
	if st, err := os.Stat(cwd); err == nil && st.IsDir() {
		r = cwd
		for d, i := cwd, 0; i < 12; i++ {
			if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
				r = d
				break
			}
			up := filepath.Dir(d)
			if up == d {
				break
			}
			d = up
		}
	}
	a.roots[cwd] = r
	return r
}

// projectPrompts loads the prompt files under root (cached).
func (a *Attribution) projectPrompts(root string) []promptFile {
	if ps, ok := a.prompts[root]; ok {
		return ps
	}
	var ps []promptFile
	n := 0
	for _, d := range promptDirs {
		dir := filepath.Join(root, filepath.FromSlash(d))
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			if err != nil || n >= promptMaxFiles {
				return filepath.SkipDir
			}
			if !e.Type().IsRegular() {
				return nil
			}
			ext := strings.ToLower(filepath.Ext(p))
			if ext != ".md" && ext != ".toml" && ext != ".txt" {
				return nil
			}
			n++
			if pf, ok := readPromptFile(p, ext == ".toml"); ok {
				ps = append(ps, pf)
			}
			return nil
		})
	}
	a.prompts[root] = ps
	return ps
}

// readPromptFile reads one prompt file into what matching needs.
func readPromptFile(p string, isTOML bool) (promptFile, bool) {
	f, err := os.Open(p)
	if err != nil {
		return promptFile{}, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, promptMaxBytes))
	if err != nil || !utf8.Valid(b) {
		return promptFile{}, false
	}
	return parsePromptFile(string(b), isTOML)
}

// parsePromptFile turns a prompt file's text into its distinctive lines
// and its chunks between placeholders.
func parsePromptFile(body string, isTOML bool) (promptFile, bool) {
	if isTOML {
		m := promptTOMLRe.FindStringSubmatch(body)
		if m == nil {
			return promptFile{}, false
		}
		body = m[1] + m[2] + strings.ReplaceAll(m[3], `\n`, "\n")
	} else {
		body = promptFrontRe.ReplaceAllString(body, "")
	}
	var pf promptFile
	seen := map[string]bool{}
	for _, l := range strings.Split(body, "\n") {
		if promptPlaceholder.MatchString(l) {
			continue
		}
		if n := normTurn(l); utf8.RuneCountInString(n) >= 16 && !seen[n] {
			seen[n] = true
			pf.lines = append(pf.lines, n)
		}
	}
	for _, c := range promptPlaceholder.Split(body, -1) {
		if n := normTurn(c); utf8.RuneCountInString(n) >= 12 {
			pf.chunks = append(pf.chunks, n)
		}
	}
	return pf, len(pf.lines) > 0 || len(pf.chunks) > 0
}

// matches reports whether a turn (normalized whole, and its normalized
// lines) is this prompt file expanded: with four or more distinctive
// lines, 60% of them are lines of the turn; a shorter file's chunks are
// all in the turn and make at least 40 runes and 40% of it.
func (pf *promptFile) matches(turn string, lines map[string]bool) bool {
	if len(pf.lines) >= 4 {
		hit := 0
		for _, l := range pf.lines {
			if lines[l] {
				hit++
			}
		}
		return hit*10 >= len(pf.lines)*6
	}
	total := 0
	for _, c := range pf.chunks {
		if !strings.Contains(turn, c) {
			return false
		}
		total += utf8.RuneCountInString(c)
	}
	return total >= 40 && total*10 >= utf8.RuneCountInString(turn)*4
}

// matchesPrompt reports whether r is a prompt file of its project expanded.
func (a *Attribution) matchesPrompt(r *Record) bool {
	root := a.root(r.Cwd)
	if root == "" {
		return false
	}
	ps := a.projectPrompts(root)
	if len(ps) == 0 {
		return false
	}
	turn := normTurn(r.Text)
	if utf8.RuneCountInString(turn) < 40 {
		return false
	}
	lines := map[string]bool{}
	for _, l := range strings.Split(r.Text, "\n") {
		if n := normTurn(l); n != "" {
			lines[n] = true
		}
	}
	for i := range ps {
		if ps[i].matches(turn, lines) {
			return true
		}
	}
	return false
}
