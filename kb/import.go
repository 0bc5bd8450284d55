package kb

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync/atomic"
	"time"

	"github.com/kbmem/kb/agents"
	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/redact"
	"github.com/kbmem/kb/traces"
)

// ImportOptions configure Import.
type ImportOptions struct {
	Format   string // force a transcript format ("" = detect per file)
	Agent    string // override the agent of every imported record
	NoRedact bool   // store secrets as they are (redaction is on by default)
	// OnFile, if set, is told of each file as it is done (progress).
	OnFile func(ImportFile)
}

// What an import did (traces.ImportReport and its parts).
type (
	ImportReport = traces.ImportReport
	ImportFile   = traces.ImportedFile
	ImportSkip   = traces.SkippedFile
	ImportTotals = traces.ImportTotals
)

// PartialImportError is returned by Import, next to a complete report,
// when some files had problems or could not be imported; everything else
// was imported. The CLI prints the report and exits 1.
type PartialImportError struct {
	Problems int // skipped parts of files (malformed lines...)
	Errors   int // files not imported at all
}

func (e *PartialImportError) Error() string {
	return fmt.Sprintf("import incomplete: %d file(s) failed, %d problem(s) in imported files", e.Errors, e.Problems)
}

// traceStore returns a Store over the KB with the redaction of kb.yaml
// (unless noRedact or traces.redact is false). count, if set, is increased
// by the number of secrets replaced.
func (k *KB) traceStore(noRedact bool, count *atomic.Int64) (*traces.Store, bool, error) {
	if noRedact || !k.Config.Traces.Redact {
		return &traces.Store{Root: k.Root}, false, nil
	}
	var extra []redact.Rule
	for _, r := range k.Config.Traces.RedactRules {
		extra = append(extra, redact.Rule{ID: r.ID, Regex: r.Regex, Keywords: r.Keywords, SecretGroup: r.SecretGroup})
	}
	rd, err := redact.New(redact.Options{Extra: extra})
	if err != nil {
		return nil, false, fmt.Errorf("%s: traces.redact_rules: %w", ConfigFile, err)
	}
	st, err := traces.NewRedactingStore(k.Root, rd, count, k.logf)
	if err != nil {
		return nil, false, err
	}
	return st, true, nil
}

// Import imports transcripts: files, or directories walked for *.jsonl,
// *.json and aider chat histories. It holds the KB write lock throughout
// and redacts secrets unless o.NoRedact. Every file is attempted; the
// report tells, per file, what was appended and what went wrong. When any
// file had problems or errors the report comes with a *PartialImportError.
// A cancelled ctx stops between files.
func (k *KB) Import(ctx context.Context, paths []string, o ImportOptions) (*ImportReport, error) {
	if o.Format != "" {
		if _, err := traces.ParserFor(o.Format); err != nil {
			return nil, fmt.Errorf("%w: --format: %v", ErrInvalidInput, err)
		}
	}
	sources := make([]Source, len(paths))
	for i, p := range paths {
		sources[i] = Source{Path: p}
	}
	return k.importSources(ctx, sources, o, false)
}

func importErr(r *ImportReport) error {
	if r.Totals.Problems > 0 || r.Totals.Errors > 0 {
		return &PartialImportError{Problems: r.Totals.Problems, Errors: r.Totals.Errors}
	}
	return nil
}

// pathOptions are the options of importing a path into this KB: its own
// root is not walked, and the agents' directories are theirs.
func (k *KB) pathOptions(o ImportOptions, keep func(string) bool) traces.PathOptions {
	return traces.PathOptions{ImportOptions: traces.ImportOptions{Format: o.Format, Agent: o.Agent}, Skip: k.Root, Owned: k.inAgentDir, Keep: keep, OnFile: o.OnFile}
}

// inAgentDir reports whether p lies in an agent's own transcript
// directory (agents.InAgentDir).
func (k *KB) inAgentDir(p string) bool {
	return agents.InAgentDir(p, k.TraceSources(true, true, false))
}

// Source is one place transcripts come from (agents.Source).
type Source = agents.Source

// TraceSources resolves the traces section of kb.yaml (agents.Sources):
// "auto" entries become the agents' own directories for this project,
// other entries are taken as given (~ expanded, relative paths against
// the project root). Paths may not exist yet.
func (k *KB) TraceSources(claudeCode, codex, extra bool) []Source {
	var e agents.SourceEntries
	if claudeCode {
		e.ClaudeCode = k.Config.Traces.ClaudeCode
	}
	if codex {
		e.Codex = k.Config.Traces.Codex
	}
	if extra {
		e.Extra = k.Config.Traces.Extra
	}
	return agents.Sources(k.ProjectRoot, e)
}

// ImportSources imports every existing source of the list (missing
// directories are fine: the agent has not run here yet).
func (k *KB) ImportSources(ctx context.Context, sources []Source, o ImportOptions) (*ImportReport, error) {
	return k.importSources(ctx, sources, o, true)
}

// importSources imports each source under the write lock, with kb.yaml's
// redaction (unless o.NoRedact); with missingOK a source that does not
// exist is passed over, else it is an error of the report.
func (k *KB) importSources(ctx context.Context, sources []Source, o ImportOptions, missingOK bool) (*ImportReport, error) {
	var count atomic.Int64
	st, redacting, err := k.traceStore(o.NoRedact, &count)
	if err != nil {
		return nil, err
	}
	l, err := k.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	rep := &ImportReport{Files: []ImportFile{}, Redacted: redacting}
	for _, s := range sources {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		if _, err := os.Stat(s.Path); missingOK && errors.Is(err, fs.ErrNotExist) {
			continue
		}
		st.ImportPath(ctx, s.Path, k.pathOptions(o, s.Keep), rep)
	}
	rep.Totals.Redacted = int(count.Load())
	return rep, importErr(rep)
}

// ---------------------------------------------------------------------------
// Browsing

// What `kb sessions` and `kb trace show` show (traces.SessionSummary,
// traces.TraceOptions, traces.Trace).
type (
	SessionSummary = traces.SessionSummary
	TraceOptions   = traces.TraceOptions
	Trace          = traces.Trace
)

// SessionsOptions filter Sessions.
type SessionsOptions struct {
	Since time.Time // sessions that ended (or started) at or after
	Agent string
}

// Sessions lists the imported sessions, oldest first.
func (k *KB) Sessions(o SessionsOptions) ([]SessionSummary, error) {
	return (&traces.Store{Root: k.Root}).Summaries(o.Agent, o.Since)
}

// TraceShow reads a session, by id or unique prefix.
func (k *KB) TraceShow(session string, o TraceOptions) (*Trace, error) {
	st := &traces.Store{Root: k.Root}
	info, err := st.Find(session)
	if err != nil {
		return nil, traceErr(err)
	}
	return st.ReadTrace(info, o)
}

// readTrace reads the records of a session file.
func (k *KB) readTrace(info traces.SessionInfo, o TraceOptions) (*Trace, error) {
	return (&traces.Store{Root: k.Root}).ReadTrace(info, o)
}

func traceErr(err error) error {
	switch {
	case errors.Is(err, traces.ErrNotFound):
		return fmt.Errorf("%w: %v", ErrNotFound, err)
	case errors.Is(err, traces.ErrAmbiguous):
		return fmt.Errorf("%w: %v", ErrAmbiguousID, err)
	}
	return err
}

// AppendTraces appends records to their sessions (kb trace append), under
// the write lock and redacted like imports. It returns them as written.
func (k *KB) AppendTraces(ctx context.Context, recs []traces.Record, noRedact bool) ([]traces.Record, error) {
	st, _, err := k.traceStore(noRedact, nil)
	if err != nil {
		return nil, err
	}
	l, err := k.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	return st.Append(recs)
}

// ---------------------------------------------------------------------------
// Manual redaction

// ManualMarker replaces what `kb trace redact` removes.
const ManualMarker = traces.ManualMarker

// RedactOptions select what RedactTraces removes.
type RedactOptions struct {
	Pattern *regexp.Regexp // either a pattern
	Value   string         // or a literal value
	Session string         // only this session (id or unique prefix); observation files are still cleaned
	DryRun  bool           // report, change nothing
}

// RedactedFile is one file RedactTraces changed (or would change).
type RedactedFile = traces.RedactedFile

// RedactReport is what RedactTraces did.
type RedactReport struct {
	DryRun      bool           `json:"dry_run"`
	Files       []RedactedFile `json:"files"`
	Records     int            `json:"records"`
	Occurrences int            `json:"occurrences"`
	Reindexed   bool           `json:"reindexed"`
}

// RedactTraces is one of the two exceptions to append-only traces (the
// other is kb doctor --fix dropping torn lines): it rewrites, atomically and
// under the write lock, every session file holding a match (in any string
// of a record) with the match replaced by ManualMarker, and does the same to
// the markdown files of the upper layers that quote it. The record keys and
// session summaries kept for the rewritten files are dropped (rebuilt when
// next needed), and the index is re-synced so that no search finds the
// text any more.
func (k *KB) RedactTraces(ctx context.Context, o RedactOptions) (*RedactReport, error) {
	re := o.Pattern
	if re == nil {
		if o.Value == "" {
			return nil, fmt.Errorf("%w: give a pattern or a value to redact", ErrInvalidInput)
		}
		re = regexp.MustCompile(regexp.QuoteMeta(o.Value))
	}
	if re.MatchString("") {
		return nil, fmt.Errorf("%w: pattern %q matches the empty string", ErrInvalidInput, re.String())
	}
	l, err := k.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	rep := &RedactReport{DryRun: o.DryRun, Files: []RedactedFile{}}
	st := &traces.Store{Root: k.Root}
	var sessions []string
	if o.Session != "" {
		info, err := st.Find(o.Session)
		if err != nil {
			return nil, traceErr(err)
		}
		sessions = []string{info.Path}
	}
	var md []string
	for _, layer := range []string{LayerObservations, LayerEpisodes, LayerLibrary} {
		md = append(md, doc.MarkdownFiles(filepath.Join(k.Root, layer))...)
	}
	done, err := st.Purge(ctx, traces.Purge{Pattern: re, Marker: ManualMarker, Sessions: sessions, Files: md, DryRun: o.DryRun, Write: k.writeKeepMode})
	for _, f := range done {
		rep.Files = append(rep.Files, f)
		rep.Records += f.Records
		rep.Occurrences += f.Occurrences
	}
	if err != nil || o.DryRun {
		return rep, err
	}
	if len(rep.Files) == 0 {
		return rep, nil
	}
	// A re-sync would hide the old text from search, but the index keeps
	// deleted documents in its segment files until they merge: rebuild it
	// so that no byte of the text is left on disk.
	x, _, err := k.OpenIndex(ctx, nil)
	if err != nil {
		return rep, fmt.Errorf("redact: re-index: %w", err)
	}
	if _, err := x.Rebuild(ctx, nil); err != nil {
		x.Close()
		return rep, fmt.Errorf("redact: re-index: %w", err)
	}
	rep.Reindexed = true
	return rep, x.Close()
}

func (k *KB) writeKeepMode(abs string, data []byte) error {
	perm := os.FileMode(0o644)
	if fi, err := os.Stat(abs); err == nil {
		perm = fi.Mode().Perm()
	}
	return k.files().WriteFile(abs, data, perm)
}
