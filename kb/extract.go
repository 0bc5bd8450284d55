package kb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kbmem/kb/internal/llm"
	"github.com/kbmem/kb/observations"
	"github.com/kbmem/kb/traces"
)

// ExtractOptions select the sessions and extractors of an extraction run.
type ExtractOptions struct {
	// Session extracts this one session (an id or unique prefix), whether or
	// not it was extracted before.
	Session string
	// Since keeps only sessions that ended (or, without an end, started) at
	// or after this time.
	Since time.Time
	// All selects every session, extracted before or not.
	All bool
	// Rerun ignores the per-session markers: sessions extracted before are
	// extracted again (idempotent: unchanged observations stay unchanged).
	Rerun bool
	// Types limits the observation types; empty = extract.types of kb.yaml.
	Types []string
	// LLM also runs the LLM extractors (needs llm.provider); kb.yaml's
	// extract.llm turns them on too.
	LLM bool
	// Progress, if set, is called with (done, total) sessions.
	Progress func(done, total int)

	sessions []string // exact session ids (DrainQueue); marker filter applies
}

// TypeCounts says what extraction did with the observations of one type.
type TypeCounts = observations.TypeCounts

// ExtractReport says what an extraction run did.
type ExtractReport struct {
	Sessions  []string               `json:"sessions"`             // sessions extracted
	Skipped   int                    `json:"skipped"`              // sessions already extracted and unchanged
	Records   int                    `json:"records"`              // trace records read
	Bytes     int64                  `json:"bytes"`                // bytes of session files read
	Types     map[string]*TypeCounts `json:"types"`                // per observation type
	New       int                    `json:"new"`                  // totals over Types
	Merged    int                    `json:"merged"`               //
	Unchanged int                    `json:"unchanged"`            //
	Forgotten int                    `json:"forgotten"`            // skipped: matched a tombstone
	Edited    int                    `json:"edited"`               // merged into files a person edited: bookkeeping only
	Removed   []string               `json:"removed,omitempty"`    // tombstoned files left by an interrupted forget, deleted
	Written   []string               `json:"written,omitempty"`    // observation files created or changed
	Resumed   []string               `json:"resumed,omitempty"`    // files written to finish an interrupted run
	LLMErrors []string               `json:"llm_errors,omitempty"` // failed LLM calls; the heuristic results stand
	Problems  []Problem              `json:"problems,omitempty"`
	Imported  []string               `json:"imported,omitempty"` // transcripts imported (DrainQueue)
	// Superseded: earlier observations a later one of this run contradicts
	// (observations.Supersession; Kept when a person edited the old one).
	Superseded []observations.Supersession `json:"superseded,omitempty"`
	// Retracted: observation files retired because the turn they came from
	// turned out to be a template (it recurs across sessions); Folded: files
	// folded into another that is the same observation in other words.
	Retracted []string `json:"retracted,omitempty"`
	Folded    []Fold   `json:"folded,omitempty"`
}

func (r *ExtractReport) count(typ string) *TypeCounts {
	if r.Types == nil {
		r.Types = map[string]*TypeCounts{}
	}
	c := r.Types[typ]
	if c == nil {
		c = &TypeCounts{}
		r.Types[typ] = c
	}
	return c
}

// extractedFile keeps, per session, the session file size at extraction and
// the types extracted, so that the default run picks only new or grown
// sessions.
const extractedFile = "extracted.json"

type extractedState struct {
	Version  int                      `json:"version"`
	Sessions map[string]extractedMark `json:"sessions"`
}

type extractedMark struct {
	Size  int64    `json:"size"`
	Types []string `json:"types"`
}

func (k *KB) extractedPath() string { return filepath.Join(k.Root, StateDir, extractedFile) }

func (k *KB) loadExtracted() *extractedState {
	st := &extractedState{}
	b, err := k.files().ReadFile(k.extractedPath())
	if err != nil || json.Unmarshal(b, st) != nil || st.Version != 1 {
		// A lost or corrupt marker file costs a re-extraction, which is
		// idempotent: never an error.
		st = &extractedState{}
	}
	if st.Sessions == nil {
		st.Sessions = map[string]extractedMark{}
	}
	st.Version = 1
	return st
}

func (k *KB) saveExtracted(st *extractedState) error {
	b, err := json.MarshalIndent(st, "", " ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if old, err := k.files().ReadFile(k.extractedPath()); err == nil && bytes.Equal(old, b) {
		return nil
	}
	if err := k.files().WriteFile(k.extractedPath(), b, 0o644); err != nil {
		return fmt.Errorf("save extraction markers: %w", err)
	}
	return nil
}

func (st *extractedState) pending(id string, size int64, types []string) bool {
	m, ok := st.Sessions[id]
	if !ok || m.Size != size {
		return true
	}
	for _, t := range types {
		if !slices.Contains(m.Types, t) {
			return true
		}
	}
	return false
}

// extractTypes validates the requested types (kb.yaml's by default).
func (k *KB) extractTypes(req []string) ([]string, error) {
	if len(req) == 0 {
		req = k.Config.Extract.Types
	}
	types, err := observations.ParseTypes(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidInput, err)
	}
	return types, nil
}

// Taxonomy returns the action-type taxonomy: the built-in rules plus the
// action_types of kb.yaml.
func (k *KB) Taxonomy() (*observations.Taxonomy, error) {
	var rules []observations.Rule
	for _, r := range k.Config.ActionTypes {
		rules = append(rules, observations.Rule{Type: r.Type, Commands: r.Commands, Paths: r.Paths, Content: r.Content, Words: r.Words})
	}
	tax, err := observations.NewTaxonomy(rules)
	if err != nil {
		return nil, &ConfigError{Path: filepath.Join(k.Root, ConfigFile), Msg: "action_types: " + err.Error()}
	}
	return tax, nil
}

// Extract runs the extraction pipeline under the KB write lock: it reads
// the selected sessions, runs the heuristic extractors (and the LLM ones when
// enabled), mines procedures across the sessions in scope, and merges the
// results into the observation files. A session that fails to read is
// reported and contributes nothing; the others go on. Re-running on the
// same sessions changes no file.
func (k *KB) Extract(ctx context.Context, o ExtractOptions) (*ExtractReport, error) {
	l, err := k.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	return k.extractLocked(ctx, o)
}

type sessionData struct {
	info traces.SessionInfo
	size int64
	sess *observations.Session
}

// extraction is one run of the pipeline: what it extracts with, and what
// it has read so far.
type extraction struct {
	types    []string
	tax      *observations.Taxonomy
	client   llm.Client // nil: the heuristics only
	all      []traces.SessionInfo
	sessions []*sessionData              // read this run, as procedure mining sees them
	cands    []*observations.Observation // extracted, not merged yet
	cwds     map[string]string           // session -> its working directory
	state    *extractedState             // the per-session markers as found
	attr     *traces.Attribution         // who wrote what, beyond what each record says (nil: records only)
	turns    map[string]*turnAuthors     // session -> the user turns attribution took from the person (nil: none)
}

func (k *KB) extractLocked(ctx context.Context, o ExtractOptions) (*ExtractReport, error) {
	rep := &ExtractReport{Types: map[string]*TypeCounts{}, Sessions: []string{}}
	x := &extraction{cwds: map[string]string{}, turns: map[string]*turnAuthors{}}
	var err error
	if x.types, err = k.extractTypes(o.Types); err != nil {
		return nil, err
	}
	if x.tax, err = k.Taxonomy(); err != nil {
		return nil, err
	}
	if x.client, err = k.extractLLM(o.LLM); err != nil {
		return nil, err
	}
	store := &traces.Store{Root: k.Root}
	if x.all, err = store.Sessions(); err != nil {
		return nil, fmt.Errorf("extract: list sessions: %w", err)
	}
	// A run killed after deciding what to write is finished first, so
	// that this run starts from the state it would have left.
	resumed, probs, err := k.resumeExtract()
	rep.Resumed = resumed
	rep.Problems = append(rep.Problems, probs...)
	if err != nil {
		return rep, err
	}
	x.state = k.loadExtracted()
	selected, err := k.selectSessions(store, x, o, rep)
	if err != nil {
		return nil, err
	}
	if len(selected) > 0 {
		// Templates recur across sessions and match the project's prompt
		// files: neither is a lesson in the person's words. Without the
		// index, extraction goes on with what each record says.
		if x.attr, err = store.Attribution(); err != nil {
			rep.Problems = append(rep.Problems, Problem{Path: traces.TurnsFile, Msg: "turn index: " + err.Error(), Rule: "unreadable"})
			x.attr = nil
		}
	}
	if err := k.extractSessions(ctx, x, selected, o.Progress, rep); err != nil {
		return nil, err
	}
	k.mineProcedures(ctx, x)
	for _, c := range x.cands {
		c.SetProjects(x.cwds)
	}
	writes, err := k.mergeObservations(ctx, x, rep)
	if err != nil {
		return rep, err
	}
	// From here on the run completes even if ctx is cancelled: the journal
	// is written first, so an interruption is finished by the next run.
	written, probs, err := k.commitExtract(writes, x.marks(rep))
	rep.Problems = append(rep.Problems, probs...)
	rep.Written = append(rep.Written, written...)
	sort.Strings(rep.Written)
	if err != nil {
		return rep, err
	}
	for _, c := range rep.Types {
		rep.New += c.New
		rep.Merged += c.Merged
		rep.Unchanged += c.Unchanged
	}
	return rep, nil
}

// selectSessions picks the sessions a run extracts: the one named, else
// those of o.sessions, ended since o.Since, and (without --all or
// --rerun) not extracted since they last grew.
func (k *KB) selectSessions(store *traces.Store, x *extraction, o ExtractOptions, rep *ExtractReport) ([]traces.SessionInfo, error) {
	if o.Session != "" {
		info, err := store.Find(o.Session)
		if err != nil {
			if errors.Is(err, traces.ErrNotFound) {
				return nil, fmt.Errorf("extract: %w (%w)", err, ErrNotFound)
			}
			return nil, fmt.Errorf("extract: %w", err)
		}
		return []traces.SessionInfo{info}, nil
	}
	want := map[string]bool{}
	for _, id := range o.sessions {
		want[id] = true
	}
	var selected []traces.SessionInfo
	for _, info := range x.all {
		if o.sessions != nil && !want[info.ID] {
			continue
		}
		if !o.Since.IsZero() {
			t := info.End
			if t.IsZero() {
				t = info.Start
			}
			if t.Before(o.Since) {
				continue
			}
		}
		if !o.All && !o.Rerun {
			if st, err := os.Stat(filepath.Join(k.Root, filepath.FromSlash(info.Path))); err == nil &&
				!x.state.pending(info.ID, st.Size(), x.types) {
				rep.Skipped++
				continue
			}
		}
		selected = append(selected, info)
	}
	return selected, nil
}

// extractSessions reads and extracts one session at a time; only the
// tool-call skeleton of each is kept, for procedure mining across
// sessions. A session that fails to read is reported and contributes
// nothing.
func (k *KB) extractSessions(ctx context.Context, x *extraction, selected []traces.SessionInfo, progress func(done, total int), rep *ExtractReport) error {
	for i, info := range selected {
		if err := ctx.Err(); err != nil {
			return err
		}
		sd, probs, err := k.readSession(info)
		rep.Problems = append(rep.Problems, probs...)
		if err != nil {
			rep.Problems = append(rep.Problems, Problem{Path: info.Path, Msg: err.Error(), Rule: "unreadable"})
		} else {
			rep.Records += len(sd.sess.Records)
			rep.Bytes += sd.size
			x.turns[info.ID] = attribute(x.attr, sd.sess.Records, info.Path)
			obs := observations.Extract(sd.sess, x.tax, x.types)
			if x.client != nil {
				more, errs := observations.ExtractLLM(ctx, x.client, sd.sess, x.tax, x.types)
				rep.LLMErrors = append(rep.LLMErrors, errs...)
				if len(more) > 0 {
					obs = observations.MergeLLM(obs, more)
				}
			}
			x.cands = append(x.cands, obs...)
			sd.sess.AddWorkdir(x.cwds)
			sd.sess = observations.ProcedureView(sd.sess)
			x.sessions = append(x.sessions, sd)
		}
		if progress != nil {
			progress(i+1, len(selected))
		}
	}
	return nil
}

// mineProcedures adds the procedures of the run. Procedures recur across
// sessions, so once any session was extracted they are mined over every
// session of the KB, not only this run's: an incremental run on one new
// session still finds the workflow it shares with last week's.
func (k *KB) mineProcedures(ctx context.Context, x *extraction) {
	if !slices.Contains(x.types, observations.TypeProcedure) || len(x.sessions) == 0 {
		return
	}
	ps := make([]*observations.Session, 0, len(x.all))
	seen := map[string]bool{}
	for _, sd := range x.sessions {
		ps = append(ps, sd.sess)
		seen[sd.info.ID] = true
	}
	for _, info := range x.all {
		if seen[info.ID] || ctx.Err() != nil {
			continue
		}
		if sd, _, err := k.readSession(info); err == nil {
			sd.sess.AddWorkdir(x.cwds)
			ps = append(ps, observations.ProcedureView(sd.sess))
		}
	}
	if len(ps) > 1 {
		x.cands = append(x.cands, observations.Procedures(ps, 2)...)
	}
}

// marks are the per-session markers the run leaves: each session read,
// at its size, with the types extracted (and, for a session that did not
// grow, the types extracted before).
func (x *extraction) marks(rep *ExtractReport) map[string]extractedMark {
	marks := map[string]extractedMark{}
	for _, sd := range x.sessions {
		rep.Sessions = append(rep.Sessions, sd.info.ID)
		mark := extractedMark{Size: sd.size, Types: slices.Clone(x.types)}
		if old, ok := x.state.Sessions[sd.info.ID]; ok && old.Size == sd.size {
			for _, t := range old.Types {
				if !slices.Contains(mark.Types, t) {
					mark.Types = append(mark.Types, t)
				}
			}
			sort.Strings(mark.Types)
		}
		marks[sd.info.ID] = mark
	}
	return marks
}

// readSession reads a session file into records, meta records left out.
// Malformed lines are problems and skipped; a torn last line (the agent
// still writing) is left for the next run (the size marker then differs);
// an I/O error fails the session.
func (k *KB) readSession(info traces.SessionInfo) (*sessionData, []Problem, error) {
	sess := &observations.Session{ID: info.ID}
	size, probs, err := (&traces.Store{Root: k.Root}).ReadFile(info.Path, func(rec traces.Record) error {
		if rec.Kind == traces.KindMeta {
			return nil
		}
		if rec.Session == "" {
			rec.Session = info.ID
		}
		sess.Records = append(sess.Records, rec)
		return nil
	})
	if err != nil {
		return nil, probs, err
	}
	sort.SliceStable(sess.Records, func(i, j int) bool { return sess.Records[i].Seq < sess.Records[j].Seq })
	return &sessionData{info: info, size: size, sess: sess}, probs, nil
}

// mergeObservations folds candidates into the observation files, in
// memory (observations.Merger decides): it returns the writes that
// commitExtract makes durable.
func (k *KB) mergeObservations(ctx context.Context, x *extraction, rep *ExtractReport) ([]*obsWrite, error) {
	if x == nil {
		x = &extraction{turns: map[string]*turnAuthors{}}
	}
	files, probs, err := k.LoadObservations(ctx)
	if err != nil {
		return nil, fmt.Errorf("extract: read observations: %w", err)
	}
	rep.Problems = append(rep.Problems, probs...)
	broken := map[string]bool{} // files that exist but do not parse: never overwritten
	for _, p := range probs {
		broken[p.Path] = true
	}
	tombs, err := k.Tombstones()
	if err != nil {
		return nil, fmt.Errorf("extract: read tombstones: %w", err)
	}
	// A forget interrupted between its tombstone and the delete leaves a
	// tombstoned file: finish the job.
	live := files[:0]
	for _, f := range files {
		if observations.Tombstoned(tombs, f.Obs.ID) {
			abs, err := k.Path(f.Path)
			if err == nil && k.files().Remove(abs) == nil {
				rep.Removed = append(rep.Removed, f.Path)
				continue
			}
		}
		live = append(live, f)
	}
	// The bytes as found: the merge updates the File values in place.
	orig := make(map[string][]byte, len(live))
	for _, f := range live {
		orig[f.Path] = f.Raw
	}
	live, newTombs, revs := k.reviseObservations(x, live, rep)
	tombs = append(tombs, newTombs...)
	m := &observations.Merger{Files: live, Tombstones: tombs, Broken: broken, Gate: k.Gate(), Occupied: func(rel string) bool {
		abs, err := k.Path(rel)
		if err != nil {
			return true
		}
		_, err = os.Lstat(abs)
		return err == nil
	}}
	res, err := m.Merge(ctx, x.cands)
	if err != nil {
		return nil, fmt.Errorf("extract: %w", err)
	}
	if rep.Superseded, err = res.Supersede(m.Files); err != nil {
		return nil, fmt.Errorf("extract: %w", err)
	}
	for typ, c := range res.Types {
		rc := rep.count(typ)
		rc.New, rc.Merged, rc.Unchanged = rc.New+c.New, rc.Merged+c.Merged, rc.Unchanged+c.Unchanged
	}
	rep.Forgotten += res.Forgotten
	rep.Edited += res.Edited
	rep.Problems = append(rep.Problems, res.Problems...)
	writes, err := k.revisionWrites(orig, revs, newTombs, res.Writes)
	if err != nil {
		return nil, fmt.Errorf("extract: %w", err)
	}
	return writes, nil
}

// ---------------------------------------------------------------------------
// Provenance

// Provenance is an observation and the trace records behind it
// (observations.Provenance).
type (
	Provenance       = observations.Provenance
	ProvenanceSource = observations.ProvenanceSource
	ProvenanceRecord = observations.ProvenanceRecord
)

// Provenance returns the trace records each source of observation id
// points at (id or file name).
func (k *KB) Provenance(ctx context.Context, id string) (*Provenance, error) {
	files, _, err := k.LoadObservations(ctx)
	if err != nil {
		return nil, err
	}
	var f *ObsFile
	for _, x := range files {
		if x.Obs.ID == id || strings.TrimSuffix(filepath.Base(x.Path), ".md") == id {
			f = x
			break
		}
	}
	if f == nil {
		return nil, fmt.Errorf("observation %q: %w", id, ErrNotFound)
	}
	return observations.ProvenanceOf(f, &traces.Store{Root: k.Root}), nil
}

// ---------------------------------------------------------------------------
// Session queue (SessionEnd hook)

// QueueFile lists transcripts waiting for import and extraction, one JSON
// object a line, under .state/ (traces.QueueFile).
const QueueFile = traces.QueueFile

func (k *KB) queuePath() string { return (&traces.Store{Root: k.Root}).QueuePath() }

// EnqueueSession durably records that the transcript at transcriptPath is to
// be imported and extracted by the next DrainQueue. It takes no lock (one
// fsynced O_APPEND line), so a SessionEnd hook returns at once.
func (k *KB) EnqueueSession(transcriptPath string) error {
	if strings.TrimSpace(transcriptPath) == "" {
		return fmt.Errorf("enqueue session: %w: empty transcript path", ErrInvalidInput)
	}
	abs, err := filepath.Abs(transcriptPath)
	if err != nil {
		return fmt.Errorf("enqueue session: %w", err)
	}
	if err := (&traces.Store{Root: k.Root}).Enqueue(abs, time.Now()); err != nil {
		return fmt.Errorf("enqueue session %s: %w", abs, err)
	}
	return nil
}

// DrainQueue imports the queued transcripts, extracts the sessions they
// hold, and clears the queue (traces.Store.TakeQueue: sessions enqueued
// meanwhile wait for the next drain; a drain interrupted by a crash is
// finished by the next one, import and extraction being idempotent). A
// transcript that fails to import is reported and dropped from the queue.
func (k *KB) DrainQueue(ctx context.Context) (*ExtractReport, error) {
	l, err := k.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	paths, qprobs, done, err := (&traces.Store{Root: k.Root}).TakeQueue()
	if err != nil {
		return nil, fmt.Errorf("drain queue: %w", err)
	}
	probs := qprobs
	if len(paths) == 0 && len(probs) == 0 {
		return &ExtractReport{Types: map[string]*TypeCounts{}, Sessions: []string{}}, done()
	}
	store, _, err := k.traceStore(false, nil)
	if err != nil {
		return nil, err
	}
	ids := []string{}
	var imported []string
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res, err := store.Import(p, traces.ImportOptions{})
		for _, pr := range res.Problems {
			probs = append(probs, Problem{Path: pr.Path, Line: pr.Line, Msg: pr.Msg, Rule: "import"})
		}
		if len(res.Problems) > 0 {
			// The drain runs detached from the hook that queued it: its
			// output reaches nobody, the hook log does.
			hookLog(k.Root, &HookInput{HookEventName: EventSessionEnd}, fmt.Errorf("import %s: %d part(s) skipped, first: %s", p, len(res.Problems), res.Problems[0].Error()))
		}
		if err != nil {
			hookLog(k.Root, &HookInput{HookEventName: EventSessionEnd}, fmt.Errorf("import failed: %w", err))
			probs = append(probs, Problem{Path: p, Msg: err.Error(), Rule: "import"})
			continue
		}
		imported = append(imported, p)
		ids = append(ids, res.Sessions...)
	}
	rep := &ExtractReport{Types: map[string]*TypeCounts{}, Sessions: []string{}}
	if len(ids) > 0 {
		if rep, err = k.extractLocked(ctx, ExtractOptions{sessions: ids}); err != nil {
			return rep, err
		}
	}
	rep.Imported = imported
	rep.Problems = append(probs, rep.Problems...)
	if err := done(); err != nil {
		return rep, fmt.Errorf("drain queue: %w", err)
	}
	return rep, nil
}

// ---------------------------------------------------------------------------
// LLM extractors

// extractLLM returns the client of the LLM extractors, or nil when they are
// off. --llm without a provider is an error; extract.llm without one is
// noted and ignored (the heuristics always run).
func (k *KB) extractLLM(want bool) (llm.Client, error) {
	if !want && !k.Config.Extract.LLM {
		return nil, nil
	}
	c := k.Config.LLM
	if p := strings.ToLower(strings.TrimSpace(c.Provider)); p == "" || p == "none" {
		if want {
			return nil, fmt.Errorf("%w: LLM extraction needs llm.provider in kb.yaml", ErrInvalidInput)
		}
		k.logf("extract.llm is on but llm.provider is none: heuristic extraction only")
		return nil, nil
	}
	cl, err := llm.New(k.llmConfig())
	if err != nil {
		return nil, fmt.Errorf("extract: %w", err)
	}
	return cl, nil
}

// llmConfig maps kb.yaml's llm section onto the provider client's config;
// extraction and the recall judge share it.
func (k *KB) llmConfig() llm.Config {
	c := k.Config.LLM
	return llm.Config{Provider: c.Provider, Model: c.Model, BaseURL: c.BaseURL, APIKeyEnv: c.APIKeyEnv,
		Command: c.Command, Timeout: c.Timeout.D()}
}

// ExtractPipeline is the SessionHook `kb watch` runs on sessions that went
// quiet: it extracts every session not extracted since it last grew (the
// quiet ones among them), then drains transcripts queued by the SessionEnd
// hook.
func ExtractPipeline(ctx context.Context, k *KB, sessions []string) error {
	if _, err := k.Extract(ctx, ExtractOptions{}); err != nil {
		return err
	}
	_, err := k.DrainQueue(ctx)
	return err
}
