package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/kbmem/kb/kb"
	"github.com/kbmem/kb/traces"
)

// Extraction scores kb's extraction against answer keys (extractionkey.go):
// per observation type, the share of the key's positive person messages
// that end up inside an observation of that type (recall), and the share
// of the observations of that type taken from a message the key labels so
// (precision).
//
// Keys over the same transcript directory share one fresh KB in a temporary
// directory: the files the keys name are imported (a file a key covers only
// in part is cut to its first line_limits lines, in a copy, so the line
// numbers stay the same), extracted as `kb extract --all` does with the
// offline heuristics, and the observations are loaded. Each observation's
// sources (session#from-to) name trace records, and each record knows the
// transcript file and line it came from. An observation's anchors are its
// source records that are user-role messages (typed by the person or
// injected by the harness), refused tool calls, or records at a line a key
// names (an AskUserQuestion answer is a tool result in kb); an anchor is a
// key item when its file and line (or Codex event line, or uuid / Gemini
// message id) are the item's.
//
// Per scored type (correction, rule, preference, decision):
//   - recall: positive items anchored by at least one observation of the
//     type (a rule by a correction), over the positive items;
//   - precision: observations of the type anchored on a positive item, over
//     the observations of the type with a source record in the key's
//     files. One anchored on no keyed message (assistant text, tool output,
//     an unkeyed harness record) counts against it.
//
// Sure figures leave unsure items out: recall over the sure positives, and
// precision over the observations anchored on a sure positive or on no
// unsure item at all. Lenient figures count unsure items with their label.
// Keys labelled correction also report the sure "none" prose messages
// (not slash commands, harness text or templates) found inside a
// correction: the over-reach of the correction extractor.
//
// The external key's files sit in <owner>__<repo> directories; its items
// are reported in a DEV half and a CHECK half by owner (CheckOwners). The
// lists of misses and false positives leave the CHECK half out and only
// count it: CHECK is scored, never read.

// ExtractionSchema is the version of ExtractionReport's JSON.
const ExtractionSchema = 1

// DefaultExtractionKeys are the keys `kb eval extraction` scores when none
// is named, relative to the repository root: the shared corrections key
// (beside the repository, in the project workspace only), the
// preferences-and-decisions key over the same shared transcripts, and the
// permissive part of the external key with its transcripts in testdata.
var DefaultExtractionKeys = []string{
	"../shared/eval/real-corrections-key.json",
	"eval/keys/shared-prefs-decisions.json",
	"eval/keys/external-key.json",
}

// ExtractionKeyRef names one key file.
type ExtractionKeyRef struct {
	Path string
	// Optional keys are skipped, with the reason in the report, when the
	// key file or its transcripts are absent; a missing key that is not
	// optional is an error.
	Optional bool
}

// ExtractionOptions configure Extraction.
type ExtractionOptions struct {
	Keys []ExtractionKeyRef
	// Transcripts, if set, is the transcript directory of every key (by
	// default each key's base_dir, relative to the key file, or the key
	// file's directory).
	Transcripts string
	// KBDir, if set, is a new directory the evaluation KBs are built in and
	// kept (one subdirectory per transcript directory); by default a
	// temporary directory, removed afterwards.
	KBDir string
	// Progress, if set, is called with (done, total) sessions extracted.
	Progress func(done, total int)
}

// ExtractionReport is the result of Extraction.
type ExtractionReport struct {
	Schema  int             `json:"schema"`
	Keys    []*KeyScore     `json:"keys"`
	Skipped []SkippedKey    `json:"skipped,omitempty"`
	Runs    []ExtractionRun `json:"runs"`
	Seconds float64         `json:"seconds"`
}

// SkippedKey is an optional key that was not scored.
type SkippedKey struct {
	Key    string `json:"key"`
	Reason string `json:"reason"`
}

// ExtractionRun is one evaluation KB: the transcripts imported and what
// extraction made of them.
type ExtractionRun struct {
	Transcripts  string         `json:"transcripts"`
	Keys         []string       `json:"keys"`
	Files        int            `json:"files"`
	LineLimits   map[string]int `json:"line_limits,omitempty"`
	Sessions     int            `json:"sessions"`
	Records      int            `json:"records"`
	Observations map[string]int `json:"observations"` // by type
	Problems     []string       `json:"problems,omitempty"`
}

// KeyScore is the score of one key.
type KeyScore struct {
	Key          string         `json:"key"`
	Name         string         `json:"name"`
	Transcripts  string         `json:"transcripts"`
	Types        []string       `json:"types"` // scored types
	Files        int            `json:"files"` // transcript files scored
	MissingFiles []string       `json:"missing_files,omitempty"`
	LineLimits   map[string]int `json:"line_limits,omitempty"`
	Items        int            `json:"items"`                    // items in the files scored
	Unscored     int            `json:"unscored_items,omitempty"` // items of missing files
	// Observations counts, by type, the observations with a source record
	// in the key's files.
	Observations map[string]int `json:"observations"`
	// Sets: "all", then "dev" and "check" for a key split by owner.
	Sets       []SetScore `json:"sets"`
	BySource   []SetScore `json:"by_source"`
	ByLanguage []SetScore `json:"by_language"`
	ByFile     []SetScore `json:"by_file"`
	// Detail, CHECK half left out (counted in Withheld).
	Misses           []ItemRef       `json:"misses"`
	FalsePositives   []FalsePositive `json:"false_positives"`
	NoneInCorrection []ItemRef       `json:"none_in_correction"`
	Withheld         *Withheld       `json:"withheld,omitempty"`
}

// SetScore is the score over a subset of a key's items.
type SetScore struct {
	Name  string      `json:"name"`
	Items int         `json:"items"`
	Types []TypeScore `json:"types"`
	// Observations in scope, by type: with a source record in the set's
	// files (by_language: anchored on an item of the language).
	Observations     map[string]int    `json:"observations"`
	NoneInCorrection *NoneInCorrection `json:"none_in_correction,omitempty"`
}

// TypeScore is recall and precision of one scored type.
type TypeScore struct {
	Type      string          `json:"type"`
	Recall    RecallScore     `json:"recall"`
	Precision *PrecisionScore `json:"precision,omitempty"` // not for rule
}

// RecallScore: positive items, those found inside an observation of the
// type, and the ratio (absent without positives). Sure: unsure items left
// out; the others count unsure items too.
type RecallScore struct {
	Positives     int      `json:"positives"`
	Found         int      `json:"found"`
	Recall        *float64 `json:"recall,omitempty"`
	PositivesSure int      `json:"positives_sure"`
	FoundSure     int      `json:"found_sure"`
	RecallSure    *float64 `json:"recall_sure,omitempty"`
}

// PrecisionScore: observations of the type in scope, those anchored on a
// positive item, and the ratio. Sure: over the observations anchored on a
// sure positive (CorrectSure) or on no unsure item (JudgedSure).
type PrecisionScore struct {
	Observations  int      `json:"observations"`
	Correct       int      `json:"correct"`
	Precision     *float64 `json:"precision,omitempty"`
	JudgedSure    int      `json:"judged_sure"`
	CorrectSure   int      `json:"correct_sure"`
	PrecisionSure *float64 `json:"precision_sure,omitempty"`
}

// NoneInCorrection counts the items labelled none found inside a
// correction: prose the person typed (Sure: not unsure; Lenient: unsure
// too, of SureOf / LenientOf such items), and harness or slash-command
// items (Harness).
type NoneInCorrection struct {
	Sure      int `json:"sure"`
	SureOf    int `json:"sure_of"`
	Lenient   int `json:"lenient"`
	LenientOf int `json:"lenient_of"`
	Harness   int `json:"harness"`
}

// ItemRef is a key item in the detail lists.
type ItemRef struct {
	Type         string   `json:"type,omitempty"` // misses: the scored type missed
	File         string   `json:"file"`
	Line         int      `json:"line"`
	Label        string   `json:"label,omitempty"`
	Also         string   `json:"also,omitempty"`
	Unsure       bool     `json:"unsure,omitempty"`
	Kind         string   `json:"kind,omitempty"`
	Language     string   `json:"language,omitempty"`
	Half         string   `json:"half,omitempty"`
	Text         string   `json:"text"`                   // first 80 characters
	Observations []string `json:"observations,omitempty"` // none_in_correction: the corrections holding it
	// Types (misses) are the observation types the item did end up in.
	Types []string `json:"types,omitempty"`
}

// FalsePositive is an observation of a scored type anchored on no
// positive item.
type FalsePositive struct {
	ID      string      `json:"id"`
	Type    string      `json:"type"`
	Author  string      `json:"author,omitempty"`
	Summary string      `json:"summary"`
	Reason  string      `json:"reason"`
	Anchors []AnchorRef `json:"anchors"`
}

// AnchorRef is a user-role source record of an observation.
type AnchorRef struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Keyed  bool   `json:"keyed"`
	Label  string `json:"label,omitempty"`
	Unsure bool   `json:"unsure,omitempty"`
}

// Withheld counts the CHECK-half detail left out of the lists.
type Withheld struct {
	Misses           int `json:"misses"`
	FalsePositives   int `json:"false_positives"`
	NoneInCorrection int `json:"none_in_correction"`
}

// Extraction runs the scorer; see the comment at the top of this file.
func Extraction(ctx context.Context, o ExtractionOptions) (*ExtractionReport, error) {
	start := time.Now()
	if len(o.Keys) == 0 {
		return nil, fmt.Errorf("eval extraction: %w: no answer key given", kb.ErrInvalidInput)
	}
	rep := &ExtractionReport{Schema: ExtractionSchema, Keys: []*KeyScore{}, Runs: []ExtractionRun{}}
	// Load the keys and group them by transcript directory.
	type group struct {
		root string
		keys []*extractionKey
	}
	var groups []*group
	for _, ref := range o.Keys {
		k, err := loadKey(ref.Path, o.Transcripts)
		if err != nil {
			if ref.Optional && errors.Is(err, fs.ErrNotExist) {
				rep.Skipped = append(rep.Skipped, SkippedKey{Key: ref.Path, Reason: "key file not found"})
				continue
			}
			return nil, fmt.Errorf("eval extraction: %w", err)
		}
		if k.present(k.Root) == 0 {
			msg := fmt.Sprintf("none of its %d transcript files is under %s", len(k.files), k.Root)
			if ref.Optional {
				rep.Skipped = append(rep.Skipped, SkippedKey{Key: ref.Path, Reason: msg})
				continue
			}
			return nil, fmt.Errorf("eval extraction: %s: %w: %s (give --transcripts)", ref.Path, kb.ErrNotFound, msg)
		}
		root := k.Root
		if r, err := filepath.EvalSymlinks(root); err == nil {
			root = r
		}
		if abs, err := filepath.Abs(root); err == nil {
			root = abs
		}
		var g *group
		for _, x := range groups {
			if x.root == root {
				g = x
			}
		}
		if g == nil {
			g = &group{root: root}
			groups = append(groups, g)
		}
		g.keys = append(g.keys, k)
	}
	if len(groups) == 0 {
		rep.Seconds = time.Since(start).Seconds()
		return rep, nil
	}
	base := o.KBDir
	if base == "" {
		tmp, err := os.MkdirTemp("", "kb-eval-extraction-")
		if err != nil {
			return nil, fmt.Errorf("eval extraction: %w", err)
		}
		defer os.RemoveAll(tmp)
		base = tmp
	} else if ents, err := os.ReadDir(base); err == nil && len(ents) > 0 {
		return nil, fmt.Errorf("eval extraction: %s is not empty: %w", base, kb.ErrExists)
	}
	for gi, g := range groups {
		run, obs, text, err := extractionRun(ctx, filepath.Join(base, fmt.Sprintf("kb%d", gi+1)), g.root, g.keys, o.Progress)
		if err != nil {
			return nil, fmt.Errorf("eval extraction: %w", err)
		}
		rep.Runs = append(rep.Runs, *run)
		for _, k := range g.keys {
			rep.Keys = append(rep.Keys, scoreKey(k, obs, text, run.LineLimits))
		}
	}
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// recInfo is what the scorer keeps of a trace record.
type recInfo struct {
	file   string // key file ("" when not from a key file)
	line   int
	uuid   string
	anchor bool
}

// obsView is an observation with the transcript places of its sources.
type obsView struct {
	id, typ, author, summary string
	files                    map[string]bool // key files of its source records
	anchors                  []anchor
}

type anchor struct {
	file string
	line int
	uuid string
}

type place struct {
	file string
	line int
}

// isAnchor reports whether a record is a person message an observation can
// be taken from: any user-role message (typed, injected, a refusal's
// reason) or a refused tool call. Records at a line a key names count too
// (extractionRun).
func isAnchor(r *traces.Record) bool {
	return r.Role == traces.RoleUser && r.Kind == traces.KindMessage ||
		r.Kind == traces.KindToolResult && r.Has(traces.MarkRejected)
}

// extractionRun builds one KB at dir from the keys' files under root and
// returns its observations, mapped to the key files, and the text of the
// records at keyed places (for the detail lists).
func extractionRun(ctx context.Context, dir, root string, keys []*extractionKey, progress func(int, int)) (*ExtractionRun, []*obsView, map[place]string, error) {
	run := &ExtractionRun{Transcripts: root, Observations: map[string]int{}, LineLimits: map[string]int{}}
	files := map[string]bool{}
	for _, k := range keys {
		run.Keys = append(run.Keys, k.Path)
		for _, f := range k.files {
			files[f] = true
		}
		for f, n := range k.LineLimits {
			if m, ok := run.LineLimits[f]; ok && m != n {
				return nil, nil, nil, fmt.Errorf("%w: keys disagree on the lines of %s they cover (%d and %d)", kb.ErrInvalidInput, f, m, n)
			}
			run.LineLimits[f] = n
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, nil, err
	}
	kbRoot := filepath.Join(dir, "kb")
	if _, err := kb.Init(kbRoot); err != nil {
		return nil, nil, nil, err
	}
	k, err := kb.OpenRoot(kbRoot)
	if err != nil {
		return nil, nil, nil, err
	}
	k.Logf = func(string, ...any) {}

	rel := map[string]string{} // imported path (as given and as resolved) -> key file
	var paths []string
	for _, f := range sortedKeys(files) {
		src := filepath.Join(root, filepath.FromSlash(f))
		if st, err := os.Stat(src); err != nil || !st.Mode().IsRegular() {
			continue
		}
		p := src
		if n, ok := run.LineLimits[f]; ok {
			p = filepath.Join(dir, "cut", filepath.FromSlash(f))
			if err := copyLines(src, p, n); err != nil {
				return nil, nil, nil, err
			}
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, nil, nil, err
		}
		rel[abs] = f
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			rel[r] = f
		}
		paths = append(paths, abs)
	}
	for f := range run.LineLimits {
		if !files[f] {
			delete(run.LineLimits, f)
		}
	}
	run.Files = len(paths)
	irep, err := k.Import(ctx, paths, kb.ImportOptions{})
	if err != nil {
		var pe *kb.PartialImportError
		if !errors.As(err, &pe) {
			return nil, nil, nil, err
		}
	}
	if irep != nil {
		for _, f := range irep.Files {
			if f.Error != "" {
				run.Problems = append(run.Problems, f.File+": "+f.Error)
			}
			run.Problems = append(run.Problems, f.Problems...)
		}
	}
	xr, err := k.Extract(ctx, kb.ExtractOptions{All: true, Progress: progress})
	if err != nil {
		return nil, nil, nil, err
	}
	for _, p := range xr.Problems {
		run.Problems = append(run.Problems, p.Path+": "+p.Msg)
	}
	obsFiles, probs, err := k.LoadObservations(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, p := range probs {
		run.Problems = append(run.Problems, p.Path+": "+p.Msg)
	}

	// The trace records, by session and seq.
	keyed := map[place]bool{}
	for _, key := range keys {
		for _, it := range key.Items {
			for _, l := range []int{it.Line, it.EventLine} {
				if l > 0 { // line 0: a whole-file format, found by uuid only
					keyed[place{it.File, l}] = true
				}
			}
		}
	}
	text, textRank := map[place]string{}, map[place]int{}
	recs := map[string]map[int]recInfo{}
	sessions, err := k.Sessions(kb.SessionsOptions{})
	if err != nil {
		return nil, nil, nil, err
	}
	run.Sessions = len(sessions)
	for _, s := range sessions {
		tr, err := k.TraceShow(s.ID, kb.TraceOptions{})
		if err != nil {
			run.Problems = append(run.Problems, fmt.Sprintf("session %s: %v", s.ID, err))
			continue
		}
		m := make(map[int]recInfo, len(tr.Records))
		for i := range tr.Records {
			r := &tr.Records[i]
			ri := recInfo{file: rel[r.Source.File], line: r.Source.Line, anchor: isAnchor(r)}
			if ri.file == "" && r.Source.File != "" {
				if res, err := filepath.EvalSymlinks(r.Source.File); err == nil {
					ri.file = rel[res]
				}
			}
			// A record at a line the key names is the person's, whatever
			// kb made of it: an AskUserQuestion answer is a tool result.
			ri.anchor = ri.anchor || keyed[place{ri.file, ri.line}]
			if ri.anchor {
				ri.uuid = extraString(r.Extra, "uuid")
				if ri.uuid == "" {
					ri.uuid = extraString(r.Extra, "id")
				}
			}
			if pl := (place{ri.file, ri.line}); keyed[pl] {
				t, rank := r.Text, 1 // what the detail lists show of a keyed message
				switch {
				case t == "":
					t = r.Output
				case r.Human():
					rank = 3
				case r.Role == traces.RoleUser:
					rank = 2
				}
				if strings.TrimSpace(t) != "" && rank > textRank[pl] {
					text[pl], textRank[pl] = t, rank
				}
			}
			m[r.Seq] = ri
		}
		run.Records += len(tr.Records)
		recs[s.ID] = m
	}

	var out []*obsView
	for _, f := range obsFiles {
		ob := f.Obs
		v := &obsView{id: ob.ID, typ: ob.Type, author: ob.Author, summary: ob.Summary(), files: map[string]bool{}}
		seen := map[anchor]bool{}
		for _, src := range ob.Sources {
			m := recs[src.Session]
			for seq := src.From; seq <= src.To && m != nil; seq++ {
				ri, ok := m[seq]
				if !ok || ri.file == "" {
					continue
				}
				v.files[ri.file] = true
				if a := (anchor{ri.file, ri.line, ri.uuid}); ri.anchor && !seen[a] {
					seen[a] = true
					v.anchors = append(v.anchors, a)
				}
			}
		}
		run.Observations[ob.Type]++
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return run, out, text, nil
}

func extraString(extra map[string]json.RawMessage, name string) string {
	var s string
	if b, ok := extra[name]; ok {
		_ = json.Unmarshal(b, &s)
	}
	return s
}

// copyLines writes the first n lines of src to dst.
func copyLines(src, dst string, n int) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	end := 0
	for i := 0; i < n && end < len(b); i++ {
		j := bytes.IndexByte(b[end:], '\n')
		if j < 0 {
			end = len(b)
			break
		}
		end += j + 1
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, b[:end], 0o644)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
