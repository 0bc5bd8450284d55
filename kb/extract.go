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

	"github.com/kbmem/kb/agents"
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

// ExtractReport says what an extraction run did (observations.Report).
type ExtractReport = observations.Report

// Fold is one observation file folded into another (ExtractReport.Folded).
type Fold = observations.FoldedFile

// extractedFile keeps, per session, the session file size at extraction and
// the types extracted, so that the default run picks only new or grown
// sessions.
const extractedFile = "extracted.json"

type extractedState struct {
	Version  int                      `json:"version"`
	Sessions map[string]extractedMark `json:"sessions"`
}

type extractedMark = observations.SessionMark

func (k *KB) extractedPath() string { return filepath.Join(k.Root, StateDir, extractedFile) }

func (k *KB) loadExtracted() *extractedState {
	st := &extractedState{}
	if !k.loadStateJSON(k.extractedPath(), st) || st.Version != 1 {
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
	return k.saveStateJSON(k.extractedPath(), st, "extraction markers")
}

// loadStateJSON reads the state file at path into v; false when it is
// missing or does not parse (state is rebuilt, never an error).
func (k *KB) loadStateJSON(path string, v any) bool {
	b, err := k.files().ReadFile(path)
	return err == nil && json.Unmarshal(b, v) == nil
}

// saveStateJSON writes v as indented JSON to the state file at path,
// atomically, unless the file holds that already.
func (k *KB) saveStateJSON(path string, v any, what string) error {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if old, err := k.files().ReadFile(path); err == nil && bytes.Equal(old, b) {
		return nil
	}
	if err := k.files().MkdirAll(filepath.Dir(path)); err != nil {
		return fmt.Errorf("save %s: %w", what, err)
	}
	if err := k.files().WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("save %s: %w", what, err)
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
	tax, err := observations.TaxonomyOf(k.Config.ActionTypes)
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
	defer k.refreshActivation(ctx) // the next hook answers with what this changed
	l, err := k.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	return k.extractLocked(ctx, o)
}

func (k *KB) extractLocked(ctx context.Context, o ExtractOptions) (*ExtractReport, error) {
	rep := observations.NewReport()
	x := &observations.Run{Read: k.readSession}
	var err error
	if x.Types, err = k.extractTypes(o.Types); err != nil {
		return nil, err
	}
	if x.Tax, err = k.Taxonomy(); err != nil {
		return nil, err
	}
	if x.Client, err = k.extractLLM(o.LLM); err != nil {
		return nil, err
	}
	store := &traces.Store{Root: k.Root}
	if x.All, err = store.Sessions(); err != nil {
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
	state := k.loadExtracted()
	x.Prior = state.Sessions
	selected, err := k.selectSessions(store, x, state, o, rep)
	if err != nil {
		return nil, err
	}
	if len(selected) > 0 {
		// Templates recur across sessions and match the project's prompt
		// files: neither is a lesson in the person's words. Without the
		// index, extraction goes on with what each record says.
		if x.Attr, err = store.Attribution(); err != nil {
			rep.Problems = append(rep.Problems, Problem{Path: traces.TurnsFile, Msg: "turn index: " + err.Error(), Rule: "unreadable"})
			x.Attr = nil
		}
	}
	if err := x.ExtractSessions(ctx, selected, o.Progress, rep); err != nil {
		return nil, err
	}
	x.MineProcedures(ctx)
	writes, err := k.mergeObservations(ctx, x, rep)
	if err != nil {
		return rep, err
	}
	// From here on the run completes even if ctx is cancelled: the journal
	// is written first, so an interruption is finished by the next run.
	written, probs, err := k.commitExtract(writes, x.Marks(rep))
	rep.Problems = append(rep.Problems, probs...)
	rep.Written = append(rep.Written, written...)
	sort.Strings(rep.Written)
	if err != nil {
		return rep, err
	}
	k.judgeSessions(ctx, selected)
	rep.Total()
	return rep, nil
}

// selectSessions picks the sessions a run extracts: the one named, else
// those of o.sessions, ended since o.Since, and (without --all or
// --rerun) not extracted since they last grew.
func (k *KB) selectSessions(store *traces.Store, x *observations.Run, state *extractedState, o ExtractOptions, rep *ExtractReport) ([]traces.SessionInfo, error) {
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
	for _, info := range x.All {
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
				!state.pending(info.ID, st.Size(), x.Types) {
				rep.Skipped++
				continue
			}
		}
		selected = append(selected, info)
	}
	return selected, nil
}

// readSession reads a session file into records, meta records left out,
// in their work form (traces.WorkText: a string of more than 256 KiB is
// judged by its first 192 KiB and its last 64 KiB).
// Malformed lines are problems and skipped; a torn last line (the agent
// still writing) is left for the next run (the size marker then differs);
// an I/O error fails the session.
func (k *KB) readSession(info traces.SessionInfo) (*observations.Session, int64, []Problem, error) {
	sess := &observations.Session{ID: info.ID}
	size, probs, err := (&traces.Store{Root: k.Root}).ReadWork(info.Path, func(rec traces.Record) error {
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
		return nil, 0, probs, err
	}
	sort.SliceStable(sess.Records, func(i, j int) bool { return sess.Records[i].Seq < sess.Records[j].Seq })
	return sess, size, probs, nil
}

// mergeObservations reads the observation files and has the run merge
// its candidates into them, in memory (observations.Run.Merge decides): it
// returns the writes that commitExtract makes durable.
func (k *KB) mergeObservations(ctx context.Context, x *observations.Run, rep *ExtractReport) ([]*obsWrite, error) {
	if x == nil {
		x = &observations.Run{Read: k.readSession}
	}
	files, probs, err := k.LoadObservations(ctx)
	if err != nil {
		return nil, fmt.Errorf("extract: read observations: %w", err)
	}
	rep.Problems = append(rep.Problems, probs...)
	in := observations.MergeInput{Broken: map[string]bool{}, Gate: k.Gate(), ReadTombstones: func() ([]byte, error) {
		return k.files().ReadFile(k.tombstonePath())
	}, Occupied: func(rel string) bool {
		abs, err := k.Path(rel)
		if err != nil {
			return true
		}
		_, err = os.Lstat(abs)
		return err == nil
	}}
	for _, p := range probs {
		in.Broken[p.Path] = true
	}
	if in.Tombstones, err = k.Tombstones(); err != nil {
		return nil, fmt.Errorf("extract: read tombstones: %w", err)
	}
	// A forget interrupted between its tombstone and the delete leaves a
	// tombstoned file: finish the job.
	for _, f := range files {
		if observations.Tombstoned(in.Tombstones, f.Obs.ID) {
			abs, err := k.Path(f.Path)
			if err == nil && k.files().Remove(abs) == nil {
				rep.Removed = append(rep.Removed, f.Path)
				continue
			}
		}
		in.Files = append(in.Files, f)
	}
	return x.Merge(ctx, in, rep)
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
	f := observations.FileByID(files, id)
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
	return (&agents.HookKB{Root: k.Root}).Enqueue(transcriptPath)
}

// DrainQueue imports the queued transcripts, extracts the sessions they
// hold, and clears the queue (traces.Store.TakeQueue: sessions enqueued
// meanwhile wait for the next drain; a drain interrupted by a crash is
// finished by the next one, import and extraction being idempotent). A
// transcript that fails to import is reported and dropped from the queue.
func (k *KB) DrainQueue(ctx context.Context) (*ExtractReport, error) {
	defer k.refreshActivation(ctx) // the next hook answers with what this changed
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
		return observations.NewReport(), done()
	}
	store, _, err := k.traceStore(false, nil)
	if err != nil {
		return nil, err
	}
	imported, ids, iprobs, err := store.ImportQueued(ctx, paths, func(err error) {
		hookLog(k.Root, &HookInput{HookEventName: EventSessionEnd}, err)
	})
	if err != nil {
		return nil, err
	}
	probs = append(probs, iprobs...)
	rep := observations.NewReport()
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
