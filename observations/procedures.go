package observations

import (
	"encoding/json"
	"path"
	"sort"
	"strings"

	"github.com/kbmem/kb/traces"
)

// Procedure mining: each session becomes a sequence of normalized steps
// (tool name plus argument shape: "Bash: git commit", "Edit *.go", "Read"),
// consecutive repeats collapsed; n-grams of length MinProcedureLen to
// MaxProcedureLen that occur in at least minSessions sessions are
// procedures. Only calls the person let run count: a refused call is not a
// step, so what becomes a procedure is what the user accepted.

const (
	MinProcedureLen = 3
	MaxProcedureLen = 6
	maxProcedures   = 20
)

// multiVerb lists commands whose first argument names the operation.
var multiVerb = map[string]bool{"git": true, "go": true, "npm": true, "yarn": true, "pnpm": true, "cargo": true, "uv": true,
	"docker": true, "kubectl": true, "make": true, "poetry": true, "pip": true, "pip3": true, "terraform": true, "gh": true,
	"helm": true, "bun": true, "dotnet": true, "mvn": true, "gradle": true, "kb": true, "rails": true, "bundle": true}

var readOnlyTools = map[string]bool{"Read": true, "Grep": true, "Glob": true, "LS": true, "read_file": true,
	"list_directory": true, "search_file_content": true, "TodoWrite": true, "update_plan": true}

type step struct {
	name string
	idx  int // record index
}

// steps turns a session into its normalized step sequence.
func steps(s *Session) []step {
	rejected := map[string]bool{}
	for i := range s.Records {
		r := &s.Records[i]
		if isRejection(r) && r.CallID != "" {
			rejected[r.CallID] = true
		}
	}
	var out []step
	for i := range s.Records {
		r := &s.Records[i]
		if !isToolCall(r) || (r.CallID != "" && rejected[r.CallID]) {
			continue
		}
		name := stepName(r)
		if name == "" {
			continue
		}
		if len(out) > 0 && out[len(out)-1].name == name {
			continue
		}
		out = append(out, step{name, i})
	}
	return out
}

var boringCommands = map[string]bool{"cd": true, "echo": true, "export": true, "source": true, "set": true, "true": true,
	"sleep": true, "clear": true, "pwd": true}

func stepName(r *traces.Record) string {
	lt := strings.ToLower(r.Tool)
	var m map[string]any
	_ = json.Unmarshal(r.Input, &m)
	switch {
	case shellTools[lt] || m["command"] != nil && !editTools[lt]:
		var cmd string
		switch c := m["command"].(type) {
		case string:
			cmd = c
		case []any:
			var parts []string
			for _, x := range c {
				if s, ok := x.(string); ok {
					parts = append(parts, s)
				}
			}
			if n := len(parts); n >= 3 && shells[path.Base(parts[0])] {
				cmd = parts[n-1]
			} else {
				cmd = strings.Join(parts, " ")
			}
		}
		if cmd == "" {
			if c, ok := m["cmd"].(string); ok {
				cmd = c
			}
		}
		for _, seg := range fallbackSplitRE.Split(cmd, 16) {
			argv := tokenize(seg)
			for len(argv) > 0 && strings.Contains(argv[0], "=") {
				argv = argv[1:]
			}
			for guard := 0; len(argv) > 0 && guard < 4; guard++ {
				next := unwrap(argv)
				if next == nil {
					break
				}
				argv = next
			}
			if len(argv) == 0 || boringCommands[path.Base(argv[0])] {
				continue
			}
			name := path.Base(argv[0])
			if multiVerb[name] {
				for _, a := range argv[1:] {
					if !strings.HasPrefix(a, "-") {
						name += " " + a
						break
					}
				}
			}
			return "Bash: " + name
		}
		return ""
	case editTools[lt]:
		for _, k := range pathKeys {
			if p, ok := m[k].(string); ok && p != "" {
				ext := path.Ext(p)
				if ext == "" {
					ext = path.Base(p)
				} else {
					ext = "*" + ext
				}
				return r.Tool + " " + ext
			}
		}
		return r.Tool
	case lt == "apply_patch":
		return "apply_patch"
	}
	return r.Tool
}

// Procedures mines recurring tool-call subsequences across sessions: every
// n-gram of normalized steps (length 3 to 6) seen in at least minSessions
// distinct sessions, without the n-grams a longer one with the same support
// already covers, and without all-read-only sequences.
func Procedures(sessions []*Session, minSessions int) []*Observation {
	if minSessions < 2 {
		minSessions = 2
	}
	type inst struct {
		sess     *Session
		from, to int // record indexes
	}
	support := map[string]map[string]inst{} // gram -> session id -> first instance
	for si, s := range sessions {
		if s == nil {
			continue
		}
		id := s.ID
		if id == "" {
			id = "#" + itoa(si)
		}
		st := steps(s)
		for n := MinProcedureLen; n <= MaxProcedureLen; n++ {
			for i := 0; i+n <= len(st); i++ {
				names := make([]string, n)
				for j := range n {
					names[j] = st[i+j].name
				}
				if allReadOnly(names) {
					continue
				}
				key := strings.Join(names, "\x00")
				if support[key] == nil {
					support[key] = map[string]inst{}
				}
				if _, ok := support[key][id]; !ok {
					support[key][id] = inst{s, st[i].idx, st[i+n-1].idx}
				}
			}
		}
	}
	var keys []string
	for k, m := range support {
		if len(m) >= minSessions {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if len(support[a]) != len(support[b]) {
			return len(support[a]) > len(support[b])
		}
		la, lb := strings.Count(a, "\x00"), strings.Count(b, "\x00")
		if la != lb {
			return la > lb
		}
		return a < b
	})
	var kept []string
	for _, k := range keys {
		covered := false
		for _, l := range kept {
			if len(support[l]) >= len(support[k]) && strings.Contains("\x00"+l+"\x00", "\x00"+k+"\x00") {
				covered = true
				break
			}
		}
		if !covered {
			kept = append(kept, k)
		}
		if len(kept) >= maxProcedures {
			break
		}
	}
	var out []*Observation
	for _, k := range kept {
		names := strings.Split(k, "\x00")
		var ids []string
		for id := range support[k] {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		o := &Observation{
			Type: TypeProcedure, Title: shorten("Recurring: "+strings.Join(names, " → "), 80),
			Description: "Tool-call sequence seen in " + itoa(len(ids)) + " sessions",
			Goal:        "Recurring workflow: " + strings.Join(names, " → "), Steps: names,
			Confidence: clamp01(0.3 + 0.1*float64(len(ids))), Importance: clamp01(0.25 + 0.05*float64(len(ids)+len(names))),
			Signals: []string{SignalRecurrence},
		}
		for _, id := range ids {
			in := support[k][id]
			tl := &timeline{s: in.sess}
			ref := tl.sourceRef(in.from, in.to)
			if in.sess.ID == "" {
				ref.Session = id
			}
			o.Sources = append(o.Sources, ref)
		}
		sort.SliceStable(o.Sources, func(i, j int) bool { return o.Sources[i].Time.Before(o.Sources[j].Time) })
		finish(o)
		out = append(out, o)
	}
	return out
}

func allReadOnly(names []string) bool {
	for _, n := range names {
		if !readOnlyTools[n] {
			return false
		}
	}
	return true
}
