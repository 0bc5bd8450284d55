package kb

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/gitx"
	"github.com/kbmem/kb/library"
	"github.com/kbmem/kb/observations"
	"github.com/kbmem/kb/traces"
)

// The continual-learning tick (kb learn) maintains two files of the
// project: AGENTS.md (or another target), where it owns one section between
// LearnBegin and LearnEnd, and the index at LearnIndexFile. It follows the
// continual-learning contract: enumerate transcripts, read the baseline,
// extract candidate facts, deduplicate, apply a high-signal gate, capture the
// prior state, write both files together or not at all, or say explicitly
// why nothing was written.

// Results of a learn tick.
const (
	LearnUpdated    = "updated"
	LearnNoUpdate   = "no-update"
	LearnBlocked    = "blocked"
	LearnRolledBack = "rolled-back"
)

// Reasons of a no-update result.
const (
	ReasonNoNewTranscripts = "no new transcripts"
	ReasonAllDuplicates    = "all duplicates"
	ReasonAllBelowGate     = "all below the gate"
)

const (
	// LearnIndexFile is the continual-learning index, relative to the project root.
	LearnIndexFile = ".continual-learning/index.json"
	// LearnBlock names the kb block of the target kb learn maintains
	// (library.FindBlock); LearnBegin and LearnEnd are its markers.
	LearnBlock = "learned"
	LearnBegin = "<!-- kb:begin " + LearnBlock + " -->"
	LearnEnd   = "<!-- kb:end " + LearnBlock + " -->"
	// learnStateDir holds the captured prior states, one directory each, and
	// the fingerprints of the last ticks.
	learnStateDir  = "learn"
	learnTicksFile = "ticks.json"
)

// Index categories.
const (
	CategoryDecision         = "decision"
	CategoryConvention       = "convention"
	CategoryConstraint       = "constraint"
	CategoryResolvedProblem  = "resolved-problem"
	CategoryProjectKnowledge = "project-knowledge"
)

// LearnCategories lists the index categories in the order AGENTS.md shows them.
var LearnCategories = []string{CategoryDecision, CategoryConvention, CategoryConstraint, CategoryResolvedProblem, CategoryProjectKnowledge}

var categoryHeadings = map[string]string{
	CategoryDecision:         "Decisions",
	CategoryConvention:       "Conventions",
	CategoryConstraint:       "Constraints",
	CategoryResolvedProblem:  "Resolved problems",
	CategoryProjectKnowledge: "Project knowledge",
}

// LearnOptions configure Learn.
type LearnOptions struct {
	Target   string   // file to maintain, relative to the project root ("" = learn.target of kb.yaml)
	DryRun   bool     // compute and show the diff; write neither file nor snapshot
	Rollback bool     // restore the latest captured prior state instead of learning
	Sources  []string // more transcript files or directories to import first
}

// LearnEntry is one fact as the index stores it.
type LearnEntry struct {
	Fact          string `json:"fact"`
	SourceSession string `json:"source_session"`
	Date          string `json:"date"`
	Category      string `json:"category"`
}

// LearnApplied is an entry a tick wrote, with where it came from.
type LearnApplied struct {
	LearnEntry
	Observation string   `json:"observation"` // id of the observation it was drawn from
	Sessions    []string `json:"sessions"`    // every session that supports it
}

// LearnDrop is a candidate that was not written, and why: "duplicate: ...",
// "gate: one-off", "gate: derivable (path)", "gate: obvious", ...
type LearnDrop struct {
	Fact        string `json:"fact"`
	Category    string `json:"category"`
	Observation string `json:"observation"`
	Reason      string `json:"reason"`
}

// LearnConflict is a candidate that contradicts a recorded fact. The recorded
// fact is left unchanged.
type LearnConflict struct {
	Fact        string `json:"fact"`
	Observation string `json:"observation"`
	Existing    string `json:"existing"`
	Where       string `json:"where"` // "index entry 3" or "AGENTS.md:12"
	Why         string `json:"why"`
}

// LearnSkip is a transcript source that could not be read.
type LearnSkip struct {
	Source string `json:"source"`
	Reason string `json:"reason"`
}

// LearnResult is what a tick did.
type LearnResult struct {
	Result     string          `json:"result"` // updated | no-update | blocked | rolled-back
	Reason     string          `json:"reason,omitempty"`
	DryRun     bool            `json:"dry_run,omitempty"`
	Target     string          `json:"target"` // relative to the project root
	Index      string          `json:"index"`
	Sessions   int             `json:"sessions"`   // sessions in the KB after import
	Candidates int             `json:"candidates"` // candidate facts considered
	Applied    []LearnApplied  `json:"applied"`
	Dropped    []LearnDrop     `json:"dropped"`
	Conflicts  []LearnConflict `json:"conflicts"`
	Skipped    []LearnSkip     `json:"skipped"`
	Snapshot   string          `json:"snapshot,omitempty"` // captured prior state, relative to the KB root
	Diff       string          `json:"diff,omitempty"`
}

func newLearnResult(target string) *LearnResult {
	return &LearnResult{Target: target, Index: LearnIndexFile, Applied: []LearnApplied{},
		Dropped: []LearnDrop{}, Conflicts: []LearnConflict{}, Skipped: []LearnSkip{}}
}

// LearnTick is Learn with the defaults of kb.yaml: what `kb watch
// --learn-every` runs.
func (k *KB) LearnTick(ctx context.Context) (*LearnResult, error) {
	return k.Learn(ctx, LearnOptions{})
}

// learnTargetName is learn.target of kb.yaml, AGENTS.md by default.
func (k *KB) learnTargetName() string {
	if k.Config.Learn.Target != "" {
		return k.Config.Learn.Target
	}
	return "AGENTS.md"
}

// learnTarget resolves the target file inside the project root.
func (k *KB) learnTarget(target string) (abs, rel string, err error) {
	if target == "" {
		target = k.learnTargetName()
	}
	if filepath.IsAbs(target) {
		r, err := filepath.Rel(k.ProjectRoot, target)
		if err != nil {
			return "", "", fmt.Errorf("%w: target %s is outside the project %s", ErrInvalidInput, target, k.ProjectRoot)
		}
		target = r
	}
	abs, err = fsx.Within(k.ProjectRoot, filepath.Clean(target))
	if err != nil {
		return "", "", fmt.Errorf("%w: target %s: %v", ErrInvalidInput, target, err)
	}
	rel = filepath.ToSlash(filepath.Clean(target))
	if rel == "." || rel == LearnIndexFile {
		return "", "", fmt.Errorf("%w: target %q is not a file kb learn may maintain", ErrInvalidInput, target)
	}
	return abs, rel, nil
}

// Learn runs one continual-learning tick (or, with o.Rollback, undoes the
// last one). It imports the configured transcript sources and o.Sources,
// extracts observations from new sessions, and turns the observations into
// deduplicated, high-signal facts appended to the index and to kb's section
// of the target. Every outcome is a result: updated, no-update with the
// reason, or blocked naming the input that could not be read; the error is
// for failures of the machinery (lock, I/O while writing).
func (k *KB) Learn(ctx context.Context, o LearnOptions) (*LearnResult, error) {
	targetAbs, targetRel, err := k.learnTarget(o.Target)
	if err != nil {
		return nil, err
	}
	indexAbs := filepath.Join(k.ProjectRoot, filepath.FromSlash(LearnIndexFile))
	res := newLearnResult(targetRel)
	res.DryRun = o.DryRun
	if o.Rollback {
		return k.learnRollback(ctx, res, o.DryRun)
	}

	// 1. Enumerate: import the agent directories and the named sources.
	sources := k.TraceSources(true, true, true)
	for _, s := range o.Sources {
		abs, err := filepath.Abs(s)
		if err != nil {
			res.Skipped = append(res.Skipped, LearnSkip{Source: s, Reason: err.Error()})
			continue
		}
		if _, err := os.Stat(abs); err != nil {
			res.Skipped = append(res.Skipped, LearnSkip{Source: abs, Reason: errReason(err)})
			continue
		}
		sources = append(sources, Source{Kind: "sources", Path: abs})
	}
	rep, err := k.ImportSources(ctx, sources, ImportOptions{})
	var partial *PartialImportError
	if err != nil && !errors.As(err, &partial) {
		return nil, fmt.Errorf("learn: import transcripts: %w", err)
	}
	if rep != nil {
		for _, f := range rep.Files {
			if f.Error != "" {
				res.Skipped = append(res.Skipped, LearnSkip{Source: f.File, Reason: f.Error})
			}
		}
		for _, s := range rep.Skipped {
			res.Skipped = append(res.Skipped, LearnSkip{Source: s.File, Reason: s.Reason})
		}
	}
	// 3 (first half). Extract observations from the sessions not extracted yet.
	// Extraction here is local only: a tick makes no remote calls, so the
	// LLM extractors stay off whatever kb.yaml says.
	local := *k
	local.Config.Extract.LLM = false
	xr, err := local.Extract(ctx, ExtractOptions{})
	if err != nil {
		return nil, fmt.Errorf("learn: extract: %w", err)
	}
	for _, p := range xr.Problems {
		if p.Rule == "unreadable" {
			res.Skipped = append(res.Skipped, LearnSkip{Source: p.Path, Reason: p.Msg})
		}
	}

	l, err := k.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer l.Release()

	// 2. The baseline.
	base, why := readLearnBaseline(k.projectFiles(), targetAbs, targetRel, indexAbs)
	if why != "" {
		res.Result, res.Reason = LearnBlocked, why
		return res, nil
	}
	files, probs, err := k.LoadObservations(ctx)
	if err != nil {
		return nil, fmt.Errorf("learn: read observations: %w", err)
	}
	for _, p := range probs {
		res.Skipped = append(res.Skipped, LearnSkip{Source: p.String(), Reason: "observation file does not parse"})
	}
	sessions, err := (&traces.Store{Root: k.Root}).Sessions()
	if err != nil {
		return nil, fmt.Errorf("learn: list sessions: %w", err)
	}
	res.Sessions = len(sessions)
	if len(sessions) == 0 && len(files) == 0 {
		res.Result = LearnBlocked
		res.Reason = "no transcripts: the KB holds no sessions and none were found in the configured agent directories"
		return res, nil
	}
	fp := learnFingerprint(files, targetRel)
	ticks := k.loadLearnTicks()
	if ticks.Targets[targetRel] == fp {
		res.Result, res.Reason = LearnNoUpdate, ReasonNoNewTranscripts
		return res, nil
	}

	// 3-5. Candidates, dedup, gate.
	cands := learnCandidates(files)
	res.Candidates = len(cands)
	survivors := k.learnSelect(cands, base, targetAbs, indexAbs, ticks.applied(), res)
	if len(survivors) == 0 {
		res.Result, res.Reason = LearnNoUpdate, noUpdateReason(res)
		if !o.DryRun {
			ticks.Targets[targetRel] = fp
			if err := k.saveLearnTicks(ticks); err != nil {
				return nil, err
			}
		}
		return res, nil
	}

	// 6. Render both files.
	var entries []LearnEntry
	for _, s := range survivors {
		entries = append(entries, s.LearnEntry)
		res.Applied = append(res.Applied, s)
	}
	newIndex, err := base.index.render(entries)
	if err != nil {
		return nil, fmt.Errorf("learn: render %s: %w", LearnIndexFile, err)
	}
	newTarget, err := base.renderTarget(entries)
	if err != nil {
		return nil, fmt.Errorf("learn: render %s: %w", targetRel, err)
	}
	res.Result = LearnUpdated
	res.Diff = gitx.UnifiedDiff(targetRel, nilIfAbsent(base.target, base.targetExists), newTarget) +
		gitx.UnifiedDiff(LearnIndexFile, nilIfAbsent(base.index.raw, base.index.exists), newIndex)
	if o.DryRun {
		return res, nil
	}
	var hashes []string
	for _, e := range entries {
		hashes = append(hashes, factHash(e.Fact))
	}
	snap, err := k.captureLearnState(base, targetRel, hashes)
	if err != nil {
		return nil, fmt.Errorf("learn: capture prior state: %w", err)
	}
	res.Snapshot = snap
	writes := []fsx.Write{
		{Path: targetAbs, Data: newTarget, Perm: base.targetPerm, Old: base.target, Existed: base.targetExists},
		{Path: indexAbs, Data: newIndex, Perm: base.indexPerm, Old: base.index.raw, Existed: base.index.exists},
	}
	if err := k.projectFiles().CommitAll(writes); err != nil {
		var half *fsx.HalfWrittenError
		if !errors.As(err, &half) {
			// Nothing changed: the snapshot would restore the same state.
			k.files().RemoveAll(filepath.Join(k.Root, filepath.FromSlash(snap)))
			var ce *fsx.ChangedError
			if errors.As(err, &ce) {
				// A person edited the file after the baseline was read:
				// their file is kept, and the next tick starts from it.
				res.Result, res.Snapshot, res.Diff = LearnBlocked, "", ""
				res.Reason = fmt.Sprintf("%s changed while kb learn ran; left as it is and nothing written (run kb learn again)", k.projectRel(ce.Path))
				res.Applied = []LearnApplied{}
				return res, nil
			}
		}
		return nil, fmt.Errorf("learn: %w (prior state in %s)", err, snap)
	}
	ticks.Targets[targetRel] = fp
	ticks.Applied = append(ticks.Applied, hashes...)
	if err := k.saveLearnTicks(ticks); err != nil {
		return nil, err
	}
	return res, nil
}

func nilIfAbsent(b []byte, exists bool) []byte {
	if !exists {
		return nil
	}
	if b == nil {
		return []byte{}
	}
	return b
}

func errReason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func noUpdateReason(res *LearnResult) string {
	if res.Candidates == 0 {
		return "no candidates: the observations hold no decision, convention, constraint, resolved problem or project knowledge"
	}
	dup, gate := 0, 0
	for _, d := range res.Dropped {
		switch {
		case strings.HasPrefix(d.Reason, "duplicate"):
			dup++
		case strings.HasPrefix(d.Reason, "gate"):
			gate++
		}
	}
	conf := len(res.Conflicts)
	switch {
	case dup > 0 && gate == 0 && conf == 0:
		return ReasonAllDuplicates
	case gate > 0 && dup == 0 && conf == 0:
		return ReasonAllBelowGate
	case conf > 0 && dup == 0 && gate == 0:
		return "all conflict with recorded facts"
	}
	return fmt.Sprintf("no candidate survived: %d duplicate(s), %d below the gate, %d conflict(s)", dup, gate, conf)
}

// ---------------------------------------------------------------------------
// The baseline

// learnIndex is index.json as read: its top-level keys in order with their
// raw values (unknown keys are written back as they were), and the entries.
type learnIndex struct {
	exists  bool
	raw     []byte
	keys    []string
	vals    map[string]json.RawMessage
	entries []json.RawMessage
	facts   []LearnEntry // decoded known fields of entries, same order
}

// parseLearnIndex reads index.json. The error names what is wrong.
func parseLearnIndex(b []byte) (*learnIndex, error) {
	ix := &learnIndex{exists: true, raw: b, vals: map[string]json.RawMessage{}}
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonErr(b, dec, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, jsonErr(b, dec, err)
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, jsonErr(b, dec, err)
		}
		if _, dup := ix.vals[key]; !dup {
			ix.keys = append(ix.keys, key)
		}
		ix.vals[key] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, jsonErr(b, dec, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("unexpected data after the JSON object")
	}
	raw, ok := ix.vals["entries"]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return ix, nil
	}
	if err := json.Unmarshal(raw, &ix.entries); err != nil {
		return nil, fmt.Errorf(`"entries" is not an array`)
	}
	for i, e := range ix.entries {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(e, &m); err != nil || m == nil {
			return nil, fmt.Errorf("entry %d is not an object", i+1)
		}
		var f LearnEntry
		for key, dst := range map[string]*string{"fact": &f.Fact, "source_session": &f.SourceSession, "date": &f.Date, "category": &f.Category} {
			v, ok := m[key]
			if !ok || string(v) == "null" {
				continue
			}
			if err := json.Unmarshal(v, dst); err != nil {
				return nil, fmt.Errorf("entry %d: %q is not a string", i+1, key)
			}
		}
		ix.facts = append(ix.facts, f)
	}
	return ix, nil
}

func jsonErr(b []byte, dec *json.Decoder, err error) error {
	off := dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	line := 1 + bytes.Count(b[:min(int(off), len(b))], []byte("\n"))
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("line %d: unexpected end of JSON", line)
	}
	return fmt.Errorf("line %d: %v", line, err)
}

// render returns index.json with entries appended: the top-level keys in
// their order, unknown keys and unknown entry fields kept, indented with two
// spaces.
func (ix *learnIndex) render(add []LearnEntry) ([]byte, error) {
	entries := append([]json.RawMessage(nil), ix.entries...)
	for _, e := range add {
		b, err := marshalNoHTML(e)
		if err != nil {
			return nil, err
		}
		entries = append(entries, b)
	}
	keys := ix.keys
	if _, ok := ix.vals["entries"]; !ok {
		keys = append(append([]string(nil), keys...), "entries")
	}
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, key := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		kj, _ := marshalNoHTML(key)
		buf.Write(kj)
		buf.WriteByte(':')
		if key == "entries" {
			buf.WriteByte('[')
			for j, e := range entries {
				if j > 0 {
					buf.WriteByte(',')
				}
				buf.Write(e)
			}
			buf.WriteByte(']')
			continue
		}
		buf.Write(ix.vals[key])
	}
	buf.WriteByte('}')
	var compact, out bytes.Buffer
	if err := json.Compact(&compact, buf.Bytes()); err != nil {
		return nil, err
	}
	if err := json.Indent(&out, compact.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

func marshalNoHTML(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// learnBaseline is the state of both files before the tick.
type learnBaseline struct {
	targetRel    string
	target       []byte
	targetExists bool
	targetPerm   os.FileMode
	index        *learnIndex
	indexPerm    os.FileMode
	indexDirNew  bool // .continual-learning did not exist
	// section is what kb's block of the target holds between its markers;
	// hasSection is false when the target has none.
	section    []byte
	hasSection bool
	bullets    []baselineFact // bullet lines of the target
}

type baselineFact struct {
	text  string
	where string
}

// readLearnBaseline reads both files (through the project's tree, so that
// a target or .continual-learning/ symlinked out of the project blocks the
// tick, named); a non-empty second result is the reason the tick is
// blocked.
func readLearnBaseline(tree fsx.Tree, targetAbs, targetRel, indexAbs string) (*learnBaseline, string) {
	b := &learnBaseline{targetRel: targetRel, targetPerm: 0o644, indexPerm: 0o644}
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
		sec, found, err := library.FindBlock(b.target, LearnBlock)
		if err != nil {
			return nil, fmt.Sprintf("%s: %v", targetRel, err)
		}
		b.section, b.hasSection = sec, found
		for i, line := range strings.Split(string(b.target), "\n") {
			if t := bulletText(line); t != "" {
				b.bullets = append(b.bullets, baselineFact{text: t, where: fmt.Sprintf("%s:%d", targetRel, i+1)})
			}
		}
	}
	raw, err := tree.ReadFile(indexAbs)
	switch {
	case err == nil:
		ix, perr := parseLearnIndex(raw)
		if perr != nil {
			return nil, fmt.Sprintf("%s is corrupt: %v", LearnIndexFile, perr)
		}
		b.index = ix
		if fi, err := tree.Stat(indexAbs); err == nil {
			b.indexPerm = fi.Mode().Perm()
		}
	case errors.Is(err, fs.ErrNotExist):
		b.index = &learnIndex{vals: map[string]json.RawMessage{}}
		if _, err := tree.Stat(filepath.Dir(indexAbs)); errors.Is(err, fs.ErrNotExist) {
			b.indexDirNew = true
		}
	default:
		return nil, fmt.Sprintf("%s cannot be read: %s", LearnIndexFile, errReason(err))
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
type learnSection struct {
	order  []string            // group titles in order of appearance
	groups map[string][]string // title -> bullet lines (text after "- ")
}

func parseLearnSection(inner string) *learnSection {
	s := &learnSection{groups: map[string][]string{}}
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

func (s *learnSection) add(title, text string) {
	if _, ok := s.groups[title]; !ok {
		s.order = append(s.order, title)
	}
	s.groups[title] = append(s.groups[title], text)
}

func (s *learnSection) render() string {
	var b strings.Builder
	b.WriteString("## Learned from past sessions\n\n")
	b.WriteString("<!-- Maintained by `kb learn` (index: " + LearnIndexFile + "); kb appends here and leaves the rest of this file alone. -->\n")
	var titles []string
	seen := map[string]bool{}
	for _, c := range LearnCategories {
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
func (b *learnBaseline) renderTarget(add []LearnEntry) ([]byte, error) {
	sec := &learnSection{groups: map[string][]string{}}
	if b.hasSection {
		sec = parseLearnSection(string(b.section))
	}
	for _, e := range add {
		sec.add(categoryHeadings[e.Category], e.Fact)
	}
	return library.ReplaceBlock(b.target, LearnBlock, sec.render())
}

// ---------------------------------------------------------------------------
// Candidates

type learnCandidate struct {
	LearnApplied
	obs      *observations.Observation
	explicit bool // "always", "never", "we use" wording
}

var (
	prohibitionRE = regexp.MustCompile(`(?i)^(do not|don't|never|must not|must never)\b`)
	explicitRE    = regexp.MustCompile(`(?i)\b(always|never|we use|we always|we never|we don't|we do not)\b`)
)

// learnCandidates maps observations to candidate facts. Questions and
// rejected or superseded observations are not facts.
func learnCandidates(files []*ObsFile) []*learnCandidate {
	var out []*learnCandidate
	for _, f := range files {
		o := f.Obs
		if o == nil || o.Status == observations.StatusRejected || o.Status == observations.StatusSuperseded {
			continue
		}
		if o.NeedsReview() {
			continue // the agent's words reach AGENTS.md only after a person reviews them
		}
		c := &learnCandidate{obs: o}
		c.Observation = o.ID
		switch o.Type {
		case observations.TypeCorrection:
			c.Fact = factSentence(o.Lesson)
			c.Category = CategoryConvention
			if prohibitionRE.MatchString(strings.TrimSpace(o.Lesson)) {
				c.Category = CategoryConstraint
			}
			c.explicit = explicitRE.MatchString(o.Lesson)
		case observations.TypePreference:
			c.Fact = factSentence(o.Statement)
			c.Category = CategoryConvention
			c.explicit = explicitRE.MatchString(o.Statement)
		case observations.TypeProcedure:
			if len(o.Steps) == 0 {
				continue
			}
			goal := strings.TrimRight(strings.TrimSpace(o.Goal), ".")
			if goal == "" {
				goal = strings.TrimRight(strings.TrimSpace(o.Title), ".")
			}
			if goal == "" {
				continue
			}
			c.Fact = factSentence("To " + lowerFirstWord(goal) + ": " + strings.Join(o.Steps, ", then "))
			c.Category = CategoryConvention
		case observations.TypeDecision:
			if strings.TrimSpace(o.Chosen) == "" {
				continue
			}
			c.Fact = decisionFact(o)
			c.Category = CategoryDecision
		case observations.TypeNegativeResult:
			c.Fact = negativeFact(o)
			c.Category = CategoryResolvedProblem
		case observations.TypeDiscovery:
			c.Fact = factSentence(o.Claim)
			c.Category = CategoryProjectKnowledge
		default:
			continue
		}
		if c.Fact == "" {
			continue
		}
		src := append([]observations.SourceRef(nil), o.Sources...)
		// Stored sources are in order of time already (the time itself is
		// not stored); keep that order where times are unknown.
		sort.SliceStable(src, func(i, j int) bool {
			return !src[i].Time.IsZero() && !src[j].Time.IsZero() && src[i].Time.Before(src[j].Time)
		})
		seen := map[string]bool{}
		c.Sessions = []string{}
		for _, s := range src {
			if s.Session != "" && !seen[s.Session] {
				seen[s.Session] = true
				c.Sessions = append(c.Sessions, s.Session)
			}
		}
		if len(c.Sessions) > 0 {
			c.SourceSession = c.Sessions[0]
		}
		day := o.LastSeen
		if day.IsZero() {
			day = o.FirstSeen
		}
		if day.IsZero() {
			day = time.Now()
		}
		c.Date = day.UTC().Format("2006-01-02")
		out = append(out, c)
	}
	return out
}

// sessionCount is the number of distinct sessions behind a candidate.
func (c *learnCandidate) sessionCount() int {
	return max(len(c.Sessions), c.obs.Sessions)
}

func decisionFact(o *observations.Observation) string {
	chosen := strings.TrimRight(strings.TrimSpace(o.Chosen), ".")
	var s string
	if len(strings.Fields(chosen)) <= 4 {
		s = "Use " + chosen
	} else {
		s = capitalize(chosen)
	}
	var others []string
	for _, a := range o.Alternatives {
		if n := strings.TrimSpace(a.Name); n != "" && !strings.EqualFold(n, chosen) {
			others = append(others, n)
		}
	}
	if len(others) > 0 && len(others) <= 3 {
		s += " rather than " + strings.Join(others, " or ")
	}
	if len(o.Reasons) > 0 {
		s += " (" + strings.Join(o.Reasons, "; ") + ")"
	}
	return factSentence(s)
}

func negativeFact(o *observations.Observation) string {
	fix := strings.TrimSpace(o.FollowedBy)
	if fix == "" {
		return ""
	}
	approach := strings.TrimRight(strings.TrimSpace(o.Approach), ".")
	failure := strings.TrimRight(firstSentenceOf(o.Failure), ".")
	s := capitalize(approach) + " fails"
	if failure != "" {
		s += " (" + failure + ")"
	}
	return factSentence(s + "; instead: " + strings.TrimRight(firstSentenceOf(fix), "."))
}

// factSentence makes one sentence of s: whitespace collapsed, up to three
// short sentences joined with semicolons, capitalized, ending with a period,
// at most 240 runes.
func factSentence(s string) string {
	// No HTML comments: a fact must never open or close a marker.
	s = strings.NewReplacer("<!--", "", "-->", "").Replace(s)
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return ""
	}
	parts := splitSentences(s)
	out := parts[0]
	for _, p := range parts[1:] {
		if len([]rune(out))+len([]rune(p)) > 200 {
			break
		}
		out = strings.TrimRight(out, ".!;") + "; " + lowerFirstWord(p)
	}
	out = strings.TrimSpace(out)
	if r := []rune(out); len(r) > 240 {
		out = strings.TrimSpace(string(r[:239])) + "…"
	}
	out = capitalize(out)
	if !strings.HasSuffix(out, ".") && !strings.HasSuffix(out, "…") && !strings.HasSuffix(out, "?") && !strings.HasSuffix(out, "!") {
		out = strings.TrimRight(out, ",;:") + "."
	}
	return out
}

var sentenceEndRE = regexp.MustCompile(`[.!?]\s+[A-Z` + "`" + `"]`)

func splitSentences(s string) []string {
	var out []string
	for {
		loc := sentenceEndRE.FindStringIndex(s)
		if loc == nil {
			break
		}
		out = append(out, strings.TrimSpace(s[:loc[0]+1]))
		s = s[loc[1]-1:]
	}
	if t := strings.TrimSpace(s); t != "" {
		out = append(out, t)
	}
	return out
}

func firstSentenceOf(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return ""
	}
	return splitSentences(s)[0]
}

func capitalize(s string) string {
	r := []rune(s)
	if len(r) == 0 {
		return s
	}
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// lowerFirstWord lower-cases the first letter unless the first word looks
// like a name (all caps, or a capital inside).
func lowerFirstWord(s string) string {
	w, _, _ := strings.Cut(s, " ")
	r := []rune(w)
	if len(r) == 0 || !unicode.IsUpper(r[0]) {
		return s
	}
	for _, x := range r[1:] {
		if unicode.IsUpper(x) || unicode.IsDigit(x) {
			return s
		}
	}
	rs := []rune(s)
	rs[0] = unicode.ToLower(rs[0])
	return string(rs)
}

// ---------------------------------------------------------------------------
// Dedup and gate

// learnSelect deduplicates the candidates against the baseline, applies the
// gate and deduplicates the survivors among themselves (the better supported
// one wins). Drops and conflicts go into res.
func (k *KB) learnSelect(cands []*learnCandidate, base *learnBaseline, targetAbs, indexAbs string, applied map[string]bool, res *LearnResult) []LearnApplied {
	var recorded []baselineFact
	for i, f := range base.index.facts {
		if strings.TrimSpace(f.Fact) != "" {
			recorded = append(recorded, baselineFact{text: f.Fact, where: fmt.Sprintf("index entry %d", i+1)})
		}
	}
	recorded = append(recorded, base.bullets...)
	recNorm := make([]factNorm, len(recorded))
	for i, r := range recorded {
		recNorm[i] = normalizeFact(r.text)
	}
	der := &derivability{root: k.ProjectRoot, skip: map[string]bool{targetAbs: true, indexAbs: true}, kbRoot: k.Root}
	// A target that is a symlink (CLAUDE.md -> docs/AGENTS.md) is written
	// through: the file it names is the target too, not a project file a
	// fact could be derived from.
	if real, err := k.projectFiles().Resolve(targetAbs); err == nil && real != targetAbs {
		if realRoot, err := filepath.EvalSymlinks(k.ProjectRoot); err == nil {
			if rel, err := filepath.Rel(realRoot, real); err == nil {
				der.skip[filepath.Join(k.ProjectRoot, rel)] = true
			}
		}
	}
	drop := func(c *learnCandidate, why string) {
		res.Dropped = append(res.Dropped, LearnDrop{Fact: c.Fact, Category: c.Category, Observation: c.Observation, Reason: why})
	}
	var passed []*learnCandidate
	for _, c := range cands {
		n := normalizeFact(c.Fact)
		dup := -1
		conflict, why := -1, ""
		for i, r := range recNorm {
			if w := contradicts(n, r); w != "" {
				conflict, why = i, w
				break
			}
			if dup < 0 && nearDuplicate(n, r) {
				dup = i
			}
		}
		if conflict >= 0 {
			res.Conflicts = append(res.Conflicts, LearnConflict{Fact: c.Fact, Observation: c.Observation,
				Existing: recorded[conflict].text, Where: recorded[conflict].where, Why: why})
			continue
		}
		if dup >= 0 {
			drop(c, "duplicate: "+recorded[dup].where)
			continue
		}
		if applied[factHash(c.Fact)] {
			// kb wrote it before and a person took it out: their edit wins.
			drop(c, "duplicate: learned before and removed by hand since")
			continue
		}
		if why := learnGate(c, n, der); why != "" {
			drop(c, why)
			continue
		}
		passed = append(passed, c)
	}
	// Among the survivors, the best supported of near-duplicates wins.
	sort.SliceStable(passed, func(i, j int) bool {
		a, b := passed[i], passed[j]
		if a.sessionCount() != b.sessionCount() {
			return a.sessionCount() > b.sessionCount()
		}
		return a.obs.Importance > b.obs.Importance
	})
	var kept []*learnCandidate
	var keptNorm []factNorm
	for _, c := range passed {
		n := normalizeFact(c.Fact)
		dup := -1
		for i, kn := range keptNorm {
			if contradicts(n, kn) != "" || nearDuplicate(n, kn) {
				dup = i
				break
			}
		}
		if dup >= 0 {
			drop(c, "duplicate: candidate "+kept[dup].Observation)
			continue
		}
		kept = append(kept, c)
		keptNorm = append(keptNorm, n)
	}
	// Index order: oldest first, then by category and text, so reruns agree.
	sort.SliceStable(kept, func(i, j int) bool {
		a, b := kept[i], kept[j]
		if a.Date != b.Date {
			return a.Date < b.Date
		}
		if a.Category != b.Category {
			return a.Category < b.Category
		}
		return a.Fact < b.Fact
	})
	out := make([]LearnApplied, 0, len(kept))
	for _, c := range kept {
		out = append(out, c.LearnApplied)
	}
	return out
}

var (
	// taskBoundRE spots instructions about the task at hand rather than
	// rules for future work: references to "this/that/it", first person,
	// investigation verbs.
	taskBoundRE  = regexp.MustCompile(`(?i)\b(this|that|these|those|it|them|here|above|previous|earlier|again|now)\b`)
	taskStartRE  = regexp.MustCompile(`(?i)^(i|i'm|i've|i'd|we'll|let's|check|find|look|see|try|investigate|first|please|can you|could you)\b`)
	decisionMinI = 0.6
)

// learnGate returns "" when the candidate is high-signal, else the reason it
// is dropped.
func learnGate(c *learnCandidate, n factNorm, der *derivability) string {
	if len(n.all) < 2 || strings.HasSuffix(c.Fact, "?") {
		return "gate: obvious"
	}
	o := c.obs
	recurring := c.sessionCount() >= 2
	switch o.Type {
	case observations.TypeCorrection, observations.TypePreference:
		text := o.Lesson
		if o.Type == observations.TypePreference {
			text = o.Statement
		}
		if !recurring && !c.explicit && (taskStartRE.MatchString(strings.TrimSpace(text)) || taskBoundRE.MatchString(text)) {
			return "gate: one-off"
		}
		if !recurring && !c.explicit {
			// Seen once, without "always/never/we use": only an important,
			// short, single-clause rule reads as a convention; longer ones
			// on real transcripts were fixes of the code at hand.
			if o.Importance < 0.7 || len(strings.Fields(text)) > 8 || strings.ContainsAny(strings.TrimRight(text, "."), ",;") {
				return "gate: one-off"
			}
		}
	case observations.TypeProcedure:
		// Mined tool-call sequences ("Recurring workflow: Read → Edit")
		// state no goal: they describe how agents work, not the project.
		if strings.HasPrefix(strings.TrimSpace(o.Goal), "Recurring workflow") || strings.TrimSpace(o.Goal) == "" {
			return "gate: obvious"
		}
		if !recurring {
			return "gate: one-off"
		}
	case observations.TypeDecision:
		if !recurring && o.Importance < decisionMinI {
			return "gate: one-off"
		}
	case observations.TypeNegativeResult:
		if !recurring && o.Importance < decisionMinI {
			return "gate: one-off"
		}
	case observations.TypeDiscovery:
		if !recurring && o.Importance < 0.5 {
			return "gate: one-off"
		}
	}
	if p := der.check(c.Fact, c.Category); p != "" {
		return "gate: derivable (" + p + ")"
	}
	return ""
}

// factNorm is a fact normalized for comparison: content stems without
// negations (topic), and whether it is negated.
type factNorm struct {
	all     map[string]bool
	negated bool
	option  string          // "use X": the stem of X
	rest    map[string]bool // stems besides the option, for "use X" facts
}

// learnWords splits a fact into words with the extractors' tokenizer, after
// spelling out contractions so that "don't use X" carries its negation.
func learnWords(s string) []string {
	return observations.Words(learnFixes.Replace(strings.ToLower(s)))
}

var learnFixes = strings.NewReplacer("don't", "do not", "doesn't", "does not", "can't", "cannot", "won't", "will not",
	"isn't", "is not", "aren't", "are not", "shouldn't", "should not", "mustn't", "must not", "didn't", "did not",
	"’", "'", "`", " ", "e.g.", "eg", "i.e.", "ie")

var learnStop = map[string]bool{}

var negations = map[string]bool{"not": true, "never": true, "no": true, "avoid": true, "cannot": true, "without": true, "stop": true}

func init() {
	for _, w := range strings.Fields(`a an the and or but if then else of to in on at by for with from into onto as
		is are was were be been being am it its this that these those there here i we you he she they me us my our your
		do does did done so than too very just also please can could would should will shall may might must
		have has had what which who whom when where why how all any each some such only own same up down out over
		again further once about above below after before between through during other more most s t now
		let lets ok okay yes yeah thanks thank always instead rather`) {
		learnStop[w] = true
	}
}

var useOptionRE = regexp.MustCompile(`^(?:use|prefer|choose|pick|chose|go with)\s+([^\s,;:()]+)`)

func normalizeFact(s string) factNorm {
	n := factNorm{all: map[string]bool{}, rest: map[string]bool{}}
	ws := learnWords(s)
	for _, w := range ws {
		if negations[w] {
			n.negated = true
			continue
		}
		if learnStop[w] {
			continue
		}
		n.all[observations.Stem(w)] = true
	}
	low := strings.Join(ws, " ")
	if m := useOptionRE.FindStringSubmatch(low); m != nil && !n.negated {
		n.option = observations.Stem(m[1])
		for w := range n.all {
			if w != n.option && w != "use" && w != "prefer" && w != "choos" && w != "pick" && w != "chose" && w != "go" {
				n.rest[w] = true
			}
		}
	}
	return n
}

// similarTopic: Jaccard >= 0.6, or containment >= 0.8 when the smaller set
// has at least three stems (two words are contained in too much).
func similarTopic(a, b map[string]bool) bool {
	if observations.Jaccard(a, b) >= 0.6 {
		return true
	}
	return min(len(a), len(b)) >= 3 && observations.Overlap(a, b) >= 0.8
}

func nearDuplicate(a, b factNorm) bool {
	return a.negated == b.negated && similarTopic(a.all, b.all)
}

// contradicts returns why a and b contradict, or "": the same topic with
// opposite polarity, or "use X" against "use Y" for the same purpose.
func contradicts(a, b factNorm) string {
	if a.negated != b.negated && similarTopic(a.all, b.all) {
		return "opposite polarity on the same topic"
	}
	if a.option != "" && b.option != "" && a.option != b.option && len(a.rest) >= 1 && len(b.rest) >= 1 &&
		observations.Jaccard(a.rest, b.rest) >= 0.6 {
		return "different option chosen for the same purpose"
	}
	return ""
}

// ---------------------------------------------------------------------------
// Derivability: is the fact just the content of a file of the project?

type derivability struct {
	root, kbRoot string
	skip         map[string]bool
	loaded       bool
	files        []projFile
}

type projFile struct {
	rel   string
	data  string
	lines map[string]bool
}

const (
	derivMaxFile  = 512 << 10
	derivMaxTotal = 64 << 20
	derivMaxFiles = 20000
)

func (d *derivability) load() {
	if d.loaded {
		return
	}
	d.loaded = true
	total := 0
	filepath.WalkDir(d.root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if e != nil && e.IsDir() && p != d.root {
				return fs.SkipDir
			}
			return nil
		}
		if e.IsDir() {
			name := e.Name()
			if p != d.root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor" || p == d.kbRoot ||
				(filepath.Dir(p) == d.kbRoot && slices.Contains(Layers, name))) { // the KB's own layers
				return fs.SkipDir
			}
			return nil
		}
		if len(d.files) >= derivMaxFiles || total >= derivMaxTotal {
			return fs.SkipAll
		}
		if !e.Type().IsRegular() || d.skip[p] || strings.HasPrefix(e.Name(), fsx.TempPrefix) {
			return nil
		}
		fi, err := e.Info()
		if err != nil || fi.Size() > derivMaxFile {
			return nil
		}
		b, err := fsx.ReadFileNoFollow(p) // the walk never enters a symlink
		if err != nil || bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0 {
			return nil
		}
		total += len(b)
		rel, _ := filepath.Rel(d.root, p)
		pf := projFile{rel: filepath.ToSlash(rel), data: string(b), lines: map[string]bool{}}
		for _, l := range strings.Split(pf.data, "\n") {
			if t := strings.TrimSpace(l); len(t) >= 6 {
				pf.lines[t] = true
			}
		}
		d.files = append(d.files, pf)
		return nil
	})
}

var (
	quotedRE = regexp.MustCompile("`([^`]{6,})`|\"([^\"]{6,})\"")
	pathRE   = regexp.MustCompile(`(?:^|[\s(])((?:[\w.-]+/)+[\w.-]+\.\w+|[\w-]+\.(?:go|py|js|ts|tsx|json|ya?ml|toml|md|sh|mk|cfg|ini|lock))\b`)
)

// check returns the project file that makes the fact derivable, or "". A
// fact is derivable when its sentence appears verbatim in a file, when it
// is little more than a quoted line of a file (or, for project knowledge,
// quotes any line of a file), or when it is little more than the path of a
// file that exists.
func (d *derivability) check(fact, category string) string {
	body := strings.TrimRight(fact, ".")
	quotes := quotedRE.FindAllStringSubmatch(fact, -1)
	paths := pathRE.FindAllStringSubmatch(fact, -1)
	if len(quotes) == 0 && len(paths) == 0 && len(body) < 24 {
		return ""
	}
	// What the fact says besides its quotes and paths.
	rest := body
	for _, q := range quotes {
		rest = strings.Replace(rest, q[0], " ", 1)
	}
	for _, p := range paths {
		rest = strings.Replace(rest, p[1], " ", 1)
	}
	little := len(normalizeFact(rest).all) <= 3
	d.load()
	for _, f := range d.files {
		if len(body) >= 24 && strings.Contains(f.data, body) {
			return f.rel
		}
		for _, q := range quotes {
			s := strings.TrimSpace(q[1] + q[2])
			if (little || category == CategoryProjectKnowledge) && f.lines[s] {
				return f.rel
			}
		}
	}
	if little {
		for _, p := range paths {
			if abs, err := fsx.Within(d.root, filepath.FromSlash(p[1])); err == nil {
				if fi, err := os.Stat(abs); err == nil && fi.Mode().IsRegular() {
					return p[1]
				}
			}
		}
	}
	return ""
}

// ---------------------------------------------------------------------------
// Prior states, fingerprints, writes

// learnSnapMeta describes a captured prior state.
type learnSnapMeta struct {
	Time         time.Time   `json:"time"`
	Target       string      `json:"target"` // relative to the project root
	TargetExists bool        `json:"target_exists"`
	TargetPerm   os.FileMode `json:"target_perm"`
	Index        string      `json:"index"`
	IndexExists  bool        `json:"index_exists"`
	IndexPerm    os.FileMode `json:"index_perm"`
	IndexDirNew  bool        `json:"index_dir_new,omitempty"` // remove .continual-learning on rollback when empty
	Applied      []string    `json:"applied,omitempty"`       // factHash of the facts the tick wrote
}

const (
	snapMeta   = "meta.json"
	snapTarget = "target"
	snapIndex  = "index.json"
)

func (k *KB) learnDir() string { return filepath.Join(k.Root, StateDir, learnStateDir) }

// captureLearnState writes the prior state of both files into a new
// snapshot directory and prunes old ones. It returns the directory relative
// to the KB root.
func (k *KB) captureLearnState(b *learnBaseline, targetRel string, applied []string) (string, error) {
	base := k.learnDir()
	now := time.Now().UTC()
	name := now.Format("20060102T150405.000000000Z")
	dir := filepath.Join(base, name)
	for i := 1; ; i++ {
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			break
		}
		dir = filepath.Join(base, fmt.Sprintf("%s-%d", name, i))
	}
	meta := learnSnapMeta{Time: now, Target: targetRel, TargetExists: b.targetExists, TargetPerm: b.targetPerm,
		Index: LearnIndexFile, IndexExists: b.index.exists, IndexPerm: b.indexPerm, IndexDirNew: b.indexDirNew, Applied: applied}
	tree := k.files()
	if b.targetExists {
		if err := tree.WriteFile(filepath.Join(dir, snapTarget), b.target, 0o644); err != nil {
			return "", err
		}
	}
	if b.index.exists {
		if err := tree.WriteFile(filepath.Join(dir, snapIndex), b.index.raw, 0o644); err != nil {
			return "", err
		}
	}
	mb, _ := json.MarshalIndent(meta, "", "  ")
	// The meta file last: a snapshot without one is incomplete and ignored.
	if err := tree.WriteFile(filepath.Join(dir, snapMeta), append(mb, '\n'), 0o644); err != nil {
		return "", err
	}
	keep := k.Config.Learn.KeepSnapshots
	if keep <= 0 {
		keep = 10
	}
	snaps := k.learnSnapshots()
	for len(snaps) > keep {
		tree.RemoveAll(filepath.Join(base, snaps[0]))
		snaps = snaps[1:]
	}
	return k.Rel(dir), nil
}

// learnSnapshots lists the complete snapshot directories, oldest first.
func (k *KB) learnSnapshots() []string {
	tree := k.files()
	ents, err := tree.ReadDir(k.learnDir())
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if _, err := tree.Stat(filepath.Join(k.learnDir(), e.Name(), snapMeta)); err == nil {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// learnRollback restores both files from the latest snapshot and drops it.
func (k *KB) learnRollback(ctx context.Context, res *LearnResult, dryRun bool) (*LearnResult, error) {
	l, err := k.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	snaps := k.learnSnapshots()
	if len(snaps) == 0 {
		res.Result, res.Reason = LearnNoUpdate, "nothing to roll back: no captured prior state"
		return res, nil
	}
	dir := filepath.Join(k.learnDir(), snaps[len(snaps)-1])
	res.Snapshot = k.Rel(dir)
	tree, project := k.files(), k.projectFiles()
	mb, err := tree.ReadFile(filepath.Join(dir, snapMeta))
	if err != nil {
		return nil, fmt.Errorf("rollback: %w", err)
	}
	var meta learnSnapMeta
	if err := json.Unmarshal(mb, &meta); err != nil {
		return nil, fmt.Errorf("rollback: %s: %w", k.Rel(filepath.Join(dir, snapMeta)), err)
	}
	targetAbs, err := fsx.Within(k.ProjectRoot, filepath.FromSlash(meta.Target))
	if err != nil {
		return nil, fmt.Errorf("rollback: %s: target %q: %w", k.Rel(dir), meta.Target, err)
	}
	indexAbs := filepath.Join(k.ProjectRoot, filepath.FromSlash(LearnIndexFile))
	res.Target = meta.Target
	var writes []fsx.Write
	for _, f := range []struct {
		abs, rel, snap string
		exists         bool
		perm           os.FileMode
	}{
		{targetAbs, meta.Target, snapTarget, meta.TargetExists, meta.TargetPerm},
		{indexAbs, LearnIndexFile, snapIndex, meta.IndexExists, meta.IndexPerm},
	} {
		cur, cerr := project.ReadFile(f.abs)
		curExists := cerr == nil
		if cerr != nil && !errors.Is(cerr, fs.ErrNotExist) {
			return nil, fmt.Errorf("rollback: read %s: %w", f.rel, cerr)
		}
		w := fsx.Write{Path: f.abs, Old: cur, Existed: curExists, Perm: f.perm, Remove: !f.exists}
		if w.Perm == 0 {
			w.Perm = 0o644
		}
		if f.exists {
			data, err := tree.ReadFile(filepath.Join(dir, f.snap))
			if err != nil {
				return nil, fmt.Errorf("rollback: %w", err)
			}
			w.Data = data
			res.Diff += gitx.UnifiedDiff(f.rel, nilIfAbsent(cur, curExists), data)
		} else {
			res.Diff += gitx.UnifiedDiff(f.rel, nilIfAbsent(cur, curExists), nil)
		}
		writes = append(writes, w)
	}
	res.Result = LearnRolledBack
	if dryRun {
		return res, nil
	}
	if err := project.CommitAll(writes); err != nil {
		return nil, fmt.Errorf("rollback: %w", err)
	}
	if meta.IndexDirNew {
		project.Remove(filepath.Dir(indexAbs)) // only when empty
	}
	if err := tree.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("rollback: drop %s: %w", k.Rel(dir), err)
	}
	// The facts of the undone tick may be learned again.
	if len(meta.Applied) > 0 {
		ticks := k.loadLearnTicks()
		undone := map[string]bool{}
		for _, h := range meta.Applied {
			undone[h] = true
		}
		keep := ticks.Applied[:0]
		for _, h := range ticks.Applied {
			if !undone[h] {
				keep = append(keep, h)
			}
		}
		ticks.Applied = keep
		if err := k.saveLearnTicks(ticks); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// learnTicks records, per target, the fingerprint of the observations the
// last completed tick saw, so that a tick with nothing new says so.
type learnTicks struct {
	Targets map[string]string `json:"targets"`
	// Applied holds a hash of every fact kb wrote (factHash), so that a
	// fact a person removed is not written again.
	Applied []string `json:"applied,omitempty"`
}

func (t *learnTicks) applied() map[string]bool {
	m := map[string]bool{}
	for _, h := range t.Applied {
		m[h] = true
	}
	return m
}

// factHash identifies a fact by its text, case and spacing aside.
func factHash(fact string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(strings.Join(strings.Fields(fact), " "))))
	return hex.EncodeToString(sum[:8])
}

func (k *KB) loadLearnTicks() *learnTicks {
	t := &learnTicks{}
	if b, err := k.files().ReadFile(filepath.Join(k.learnDir(), learnTicksFile)); err == nil {
		_ = json.Unmarshal(b, t) // a cache: unreadable means "not seen"
	}
	if t.Targets == nil {
		t.Targets = map[string]string{}
	}
	return t
}

func (k *KB) saveLearnTicks(t *learnTicks) error {
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	if err := k.files().WriteFile(filepath.Join(k.learnDir(), learnTicksFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("learn: record tick: %w", err)
	}
	return nil
}

// learnFingerprint hashes the observation files (paths and bytes) and the
// target name.
func learnFingerprint(files []*ObsFile, target string) string {
	h := sha256.New()
	fmt.Fprintf(h, "target=%s\n", target)
	for _, f := range files {
		fmt.Fprintf(h, "%s %d\n", f.Path, len(f.raw))
		h.Write(f.raw)
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}
