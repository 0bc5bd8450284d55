package kb

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/observations"
)

// ObsFile is an observation as stored in observations/<type>/<id>.md.
type ObsFile struct {
	Obs  *observations.Observation
	Path string // slash path relative to the KB root
	// Edited is true when a person changed the text kb generated: kb then
	// updates only its bookkeeping fields (sources, counts, dates) and never
	// the text.
	Edited bool
	raw    []byte
}

// digestKey holds a hash of the text kb generated, to tell a person's edit.
const digestKey = "kb_digest"

// bookkeeping are the fields re-extraction may always update, even on an
// observation a person edited.
var bookkeeping = []string{"sources", "sessions", "reviewed", "first_seen", "last_seen", "signals", "projects", "importance", "confidence", "accepts", "rejects", "consistency", "references"}

// fieldOrder is the order keys are written in a new observation file.
var fieldOrder = []string{"id", "type", "title", "description", "lifecycle", "status", "author", "origin", "reviewed", "confidence", "importance",
	"sessions", "first_seen", "last_seen", "projects", "trigger", "action_type", "action_types", "lesson", "consequence",
	"domain", "statement", "accepts", "rejects", "consistency", "goal", "steps", "question", "alternatives",
	"chosen", "reasons", "approach", "failure", "followed_by", "claim", "marker", "references", "answered",
	"signals", "sources", "excerpt"}

// ObservationPath is where an observation of this type and id lives.
func ObservationPath(typ, id string) string {
	return path.Join(LayerObservations, doc.Slug(typ), doc.Slug(id)+".md")
}

// LoadObservations reads every observation file, parsing on all cores.
// Files that fail to parse are reported and skipped.
func (k *KB) LoadObservations(ctx context.Context) ([]*ObsFile, []Problem, error) {
	dir := filepath.Join(k.Root, LayerObservations)
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // a missing or unreadable directory holds nothing
		}
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && path.Ext(d.Name()) == ".md" && !strings.HasPrefix(d.Name(), ".") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	files := make([]*ObsFile, len(paths))
	probs := make([]*Problem, len(paths))
	workers := max(1, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(paths); i += workers {
				if ctx.Err() != nil {
					return
				}
				files[i], probs[i] = readObsFile(paths[i], k.Rel(paths[i]))
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	var out []*ObsFile
	var problems []Problem
	for i := range paths {
		if probs[i] != nil {
			problems = append(problems, *probs[i])
		} else if files[i] != nil {
			out = append(out, files[i])
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, problems, nil
}

func readObsFile(abs, rel string) (*ObsFile, *Problem) {
	b, err := fsx.ReadFileNoFollow(abs) // found by a walk that never enters a symlink
	if err != nil {
		return nil, &Problem{Path: rel, Msg: err.Error(), Rule: "unreadable"}
	}
	return parseObsFile(rel, b)
}

// parseObsFile reads an observation from the bytes of its file.
func parseObsFile(rel string, b []byte) (*ObsFile, *Problem) {
	d, err := doc.ParseFrontmatter(rel, b)
	if err != nil {
		var pe *doc.ParseError
		if errors.As(err, &pe) {
			return nil, &Problem{Path: rel, Line: pe.Line, Msg: pe.Msg, Rule: "parse"}
		}
		return nil, &Problem{Path: rel, Msg: err.Error(), Rule: "parse"}
	}
	o, err := observations.FromMap(d.Fields)
	if err != nil {
		return nil, &Problem{Path: rel, Line: 1, Msg: err.Error(), Rule: "observation"}
	}
	if o.ID == "" {
		o.ID = NoteID(d)
	}
	want, _ := d.Fields[digestKey].(string)
	edited := want != "" && want != textDigest(o.ToMap(), d.Body)
	return &ObsFile{Obs: o, Path: rel, Edited: edited, raw: b}, nil
}

// textDigest hashes everything of an observation file that is not
// bookkeeping: the text a person might edit.
func textDigest(m map[string]any, body string) string {
	h := sha256.New()
	keys := make([]string, 0, len(m))
	skip := map[string]bool{digestKey: true, "status": true}
	for _, b := range bookkeeping {
		skip[b] = true
	}
	for k := range m {
		if !skip[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, _ := json.Marshal(m[k])
		fmt.Fprintf(h, "%s=%s\n", k, v)
	}
	// The body's sources line changes with bookkeeping; hash the rest.
	h.Write([]byte(stripSourcesLine(body)))
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func stripSourcesLine(body string) string {
	var keep []string
	for _, l := range strings.Split(strings.TrimSpace(body), "\n") {
		if !strings.HasPrefix(l, "Sources: ") {
			keep = append(keep, strings.TrimRight(l, " \t\r"))
		}
	}
	return strings.Join(keep, "\n")
}

// RenderObservation returns the file content of a new observation.
func RenderObservation(o *observations.Observation) ([]byte, error) {
	m := o.ToMap()
	body := o.Body()
	m[digestKey] = textDigest(m, body)
	var fields []doc.Field
	for _, k := range fieldOrder {
		if v, ok := m[k]; ok {
			fields = append(fields, doc.Field{Key: k, Value: v})
		}
	}
	fields = append(fields, doc.Field{Key: digestKey, Value: m[digestKey]})
	return doc.Render(fields, body)
}

// SaveObservation writes an observation atomically: a new file, or an
// update of an existing one. An existing file a person edited keeps its
// text; only bookkeeping fields change, surgically. The caller holds the
// KB write lock. It reports whether the file changed.
func (k *KB) SaveObservation(o *observations.Observation, existing *ObsFile) (string, bool, error) {
	rel, out, changed, err := renderObservationFile(o, existing)
	if err != nil || !changed {
		return rel, false, err
	}
	abs, err := k.Path(rel)
	if err != nil {
		return rel, false, err
	}
	if err := k.files().WriteFile(abs, out, 0o644); err != nil {
		return rel, false, fmt.Errorf("save observation %s: %w", rel, err)
	}
	return rel, true, nil
}

// renderObservationFile returns the path and the bytes SaveObservation
// would write, and whether they differ from the existing file.
func renderObservationFile(o *observations.Observation, existing *ObsFile) (rel string, out []byte, changed bool, err error) {
	if o.ID == "" {
		o.ID = o.MakeID()
	}
	rel = ObservationPath(o.Type, o.ID)
	if existing != nil {
		rel = existing.Path
	}
	if existing == nil || !existing.Edited {
		if out, err = RenderObservation(o); err != nil {
			return rel, nil, false, err
		}
		if existing != nil {
			// Keep keys a person added (unknown to kb) and the digest logic:
			// re-render, then carry over foreign keys surgically.
			old, perr := doc.ParseFrontmatter(rel, existing.raw)
			if perr == nil {
				known := map[string]bool{digestKey: true}
				for _, f := range fieldOrder {
					known[f] = true
				}
				extra := map[string]any{}
				for key, v := range old.Fields {
					if !known[key] {
						extra[key] = v
					}
				}
				if len(extra) > 0 {
					if out, err = doc.Update(out, extra, nil); err != nil {
						return rel, nil, false, err
					}
				}
			}
		}
	} else {
		m := o.ToMap()
		set := map[string]any{}
		for _, key := range bookkeeping {
			set[key] = m[key] // nil deletes: a field that became empty
		}
		if out, err = doc.Update(existing.raw, set, nil); err != nil {
			return rel, nil, false, err
		}
	}
	if existing != nil && bytes.Equal(out, existing.raw) {
		return rel, out, false, nil
	}
	return rel, out, true, nil
}

// Tombstone marks a forgotten observation so that re-extraction never
// brings it back. Tombstones live in git beside the observations.
type Tombstone struct {
	ID   string    `json:"id"`
	Key  string    `json:"key"`
	Type string    `json:"type"`
	Why  string    `json:"why,omitempty"`
	At   time.Time `json:"at"`
}

// TombstoneFile holds one JSON tombstone per line.
const TombstoneFile = "observations/tombstones.jsonl"

// Tombstones reads the tombstones.
func (k *KB) Tombstones() ([]Tombstone, error) {
	b, err := k.files().ReadFile(filepath.Join(k.Root, filepath.FromSlash(TombstoneFile)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Tombstone
	for i, line := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var t Tombstone
		if err := json.Unmarshal(line, &t); err != nil {
			k.logf("%s:%d: skipping malformed tombstone: %v", TombstoneFile, i+1, err)
			continue
		}
		out = append(out, t)
	}
	return out, nil
}

// Forgotten reports whether an observation matches a tombstone, by id or
// by dedup key.
func Forgotten(ts []Tombstone, o *observations.Observation) bool {
	key := o.Key()
	for _, t := range ts {
		if (t.ID != "" && t.ID == o.ID) || (t.Key != "" && t.Key == key) {
			return true
		}
	}
	return false
}

// Forget deletes an observation and leaves a tombstone. The caller holds
// the write lock.
func (k *KB) Forget(ctx context.Context, id, why string) (*Tombstone, error) {
	files, _, err := k.LoadObservations(ctx)
	if err != nil {
		return nil, err
	}
	var f *ObsFile
	for _, x := range files {
		if x.Obs.ID == id || strings.TrimSuffix(path.Base(x.Path), ".md") == id {
			f = x
			break
		}
	}
	if f == nil {
		return nil, fmt.Errorf("observation %q: %w", id, ErrNotFound)
	}
	t := Tombstone{ID: f.Obs.ID, Key: f.Obs.Key(), Type: f.Obs.Type, Why: why, At: time.Now().UTC()}
	line, _ := json.Marshal(t)
	tp := filepath.Join(k.Root, filepath.FromSlash(TombstoneFile))
	old, err := k.files().ReadFile(tp)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if len(old) > 0 && old[len(old)-1] != '\n' {
		old = append(old, '\n')
	}
	// Tombstone first, then delete: a crash in between leaves a tombstoned
	// file, which the next extract or forget cleans up; never a lost tombstone.
	if err := k.files().WriteFile(tp, append(old, append(line, '\n')...), 0o644); err != nil {
		return nil, err
	}
	abs, err := k.Path(f.Path)
	if err != nil {
		return nil, err
	}
	if err := k.files().Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return &t, fsx.SyncDir(filepath.Dir(abs))
}
