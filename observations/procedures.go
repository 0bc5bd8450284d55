package observations

import (
	"encoding/json"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/kbmem/kb/internal/lexicon"
	"github.com/kbmem/kb/traces"
)

// Procedure mining: a procedure is the person's. What counts is what they
// asked for repeatedly: each message the person typed opens a run, the
// tool calls the agent made for it (normalized to steps: tool name plus
// argument shape, "Bash: git commit", "Edit *.go", "Read"; consecutive
// repeats collapsed) until the next message. A sequence of
// MinProcedureLen to MaxProcedureLen steps that ran after similar requests
// (sharing their content words) in at least minSessions sessions is a
// procedure, its goal the words those requests share. Tool-call routines
// with no request behind them (Read -> Edit -> TodoWrite) are how agents
// work, not procedures of the project; the gate calls them obvious. Only
// calls the person let run count: a refused call is not a step.

const (
	MinProcedureLen = 2
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
	req  int // index of the person's request the step ran for, -1 before any
}

// steps turns a session into its normalized step sequence, and returns the
// person's requests (what they typed) the steps ran for.
func steps(s *Session) ([]step, []string) {
	rejected := map[string]bool{}
	for i := range s.Records {
		r := &s.Records[i]
		if isRejection(r) && r.CallID != "" {
			rejected[r.CallID] = true
		}
	}
	var out []step
	var reqs []string
	for i := range s.Records {
		r := &s.Records[i]
		if r.Human() && !r.Has(traces.MarkRejected) && !r.Has(traces.MarkCompaction) {
			if text := prose(cleanHuman(r.Text)); text != "" && !harnessTextRE.MatchString(text) {
				reqs = append(reqs, text)
			}
			continue
		}
		if !isToolCall(r) || (r.CallID != "" && rejected[r.CallID]) {
			continue
		}
		name := stepName(r)
		if name == "" {
			continue
		}
		req := len(reqs) - 1
		if len(out) > 0 && out[len(out)-1].name == name && out[len(out)-1].req == req {
			continue
		}
		out = append(out, step{name, i, req})
	}
	return out, reqs
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
			argv := ShellWords(seg)
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
		from, to int    // record indexes
		request  string // what the person asked for
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
		st, reqs := steps(s)
		for n := MinProcedureLen; n <= MaxProcedureLen; n++ {
			for i := 0; i+n <= len(st); i++ {
				if st[i].req < 0 || st[i+n-1].req != st[i].req {
					continue // a run is the steps of one request
				}
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
					support[key][id] = inst{s, st[i].idx, st[i+n-1].idx, reqs[st[i].req]}
				}
			}
		}
	}
	goals := map[string]string{}
	var keys []string
	for k, m := range support {
		if len(m) < minSessions {
			continue
		}
		reqs := map[string]string{}
		for id, in := range m {
			reqs[id] = in.request
		}
		goal, ids := sharedRequest(reqs, minSessions)
		if goal == "" {
			continue
		}
		for id := range m {
			if !slices.Contains(ids, id) {
				delete(m, id)
			}
		}
		goals[k] = goal
		keys = append(keys, k)
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
			Type: TypeProcedure, Title: shorten(capitalize(goals[k]), 80),
			Description: "What ran after the person asked to " + goals[k] + ", in " + itoa(len(ids)) + " sessions",
			Goal:        goals[k], Steps: names,
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

// sharedRequest finds what the requests of several sessions (session id ->
// request) ask for alike: the content words found in at least minSessions
// of them, at least one of them more than what every agent does ("run",
// "test", "fix"). It returns the goal, the first supporting request cut to
// those words, and the sessions whose request holds at least two of them
// (all of them when there is one) and is at least half made of them. No goal: the runs were for unrelated
// requests.
func sharedRequest(reqs map[string]string, minSessions int) (string, []string) {
	ids := make([]string, 0, len(reqs))
	for id := range reqs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	count := map[string]int{}
	stemsOf := map[string]map[string]bool{}
	for _, id := range ids {
		st := contentStems(firstRequestSentence(reqs[id]))
		stemsOf[id] = st
		for w := range st {
			count[w]++
		}
	}
	core := map[string]bool{}
	concrete := false
	for w, n := range count {
		if n >= minSessions {
			core[w] = true
			concrete = concrete || !genericPractice.Has(w)
		}
	}
	if !concrete {
		return "", nil
	}
	need := min(2, len(core))
	var support []string
	for _, id := range ids {
		n := 0
		for w := range stemsOf[id] {
			if core[w] {
				n++
			}
		}
		// The request is mostly what the others ask too: a long message
		// that shares a few words with others asks for something else.
		if n >= need && 2*n >= len(stemsOf[id]) {
			support = append(support, id)
		}
	}
	if len(support) < minSessions {
		return "", nil
	}
	// The goal: the first supporter's words, from its first core word to
	// its last, without the words the others do not share.
	ws := strings.Fields(firstRequestSentence(reqs[support[0]]))
	first, last := -1, -1
	for i, w := range ws {
		if st := contentStems(w); len(st) > 0 {
			for x := range st {
				if core[x] {
					if first < 0 {
						first = i
					}
					last = i
				}
			}
		}
	}
	if first < 0 {
		return "", nil
	}
	var goal []string
	for _, w := range ws[first : last+1] {
		st := contentStems(w)
		keep := len(st) == 0 // a stop word between shared ones
		for x := range st {
			keep = keep || core[x]
		}
		if keep {
			goal = append(goal, w)
		}
	}
	g := strings.Trim(strings.Join(goal, " "), " .,;:!?")
	return lexicon.LowerFirst(g), support
}

// firstRequestSentence is the first sentence of a request, which says what
// is asked.
func firstRequestSentence(s string) string {
	if ss := sentences(s); len(ss) > 0 {
		return ss[0]
	}
	return s
}

func allReadOnly(names []string) bool {
	for _, n := range names {
		if !readOnlyTools[n] {
			return false
		}
	}
	return true
}
