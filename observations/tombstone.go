package observations

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/kbmem/kb/internal/diag"
)

// Tombstone marks a forgotten observation so that re-extraction never
// brings it back. Tombstones live in git beside the observations.
type Tombstone struct {
	ID   string `json:"id"`
	Key  string `json:"key"`
	Type string `json:"type"`
	Why  string `json:"why,omitempty"`
	// Into is the id of the observation this one was folded into (Fold):
	// its id now resolves there, and a candidate extracted with it merges
	// there. Empty for a forgotten observation.
	Into string    `json:"into,omitempty"`
	At   time.Time `json:"at"`
}

// TombstoneFile holds one JSON tombstone per line, relative to the KB root.
const TombstoneFile = Dir + "/tombstones.jsonl"

// TombstoneOf is the tombstone that forgets o.
func TombstoneOf(o *Observation, why string, at time.Time) Tombstone {
	return Tombstone{ID: o.ID, Key: o.Key(), Type: o.Type, Why: why, At: at.UTC()}
}

// ParseTombstones reads the lines of TombstoneFile. A malformed line is a
// problem and skipped: a torn last line must not resurrect what the lines
// before it forgot.
func ParseTombstones(b []byte) ([]Tombstone, []diag.Problem) {
	var out []Tombstone
	var probs []diag.Problem
	for i, line := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var t Tombstone
		if err := json.Unmarshal(line, &t); err != nil {
			probs = append(probs, diag.Problem{Path: TombstoneFile, Line: i + 1, Msg: "skipping malformed tombstone: " + err.Error(), Rule: "parse"})
			continue
		}
		out = append(out, t)
	}
	return out, probs
}

// AppendTombstone returns the content of TombstoneFile with t added.
func AppendTombstone(file []byte, t Tombstone) []byte {
	line, _ := json.Marshal(t)
	out := append([]byte(nil), file...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return append(append(out, line...), '\n')
}

// Forgotten reports whether an observation matches a tombstone, by id or
// by dedup key.
func Forgotten(ts []Tombstone, o *Observation) bool {
	key := o.Key()
	for _, t := range ts {
		if t.Into != "" {
			continue // folded, not forgotten (Redirect)
		}
		if (t.ID != "" && t.ID == o.ID) || (t.Key != "" && t.Key == key) {
			return true
		}
	}
	return false
}

// Tombstoned reports whether a tombstone names the observation id.
func Tombstoned(ts []Tombstone, id string) bool {
	for _, t := range ts {
		if t.ID != "" && t.ID == id {
			return true
		}
	}
	return false
}

// forgetting tells whether a candidate was forgotten: by id, by dedup key,
// or as a near-duplicate of what was forgotten, so that the same
// correction seen again in another session stays forgotten.
type forgetting struct {
	ts  []Tombstone
	obs []*Observation // rebuilt from the tombstones' keys, for Similar
}

func newForgetting(ts []Tombstone) *forgetting {
	f := &forgetting{ts: ts}
	for _, t := range ts {
		if o := tombstoneObservation(t); o != nil {
			f.obs = append(f.obs, o)
		}
	}
	return f
}

func (f *forgetting) forgotten(n *Observation) bool {
	if Forgotten(f.ts, n) {
		return true
	}
	for _, t := range f.obs {
		if Similar(t, n) {
			return true
		}
	}
	return false
}

// tombstoneObservation rebuilds, from a tombstone's dedup key
// ("type|action,types|content stems"), an observation that Similar can
// compare with.
func tombstoneObservation(t Tombstone) *Observation {
	parts := strings.SplitN(t.Key, "|", 3)
	if len(parts) != 3 || parts[0] == "" || strings.TrimSpace(parts[2]) == "" {
		return nil
	}
	var types []string
	if parts[1] != "" {
		types = strings.Split(parts[1], ",")
	}
	return WithText(parts[0], parts[2], types)
}
